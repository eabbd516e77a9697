from django.apps import AppConfig


class LobbyConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "lobby"

    def ready(self) -> None:
        from django.urls import register_converter

        from lobby.converters import TableCodeConverter

        # Before any urlconf is built: both the HTTP routes and the socket's use <code:…>.
        register_converter(TableCodeConverter, "code")
