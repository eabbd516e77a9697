"""Error reports (the debug page, mailed reports) that never show a password written inside a URL."""

from __future__ import annotations

import re

from django.views.debug import SafeExceptionReporterFilter

# scheme://user:password@host -> the password part; a password may itself hold "@" (the last one
# before the host counts, as urllib.parse reads it), never "/" or whitespace.
URL_PASSWORD = re.compile(r"(?P<head>\b[a-z][a-z0-9+.-]*://[^:/@\s]*:)(?P<password>[^/\s]+)(?P<tail>@)", re.I)


class UrlPasswordFilter(SafeExceptionReporterFilter):
    """Django's filter, plus: credentials inside URL strings are starred wherever they appear.

    Django stars settings by name (``...PASS...``, ``...KEY...``), but ``REDIS_URL``, the channel
    layer's ``hosts`` and the cache's ``LOCATION`` carry the Redis password inside a URL.
    """

    def mask(self, text: str) -> str:
        """``text`` with the password of every ``scheme://user:password@`` replaced by stars."""
        return URL_PASSWORD.sub(lambda m: m["head"] + self.cleansed_substitute + m["tail"], text)

    def cleanse_setting(self, key, value):
        """Settings and request.META (both pass through here), with URL passwords starred too."""
        cleansed = super().cleanse_setting(key, value)
        return self.mask(cleansed) if isinstance(cleansed, str) else cleansed

    def cleanse_special_types(self, request, value):
        """A traceback frame's variable: a string holding a URL loses its password too."""
        cleansed = super().cleanse_special_types(request, value)
        return self.mask(cleansed) if isinstance(cleansed, str) else cleansed
