"""Marks that tell teams, roles, cards, votes and results apart without colour (issue 45, item 4).

Every distinction a screen draws in colour also gets a shape of its own, drawn in the text's colour, beside the word
that names it: a player who does not see the colours, or a grey-scale screen, still tells a Traitor from an Agent, a
failed mission from a success, Reject from Approve. The shape is a picture (``aria-hidden``); the word beside it is
what a screen reader says. ``{{ mark("traitors") }}`` in a template; a kind not listed here is a mistake, not a blank.
"""

from __future__ import annotations

from django.utils.safestring import SafeString

from engines.registry import ENGINES

# One shape per kind, from each game's ``mark_shapes``; two kinds that a screen shows side by side never share one.
SHAPES: dict[str, str] = {kind: shape for engine in ENGINES.values() for kind, shape in engine.mark_shapes.items()}

_DRAWN = {
    "circle": '<circle cx="8" cy="8" r="6.5"/>',
    "triangle": '<path d="M8 1.2 15.2 14.6H.8z"/>',
    "square": '<rect x="1.8" y="1.8" width="12.4" height="12.4" rx="1"/>',
    "diamond": '<path d="M8 .8 15.2 8 8 15.2.8 8z"/>',
    "star": '<path d="M8 .8l2.2 4.7 5.1.6-3.8 3.5 1 5.1L8 12.2l-4.5 2.5 1-5.1L.7 6.1l5.1-.6z"/>',
    "check": '<path d="M2 8.6l4 4L14.2 3.4" fill="none" stroke="currentColor" stroke-width="2.6" '
             'stroke-linecap="round" stroke-linejoin="round"/>',
    "cross": '<path d="M3 3l10 10M13 3 3 13" fill="none" stroke="currentColor" stroke-width="2.6" '
             'stroke-linecap="round"/>',
}


def mark(kind: str) -> SafeString:
    """The shape of ``kind`` as a small inline drawing in the text's colour, hidden from screen readers."""
    shape = SHAPES[kind]
    return SafeString(
        f'<svg class="icon mark" data-shape="{shape}" viewBox="0 0 16 16" width="16" height="16" fill="currentColor" '
        f'aria-hidden="true" focusable="false">{_DRAWN[shape]}</svg>')
