"""The lobby app: at start, the table-code path converter and the lobby's own signal receiver."""

from django.apps import AppConfig


class LobbyConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "lobby"

    def ready(self) -> None:
        from django.urls import register_converter

        from lobby.converters import TableCodeConverter
        from lobby.groups import memberships_merge
        from lobby.signals import guest_merged

        # Before any urlconf is built: both the HTTP routes and the socket's use <code:…>.
        register_converter(TableCodeConverter, "code")
        # A guest who logs in to an account brings the groups they joined as a guest.
        guest_merged.connect(memberships_merge, dispatch_uid="lobby.memberships_merge")
