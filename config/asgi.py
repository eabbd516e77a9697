"""ASGI entry point: HTTP through Django, websockets through Channels (origin-checked, session auth)."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from gameplay.consumers import SameOriginValidator  # noqa: E402
from gameplay.routing import websocket_urlpatterns  # noqa: E402
from gameplay.worker import start_worker_thread  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": AllowedHostsOriginValidator(
            SameOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns)))
        ),
    }
)

if os.environ.get("GAME_WORKER", "1") == "1":
    start_worker_thread()
