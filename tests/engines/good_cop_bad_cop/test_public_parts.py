"""The board's public parts (``presentation.public_parts``): each seat's element as the plain dict it alone is drawn
from, and what the board, the phone's status line and its public part show outside their pieces (the reserved keys
``board``, ``status`` and ``phone``), all along random games: plain JSON, one per seat, from the public view alone,
changed exactly when the element's bytes change, and the public templates drawn from them alone."""

from __future__ import annotations

import json
import random
import re

from django.template.loader import render_to_string
from django.utils import translation

from engines.good_cop_bad_cop import ENGINE
from engines.good_cop_bad_cop.cards import RULES_VERSIONS
from gameplay.selectors import public_parts

from ..contract import random_step

NAMES = ["Ann", "Bob", "Cy <b>", "Dee", "Eve & co", "Fay", "Gus", "Hal"]
SEAT = "games/good_cop_bad_cop/board_seat.jinja"
T = "games/good_cop_bad_cop/"
RESERVED = {"board", "status", "phone"}  # not element ids: what the templates show outside their pieces
TAG = re.compile(r' data-tag="[^"]*"')


def seats_of(players):
    """The seats as the web layer hands them to ``public_parts`` (``is_me`` always False there)."""
    return [{"index": s, "name": NAMES[s], "is_bot": s % 3 == 1, "is_me": False} for s in range(players)]


def games(count=12, steps=2000):
    """(players, state) at every step of seeded random games, 4 to 8 seats, with and without Bribe, each rules
    version; the last state of each game is its end."""
    for seed in range(count):
        players = 4 + seed % 5
        rng = random.Random(seed)
        options = {"bribe": seed % 2 == 0, "rules_version": RULES_VERSIONS[seed % len(RULES_VERSIONS)]}
        state = ENGINE.setup(players, options, seed)
        for _ in range(steps):
            yield players, state
            if ENGINE.outcome(state) is not None:
                break
            state, _, _ = random_step(ENGINE, state, players, rng)


def parts_of(state, players, ended_views=None):
    return ENGINE.public_parts(ENGINE.view(state, None), seats_of(players), ended_views)


def redealt(state, rng):
    """The same table with every secret dealt again: the face-down cards shuffled over the face-down places, the
    hands traded with the deck."""
    new = json.loads(json.dumps(state))
    players = new["players"]
    places = [(s, i) for s, p in enumerate(players) for i, up in enumerate(p["up"]) if not up]
    names = [players[s]["cards"][i] for s, i in places]
    rng.shuffle(names)
    for (s, i), name in zip(places, names, strict=True):
        players[s]["cards"][i] = name
    pool = [card for p in players for card in p["hand"]] + new["deck"]
    rng.shuffle(pool)
    for p in players:
        p["hand"], pool = pool[:len(p["hand"])], pool[len(p["hand"]):]
    new["deck"] = pool
    return new


def test_the_parts_are_plain_json_one_per_seat_at_every_step():
    ended = 0
    for players, state in games(count=8):
        parts = parts_of(state, players)
        assert set(parts) == {f"bv-seat-{s}" for s in range(players)} | RESERVED
        assert json.loads(json.dumps(parts)) == parts and json.dumps(parts) == json.dumps(json.loads(json.dumps(parts)))
        assert parts["board"]["seats"] == list(range(players))
        assert parts["status"]["shown"] == (ENGINE.outcome(state) is None)
        assert [seat["index"] for seat in parts["phone"]["seats"]] == list(range(players))
        assert all(part["index"] == s and part["seat"] == {"name": NAMES[s], "is_bot": s % 3 == 1}
                   for s, part in enumerate(parts[f"bv-seat-{s}"] for s in range(players)))
        ended += ENGINE.outcome(state) is not None
    assert ended == 8


def test_the_parts_show_no_secret_before_the_end_and_every_card_after_it():
    rng = random.Random(5)
    for step, (players, state) in enumerate(games(count=6)):
        parts = parts_of(state, players)
        over = ENGINE.outcome(state) is not None
        for s, player in enumerate(state["players"]):
            cards = parts[f"bv-seat-{s}"]["cards"]
            assert parts[f"bv-seat-{s}"]["revealed"] == over
            pairs = zip(player["cards"], player["up"], strict=True)
            shown = [{"name": name, "face_up": True} for name in player["cards"]] if over else [
                {"name": name if up else None, "face_up": up} for name, up in pairs]
            assert cards == shown
        if not over and step % 4 == 0:  # dealt other secrets, the table looks the same: so do its parts
            assert parts_of(redealt(state, rng), players) == parts


def test_a_game_the_host_ended_shows_each_seats_cards_from_its_own_last_view():
    players, state = 5, ENGINE.setup(5, {}, 3)
    ended_views = [ENGINE.view(state, s) for s in range(players)]
    parts = parts_of(state, players, ended_views)
    for s, player in enumerate(state["players"]):
        assert parts[f"bv-seat-{s}"]["revealed"]
        assert [c["name"] for c in parts[f"bv-seat-{s}"]["cards"]] == player["cards"]


def test_a_seats_part_changes_exactly_when_its_element_does():
    """Rendered from its part alone, the element's bytes change if and only if its dict does: the dict holds what
    the element shows and nothing else (the coins of this game: cards, wounds, guns and aims, the lead)."""
    changed = set()
    with translation.override("en"):
        before: dict[str, tuple[dict, str]] = {}
        for players, state in games(count=4):
            if not before or len(before) != players:
                before = {}
            for key, part in parts_of(state, players).items():
                if key in RESERVED:
                    continue
                html = render_to_string(SEAT, {"part": part})
                if key in before:
                    was, was_html = before[key]
                    assert (part != was) == (html != was_html), (key, was, part)
                    changed |= {name for name in part if part[name] != was[name]}
                before[key] = (part, html)
    assert changed >= {"active", "out", "awaited", "is_new", "cards", "wounded", "armed", "aim", "team", "revealed"}


def test_the_piece_drawn_from_its_part_alone_is_the_boards_element():
    for step, (players, state) in enumerate(games(count=3, steps=300)):
        if step % 5:
            continue
        view = ENGINE.view(state, None)
        seats = seats_of(players)
        parts = ENGINE.public_parts(view, seats, None)
        for language in ("en", "ja"):
            with translation.override(language):
                board = TAG.sub("", render_to_string(T + "board.jinja", {"parts": parts}))
                for key, part in parts.items():
                    if not key.startswith("bv-seat-"):
                        continue
                    alone = TAG.sub("", render_to_string(SEAT, {"part": part}))
                    assert alone.startswith(f'<li id="{key}"') and alone in board


def web_context(view, players, ended_views=None):
    """What the web layer hands the public templates (``gameplay.screens.table``: the board's view, its seats and
    names, and the parts with the shared log's)."""
    seats = seats_of(players)
    context = {"view": view, "seats": seats, "names": NAMES[:players], "me": None,
               "log_template": T + "log_line.jinja", "parts": public_parts(ENGINE.name, view, seats, ended_views)}
    return {**context, "ended_views": ended_views} if ended_views else context


def drawn(parts, whole=None):
    """board.jinja, phone_status.jinja and phone_public.jinja: from ``parts`` (resp. ``part``: parts.status) alone,
    or with ``whole``, the rest of a context around them."""
    whole = whole or {}
    return (render_to_string(T + "board.jinja", {**whole, "parts": parts}),
            render_to_string(T + "phone_status.jinja", {**whole, "part": parts["status"]}),
            render_to_string(T + "phone_public.jinja", {**whole, "parts": parts}))


def test_the_public_templates_are_drawn_from_their_parts_alone():
    """Drawn from the parts alone, the board, the phone's status line and its public part are the ones drawn with
    the whole context the web layer gives, and the ones drawn beside another moment's view, seats and names: they
    read nothing else (a game the host ended too: every seat's own last view, ``ended_views``)."""
    other = web_context(ENGINE.view(ENGINE.setup(8, {}, 99), None), 8)
    checked = set()
    for step, (players, state) in enumerate(games(count=4, steps=400)):
        over = ENGINE.outcome(state) is not None
        if step % 7 and not over:
            continue
        view = ENGINE.view(state, None)
        ended = [ENGINE.view(state, s) for s in range(players)] if step % 21 == 0 else None
        for language in ("en", "fa", "ja"):
            with translation.override(language):
                context = web_context(view, players, ended)
                alone = drawn(context["parts"])
                assert alone == drawn(context["parts"], context) == drawn(context["parts"], {
                    **other, "ended_views": None if ended else [{}]}), (step, language)
        checked.add(str(view["phase"]) + (" ended" if ended else ""))
        assert ('data-say="status"' in alone[0]) == (ended is None)
        assert ('data-test="phone-status"' in alone[1]) == (not over)
    assert {"arrange", "action", "respond", "over", "action ended"} <= checked


def outside_pieces(board, parts):
    """The board's bytes outside its pieces (each seat's, the log's): what ``parts.board`` alone draws."""
    board = TAG.sub("", board)
    for key, part in parts.items():
        if key.startswith("bv-seat-"):
            board = board.replace(TAG.sub("", render_to_string(SEAT, {"part": part})), "")
    log = render_to_string("gameplay/_board_log_piece.jinja", {"part": parts["bv-log"]})
    return board.replace(TAG.sub("", log), "")


def test_the_reserved_parts_change_exactly_when_what_they_draw_does():
    """``board`` (the board outside its pieces), ``status`` (the phone's status line) and ``phone`` (the phone's
    public part): each dict changes if and only if the bytes drawn from it do."""
    changed: set[str] = set()
    with translation.override("en"):
        before: dict[str, tuple[dict, str]] = {}
        for players, state in games(count=4, steps=600):
            parts = public_parts(ENGINE.name, ENGINE.view(state, None), seats_of(players))
            board, status, phone = drawn(parts)
            now = {"board": (parts["board"], outside_pieces(board, parts)), "status": (parts["status"], status),
                   "phone": (parts["phone"], phone)}
            if before and len(before["board"][0]["seats"]) == players:
                for key, (part, html) in now.items():
                    was, was_html = before[key]
                    assert (part != was) == (html != was_html), (key, was, part)
                    changed |= {key} if part != was else set()
            before = now
    assert changed == RESERVED
