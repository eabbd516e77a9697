"""The game's templates render for every seat at many points, and the board HTML leaks nothing."""

from __future__ import annotations

import random
import re

import pytest
from django.template.loader import render_to_string

from engines.good_cop_bad_cop_health import ENGINE
from gameplay.selectors import public_parts

from .helpers import game_states
from .test_information_sets import scramble

T = "games/good_cop_bad_cop_health/"


def context(state, seat):
    """The context the web layer gives phone.jinja and board.jinja (the board's seats drawn from ``parts``)."""
    players = state["n"]
    names = [f"Player{i}" for i in range(players)]
    seats = [{"index": i, "name": names[i], "is_bot": False, "is_me": i == seat} for i in range(players)]
    view = ENGINE.view(state, seat)
    parts = public_parts(ENGINE.name, view, seats)
    # ``part``: the status line's (phone_status.jinja is the piece pv-status, drawn from parts.status alone).
    return {"view": view, "seats": seats, "me": seat, "names": names,
            "move_url": "/m",
            "log_template": "games/good_cop_bad_cop_health/log_line.jinja",
            "version": 3, "parts": parts, "part": parts["status"]}


def phone(state, seat):
    """The rendered game part of a seat's phone as its screen puts it together (``gameplay.screens.table``): the public
    status line and public part from the board's view, and between them the seat's own part from its own keys
    (its own private log lines alone)."""
    own = context(state, seat)
    own["view"] = {key: value for key, value in own["view"].items()
                   if key in ENGINE.phone_private_keys | {"seat", "legal"}}
    own["view"]["log"] = [line for line in own["view"]["log"] if line.get("private")]
    public = context(state, None)
    return "".join([render_to_string(T + "phone_status.jinja", public),
                    render_to_string(T + "phone.jinja", own),
                    render_to_string(T + "phone_public.jinja", public)])


def text_of(html):
    """Visible text without tags or extra whitespace."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).strip()


@pytest.mark.parametrize("players", [2, 3, 5, 8])
def test_phone_board_and_log_lines_render(players):
    state = None
    for state in game_states(players, players * 7, every=10):
        board = render_to_string(T + "board.jinja", context(state, None))
        assert "Player0" in board
        for seat in range(players):
            ctx = context(state, seat)
            phone_html = phone(state, seat)
            assert "Your hand" in phone_html
            if ctx["view"]["legal"] and ctx["view"]["phase"] == "draw":
                assert 'data-test="draw-deck"' in phone_html or 'data-test="draw-market-' in phone_html
            if ctx["view"]["moves"]["end_turn"]:
                assert 'data-test="end-turn"' in phone_html
    # The final log holds every public line, and each seat's view adds its private ones.
    seen_events = set()
    for seat in [None, *range(players)]:
        ctx = context(state, seat)
        for line in ctx["view"]["log"]:
            if seat is not None and not line.get("private") and line["event"] in seen_events:
                continue
            seen_events.add(line["event"])
            sentence = text_of(render_to_string(T + "log_line.jinja", {**ctx, "line": line}))
            assert sentence and sentence != line["event"], line
    assert {"shoot", "eliminated", "game_over", "turn"} <= seen_events


def test_rules_page_renders_with_rulings_marked():
    html = render_to_string(T + "rules.jinja", {})
    assert html.count('<mark class="ruling">') >= 10
    assert "Flawless Shot" in html


def test_shoot_buttons_carry_test_ids_and_strongest_gun_first():
    from .helpers import at_act, give, new_game

    state = new_game(4)
    give(state, 0, "revolver_38", "in_play")
    give(state, 0, "magnum_44", "in_play")
    give(state, 0, "inspection")
    state = at_act(state)
    html = phone(state, 0)
    assert 'data-test="shoot-2"' in html and 'data-test="shoot-2-revolver_38"' in html
    assert 'data-gun="magnum_44" data-test="shoot-2"' in html
    assert 'data-test="inspect-3"' in html and 'data-test="end-turn"' in html


def test_identity_change_notice_on_the_phone_only():
    from .helpers import at_act, give, new_game, set_identities

    state = new_game(5)
    set_identities(state, ["bad", "good", "good", "good", "bad"])
    state["identity_pile"] = ["good", "bad", "good"]
    gun = give(state, 0, "revolver_38", "in_play")
    give(state, 0, "flawless_shot", "in_play")
    state["players"][1]["health"] = 1
    state = ENGINE.apply(at_act(state), 0, {"type": "shoot", "gun": gun["id"], "target": 1})
    html = phone(state, 0)
    assert 'data-test="identity-changed"' in html
    assert 'data-identity="good"' in html
    board = render_to_string(T + "board.jinja", context(state, None))
    assert "identity-changed" not in board and "Your identity changed" not in board


@pytest.mark.parametrize("players", [2, 3, 4, 7])
def test_board_and_phone_html_do_not_depend_on_hidden_facts(players):
    rng = random.Random(players)
    for state in game_states(players, players, every=9):
        if ENGINE.outcome(state) is not None:
            continue
        board = render_to_string(T + "board.jinja", context(state, None))
        assert render_to_string(T + "board.jinja", context(scramble(state, None, rng), None)) == board
        for p, player in enumerate(state["players"]):
            if player["alive"] and player["identity"]:
                marker = f'data-identity="{player["identity"]}"'
                assert marker not in board, f"seat {p}'s identity on the board"
        # The phone's public status and part are the same on every phone: no more than the board may show.
        parts = ("phone_status.jinja", "phone_public.jinja")
        shared = "".join(render_to_string(T + name, context(state, None)) for name in parts)
        assert "data-identity" not in shared and "data-peek" not in shared
        other = scramble(state, None, rng)
        assert "".join(render_to_string(T + name, context(other, None)) for name in parts) == shared
        seat = rng.randrange(players)
        html = phone(state, seat)
        assert phone(scramble(state, seat, rng), seat) == html


# ------------------------------------------------------------------ a phone lying face-up on the table


def other_identity(state, seat):
    """The same table, but ``seat`` holds the other identity (Good for Bad; a duel's two dealt ones swapped)."""
    import copy

    new = copy.deepcopy(state)
    me = new["players"][seat]
    swap = {"good": "bad", "bad": "good"}
    if me["identity"] in swap:
        me["identity"] = swap[me["identity"]]
    if me["choices"]:
        me["choices"] = list(reversed(me["choices"]))
    return new


@pytest.mark.parametrize("players", [2, 4, 6])
def test_what_a_phone_shows_unheld_does_not_depend_on_its_identity(players):
    """Every seat, all along random games: the other identity leaves the phone's text outside its peek
    boxes word for word the same (Keep names identity 1 or 2; a bonus card or a new identity, the log's
    private lines, lie with the hand and the identity, not in the open log)."""
    from ..peek import shown_text

    for state in game_states(players, 30 + players, every=3):
        if ENGINE.outcome(state) is not None:
            continue
        for seat in range(players):
            if not state["players"][seat]["alive"]:
                continue  # an eliminated seat's identity is public
            html = phone(state, seat)
            again = phone(other_identity(state, seat), seat)
            assert shown_text(again) == shown_text(html), (state["phase"], seat)


def test_a_bonus_card_never_shows_in_the_open_log():
    """Only the eliminated player's team draws a bonus card: a line about it in the open log would tell the team."""
    from ..peek import face_down_text, shown_text
    from .helpers import new_game

    state = new_game(4)
    state["log"].append({"event": "bonus", "identity": "bad"})
    state["log"].append({"event": "bonus_card", "seat": 0, "kind": "vest", "private": True, "to": 0})
    state["players"][0]["hand"].append({"id": 999, "kind": "vest"})
    html = phone(state, 0)
    assert "Your bonus card" not in shown_text(html) and "Your bonus card" in face_down_text(html)
    assert "Every living Bad Cop draws one card" in shown_text(html)


def test_equip_buttons_name_a_number_not_a_card():
    """The Equip buttons say the card's number in the hand, inside the closed "Equip a card" fold."""
    from ..peek import face_down_text, shown_text
    from .helpers import at_act, give, new_game

    state = new_game(4)
    give(state, 0, "vest")
    give(state, 0, "inspection")
    give(state, 0, "magnum_44")
    state = at_act(state)
    html = phone(state, 0)
    shown, folded = shown_text(html), face_down_text(html)
    view = ENGINE.view(state, 0)
    equippable = [i + 1 for i, c in enumerate(view["hand"]) if c["id"] in view["moves"]["equip"]]
    assert len(equippable) >= 2
    assert "Equip a card" in shown and "Equip card" not in shown
    for n in equippable:
        assert f"Equip card {n}" in folded
    for word in ("Bulletproof vest", ".44 magnum", "Inspection"):
        assert word not in shown.split("Market")[0], word  # the market (public) may show any kind


def with_hand(state, seat, kinds):
    """The same table, but ``seat``'s hand holds cards of ``kinds`` (as many as it holds now): each of its cards
    changes places with a deck card of the kind wanted, so every count on the table stays. None when the deck
    lacks one."""
    import copy

    new = copy.deepcopy(state)
    hand, deck = new["players"][seat]["hand"], new["deck"]
    assert len(kinds) == len(hand)
    used: set[int] = set()
    for j, kind in enumerate(kinds):
        i = next((i for i, card in enumerate(deck) if card["kind"] == kind and i not in used), None)
        if i is None:
            return None
        used.add(i)
        hand[j], deck[i] = deck[i], hand[j]
    return new


def other_hands(size, rng):
    """Hands of ``size`` cards unlike each other: only inspection cards, only cards to equip, a mix, at random."""
    from engines.good_cop_bad_cop_health.cards import EQUIPPABLE, INSPECTION, KINDS

    hands = [[INSPECTION] * size, ["vest"] * size, [EQUIPPABLE[i % len(EQUIPPABLE)] for i in range(size)],
             [INSPECTION if i % 2 else "revolver_38" for i in range(size)]]
    return [*hands, [rng.choice(KINDS) for _ in range(size)]]


def shown_phone(state, seat):
    from ..peek import shown_text

    return shown_text(phone(state, seat))


@pytest.mark.parametrize("equipped", [False, True])
@pytest.mark.parametrize("size", [1, 2, 3, 4])
def test_what_a_phone_shows_unheld_on_its_act_step_does_not_depend_on_its_hand(size, equipped):
    """The seat's own act step, armed or not, before and after equipping: any other hand of the same size
    (all inspection cards, all cards to equip, a mix) leaves the text outside its peek boxes and closed folds
    word for word the same: the "Inspect" and "Equip a card" folds are there, card or no card."""
    from .helpers import at_act, give, new_game

    rng = random.Random(size)
    for armed in (False, True):
        state = new_game(4)
        if armed:
            give(state, 0, "revolver_38", "in_play")
        state = at_act(state)  # the draw: one card in hand
        for _ in range(size - 1 + equipped):
            give(state, 0, "vest")
        if equipped:
            vest = next(c for c in state["players"][0]["hand"] if c["kind"] == "vest")
            state = ENGINE.apply(state, 0, {"type": "equip", "card": vest["id"]})
        assert state["phase"] == "act" and state["turn"] == 0 and len(state["players"][0]["hand"]) == size
        shown = shown_phone(state, 0)
        assert "Equip a card" in shown and ("Inspect (spends" in shown) is not equipped
        tried = 0
        for kinds in other_hands(size, rng):
            other = with_hand(state, 0, kinds)
            if other is not None:
                tried += 1
                assert shown_phone(other, 0) == shown, kinds
        assert tried >= 4


@pytest.mark.parametrize("players", [3, 5])
def test_what_a_phone_shows_unheld_on_its_act_steps_along_random_games_does_not_depend_on_its_hand(players):
    """All along random games: on the act step of the seat on turn, other hands of the same size show the same."""
    rng = random.Random(players)
    steps = 0
    for state in game_states(players, 40 + players, every=1, final=False):
        if state["phase"] != "act":
            continue
        seat = state["turn"]
        shown = shown_phone(state, seat)
        for kinds in other_hands(len(state["players"][seat]["hand"]), rng):
            other = with_hand(state, seat, kinds)
            if other is not None:
                steps += 1
                assert shown_phone(other, seat) == shown, (kinds, state["equipped"])
    assert steps > 20, steps


@pytest.mark.parametrize("players", [2, 5])
def test_the_end_on_a_phone_says_whether_the_seat_won_and_reveals_every_identity(players):
    """The phone's end (outcome.jinja from the dict phone.jinja makes; the board's is parts.board.outcome, brief)."""
    state = list(game_states(players, players * 3, every=1))[-1]
    outcome = ENGINE.outcome(state)
    assert outcome is not None
    for seat in range(players):
        html = phone(state, seat)
        assert ("You won." in html) == (seat in outcome["winners"]) != ("You lost." in html)
        for index, player in enumerate(state["players"]):
            shown = f'<li class="gh-id-{player["identity"]}" data-test="reveal-{index}"><strong>Player{index}</strong>'
            assert shown in html
    board = render_to_string(T + "board.jinja", context(state, None))
    assert 'data-test="outcome"' in board and 'data-test="reveal"' not in board and "You won." not in board
