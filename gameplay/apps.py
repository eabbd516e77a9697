from django.apps import AppConfig


class GameplayConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "gameplay"

    def ready(self) -> None:
        from lobby.signals import guest_merged

        guest_merged.connect(_guest_merged, dispatch_uid="gameplay.guest_merged")


def _guest_merged(sender, *, guest, into, **kwargs) -> None:
    """The lobby merged a guest into an account: their games follow (see ``player_games_merge``)."""
    from gameplay.services import player_games_merge

    player_games_merge(guest=guest, into=into)
