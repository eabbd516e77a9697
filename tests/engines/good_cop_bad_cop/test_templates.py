"""The game's templates render at every point of random games, and the board never leaks a secret."""

from __future__ import annotations

import random
import re

from django.template.loader import render_to_string

from engines.good_cop_bad_cop import ENGINE
from gameplay.selectors import public_parts

NAMES = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal"]
T = "games/good_cop_bad_cop/"


def context(view, players, me):
    """The context the web layer gives the partials."""
    names = NAMES[:players]
    seats = [{"index": s, "name": names[s], "is_bot": False, "is_me": s == me} for s in range(players)]
    parts = public_parts(ENGINE.name, view, seats) if me is None else {}  # the public templates read them alone
    return {"view": view, "seats": seats, "me": me, "names": names, "move_url": "/m", "parts": parts,
            "log_template": "games/good_cop_bad_cop/log_line.jinja",
            "version": 3}


def phone(state, players, seat):
    """The rendered game part of a seat's phone as its screen puts it together (``gameplay.screens.table``): the public
    status line and public part from the board's view, and between them the seat's own part from its own keys
    (its own private log lines alone)."""
    view = ENGINE.view(state, seat)
    own = {key: value for key, value in view.items() if key in ENGINE.phone_private_keys | {"seat", "legal"}}
    own["log"] = [line for line in own["log"] if line.get("private")]
    parts = context(ENGINE.view(state, None), players, None)["parts"]
    return "".join([render_to_string(T + "phone_status.jinja", {"part": parts["status"]}),
                    render_to_string(T + "phone.jinja", context(own, players, seat)),
                    render_to_string(T + "phone_public.jinja", {"parts": parts})])


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
    parts = context(board_view, players, None)["parts"]
    board = render_to_string(T + "board.jinja", {"parts": parts})
    # The phone's public status and part are the same on every phone: no more than the board may show.
    shared = render_to_string(T + "phone_status.jinja", {"part": parts["status"]}) + render_to_string(
        T + "phone_public.jinja", {"parts": parts})
    for secret, label in (("agent", "Agent"), ("kingpin", "Kingpin")):
        if not publicly_shown(board_view, secret):
            assert label not in board, f"the board shows the {secret}"
            assert label not in shared, f"a phone's public part shows the {secret}"
    for line in board_view["log"][seen:]:
        html = render_to_string(T + "log_line.jinja", {"line": line, **context(board_view, players, None)})
        assert "gcbc-unknown-event" not in html, line
    for seat in range(players):
        view = ENGINE.view(state, seat)
        html = phone(state, players, seat)
        if {"type": "pass"} in view["legal"]:
            assert 'data-test="pass"' in html
        if {"type": "end_turn"} in view["legal"]:
            assert 'data-test="end-turn"' in html
        for action in view["legal"]:
            if action["type"] == "investigate":
                assert f'data-test="investigate-{action["target"]}-{action["card"]}"' in html
        for line in view["log"][-12:]:
            if line.get("private"):
                render_to_string(T + "log_line.jinja", {"line": line, **context(view, players, seat)})


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
        html = phone(state, 6, 0)
        assert f'data-test="playable-{card}"' in html


def test_rules_page_marks_rulings_and_lists_every_card():
    html = render_to_string(T + "rules.jinja", {})
    assert html.count('<mark class="ruling">') >= 10
    for name in ("Blackmail", "Coffee", "Defibrillator", "Evidence Bag", "Flashbang", "K-9 Unit",
                 "Metal Detector", "Planted Evidence", "Polygraph", "Report Audit", "Restraining Order",
                 "Smoke Grenade", "Surveillance Camera", "Taser", "Truth Serum", "Wiretap", "Bribe"):
        assert name in html
    # Silent windows: the countdown option, no Pass, Wait for every seat alike.
    assert "Windows are silent" in html and "countdown" in html and "“Wait”" in html
    assert "Silent window countdown" in html


# ------------------------------------------------------------------ a phone lying face-up on the table


def redeal_own_secrets(state, seat, rng):
    """The same table, but ``seat``'s face-down integrity cards and its equipment are others: face-down
    cards are shuffled over all the seats' face-down places, its equipment traded with the deck's."""
    import json

    new = json.loads(json.dumps(state))
    players = new["players"]
    places = [(s, i) for s, p in enumerate(players) for i, up in enumerate(p["up"]) if not up]
    names = [players[s]["cards"][i] for s, i in places]
    rng.shuffle(names)
    for (s, i), name in zip(places, names, strict=True):
        players[s]["cards"][i] = name
    me = players[seat]
    pool = me["hand"] + new["deck"]
    rng.shuffle(pool)
    me["hand"], new["deck"] = pool[:len(me["hand"])], pool[len(me["hand"]):]
    return new


def test_what_a_phone_shows_unheld_does_not_depend_on_its_own_cards_or_equipment():
    """Every seat, all along random games: deal it other integrity cards and other equipment, and the phone's
    text outside its peek boxes and closed folds is word for word the same, and so are the classes on show
    (no tile coloured by its card). So the arrangement lists positions in every order, Keep names a number,
    and the equipment to play lies in a fold every Lead Investigator gets."""
    from ..contract import random_step
    from ..peek import parse, shown_text

    phases = set()
    for players, seed in ((4, 11), (6, 12), (8, 13)):
        rng = random.Random(seed)
        state = ENGINE.setup(players, {"bribe": True}, seed)
        for step in range(1200):
            if ENGINE.outcome(state) is not None:
                break
            choosing = state["stack"] and state["stack"][-1]["kind"] in ("arrange", "keep", "reveal", "bribe")
            if step % 13 == 0 or choosing:
                for seat in range(players) if step % 13 == 0 else sorted(ENGINE.awaiting(state))[:1]:
                    view = ENGINE.view(state, seat)
                    html = phone(state, players, seat)
                    other = redeal_own_secrets(state, seat, rng)
                    again = phone(other, players, seat)
                    assert shown_text(again) == shown_text(html), (view["phase"], seat)
                    shown_classes = sorted(parse(html).classes_shown)
                    assert sorted(parse(again).classes_shown) == shown_classes, (view["phase"], seat)
                    if view["legal"]:
                        phases.add(view["phase"])
            state, _, _ = random_step(ENGINE, state, players, rng)
    assert {"arrange", "action"} <= phases


def test_three_alike_cards_show_the_same_six_arrangements_as_three_different_ones():
    from tests.engines.good_cop_bad_cop.helpers import make

    for mine in (["honest"] * 3, ["agent", "honest", "crooked"]):
        state = make(4, cards=[mine, ["crooked"] * 3, ["honest"] * 3, ["kingpin", "crooked", "honest"]])
        state["players"][0]["arranged"] = False
        state["stack"] = [{"kind": "arrange", "id": 99}]
        view = ENGINE.view(state, 0)
        assert view["legal"] and all(a["type"] == "arrange" for a in view["legal"])
        html = phone(state, 4, 0)
        assert html.count('data-test="arrange-') == 6
        from ..peek import shown_text

        for name in ("Honest", "Agent", "Crooked"):
            assert name not in shown_text(html)


def test_the_seats_own_face_down_tiles_carry_no_card_colour():
    from tests.engines.good_cop_bad_cop.helpers import five

    def seats_from(view):
        """The phone's table drawn from a seat's own view (which names its face-down cards), projected as the
        board's is (presentation.phone_seat)."""
        return render_to_string(T + "seats.jinja", {"phone_seats": public_parts(
            ENGINE.name, view, context(view, 5, None)["seats"])["phone"]["seats"]})

    state = five()
    for seat in range(5):
        html = seats_from(ENGINE.view(state, seat))
        assert not re.search(r'gcbc-(honest|crooked|agent|kingpin)\b', html)
    state["players"][0]["up"][0] = True  # a face-up card shows what it is, to everyone
    html = seats_from(ENGINE.view(state, 3))
    assert "gcbc-agent face-up" in html


def test_what_a_seat_learned_is_one_line_per_seat_looked_at():
    from tests.engines.good_cop_bad_cop.helpers import five

    state = five()
    learned = [{"target": 1 + k % 3, "card": k % 3, "name": "honest", "how": "investigate"} for k in range(30)]
    state["players"][0]["learned"] = learned
    html = phone(state, 5, 0)
    assert html.count('class="gcbc-learned-line"') == 3
    assert html.count("gcbc-learned-line") == 3 and html.count("<strong>Honest</strong>") >= 30
