from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('lobby', '0002_seat_handover'),
    ]

    operations = [
        # Set for the tables that have a running game by gameplay's 0005_table_in_game.
        migrations.AddField(
            model_name='table',
            name='in_game',
            field=models.BooleanField(default=False),
        ),
    ]
