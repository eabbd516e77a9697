import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('gameplay', '0007_bot_due'),
        ('lobby', '0004_table_host_link'),
    ]

    operations = [
        migrations.AddField(
            model_name='game',
            name='moderator',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL,
                                    related_name='moderated_games', to='lobby.player'),
        ),
    ]
