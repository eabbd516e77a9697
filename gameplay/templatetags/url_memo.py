"""``{% url %}``, each URL built once per process: Django's tag, with ``reverse`` remembered.

A phone's panel names about ten URLs (its move form, its refresh, the host's controls), and a
push renders a panel for every phone of the table, each ``reverse`` doing regex and quoting work
(its cost: docs/performance.md). A URL depends only on the view name, its arguments, the app, the
script prefix and the URLconf, so this tag keeps each answer for those, in a bounded table, and
answers exactly what Django's ``{% url %}`` answers. Anything else (``as`` a variable, an argument
that is not exactly a string or an int, a lazy view name) goes through Django's tag itself; a name
that does not reverse raises as Django's tag raises (errors are never kept). Registered as a
builtin (``config/settings.py``), so it takes the place of Django's ``{% url %}`` in every template.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from django import template
from django.template.defaulttags import URLNode
from django.template.defaulttags import url as django_url
from django.urls import get_script_prefix, get_urlconf, reverse
from django.utils.html import conditional_escape
from django.utils.safestring import SafeString

register = template.Library()

# Distinct URLs kept: about twenty per table, so a café of 200 tables uses a fifth of it.
URLS_KEPT = 16_384


@lru_cache(maxsize=URLS_KEPT)
def remembered_reverse(view_name: str, args: tuple, kwargs: tuple, current_app: str | None,
                       prefix: str, urlconf: Any) -> str:
    """``reverse`` for these arguments (``prefix``: the script prefix it reads; part of the key)."""
    return reverse(view_name, urlconf=urlconf, args=args, kwargs=dict(kwargs), current_app=current_app)


def url_of(view_name: str, *args: str | int) -> str:
    """``reverse(view_name, args=args)``, remembered (the views' and the Jinja templates' ``url()``)."""
    return remembered_reverse(view_name, args, (), None, get_script_prefix(), get_urlconf())


# Argument types whose equal values always reverse alike (a bool equals 1, a str-mixin Enum member its
# value, yet Django reverses them as "True" and "Kind.A"): only these are keys.
_PLAIN_TYPES = frozenset({str, int, SafeString})


def _plain(value: Any) -> bool:
    return type(value) in _PLAIN_TYPES


def _current_app(context: template.Context) -> str | None:
    """The app ``{% url %}`` reverses for: the request's ``current_app``, else its namespace."""
    request: Any = getattr(context, "request", None)
    if hasattr(request, "current_app"):
        return request.current_app
    return getattr(getattr(request, "resolver_match", None), "namespace", None)


class RememberedURLNode(URLNode):
    def render(self, context: template.Context) -> str:
        view_name = self.view_name.resolve(context)
        args = tuple(arg.resolve(context) for arg in self.args)
        kwargs = tuple(sorted((name, value.resolve(context)) for name, value in self.kwargs.items()))
        plain = type(view_name) in (str, SafeString) and all(map(_plain, (*args, *(v for _, v in kwargs))))
        if self.asvar or not plain:
            return super().render(context)
        url = remembered_reverse(view_name, args, kwargs, _current_app(context), get_script_prefix(), get_urlconf())
        return conditional_escape(url) if context.autoescape else url


@register.tag
def url(parser: template.base.Parser, token: template.base.Token) -> RememberedURLNode:
    """Django's ``{% url %}`` (same syntax, same answer), remembered per process."""
    node = django_url(parser, token)
    return RememberedURLNode(node.view_name, node.args, node.kwargs, node.asvar)
