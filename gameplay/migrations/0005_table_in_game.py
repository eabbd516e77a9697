"""Tables with a running game say so on the table row (``lobby.Table.in_game``)."""

from django.db import migrations


def mark_running(apps, schema_editor):
    Table = apps.get_model("lobby", "Table")
    Table.objects.filter(games__status="running").update(in_game=True)


def unmark(apps, schema_editor):
    apps.get_model("lobby", "Table").objects.update(in_game=False)


class Migration(migrations.Migration):

    dependencies = [
        ('gameplay', '0004_seat_handover'),
        ('lobby', '0003_table_in_game'),
    ]

    operations = [
        migrations.RunPython(mark_running, unmark),
    ]
