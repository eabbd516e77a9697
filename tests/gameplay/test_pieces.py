"""Public pieces (``screens.pieces``): rendered again only when what they read changed, and then the same bytes."""

from __future__ import annotations

import pytest
from django.template import Context, engines
from django.utils import translation

from gameplay.screens import pieces

TEMPLATE = (
    '{% nativedigits %}<div id="root" data-tag="{{ tag }}" data-revision="{{ revision }}">'
    '{% piece "seat-" 3 %}<p id="seat-3" data-tag="{{ tag }}">{{ view.names.3 }}'
    '{% if 3 in view.awaiting %} waits{% endif %} {{ view.votes|length }}</p>{% endpiece %}'
    '<span>{{ view.phase }}</span></div>{% endnativedigits %}'
)


class Counted:
    """A template rendered through ``gameplay.screens.pieces``, counting its renders."""

    def __init__(self, source: str = TEMPLATE) -> None:
        self.template = engines["django"].from_string(source).template
        self.store = pieces.Store()
        self.renders = 0

    def render(self, context) -> str:
        self.renders += 1
        return self.template.render(context)

    def fragment(self, view: dict) -> pieces.Made:
        return pieces.render_fragment("root", self.store, {"view": view}, self.render)


def _context(view: dict, revision: int) -> Context:
    return Context({"view": view, "tag": pieces.TAG, "revision": revision})


VIEW = {"names": {"3": "Ana"}, "awaiting": [1, 3], "votes": [], "phase": "vote", "log": ["x"]}


@pytest.fixture(autouse=True)
def _english(settings):
    settings.SCREEN_PIECES_VERIFY = False  # it would render each reused piece again: these tests count renders
    with translation.override("en"):
        yield


def test_a_change_to_nothing_it_read_renders_nothing_again():
    counted = Counted()
    first = counted.fragment(dict(VIEW))
    again = counted.fragment(dict(VIEW, log=["x", "y"]))  # the log is never read
    assert counted.renders == 1 and again is first


def test_a_change_outside_a_piece_renders_the_shell_and_keeps_the_piece():
    counted = Counted()
    first = counted.fragment(dict(VIEW))
    later = counted.fragment(dict(VIEW, phase="mission"))
    assert counted.renders == 2 and later.pieces["seat-3"] == first.pieces["seat-3"]
    assert "mission" in later.html and later.tag != first.tag


def test_a_piece_asked_whether_a_list_holds_its_seat_changes_only_with_that():
    counted = Counted()
    first = counted.fragment(dict(VIEW))
    same = counted.fragment(dict(VIEW, awaiting=[1, 3, 5]))  # seat 3 still waits: nothing it shows moved
    assert same is first
    moved = counted.fragment(dict(VIEW, awaiting=[1]))
    assert moved.pieces["seat-3"] != first.pieces["seat-3"] and "waits" not in moved.pieces["seat-3"][1]


def test_the_bytes_are_those_of_a_plain_render_in_every_language_with_the_tags_and_revision_stamped():
    for language in ("en", "fa", "ja"):
        with translation.override(language):
            made = Counted().fragment(dict(VIEW, votes=list(range(11))))
            plain = engines["django"].from_string(TEMPLATE).template.render(
                _context(dict(VIEW, votes=list(range(11))), 1))  # a piece outside a fragment tags itself
            stamped = pieces.stamp(made.html, 1)
            assert stamped == plain.replace(f'data-tag="{pieces.TAG}"', f'data-tag="{made.tag}"', 1)
            assert ("۱۱" in stamped) == (language == "fa")  # the piece's own digits, as around it


def test_a_reused_piece_that_differs_from_a_fresh_render_fails_loudly(settings):
    settings.SCREEN_PIECES_VERIFY = True
    counted = Counted()
    first = counted.fragment(dict(VIEW))
    key = ("root", "en")
    counted.store.put(key, pieces.Made(first.paths, first.seen, first.shell.replace("<span>", "<span>Bob"),
                                       first.inner))
    with pytest.raises(AssertionError, match="reads something it did not record"):
        counted.fragment(dict(VIEW))


def test_a_value_that_is_not_plain_data_is_rendered_every_time():
    counted = Counted("<p>{{ view.when }}</p>")
    counted.fragment({"when": object()})
    counted.fragment({"when": object()})
    assert counted.renders == 2


def test_a_change_inside_a_piece_renders_that_piece_alone_in_the_same_shell():
    counted = Counted()
    first = counted.fragment(dict(VIEW))
    later = counted.fragment(dict(VIEW, names={"3": "Bea"}))
    assert counted.renders == 1  # the fragment's own template was not walked again
    assert later.shell == first.shell and later.tag == first.tag and "Bea" in later.pieces["seat-3"][1]
    assert later.html == engines["django"].from_string(TEMPLATE).template.render(
        _context(dict(VIEW, names={"3": "Bea"}), pieces.REVISION)).replace(
        f'data-tag="{pieces.TAG}"', f'data-tag="{later.tag}"', 1)


def test_a_piece_inside_a_piece_changes_the_outer_pieces_tag_which_a_push_sends_whole():
    nested = ('<div id="root" data-tag="{{ tag }}">{% piece "outer" %}<section id="outer" data-tag="{{ tag }}">'
              '{% piece "inner" %}<p id="inner" data-tag="{{ tag }}">{{ view.phase }}</p>{% endpiece %}'
              '</section>{% endpiece %}</div>')
    counted = Counted(nested)
    first = counted.fragment(dict(VIEW))
    later = counted.fragment(dict(VIEW, phase="mission"))
    assert later.tag == first.tag  # the fragment's own shell: its pieces are sent apart
    assert later.pieces["outer"][0] != first.pieces["outer"][0] and "mission" in later.pieces["outer"][1]
    assert f'data-tag="{later.pieces["outer"][0]}"' in later.pieces["outer"][1]


def test_a_render_leaves_no_cycles_for_the_collector():
    """A piece's tracked dicts and lists point back at the reads they record: the render lets go of them, so they are
    freed as it ends, not left as garbage cycles (hundreds a push) for the collector to find."""
    import gc

    counted = Counted()
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        counted.fragment(dict(VIEW))
        counted.fragment(dict(VIEW, phase="mission", awaiting=[1]))  # the shell and the piece again
        gc.collect()
        cycles = [type(found).__name__ for found in gc.garbage
                  if isinstance(found, (pieces.Reads, pieces.Tracked, pieces.TrackedList))]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert counted.renders == 2 and cycles == []
