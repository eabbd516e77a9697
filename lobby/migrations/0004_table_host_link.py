from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('lobby', '0003_table_in_game'),
    ]

    operations = [
        migrations.AddField(
            model_name='table',
            name='host_link',
            field=models.CharField(blank=True, default='', max_length=64),
        ),
        migrations.AddField(
            model_name='table',
            name='host_link_made',
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name='table',
            name='host_since',
            field=models.DateTimeField(blank=True, null=True),
        ),
    ]
