"""Public parts (``screens.pieces``): each rendered from the plain data it is given, again only when that data
changed, and then the same bytes as a plain render."""

from __future__ import annotations

import pytest
from django.utils import translation

from gameplay.screens import pieces

SHELL = "tests/shell.jinja"  # the names the store keeps the parts under; the templates are the functions below


def seat(context: dict) -> str:
    part = context["part"]
    return (f'<p id="seat-{part["index"]}" data-tag="{context["tag"]}">{part["name"]}'
            f'{" waits" if part["awaited"] else ""} {part["votes"]}</p>')


class Counted:
    """A fragment with one piece (``seat-3``), rendered through ``screens.pieces``, counting each part's renders."""

    def __init__(self) -> None:
        self.store = pieces.Store()
        self.renders: list[str] = []

    def shell(self, context: dict) -> str:
        self.renders.append("root")
        inner = pieces.place_piece("seat-3", "seat", context["parts"]["seat-3"], self.seat, None)
        return f'<div id="root" data-tag="{context["tag"]}"><span>{context["phase"]}</span>{inner}</div>'

    def seat(self, context: dict) -> str:
        self.renders.append("seat-3")
        return seat(context)

    def fragment(self, phase: str = "vote", name: str = "Ana", awaited: bool = True, votes: int = 0,
                 store: pieces.Store | None = None) -> pieces.Made:
        parts = {"seat-3": {"index": 3, "name": name, "awaited": awaited, "votes": votes}}
        return pieces.render_fragment("root", SHELL, {"phase": phase}, self.shell,
                                      store=self.store if store is None else store, parts=parts, language="en")


@pytest.fixture(autouse=True)
def _english(settings):
    settings.SCREEN_PIECES_VERIFY = False  # it would render each reused part again: these tests count renders
    with translation.override("en"):
        yield


def test_the_same_data_renders_nothing_again():
    counted = Counted()
    first = counted.fragment()
    assert counted.fragment() is first and counted.renders == ["root", "seat-3"]


def test_a_change_to_a_piece_s_part_renders_that_piece_alone_in_the_same_shell():
    counted = Counted()
    first = counted.fragment()
    later = counted.fragment(name="Bea", votes=2)
    assert counted.renders == ["root", "seat-3", "seat-3"]  # the fragment's own template was not walked again
    assert later.shell == first.shell and later.tag == first.tag and "Bea waits 2" in later.pieces["seat-3"][1]
    assert later.pieces["seat-3"][0] != first.pieces["seat-3"][0]


def test_a_change_outside_the_pieces_renders_the_shell_and_keeps_each_piece():
    counted = Counted()
    first = counted.fragment()
    later = counted.fragment(phase="mission")
    assert counted.renders == ["root", "seat-3", "root"] and later.pieces["seat-3"] == first.pieces["seat-3"]
    assert "mission" in later.html and later.tag != first.tag


def test_the_bytes_are_those_of_a_fresh_render_with_the_tags_stamped():
    made = Counted().fragment(name="Cy", votes=11)
    fresh = Counted().fragment(name="Cy", votes=11, store=pieces.Store())
    assert made.html == fresh.html and f'data-tag="{made.pieces["seat-3"][0]}"' in made.html
    assert pieces.stamp(f"{pieces.REVISION}:{made.html}", 7).startswith("7:")


def test_a_reused_part_that_differs_from_a_fresh_render_fails_loudly(settings):
    settings.SCREEN_PIECES_VERIFY = True
    counted = Counted()
    first = counted.fragment()
    counted.store.put(("root", "en"), pieces.Made(first.own, first.shell.replace("<span>", "<span>Bob"), first.inner))
    with pytest.raises(AssertionError, match="reused but shows what its data does not hold"):
        counted.fragment()


def test_a_piece_given_anything_but_its_entry_in_the_table_s_parts_is_refused():
    counted = Counted()

    def shell(context: dict) -> str:
        return pieces.place_piece("seat-3", "seat", {"index": 3, "name": "Not the part"}, seat, None)

    with pytest.raises(ValueError, match="not the table's parts"):
        pieces.render_fragment("root", SHELL, {"phase": "x"}, shell, store=counted.store,
                               parts={"seat-3": {"index": 3, "name": "Ana", "awaited": False, "votes": 0}},
                               language="en")


def test_a_piece_inside_a_piece_changes_the_outer_piece_s_tag_which_a_push_sends_whole():
    def inner(context: dict) -> str:
        return f'<p id="inner" data-tag="{context["tag"]}">{context["part"]["phase"]}</p>'

    def outer(context: dict) -> str:
        html = pieces.place_piece("inner", "inner", context["part"]["inner"], inner, None)
        return f'<section id="outer" data-tag="{context["tag"]}">{html}</section>'

    def shell(context: dict) -> str:
        html = pieces.place_piece("outer", "outer", context["parts"]["outer"], outer, None)
        return f'<div id="root" data-tag="{context["tag"]}">{html}</div>'

    def made(phase: str, store: pieces.Store) -> pieces.Made:
        parts = {"inner": {"phase": phase}, "outer": {"inner": {"phase": phase}}}
        return pieces.render_fragment("root", SHELL, {}, shell, store=store, parts=parts, language="en")

    store = pieces.Store()
    first, later = made("vote", store), made("mission", store)
    assert later.tag == first.tag  # the fragment's own shell: its pieces are sent apart
    assert later.pieces["outer"][0] != first.pieces["outer"][0] and "mission" in later.pieces["outer"][1]
    assert f'data-tag="{later.pieces["outer"][0]}"' in later.pieces["outer"][1]


def _expired_undo(mark: str):
    """A seat's undo part whose request expired (``gameplay/_undo.jinja``), its tag made its own by ``mark``."""
    from gameplay.screens.table import Fragment

    return Fragment("pv-undo", "gameplay/_undo.jinja", {"undo": {"mode": "expired"}, "mark": mark}, language="en")


def test_a_private_fragment_that_comes_back_to_a_tag_it_showed_is_not_drawn_again(monkeypatch):
    from gameplay.screens import table

    drawn: list[str] = []
    real = table._rendered
    monkeypatch.setattr(table, "_rendered", lambda name, context: drawn.append(name) or real(name, context))
    mark = f"{id(drawn)}"
    first, again, other = _expired_undo(mark), _expired_undo(mark), _expired_undo(mark + "+")
    assert first.tag == again.tag != other.tag
    assert first.render() == again.render() and 'data-test="undo-expired"' in first.render()
    assert drawn == ["gameplay/_undo.jinja"]
    other.render()
    assert drawn == ["gameplay/_undo.jinja"] * 2


def test_kept_bytes_that_a_fresh_draw_of_their_tag_does_not_give_fail_loudly(settings):
    from gameplay.screens.table import DRAWN

    settings.SCREEN_PIECES_VERIFY = True
    made = _expired_undo(f"stale {id(settings)}")
    DRAWN.put((made.template, made.tag), "<div>what it showed before</div>")
    with pytest.raises(AssertionError, match="was drawn as other bytes"):
        made.render()
