"""Warm a serving process, then freeze what it holds, so the garbage collector leaves it alone.

Python's full (generation 2) collection walks every long-lived object. In a Django process that
is mostly what import and first use build: modules, URL patterns, compiled templates, translation
catalogs, and walking them pauses some request now and then (figures: docs/performance.md). So a
server process first builds them (every project template compiled into the cached loader, every
language's catalog loaded), then ``gc.freeze()`` moves everything alive into the permanent
generation, which collections never walk. Requests' own garbage is collected as usual, but less often:
a push makes tens of thousands of short-lived containers (template contexts, tracked reads), and with
Python's default of a young collection every 700 of them, most of a push's garbage was walked once or
twice and what lived a little longer was moved up and walked again by the older generations' collections
(about 7% of a busy server's CPU). With a young collection every ``YOUNG_OBJECTS``, most of it is gone by
then: the collector's share is less than half, at the cost of a pause of about 10 ms every few seconds on a
busy server (figures: docs/performance.md).

That pause came wherever the count ran over, mostly in the middle of a push, so a move that met it reached
the other screens 8–10 ms later. So the collections are made between moves instead: the socket hub calls
:func:`collect_when_due` once a table's push has gone out, and it makes the collection Python would make
(the older generations' when due, as Python counts them) once ``YOUNG_OBJECTS`` are held. Python's own
threshold is twice that (``YOUNG_LIMIT``), reached only where no push came to end (pages alone, a burst).
"""

from __future__ import annotations

import contextlib
import gc
import logging
from collections.abc import Iterator
from pathlib import Path

import jinja2
from django.conf import settings
from django.template import TemplateDoesNotExist, TemplateSyntaxError
from django.template.loader import get_template
from django.utils import translation

logger = logging.getLogger(__name__)

YOUNG_OBJECTS = 20_000  # containers made (and not yet freed) between two young collections; Python's default is 700
YOUNG_LIMIT = 2 * YOUNG_OBJECTS  # Python's own threshold: where no push ended in time for collect_when_due
OLDER_COLLECTIONS = 20  # young collections between two of the middle generation, and those between two full ones

TEMPLATE_SUFFIXES = (".html", ".jinja", ".svg", ".txt", ".webmanifest")


def project_templates() -> list[str]:
    """The names of the project's own templates (``templates/``), as pages load them."""
    names = []
    for directory in settings.TEMPLATES[0]["DIRS"]:
        root = Path(directory)
        names += sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.suffix in TEMPLATE_SUFFIXES)
    return names


def warm() -> int:
    """Compile every project template and load every language's catalog; returns the templates compiled."""
    compiled = 0
    for name in project_templates():
        try:
            get_template(name)
            compiled += 1
        except (TemplateDoesNotExist, TemplateSyntaxError, jinja2.TemplateError) as error:  # as a page would later
            logger.warning("template %s does not compile: %s", name, error)
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            translation.gettext("Table games")
    return compiled


def warm_and_freeze() -> int:
    """``warm``, collect once, freeze everything alive, and collect less often (see the module's note)."""
    compiled = warm()
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_LIMIT, OLDER_COLLECTIONS, OLDER_COLLECTIONS)
    return compiled


def collect_when_due() -> int | None:
    """Between moves (a table's push has gone out): the collection due once ``YOUNG_OBJECTS`` are held, the oldest
    generation whose count is past its threshold as Python picks it, made now rather than inside the next render.
    Returns the generation collected (None: none was due; never under Python's default thresholds)."""
    counts = gc.get_count()
    if counts[0] < YOUNG_OBJECTS:
        return None
    thresholds = gc.get_threshold()
    generation = next((older for older in (2, 1) if counts[older] > thresholds[older]), 0)
    gc.collect(generation)
    return generation


@contextlib.contextmanager
def as_served() -> Iterator[int]:
    """Inside it, this process collects as a serving one does (``warm_and_freeze``; yields the templates compiled):
    a bench's figures then hold the server's collections, not a test runner's. Collections as before after it."""
    thresholds = gc.get_threshold()
    try:
        yield warm_and_freeze()
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)
