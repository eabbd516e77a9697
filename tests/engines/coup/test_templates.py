"""The Coup templates render for every seat, phase and log line, and the board leaks no secret."""

from __future__ import annotations

import random
import re

from django.template.loader import render_to_string

from engines.coup import ENGINE
from gameplay.selectors import public_parts

NAMES = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal", "Ida", "Jo"]
CARD_WORDS = {"duke": "Duke", "assassin": "Assassin", "captain": "Captain",
              "ambassador": "Ambassador", "contessa": "Contessa", "inquisitor": "Inquisitor"}


def context(view, players, me):
    """The context the web layer gives phone.html and board.html (the board's seats drawn from ``parts``)."""
    seats = [{"index": s, "name": NAMES[s], "is_bot": False, "is_me": s == me} for s in range(players)]
    parts = public_parts(ENGINE.name, view, seats)
    # ``part``: the status line's (phone_status.jinja is the piece pv-status, drawn from parts.status alone).
    return {"view": view, "seats": seats, "me": me, "names": NAMES[:players], "move_url": "/m",
            "log_template": "games/coup/log_line.jinja",
            "version": 3, "parts": parts, "part": parts["status"]}


def own_keys(view):
    """What a seat's own part of the phone is rendered from (``gameplay.screens.table``): the engine's keys of its view,
    and of the log its own private lines alone."""
    own = {key: value for key, value in view.items() if key in ENGINE.phone_private_keys | {"seat", "legal"}}
    own["log"] = [line for line in own["log"] if line.get("private")]
    return own


def phone(state, players, seat):
    """The rendered game part of a seat's phone as its screen puts it together (``gameplay.screens.table``): the public
    status line and public part from the board's view, and between them the seat's own part from its own keys
    (its own private log lines alone)."""
    own = own_keys(ENGINE.view(state, seat))
    public = context(ENGINE.view(state, None), players, None)
    return "".join([render_to_string("games/coup/phone_status.jinja", public),
                    render_to_string("games/coup/phone.jinja", context(own, players, seat)),
                    render_to_string("games/coup/phone_public.jinja", public)])


def board_text(html):
    """The board's words outside the log (log lines may name public face-up cards)."""
    return re.sub(r"<[^>]+>", " ", html)


def render_all(state, players, log_lines=False):
    """Render phone.html for every seat and board.html (and, if asked, every log line)."""
    for seat in range(players):
        view = ENGINE.view(state, seat)
        html = phone(state, players, seat)
        assert "coup-phone" in html
        for action in view["legal"]:
            if action["type"] in ("challenge", "allow"):
                assert f'data-test="{action["type"]}"' in html
            if action["type"] == "block":
                assert f'data-test="block-{action["as"]}"' in html
    board = ENGINE.view(state, None)
    html = render_to_string("games/coup/board.jinja", context(board, players, None))
    for line in state["log"] if log_lines else []:
        render_to_string("games/coup/log_line.jinja", {"line": line, "names": NAMES[:players]})
    return board, html


def test_templates_render_through_random_games_and_board_hides_face_down_cards():
    for players, opts in ((2, {}), (4, {"inquisitor": True, "factions": True}),
                          (5, {"factions": True, "rounds_to_win": 2}), (3, {"inquisitor": True})):
        rng = random.Random(players)
        state = ENGINE.setup(players, dict(ENGINE.default_options(), **opts), players)
        phases = set()
        step = 0
        while ENGINE.outcome(state) is None:
            step += 1
            if state["phase"] in phases and step % 25:
                seat = rng.choice([s for s in range(players) if ENGINE.legal_actions(state, s)])
                state = ENGINE.apply(state, seat, rng.choice(ENGINE.legal_actions(state, seat)))
                continue
            phases.add(state["phase"])
            board, html = render_all(state, players)
            # The board shows face-up (lost) cards only: a card word there must be a lost card
            # or a public claim; a face-down card never appears as a card tile.
            seats_part = html.split('data-test="outcome"')[0]  # the seats, not the end's reveal
            tiles = re.findall(r'class="board-card lost coup-(\w+)"', seats_part)
            lost = sorted(c for cards in board["lost"] for c in cards)
            assert sorted(tiles) == lost
            assert "card secret" not in html
            movers = [s for s in range(players) if ENGINE.legal_actions(state, s)]
            seat = rng.choice(movers)
            state = ENGINE.apply(state, seat, rng.choice(ENGINE.legal_actions(state, seat)))
        render_all(state, players, log_lines=True)
        assert "action" in phases


def test_every_log_event_has_a_sentence():
    rng = random.Random(5)
    seen = {}
    for seed in range(30):
        state = ENGINE.setup(4, dict(ENGINE.default_options(), inquisitor=seed % 2 == 0,
                                     factions=True, rounds_to_win=2), seed)
        while ENGINE.outcome(state) is None:
            movers = [s for s in range(4) if ENGINE.legal_actions(state, s)]
            seat = rng.choice(movers)
            state = ENGINE.apply(state, seat, rng.choice(ENGINE.legal_actions(state, seat)))
        for line in state["log"]:
            seen.setdefault(line["event"], line)
    for event, line in seen.items():
        text = board_text(render_to_string("games/coup/log_line.jinja", {"line": line, "names": NAMES[:4]}))
        assert text.strip() and text.strip() != event, event


def test_rules_page_renders_with_rulings_marked():
    html = render_to_string("games/coup/rules.jinja", {})
    assert html.count('<mark class="ruling">') >= 8
    assert "Silent challenge and block windows" in html and "“Wait”" in html


def test_html_does_not_depend_on_what_the_viewer_cannot_know():
    from .test_properties import permute_hidden, steps

    opts = dict(ENGINE.default_options(), inquisitor=True, factions=True)
    for index, state in enumerate(steps(4, opts, 21)):
        if index % 20:
            continue
        for seat in (None, 0, 1):
            other = permute_hidden(state, seat, index)
            if seat is None:
                html = render_to_string("games/coup/board.jinja", context(ENGINE.view(state, seat), 4, seat))
                assert render_to_string("games/coup/board.jinja", context(ENGINE.view(other, seat), 4, seat)) == html
            else:
                assert phone(other, 4, seat) == phone(state, 4, seat)


# ------------------------------------------------------------------ a phone lying face-up on the table


def redeal_own_cards(state, seat, rng):
    """The same table, but ``seat`` holds (and drew) other cards: the court's cards trade places with its own."""
    import json

    new = json.loads(json.dumps(state))
    me = new["players"][seat]
    pool = me["hand"] + me["drawn"] + new["deck"]
    rng.shuffle(pool)
    k, d = len(me["hand"]), len(me["drawn"])
    me["hand"], me["drawn"], new["deck"] = pool[:k], pool[k:k + d], pool[k + d:]
    return new


def test_what_a_phone_shows_unheld_does_not_depend_on_its_own_cards():
    """Every seat, all along random games: swap the seat's own cards (and those it drew) for others from
    the court, and the phone's text outside its peek boxes stays word for word the same. So the move
    buttons (Reveal, Lose, Show, Keep in an Exchange) never name a card, nor tell two alike by their number."""
    from ..peek import shown_text
    from .test_properties import steps

    phases = set()
    for players, opts in ((4, {"inquisitor": True, "factions": True}), (3, {}), (5, {"inquisitor": False})):
        rng = random.Random(players)
        for index, state in enumerate(steps(players, dict(ENGINE.default_options(), **opts), 40 + players)):
            interesting = state["phase"] in ("reveal", "lose", "exchange", "examine_show", "examine_decide")
            if index % 9 and not interesting:
                continue
            for seat in range(players):
                if not state["players"][seat]["hand"]:
                    continue
                html = phone(state, players, seat)
                for _ in range(2):
                    other = redeal_own_cards(state, seat, rng)
                    again = phone(other, players, seat)
                    assert shown_text(again) == shown_text(html), (state["phase"], seat)
                if ENGINE.legal_actions(state, seat):
                    phases.add(state["phase"])
    assert {"reveal", "lose", "exchange"} <= phases


def test_one_button_per_card_held_even_when_two_are_alike():
    """Two Dukes in hand: two Reveal buttons, "Card 1" and "Card 2", both revealing a Duke."""
    from engines.coup.presentation import exchange_choices
    from gameplay.templatetags.hand_tags import by_position

    view = {"hand": ["duke", "duke"], "legal": [{"type": "reveal", "card": "duke"}]}
    choices = by_position(view, "reveal")
    assert [(c["n"], c["action"]) for c in choices] == [(1, {"type": "reveal", "card": "duke"}),
                                                        (2, {"type": "reveal", "card": "duke"})]
    # An Exchange with two alike among four: still the six ways to keep two of four.
    pool = {"hand": ["duke", "captain"], "drawn": ["duke", "contessa"]}
    legal = [{"type": "return", "cards": sorted(c)} for c in
             {("duke", "captain"), ("duke", "contessa"), ("captain", "contessa"), ("duke", "duke")}]
    choices = exchange_choices({**pool, "legal": legal})
    assert len(choices) == 6
    assert all(c["action"] in legal for c in choices)
    assert choices[0]["keep"] == [1, 2] and choices[0]["action"] == {"type": "return", "cards": ["contessa", "duke"]}


def test_the_open_log_is_the_public_one_and_private_lines_lie_with_the_hand():
    state = ENGINE.setup(3, ENGINE.default_options(), 7)
    state = ENGINE.apply(state, state["turn"], {"type": "exchange"})
    while state["phase"] != "exchange":
        seat = next(s for s in range(3) if ENGINE.legal_actions(state, s))
        state = ENGINE.apply(state, seat, {"type": "allow"})
    actor = state["pending"]["actor"]
    html = phone(state, 3, actor)
    from ..peek import face_down_text, shown_text

    assert "You drew" not in shown_text(html) and "You drew" in face_down_text(html)
    drawn = ENGINE.view(state, actor)["drawn"]
    assert "Card 3 (drawn)" in face_down_text(html) and len(drawn) == 2
    assert 'data-test="return-5"' in html and 'data-test="return-6"' not in html  # C(4, 2) ways to keep two
    assert "Keep cards 1, 2" in shown_text(html)


# ------------------------------------------------------------------ the phone's own part and its public parts


def test_a_seats_own_part_moves_only_with_its_own_cards_and_moves():
    """Along random games: while a seat's cards, drawn cards, shown card, private lines and moves stay as they were,
    so does everything its own part reads (another seat's move or answer sends it nothing new); and the public parts,
    rendered from the board's view, are the same for every seat and hold no secret."""
    from .test_properties import steps

    kept = moved = 0
    for players, opts in ((4, {"inquisitor": True, "factions": True}), (3, {}), (5, {"rounds_to_win": 2})):
        before = None
        for state in steps(players, dict(ENGINE.default_options(), **opts), 60 + players):
            now = [own_keys(ENGINE.view(state, seat)) for seat in range(players)]
            if before is not None:
                for old, new in zip(before, now, strict=True):
                    mine = ("hand", "drawn", "examined", "log", "legal")
                    if all(old[key] == new[key] for key in mine):
                        assert old == new, {key: (old[key], new[key]) for key in old if old[key] != new[key]}
                        kept += 1
                    else:
                        moved += 1
            before = now
            public = context(ENGINE.view(state, None), players, None)
            html = render_to_string("games/coup/phone_status.jinja", public)
            html += render_to_string("games/coup/phone_public.jinja", public)
            assert "card secret" not in html and "data-peek" not in html
    assert kept and moved
