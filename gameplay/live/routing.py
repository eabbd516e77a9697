"""The socket's route (Channels), named so pages can reverse it.

This module is also a urlconf of its own: ``reverse("table_socket", args=[code],
urlconf="gameplay.live.routing")`` gives a table's socket path (the ``{% table_socket_url %}`` tag).
``<code:…>`` is the lobby's table-code converter, as in ``config/urls.py``.
"""

from django.urls import path

from gameplay.live.consumers import TableConsumer

websocket_urlpatterns = [path("ws/t/<code:code>/", TableConsumer.as_asgi(), name="table_socket")]
urlpatterns = websocket_urlpatterns
