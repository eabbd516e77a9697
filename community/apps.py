"""The community app: groups, game nights, stats, ratings and charts, after the games (no models of its own:
``GameNight`` is ``gameplay``'s, ``Group`` and ``Membership`` are ``lobby``'s)."""

from django.apps import AppConfig


class CommunityConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "community"

    def ready(self) -> None:
        # The board shows a table's game-night scoreboard between games: gameplay's templates call the hook,
        # this app fills it (gameplay never imports community).
        from community.templatetags.group_tags import night_scoreboard
        from gameplay.screens import jinja

        jinja.night_scoreboard_from(night_scoreboard)
