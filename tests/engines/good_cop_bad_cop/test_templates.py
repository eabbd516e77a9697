"""The game's templates render at every point of random games, and the board never leaks a secret."""

from __future__ import annotations

import random

from django.template.loader import render_to_string

from engines.good_cop_bad_cop import ENGINE

NAMES = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal"]
T = "games/good_cop_bad_cop/"


def context(view, players, me):
    """The context the web layer gives the partials."""
    names = NAMES[:players]
    seats = [{"index": s, "name": names[s], "is_bot": False, "is_me": s == me} for s in range(players)]
    return {"view": view, "seats": seats, "me": me, "names": names, "move_url": "/m",
            "log_template": "games/good_cop_bad_cop/log_line.html",
            "version": 3, "move_id": "x", "csrf_token": "t"}


def publicly_shown(board_view, name):
    """Whether a card name was ever shown to the whole table."""
    if any(c["name"] == name for cards in board_view["cards"] for c in cards):
        return True
    for line in board_view["log"]:
        if line.get("name") == name or name in line.get("cards", []) or line["event"] == "win":
            return True
    return False


def render_all(state, players, seen):
    """Render the phone of every seat, the board, and every log line not rendered yet."""
    board_view = ENGINE.view(state, None)
    board = render_to_string(T + "board.html", context(board_view, players, None))
    for secret, label in (("agent", "Agent"), ("kingpin", "Kingpin")):
        if not publicly_shown(board_view, secret):
            assert label not in board, f"the board shows the {secret}"
    for line in board_view["log"][seen:]:
        html = render_to_string(T + "log_line.html", {"line": line, **context(board_view, players, None)})
        assert "gcbc-unknown-event" not in html, line
    for seat in range(players):
        view = ENGINE.view(state, seat)
        html = render_to_string(T + "phone.html", context(view, players, seat))
        if {"type": "pass"} in view["legal"]:
            assert 'data-test="pass"' in html
        if {"type": "end_turn"} in view["legal"]:
            assert 'data-test="end-turn"' in html
        for action in view["legal"]:
            if action["type"] == "investigate":
                assert f'data-test="investigate-{action["target"]}-{action["card"]}"' in html
        for line in view["log"][-12:]:
            if line.get("private"):
                render_to_string(T + "log_line.html", {"line": line, **context(view, players, seat)})


def test_templates_render_through_random_games_without_leaks():
    for players, seed in ((4, 1), (5, 2), (6, 3), (8, 4)):
        rng = random.Random(seed)
        state = ENGINE.setup(players, {"bribe": True}, seed)
        seen = 0
        for step in range(3000):
            if step % 101 == 0 or ENGINE.outcome(state) is not None:
                render_all(state, players, seen)
                seen = len(state["log"])
            if ENGINE.outcome(state) is not None:
                break
            movers = [s for s in range(players) if ENGINE.legal_actions(state, s)]
            if not movers:
                state = ENGINE.on_timeout(state)
                continue
            seat = rng.choice(movers)
            state = ENGINE.apply(state, seat, rng.choice(ENGINE.legal_actions(state, seat)))


def test_every_card_play_and_choice_renders():
    from tests.engines.good_cop_bad_cop.helpers import make

    cards = [["agent", "honest", "crooked"], ["kingpin", "crooked", "honest"], ["honest"] * 3,
             ["crooked"] * 3, ["honest", "crooked", "honest"], ["crooked", "honest", "crooked"]]
    for card in ["blackmail", "coffee", "evidence_bag", "flashbang", "k9_unit", "metal_detector",
                 "planted_evidence", "polygraph", "report_audit", "smoke_grenade", "taser",
                 "truth_serum", "wiretap", "bribe", "defibrillator"]:
        state = make(6, cards=cards, hands=[[card], [], [], [], [], []], guns={1: 0, 2: 3}, bribe=True)
        state["players"][5].update(alive=False, up=[True, True, True])
        view = ENGINE.view(state, 0)
        assert card in view["playable"], card
        html = render_to_string(T + "phone.html", context(view, 6, 0))
        assert f'data-test="playable-{card}"' in html


def test_rules_page_marks_rulings_and_lists_every_card():
    html = render_to_string(T + "rules.html", {})
    assert html.count('<mark class="ruling">') >= 10
    for name in ("Blackmail", "Coffee", "Defibrillator", "Evidence Bag", "Flashbang", "K-9 Unit",
                 "Metal Detector", "Planted Evidence", "Polygraph", "Report Audit", "Restraining Order",
                 "Smoke Grenade", "Surveillance Camera", "Taser", "Truth Serum", "Wiretap", "Bribe"):
        assert name in html
    # Silent windows: the countdown option, no Pass, Wait for every seat alike.
    assert "Windows are silent" in html and "countdown" in html and "“Wait”" in html
    assert "Silent window countdown" in html
