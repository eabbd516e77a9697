"""Warm a serving process, then freeze what it holds, so the garbage collector leaves it alone.

Python's full (generation 2) collection walks every long-lived object. In a Django process that
is mostly what import and first use build: modules, URL patterns, compiled templates, translation
catalogs, and walking them pauses some request now and then (figures: docs/performance.md). So a
server process first builds them (every project template compiled into the cached loader, every
language's catalog loaded), then ``gc.freeze()`` moves everything alive into the permanent
generation, which collections never walk. Requests' own garbage is collected as usual.
"""

from __future__ import annotations

import gc
import logging
from pathlib import Path

from django.conf import settings
from django.template import TemplateDoesNotExist, TemplateSyntaxError
from django.template.loader import get_template
from django.utils import translation

logger = logging.getLogger(__name__)

TEMPLATE_SUFFIXES = (".html", ".svg", ".txt", ".webmanifest")


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
        except (TemplateDoesNotExist, TemplateSyntaxError) as error:  # a page would fail the same way later
            logger.warning("template %s does not compile: %s", name, error)
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            translation.gettext("Table games")
    return compiled


def warm_and_freeze() -> int:
    """``warm``, collect once, then freeze everything alive (see the module's note)."""
    compiled = warm()
    gc.collect()
    gc.freeze()
    return compiled
