"""The serving process warms up and freezes what it holds (infra/warm.py)."""

from __future__ import annotations

import gc

from django.template import engines

from gameplay.screens import jinja
from infra.warm import OLDER_COLLECTIONS, YOUNG_LIMIT, YOUNG_OBJECTS, as_served, collect_when_due, project_templates


def test_every_project_template_compiles_and_the_warm_process_is_frozen():
    names = project_templates()
    thresholds = gc.get_threshold()
    assert "gameplay/_panel.jinja" in names and "games/inside_job/track.jinja" in names
    with as_served() as compiled:
        assert compiled == len(names)
        assert gc.get_freeze_count() > 10_000
        assert gc.get_threshold() == (YOUNG_LIMIT, OLDER_COLLECTIONS, OLDER_COLLECTIONS)
        # The caches hold them now (Django's cached loader; the Jinja environment's for *.jinja and the drawings): a
        # page's first use compiles nothing more.
        loader = engines["django"].engine.template_loaders[0]
        made = {template.name for template in jinja.env().cache.values()}  # type: ignore[union-attr]
        assert all(name in made or name in loader.get_template_cache for name in names)
        assert made and loader.get_template_cache
    assert gc.get_freeze_count() == 0 and gc.get_threshold() == thresholds  # as before, after it


def test_between_moves_the_collection_due_is_made_as_python_would_pick_it():
    assert collect_when_due() is None  # a test runner's thresholds: its young generation never gets so far
    with as_served():
        gc.collect()
        assert collect_when_due() is None  # nothing held yet
        held = [[] for _ in range(YOUNG_OBJECTS)]
        assert gc.get_count()[0] >= YOUNG_OBJECTS  # and Python's own threshold (YOUNG_LIMIT) did not collect them
        middle = gc.get_count()[1]
        assert collect_when_due() == (1 if middle > OLDER_COLLECTIONS else 0)
        assert gc.get_count()[0] < 100
        assert collect_when_due() is None
        for _ in range(OLDER_COLLECTIONS + 1):  # young collections, as the hub makes them, until the middle's is due
            held += [[] for _ in range(YOUNG_OBJECTS)]
            assert collect_when_due() in (0, 1)
        assert gc.get_count()[1] <= OLDER_COLLECTIONS  # the middle generation was collected when its count passed
        del held
