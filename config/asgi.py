"""ASGI entry point: HTTP through Django, websockets through Channels (origin-checked, session auth)."""

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
from infra.body_limit import BodyLimit, guard_daphne  # noqa: E402
from infra.socket_bounds import SocketBounds, guard_daphne_output  # noqa: E402

# Daphne reads a whole body before it calls the application: it is taught the same limit itself.
guard_daphne()
# A socket that does not read is dropped once its unsent output passes a bound (infra/socket_bounds.py).
guard_daphne_output()

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

# Templates compiled, catalogs loaded, then frozen out of the garbage collector's full walks (80–140 ms
# pauses in the middle of requests before; infra/warm.py). GC_FREEZE=0 leaves the collector as it was.
if os.environ.get("GC_FREEZE", "1") == "1":
    from infra.warm import warm_and_freeze  # noqa: E402

    warm_and_freeze()

if os.environ.get("GAME_WORKER", "1") == "1":
    start_worker_thread()
