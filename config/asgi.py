"""ASGI entry point: HTTP through Django, websockets through Channels (origin-checked, session auth).

Importing it builds ``application`` and nothing else; what a server process does once at start-up is
:func:`start_up`, which the server's import of this module calls last (``config.asgi:application`` is what
daphne loads, ``make run`` and ``make serve`` alike).
"""

import os

from a2wsgi import WSGIMiddleware
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# Pages and moves: Django's synchronous handler on a bounded pool of threads (a2wsgi), one
# thread hop a request. Django's own ASGI handler starts a thread per request and crosses
# between the event loop and threads several times per request; under load that cost more
# CPU than the views and queued every request behind the GIL (docs/performance.md).
HTTP_THREADS = int(os.environ.get("HTTP_THREADS", "8"))
django_http_app = WSGIMiddleware(get_wsgi_application(), workers=HTTP_THREADS)

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from gameplay.live.consumers import SameOriginValidator  # noqa: E402
from gameplay.live.routing import websocket_urlpatterns  # noqa: E402
from gameplay.worker import start_worker_thread  # noqa: E402
from infra.body_limit import BodyLimit  # noqa: E402
from infra.daphne_patch import patch_daphne  # noqa: E402
from infra.socket_bounds import SocketBounds  # noqa: E402
from infra.warm import warm_and_freeze  # noqa: E402

application = ProtocolTypeRouter(
    {
        # A body over a few hundred KB is refused (413) before anything buffers it (infra/body_limit.py).
        "http": BodyLimit(django_http_app),
        # What a socket may send is bounded (size, rate, queue) before the consumer sees it (infra/socket_bounds.py).
        "websocket": SocketBounds(AllowedHostsOriginValidator(
            SameOriginValidator(AuthMiddlewareStack(URLRouter(websocket_urlpatterns)))
        )),
    }
)


def start_up() -> None:
    """What a server process does once before it serves: daphne taught the bounds below the ASGI interface
    (``infra.daphne_patch``: the body limit while it reads, unsent output, a refused client read no more); the
    templates compiled and the catalogs loaded, then frozen out of the garbage collector's full walks (80–140 ms
    pauses in the middle of requests otherwise; ``infra.warm``; ``GC_FREEZE=0`` leaves the collector as it
    was); and this process's game worker thread (timers and bots; ``GAME_WORKER=0``: none)."""
    patch_daphne()
    if os.environ.get("GC_FREEZE", "1") == "1":
        warm_and_freeze()
    if os.environ.get("GAME_WORKER", "1") == "1":
        start_worker_thread()


start_up()
