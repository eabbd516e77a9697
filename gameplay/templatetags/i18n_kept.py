"""Django's ``i18n`` tag library, with ``{% translate "a literal" %}`` translated once per language.

A builtin of every template (``config/settings.py``), so no template loads ``i18n``: a ``{% load i18n %}``
would put Django's own tags back in its place (``tests/gameplay/test_translate_kept.py`` keeps them out).
It has Django's tags and filters, and one change: a ``{% translate %}`` of a string literal (no filter, no
``context``, not ``noop``) keeps what it rendered for each language and autoescape setting. Django's node
makes a lazy translation, translates and escapes it on every render (some forty a phone in a push: ~5%
of a push's instructions), though the result can only change with the language: the text is fixed in
the template and the catalogs while the process runs. Anything else (``{% translate title %}``,
``context "…"``, a filter) is Django's own node. ``makemessages`` reads the templates' text, not this
module: what it extracts is unchanged.
"""

from __future__ import annotations

from django import template
from django.templatetags import i18n as django_i18n
from django.utils import translation

register = template.Library()
register.tags.update(django_i18n.register.tags)
register.filters.update(django_i18n.register.filters)


class KeptTranslateNode(django_i18n.TranslateNode):
    """Django's ``TranslateNode``; for a string literal, its output kept per (language, autoescape)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        expression = self.filter_expression
        self.kept: dict[tuple[str | None, bool], str] | None = None
        if (not self.noop and self.message_context is None and not expression.filters
                and isinstance(getattr(expression.var, "literal", None), str)):
            self.kept = {}

    def render(self, context) -> str:
        if self.kept is None:
            return super().render(context)
        key = (translation.get_language(), context.autoescape)
        value = self.kept.get(key)
        if value is None:
            rendered = super().render(context)
            value = self.kept[key] = context[self.asvar] if self.asvar else rendered
        if not self.asvar:
            return value
        context[self.asvar] = value
        return ""


@register.tag("translate")
@register.tag("trans")
def do_translate(parser, token) -> KeptTranslateNode:
    """``{% translate %}`` as Django parses it (``django.templatetags.i18n.do_translate``)."""
    node = django_i18n.do_translate(parser, token)
    return KeptTranslateNode(node.filter_expression, node.noop, node.asvar, node.message_context)
