"""The tools app, so the load, chaos and bench tools run as management commands."""

from django.apps import AppConfig


class ToolsConfig(AppConfig):
    """The load, chaos and bench tools' management commands (``manage.py loadtest`` and the rest)."""

    name = "tools"
