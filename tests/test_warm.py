"""The serving process warms up and freezes what it holds (infra/warm.py)."""

from __future__ import annotations

import gc

from django.template import engines

from infra.warm import OLDER_COLLECTIONS, YOUNG_OBJECTS, as_served, project_templates


def test_every_project_template_compiles_and_the_warm_process_is_frozen():
    names = project_templates()
    thresholds = gc.get_threshold()
    assert "gameplay/_panel.html" in names and "games/inside_job/track.html" in names
    with as_served() as compiled:
        assert compiled == len(names)
        assert gc.get_freeze_count() > 10_000
        assert gc.get_threshold() == (YOUNG_OBJECTS, OLDER_COLLECTIONS, OLDER_COLLECTIONS)
        # The cached loader holds them now: a page's first use compiles nothing more.
        loader = engines["django"].engine.template_loaders[0]
        assert all(name in loader.get_template_cache for name in names)
    assert gc.get_freeze_count() == 0 and gc.get_threshold() == thresholds  # as before, after it
