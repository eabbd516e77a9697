"""Templates render for every seat and phase, carry the e2e hooks, and the board never leaks."""

from __future__ import annotations

import random
import re

import pytest
from django.template.loader import render_to_string

from engines.inside_job import ENGINE
from gameplay.selectors import public_parts

from .helpers import approve_all, plain_roles, propose, run_mission, table
from .test_information_sets import CASES, scramble, states_along_a_game

ROLE_WORDS = ["Merlin", "Assassin", "Percival", "Morgana", "Mordred", "Oberon"]


def game_to_the_end(players: int, options: dict, seed: int) -> list[dict]:
    """Every state of one random game, the final one included."""
    rng = random.Random(seed)
    state = ENGINE.setup(players, options, seed)
    states = [state]
    while ENGINE.outcome(state) is None:
        seat = rng.choice(sorted(ENGINE.awaiting(state)))
        state = ENGINE.apply(state, seat, rng.choice(ENGINE.legal_actions(state, seat)))
        states.append(state)
    return states


def context(state: dict, seat: int | None) -> dict:
    """The context the web layer gives a game partial (the board's and the phone's public pieces drawn from
    ``parts``, the board's only)."""
    names = [f"Player{chr(65 + s)}" for s in range(state["players"])]
    seats = [{"index": s, "name": names[s], "is_bot": False, "is_me": s == seat}
             for s in range(state["players"])]
    view = ENGINE.view(state, seat)
    return {"view": view, "seats": seats, "me": seat, "names": names,
            "move_url": "/m",
            "log_template": "games/inside_job/log_line.jinja", "version": 3,
            "parts": public_parts(ENGINE.name, view, seats) if seat is None else {}}


def phone(state: dict, seat: int) -> str:
    """The rendered game part of a seat's phone as its screen puts it together (``gameplay.screens.table``): the public
    status line and public part from the board's parts alone (``parts.status``, ``parts``), and between them the
    seat's own part from its own keys."""
    own = context(state, seat)
    own["view"] = {key: value for key, value in own["view"].items()
                   if key in ENGINE.phone_private_keys | {"seat", "legal"}}
    parts = context(state, None)["parts"]
    return "".join([render_to_string("games/inside_job/phone_status.jinja", {"part": parts["status"]}),
                    render_to_string("games/inside_job/phone.jinja", own),
                    render_to_string("games/inside_job/phone_public.jinja", {"parts": parts})])


def board(state: dict) -> str:
    """The rendered public board, from the board's parts alone (as the web layer draws it: its public_parts)."""
    return render_to_string("games/inside_job/board.jinja", {"parts": context(state, None)["parts"]})


def test_every_partial_renders_through_whole_random_games():
    for players, options in CASES:
        for seed in range(1):
            states = list(game_to_the_end(players, options, seed))
            final = states[-1]
            for index, state in enumerate(states):
                if index % 7 and state is not final:
                    continue
                for seat in range(players):
                    assert "data-test=\"role\"" in phone(state, seat)
                html = board(state)
                assert "ij-board" in html
                ctx = context(state, None)
                for line in ctx["view"]["log"]:
                    text = render_to_string("games/inside_job/log_line.jinja",
                                            {"line": line, "names": ctx["names"]}).strip()
                    assert text and text != line["event"]
            assert 'data-test="outcome"' in board(final)
            assert 'data-test="outcome"' in phone(final, 0)


def test_private_lady_result_renders_as_a_sentence():
    line = {"event": "lady_result", "private": True, "to": 0, "target": 2, "side": "traitors"}
    text = render_to_string("games/inside_job/log_line.jinja", {"line": line, "names": ["A", "B", "C"]})
    assert "C" in text and "Traitor" in text


def test_leader_phone_has_the_propose_form_with_picks_in_seat_order():
    state = table(5, plain_roles(5, [1, 3]), leader=2)
    html = phone(state, 2)
    assert 'data-test="propose"' in html
    picks = re.findall(r'data-test="pick-(\d+)"><input type="checkbox" name="a.team\[\]" value="(\d+)"', html)
    assert picks == [(str(s), str(s)) for s in range(5)]
    assert '"type": "propose"' in html.replace("&quot;", '"')
    assert 'data-test="propose"' not in phone(state, 0)
    assert "Waiting for" in phone(state, 0)


def test_vote_buttons_until_the_seat_has_voted_then_waiting():
    state = propose(table(5, plain_roles(5, [1, 3])), [0, 1])
    html = phone(state, 4)
    assert 'data-test="vote-approve"' in html and 'data-test="vote-reject"' in html
    state = ENGINE.apply(state, 4, {"type": "vote", "approve": True})
    html = phone(state, 4)
    assert 'data-test="vote-approve"' not in html and "Waiting for" in html
    assert 'data-test="vote-approve"' in phone(state, 0)


def play_buttons(html: str) -> list[tuple[dict, str]]:
    """The mission-card buttons of a phone: (the action each sends, its label), in page order."""
    import json
    from html import unescape

    now = html.split('data-test="my-move"')[1].split("</section>")[0]
    return [(json.loads(unescape(action)), label.strip()) for action, label in re.findall(
        r'name="action" value="([^"]*)"><button type="submit"[^>]*data-test="play-[a-z]+">([^<]*)</button>', now)]


def test_mission_buttons_agents_are_offered_only_success():
    """Two cards for every team member, by position: an Agent's both Success, a Traitor's Success and
    Sabotage; each button sends exactly an action the engine lists."""
    state = approve_all(propose(table(5, plain_roles(5, [1, 3])), [0, 1]))
    agent, traitor, outsider = phone(state, 0), phone(state, 1), phone(state, 2)
    assert 'data-test="play-success"' in agent and 'data-test="play-sabotage"' not in agent
    assert 'data-test="play-success"' in traitor and 'data-test="play-sabotage"' in traitor
    assert 'data-test="play-success"' not in outsider and "Waiting for" in outsider
    success, sabotage = {"type": "play", "card": "success"}, {"type": "play", "card": "sabotage"}
    assert play_buttons(agent) == [(success, "Play card 1"), (success, "Play card 2")]
    assert play_buttons(traitor) == [(success, "Play card 1"), (sabotage, "Play card 2")]
    assert ENGINE.legal_actions(state, 0) == [success]
    assert play_buttons(outsider) == []


def test_assassination_and_lady_buttons():
    roles = ["merlin", "assassin", "agent", "traitor", "agent"]
    state = table(5, roles, merlin=True)
    for team in ([0, 2], [0, 2, 4], [2, 4]):
        state = run_mission(state, team)
    html = phone(state, 1)
    assert all(f'data-test="assassinate-{s}"' in html for s in (0, 2, 4))
    assert 'data-test="assassinate-3"' not in html
    state = table(7, plain_roles(7, [1, 3, 5]), leader=0, lady_of_the_lake=True)
    state = run_mission(run_mission(state, [0, 2]), [0, 2, 4])
    html = phone(state, 6)
    assert all(f'data-test="examine-{s}"' in html for s in range(6))
    assert 'data-test="examine-6"' not in html


def test_phone_shows_own_role_and_known_traitors():
    state = table(5, plain_roles(5, [1, 3]))
    # The role lies face-down in its hold-to-peek box (the box itself is the same for every role).
    assert re.search(r'data-test="role".*?class="ij-role">\s*Traitor\s*<', phone(state, 1), re.S)
    assert "PlayerD" in phone(state, 1).split('data-test="known"')[1][:200]
    assert 'data-test="known"' not in phone(state, 0)


def test_outcome_reveals_every_role_on_phone_and_board():
    state = table(5, plain_roles(5, [1, 3]))
    for team in ([0, 2], [0, 2, 4], [2, 4]):
        state = run_mission(state, team)
    for html in (board(state), phone(state, 1)):
        assert 'data-test="outcome"' in html and 'data-side="agents"' in html
    assert all(f'data-test="reveal-{s}"' in phone(state, 1) for s in range(5))
    # The board shows each seat's role card on that seat.
    roles = re.findall(r'class="board-card board-role"><svg class="card-art card-art-([a-z]+)"', board(state))
    assert roles == ["agent", "traitor", "agent", "traitor", "agent"]


@pytest.mark.parametrize(("players", "options"), CASES)
def test_board_html_never_depends_on_hidden_facts_or_names_a_role(players, options):
    rng = random.Random(7)
    for index, state in enumerate(states_along_a_game(players, options, 3)):
        if index % 5:
            continue
        html = board(state)
        assert board(scramble(state, None, rng)) == html
        if state["phase"] != "assassinate":
            assert not any(word in html for word in ROLE_WORDS)
            assert "Traitor<" not in html and "data-role" not in html
        for seat in (index % players, (index + 3) % players):
            assert phone(scramble(state, seat, rng), seat) == phone(state, seat)


def test_rules_page_renders_with_rulings_marked():
    html = render_to_string("games/inside_job/rules.jinja", {})
    assert html.count('<mark class="ruling">') >= 8
    assert "fifth rejected proposal" in html


# ------------------------------------------------------------------ a phone lying face-up on the table


def test_what_a_phone_shows_unheld_does_not_depend_on_its_role():
    """Every seat, all along random games, with every special role: give it another seat's role (of the
    other side) and the phone's text outside its peek boxes stays word for word the same, its own vote and
    mission card included, and a team member's two mission cards before it plays. Left out: the Assassin's
    moment (it acts in the open)."""
    import copy

    from ..peek import shown_text

    for players, options in CASES:
        for index, state in enumerate(states_along_a_game(players, options, 3)):
            if state["phase"] == "assassinate" or index % 3:
                continue
            for seat in range(players):
                html = phone(state, seat)
                other = copy.deepcopy(state)
                mine = other["roles"][seat]
                swap = next(s for s in range(players) if (other["roles"][s] in ("agent", "merlin", "percival"))
                            != (mine in ("agent", "merlin", "percival")))
                other["roles"][seat], other["roles"][swap] = other["roles"][swap], mine
                if other["phase"] == "mission" and other["cards"][seat] is not None:
                    other["cards"][seat] = "sabotage" if other["cards"][seat] == "success" else "success"
                if other["phase"] == "vote" and other["votes"][seat] is not None:
                    other["votes"][seat] = not other["votes"][seat]
                for entry in other["log"]:
                    if entry.get("private") and entry.get("to") == seat:
                        entry["side"] = "traitors" if entry["side"] == "agents" else "agents"
                assert shown_text(phone(other, seat)) == shown_text(html), (state["phase"], seat)


def test_a_team_members_mission_cards_look_the_same_for_every_role():
    """The mission-card step, all along random games with every special role: a team member about to play,
    given in turn the role of every other seat (Agent, Merlin, Percival for Traitor, Assassin, Morgana,
    Mordred, Oberon and back), shows word for word the same text outside its peek boxes: "Play card 1",
    "Play card 2" for everyone. Each button sends exactly an action the engine lists; whoever may only play
    Success holds two Success cards; which card is which lies face-down."""
    import copy

    from engines.inside_job.cards import ROLES, side_of

    from ..peek import face_down_text, shown_text

    success, sabotage = {"type": "play", "card": "success"}, {"type": "play", "card": "sabotage"}
    steps = sides = 0
    roles_taken: set[str] = set()
    for players, options in CASES:
        for state in states_along_a_game(players, options, 3):
            if state["phase"] != "mission":
                continue
            for seat in state["team"]:
                if state["cards"][seat] is not None:
                    continue
                html = phone(state, seat)
                steps += 1
                # One seat of each other role in play: this seat takes that role, that seat this one's.
                holders = {role: s for s, role in enumerate(state["roles"]) if role != state["roles"][seat]}
                for other_seat in holders.values():
                    other = copy.deepcopy(state)
                    roles = other["roles"]
                    roles[seat], roles[other_seat] = roles[other_seat], roles[seat]
                    again = phone(other, seat)
                    assert shown_text(again) == shown_text(html), (players, roles[seat], seat)
                    sides += side_of(roles[seat]) != side_of(state["roles"][seat])
                    roles_taken.add(roles[seat])
                    buttons = play_buttons(again)
                    legal = ENGINE.legal_actions(other, seat)
                    assert [label for _action, label in buttons] == ["Play card 1", "Play card 2"]
                    assert all(any(action == listed for listed in legal) for action, _label in buttons)
                    cards = face_down_text(again)
                    if side_of(roles[seat]) == "agents":
                        assert legal == [success] and [a for a, _l in buttons] == [success, success]
                        assert "Card 1: Success · Card 2: Success" in cards
                    else:
                        assert [a for a, _l in buttons] == [success, sabotage]
                        assert "Card 1: Success · Card 2: Sabotage" in cards
    assert steps > 20 and sides > 50, (steps, sides)
    assert roles_taken == set(ROLES), roles_taken


def test_the_track_is_a_drawing_with_sizes_results_sabotage_and_rejections():
    """The SVG track: five discs with their team sizes, the results and Sabotage cards played, the
    two-Sabotage mission ringed, the rejection pips; and the same in words for screen readers."""
    from engines.inside_job.cards import MISSION_SIZES

    state = table(7, plain_roles(7, [0, 1, 2]))
    for team, sabotage in (([0, 3], {0}), ([3, 4, 5], set())):
        state = run_mission(state, team, sabotage)
    html = board(state)
    svg = re.search(r'<svg class="ij-track".*?</svg>', html, re.S).group(0)
    assert 'aria-hidden="true"' in svg and "<image" not in svg and "href" not in svg
    sizes = re.findall(r'data-test="mission-(\d)" data-size="(\d+)"', svg)
    assert [int(size) for _n, size in sizes] == MISSION_SIZES[7]
    assert svg.count('class="ij-ring-two"') == 1  # mission 4 at seven players needs two Sabotage cards
    view = ENGINE.view(state, None)
    done = view["missions"]
    assert len(re.findall(r'class="ij-mission ij-(success|fail)"', svg)) == len(done)
    assert svg.count('class="ij-sabotage-mark"') == sum(c or 0 for c in view["sabotage_counts"])
    pips = re.search(r'<svg class="ij-pips".*?</svg>', html, re.S).group(0)
    assert pips.count('<circle class="ij-pip') == view["max_rejections"]
    assert pips.count("ij-pip-on") == view["rejections"]
    words = re.search(r'<ol class="visually-hidden"[^>]*>(.*?)</ol>', html, re.S).group(1)
    assert words.count("<li>") == 5 and "Mission 1: a team of 2" in words


def test_the_rejection_pips_count_the_rejected_proposals():
    state = table(5, plain_roles(5, [0, 1]))
    for _ in range(3):
        state = propose(state, [0, 1])
        for seat in range(5):
            state = ENGINE.apply(state, seat, {"type": "vote", "approve": False})
    html = phone(state, 2)
    pips = re.search(r'<svg class="ij-pips".*?</svg>', html, re.S).group(0)
    assert pips.count("ij-pip-on") == 3 == ENGINE.view(state, 2)["rejections"]
    assert 'data-test="rejections"' in html and "Rejected proposals this mission: 3 of 5" in html
