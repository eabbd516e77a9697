"""Tags the game templates share: move forms, the table socket's path, seat names, JSON."""

from __future__ import annotations

import json

from django import template
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import mark_safe
from django.utils.translation import gettext, pgettext

register = template.Library()


def _move_form_open(context, action: dict, css_class: str = "") -> str:
    if context.get("frozen"):
        # The game is over: the panel keeps its cards, but nothing on it can be played.
        return format_html('<form class="move-form frozen {}" hidden>', css_class)
    return format_html(
        '<form method="post" action="{url}" class="move-form {cls}" hx-post="{url}" '
        # A move supersedes a refresh in flight (hx-sync replace); the button is off while it travels.
        'hx-target="#private-view" hx-swap="outerHTML" hx-sync="closest #private-view:replace" '
        'hx-disabled-elt="find button">'
        '<input type="hidden" name="csrfmiddlewaretoken" value="{csrf}">'
        '<input type="hidden" name="version" value="{version}">'
        '<input type="hidden" name="window" value="{window}">'
        '<input type="hidden" name="move_id" value="{move_id}">'
        '<input type="hidden" name="action" value="{action}">',
        url=context.get("move_url", ""),
        cls=css_class,
        csrf=context.get("csrf_token", ""),
        version=context.get("version", ""),
        window=context.get("window", ""),
        move_id=context.get("move_id", ""),
        action=json.dumps(action, sort_keys=True),
    )


@register.simple_tag(takes_context=True)
def move_form_open(context, css_class: str = "", **fields):
    """Open a move form: hidden version, move id, CSRF and the base action built from ``fields``.

    ``{% move_form_open "cls" type="propose" %}`` starts the action ``{"type": "propose"}``;
    fields named ``a.<key>`` (one value) or ``a.<key>[]`` (several) inside the form are
    merged into it by the server. Close it with ``</form>``.
    """
    return _move_form_open(context, fields, css_class)


@register.simple_tag(takes_context=True)
def move_button(context, action: dict, label: str, css_class: str = "", data_test: str = ""):
    """A whole form with one big button that plays ``action`` (``data_test`` names it for browser tests)."""
    if context.get("frozen"):
        return ""
    return format_html(
        '{}<button type="submit" class="btn {}" data-test="{}">{}</button></form>',
        _move_form_open(context, action),
        css_class,
        data_test,
        label,
    )


@register.simple_tag
def table_socket_url(code: str) -> str:
    """A table's socket path: the Channels route ``table_socket`` (``gameplay.routing``), as {% url %} for pages."""
    return reverse("table_socket", args=[code], urlconf="gameplay.routing")


@register.filter
def seat_name(seat, names):
    """The display name of a seat (escaped by autoescape), or a dash for None."""
    if seat is None or names is None:
        return "—"
    try:
        return names[int(seat)]
    except (IndexError, ValueError, TypeError):
        return gettext("Seat %(n)s") % {"n": seat}


@register.filter
def seat_names(seats, names):
    """Names of several seats joined by commas."""
    # The separator is the language's own (", " / "، " / "、").
    return pgettext("list separator", ", ").join(str(seat_name(seat, names)) for seat in (seats or []))


@register.filter
def join_names(names):
    """A list of names joined with the language's own separator."""
    return pgettext("list separator", ", ").join(str(name) for name in (names or []))


@register.filter
def tojson(value):
    """Compact JSON for a data attribute (escape it with the attribute)."""
    return json.dumps(value, sort_keys=True)


@register.filter
def get(mapping, key):
    """``mapping[key]`` for dicts and lists in templates; None when missing."""
    try:
        return mapping[key]
    except (KeyError, IndexError, TypeError):
        return None


@register.filter
def ordinal_card(index):
    """'1st', '2nd', '3rd' card positions, translated."""
    labels = [gettext("1st"), gettext("2nd"), gettext("3rd")]
    try:
        return labels[int(index)]
    except (IndexError, ValueError, TypeError):
        return str(index)




class CaptureNode(template.Node):
    def __init__(self, nodelist, name: str) -> None:
        self.nodelist = nodelist
        self.name = name

    def render(self, context) -> str:
        context[self.name] = mark_safe(self.nodelist.render(context).strip())  # the include rendered it, escaped
        return ""


@register.tag
def capture(parser, token):
    """``{% capture card %}{% include "…card_name.html" %}{% endcapture %}`` stores rendered HTML in ``card``.

    So a translated card name can sit inside one whole translated sentence
    (``{% blocktranslate %}Block as {{ card }}{% endblocktranslate %}``) instead of a sentence in pieces.
    """
    bits = token.split_contents()
    if len(bits) != 2:
        raise template.TemplateSyntaxError("capture takes one variable name")
    nodelist = parser.parse(("endcapture",))
    parser.delete_first_token()
    return CaptureNode(nodelist, bits[1])
