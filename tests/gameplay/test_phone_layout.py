"""Every phone opens on the seat's own move: one ``data-test="my-move"`` block, before its secrets and the log.

Random games of every engine are played through ``move_submit``; at several points each seat's
page is fetched as its phone would and its HTML checked: the block is there exactly once, it comes
before the seat's secret cards, the other seats and the log, it holds a move form when the seat
has legal moves (and none otherwise), and when the seat waits it names whom the table waits for.
"""

from __future__ import annotations

import random
import re
from datetime import timedelta
from html.parser import HTMLParser

import pytest
from django.utils import timezone

from engines.registry import ENGINES, get_engine
from gameplay.models import Game
from gameplay.selectors import game_state
from gameplay.services import game_expire
from tests.conftest import start
from tests.gameplay.helpers import play_until_over, submit_status

pytestmark = pytest.mark.django_db

PLAYERS = {"coup": 4, "good_cop_bad_cop": 5, "good_cop_bad_cop_health": 4, "inside_job": 6}

# What must come after the block on each game's phone: the seat's secrets, the other seats, the log.
AFTER = {
    "coup": ['data-test="my-cards"', 'class="panel coup-others"', 'class="log"'],
    "good_cop_bad_cop": [
        'class="panel gcbc-mine"',
        'data-test="my-card-0"',
        'class="panel gcbc-equipment"',
        'class="panel gcbc-table"',
        'class="log"',
    ],
    "good_cop_bad_cop_health": ['class="panel gh-me', 'data-test="hand"', 'class="panel gh-table"', 'class="log"'],
    "inside_job": ['data-test="role"', 'class="panel ij-public"', 'class="log"'],
}
# Secrets that follow the block, unless a choice in it depends on them: then their peek box lies right above that
# choice's buttons (the box's cover, a button, comes before the first move form).
SECRETS = [
    'data-test="my-cards"',
    'data-test="my-card-',
    'data-test="role"',
    'data-test="identity"',
    'data-test="hand"',
]

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class BlockFinder(HTMLParser):
    """Finds the elements carrying ``data-test="my-move"``: where each starts and ends in the page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[dict] = []
        self.depth = 0
        self.open: dict | None = None

    def _offset(self) -> int:
        line, column = self.getpos()
        return self.line_starts[line - 1] + column

    def feed_page(self, html: str) -> None:
        self.line_starts = [0]
        for line in html.splitlines(keepends=True):
            self.line_starts.append(self.line_starts[-1] + len(line))
        self.feed(html)
        self.close()

    def handle_starttag(self, tag, attrs):
        if tag in VOID:
            return
        self.depth += 1
        if dict(attrs).get("data-test") == "my-move":
            self.open = {"start": self._offset(), "depth": self.depth, "text": []}
            self.blocks.append(self.open)

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if self.open is not None and self.depth == self.open["depth"]:
            self.open["end"] = self._offset()
            self.open = None
        self.depth -= 1

    def handle_data(self, data):
        if self.open is not None:
            self.open["text"].append(data)


def my_move_blocks(html: str) -> list[dict]:
    finder = BlockFinder()
    finder.feed_page(html)
    for block in finder.blocks:
        block["html"] = html[block["start"] : block.get("end", len(html))]
        block["text"] = " ".join("".join(block["text"]).split())
    return finder.blocks


def check_phone(engine_name: str, html: str, view: dict, names: list[str], over: bool) -> None:
    blocks = my_move_blocks(html)
    assert len(blocks) == 1, f"{engine_name}: {len(blocks)} my-move blocks"
    block = blocks[0]
    assert "end" in block, "the my-move block is never closed"
    body = html.index('class="game-body"')
    assert body < block["start"], "the block is inside the game's panel"
    for marker in AFTER[engine_name]:
        if marker in html[body:]:
            assert block["start"] < html.index(marker, body), f"{engine_name}: {marker} comes before the move"
    for secret in SECRETS:
        at = block["html"].find(secret)
        if at != -1:
            assert view["legal"] and not over, f"{engine_name}: {secret} in the block of a seat with nothing to choose"
            assert "data-peek-choice" in block["html"][:at] and 'class="move-form' in block["html"][at:], (
                f"{engine_name}: {secret} inside the move block, not right above a choice")
    has_form = 'class="move-form' in block["html"] and 'name="action"' in block["html"]
    if view["legal"] and not over:
        assert has_form, f"{engine_name} ({view['phase']}): legal moves but no move form in the block"
        assert "<button" in block["html"]
    else:
        assert 'name="action"' not in block["html"], f"{engine_name}: a live move in the block of a seat that has none"
        if view["awaiting"] and not over:
            # A game whose phone has a public status line (gameplay/_phone_head.jinja, the same on every phone)
            # says there whom the table waits for, just above the block.
            status = re.search(r'data-test="phone-status".*?</div>', html, re.S)
            shown = block["text"] + (" " + re.sub(r"<[^>]+>", " ", status.group(0)) if status else "")
            waited = [names[s] for s in view["awaiting"]]
            assert any(name in shown for name in waited), (
                f"{engine_name} ({view['phase']}): the block does not say whom the table waits for: {shown!r}"
            )


def advance(game: Game, people, rng: random.Random) -> None:
    """One legal move by a random seat that has one, or the clock running out when nobody has."""
    engine = get_engine(game.engine)
    state = game_state(game)
    movers = [s for s in range(game.players) if engine.legal_actions(state, s)]
    if not movers:
        Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(seconds=1))
        assert game_expire(game_id=game.pk)
        return
    seat = rng.choice(movers)
    action = rng.choice(engine.legal_actions(state, seat))
    assert submit_status(game_id=game.pk, player=people[seat].player, version=game.version, move_id=None,
                         action=action) == 200


def check_all_phones(table, people, game: Game) -> set[tuple[str, bool]]:
    """Check every seated phone now; returns the (phase, has moves) pairs seen."""
    game.refresh_from_db()
    engine = get_engine(game.engine)
    state = game_state(game)
    names = [p.player.nickname for p in people]
    seen = set()
    for seat, person in enumerate(people):
        view = engine.view(state, seat)
        html = person.get(f"/t/{table.code}/").content.decode()
        check_phone(game.engine, html, view, names, game.over)
        seen.add((view["phase"], bool(view["legal"])))
    return seen


@pytest.mark.parametrize("engine_name", sorted(ENGINES))
def test_every_phone_opens_on_the_seats_own_move(table_with, engine_name):
    assert engine_name in PLAYERS, "a new game: say how many play it here and what follows its move block"
    table, people = table_with(PLAYERS[engine_name], engine=engine_name, timer=10)
    game = start(table, people[0])
    rng = random.Random(engine_name)
    seen = check_all_phones(table, people, game)
    for _ in range(8):
        for _ in range(rng.randrange(2, 9)):
            game.refresh_from_db()
            if game.over:
                break
            advance(game, people, rng)
        seen |= check_all_phones(table, people, game)
    assert any(has for _, has in seen) and not all(has for _, has in seen), seen
    play_until_over(game, lambda: advance(game, people, rng), 3000)
    assert game.over
    check_all_phones(table, people, game)


@pytest.mark.parametrize("engine_name", sorted(ENGINES))
def test_a_game_ended_early_leaves_nothing_live_in_the_block(table_with, engine_name):
    table, people = table_with(PLAYERS[engine_name], engine=engine_name)
    game = start(table, people[0])
    people[0].post(f"/t/{table.code}/host/end/", {"confirm": "yes"})
    game.refresh_from_db()
    assert game.over
    check_all_phones(table, people, game)
