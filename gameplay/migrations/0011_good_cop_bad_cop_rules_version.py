# Good Cop Bad Cop games dealt before rules versions existed name version 1 (issue 26, item 8).
#
# A game is replayed from its options, seed and moves. From rules version 2 the engine skips an aim step
# with no choice (no End turn tap), and a deal whose options name no version plays the current rules;
# the games stored before played version 1 (every turn had an aim step), so their options say so here.
# Only the options change: a version-1 state names no version (engines/good_cop_bad_cop/engine.py _setup),
# so replays still match the stored snapshots.

from django.db import migrations

ENGINE = "good_cop_bad_cop"
KEY = "rules_version"


def name_version_1(apps, schema_editor):
    Game = apps.get_model("gameplay", "Game")
    for game in Game.objects.filter(engine=ENGINE).only("options").iterator():
        if KEY not in game.options:
            game.options = {**game.options, KEY: 1}
            game.save(update_fields=["options"])


def unname_version_1(apps, schema_editor):
    Game = apps.get_model("gameplay", "Game")
    for game in Game.objects.filter(engine=ENGINE).only("options").iterator():
        if game.options.get(KEY) == 1:
            game.options = {key: value for key, value in game.options.items() if key != KEY}
            game.save(update_fields=["options"])


class Migration(migrations.Migration):

    dependencies = [
        ('gameplay', '0010_game_night'),
    ]

    operations = [
        migrations.RunPython(name_version_1, unname_version_1),
    ]
