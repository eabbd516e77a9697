"""The gameplay app: what it does when the lobby tells it of a guest merged into an account or a new host."""

from django.apps import AppConfig


class GameplayConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "gameplay"

    def ready(self) -> None:
        from lobby.signals import guest_merged, host_changed

        guest_merged.connect(_guest_merged, dispatch_uid="gameplay.guest_merged")
        host_changed.connect(_host_changed, dispatch_uid="gameplay.host_changed")


def _guest_merged(sender, *, guest, into, **kwargs) -> None:
    """The lobby merged a guest into an account: their games follow (see ``player_games_merge``)."""
    from gameplay.services import player_games_merge

    player_games_merge(guest=guest, into=into)


def _host_changed(sender, *, table_id, host_id, **kwargs) -> None:
    """The lobby passed the host role on: a seatless new host moderates the running game (``game_moderator_follow``)."""
    from gameplay.screens.moderator import game_moderator_follow

    game_moderator_follow(table_id=table_id, host_id=host_id)
