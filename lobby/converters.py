"""The ``<code:…>`` path converter: a table code as a person typed it, normalized once.

Registered by ``LobbyConfig.ready()`` (before any urlconf is built: the HTTP routes in
``config/urls.py`` and the socket's in ``gameplay/live/routing.py`` both use it). A view gets the
code upper-cased, letters and digits only; the lookup (and the counting of unknown codes) is
``lobby.views.table_or_404``.
"""

from __future__ import annotations

from lobby.services import normalize_code


class TableCodeConverter:
    """Any path segment; the view receives ``normalize_code`` of it ("ab-cde" -> "ABCDE")."""

    # Anything up to the next slash, as <str:…> did: an odd code is a 404 (counted), never a 400.
    regex = "[^/]+"

    def to_python(self, value: str) -> str:
        return normalize_code(value)

    def to_url(self, value: str) -> str:
        return str(value)
