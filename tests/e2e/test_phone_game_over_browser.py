"""A host's phone at game over, at 360×740 in Chromium, for every game: the next step (Play again) lies on the
first screen, above the finished game's cards and board, and no panel on the page is empty.

Guests play each game to its end through the services (random legal moves); then the host's phone opens the table,
scrolled to the top. Screenshots go to test-artifacts/phone-over-*.png.
"""

from __future__ import annotations

import contextlib
import random
from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone

from engines.registry import ENGINES, get_engine
from gameplay.models import Game
from gameplay.selectors import game_state
from gameplay.services import MoveRefused, game_expire, move_submit
from lobby.models import Table
from tests.conftest import Guest, seeded_deals
from tests.e2e.conftest import ARTIFACTS, PHONE, save_screenshots
from tests.e2e.test_phone_peek_browser import session

pytestmark = pytest.mark.e2e

# Where the host's Play again lies (viewport coordinates, the page at its top), and the panels with nothing in them.
FOUND = """() => {
  const again = document.querySelector('[data-test=start]');
  const r = again ? again.getBoundingClientRect() : null;
  const empty = [...document.querySelectorAll('.panel')].filter(p => p.offsetParent !== null && !p.textContent.trim())
    .map(p => p.className);
  return {height: window.innerHeight, scrollY: window.scrollY, again: r && {top: r.top, bottom: r.bottom},
          text: again && again.textContent.trim(), page: document.documentElement.scrollHeight, empty: empty};
}"""


def played_out(engine_name: str) -> tuple[Table, list[Guest]]:
    """A table whose game its guests (at the engine's fewest seats, at least four) played to the end."""
    engine = get_engine(engine_name)
    players = max(engine.min_players, min(4, engine.max_players))
    rng = random.Random(players)
    with override_settings(RATELIMIT_ENABLE=False), seeded_deals(f"over-{engine_name}"):
        people = [Guest(f"Player {i + 1}") for i in range(players)]
        assert people[0].post("/new/", {"engine": engine_name, "timer": "0"}).status_code == 302
        table = Table.objects.filter(host=people[0].player).latest("pk")
        for person in people[1:]:
            assert person.post(f"/t/{table.code}/join/").status_code == 302
        assert people[0].post(f"/t/{table.code}/host/start/").status_code == 302
    game = table.games.get(status=Game.RUNNING)
    for _step in range(3000):
        game.refresh_from_db()
        if game.over:
            return table, people
        state = game_state(game)
        movers = [s for s in range(players) if engine.legal_actions(state, s)]
        if not movers:  # a window that only closes by itself
            Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(seconds=1))
            game_expire(game_id=game.pk)
            continue
        seat = rng.choice(movers)
        with contextlib.suppress(MoveRefused):
            move_submit(game_id=game.pk, player=people[seat].player, version=game.version, move_id=None,
                        action=rng.choice(engine.legal_actions(state, seat)), window=game.window)
    raise AssertionError(f"{engine_name}: the game never ended")


@pytest.mark.parametrize("engine_name", sorted(ENGINES))
def test_play_again_is_on_the_hosts_first_screen_at_game_over(browser, server, engine_name):
    table, people = played_out(engine_name)
    context = browser.new_context(**PHONE)
    context.add_cookies([session(people[0], server.url)])
    context.add_init_script(script="localStorage.setItem('peek-hint-seen', '1')")
    page = context.new_page()
    try:
        page.goto(f"{server.url}/t/{table.code}/")
        page.wait_for_selector("[data-test=start]", state="attached", timeout=15000)
        found = page.evaluate(FOUND)
        page.screenshot(path=str(ARTIFACTS / f"phone-over-{engine_name}.png"))
        assert found["scrollY"] == 0 and found["text"] == "Play again", found
        assert found["again"]["top"] >= 0 and found["again"]["bottom"] <= found["height"], found
        assert found["empty"] == [], found
    except Exception:
        save_screenshots([page], f"phone-over-{engine_name}-failure")
        raise
    finally:
        context.close()
