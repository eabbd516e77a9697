"""The project's top floor: settings, URLs and the ASGI entry point (nothing imports it but Django)."""
