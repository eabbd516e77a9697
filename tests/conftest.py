"""Shared fixtures: guests with their own browsers (test clients), tables, started games."""

from __future__ import annotations

import os

import pytest
from django.test import Client

from lobby.models import Player, Table

# Games dealt from a seeded sequence (tools/deals.py): every test by default, below, and by name where a test deals
# until a position comes up.
from tools.deals import seeded_deals

# Tests drive the clock themselves (gameplay.worker.tick); the ASGI app must not start its own.
os.environ["GAME_WORKER"] = "0"
# Every reused public piece is rendered again and compared (gameplay.screens.pieces), here and in every server the
# tests start: a piece that reads something it does not record fails a test instead of going stale.
os.environ["SCREEN_PIECES_VERIFY"] = "1"


@pytest.fixture(autouse=True)
def _same_deals_every_run(request):
    """Every test deals the same games in every run: a sequence seeded with the test's own id.

    A test that plays at random until some position comes up must not fail one run in a few hundred because that
    run's deal ended the game first (CI failed so on a silent-window test). Random deals are the engines' property
    tests' job (hypothesis), where a failure comes with the seed that made it.
    """
    with seeded_deals(request.node.nodeid):
        yield


@pytest.fixture(autouse=True)
def _verify_pieces(settings):
    settings.SCREEN_PIECES_VERIFY = True


@pytest.fixture(autouse=True)
def _plain_static(settings):
    """Tests render pages without running collectstatic first."""
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }


@pytest.fixture(autouse=True)
def _fresh_limits():
    """Every test client is 127.0.0.1: the abuse limits count afresh in each test."""
    from django.core.cache import cache

    cache.clear()


class Guest:
    """A person with a phone: a test client whose session holds a guest Player."""

    def __init__(self, nickname: str, **client_kwargs) -> None:
        self.client = Client(**client_kwargs)
        response = self.client.post("/guest/", {"nickname": nickname, "next": "/"})
        assert response.status_code == 302
        self.player = Player.objects.get(pk=self.client.session["player_id"])

    def get(self, *args, **kwargs):
        return self.client.get(*args, **kwargs)

    def post(self, *args, **kwargs):
        return self.client.post(*args, **kwargs)

    def htmx_post(self, path, data):
        return self.client.post(path, data, HTTP_HX_REQUEST="true")


@pytest.fixture
def guests(db):
    """A factory of guests: guests(5) -> five Guest objects named P1..P5."""

    def make(count: int, prefix: str = "P"):
        return [Guest(f"{prefix}{i + 1}") for i in range(count)]

    return make


@pytest.fixture
def table_with(guests):
    """A table of ``engine`` with ``count`` seated guests (the first is the host)."""

    def make(count: int, engine: str = "inside_job", timer: int = 0, options: dict | None = None):
        people = guests(count)
        host = people[0]
        data = {"engine": engine, "timer": str(timer)}
        for key, value in (options or {}).items():
            if isinstance(value, bool):
                if value:
                    data[f"opt-{engine}-{key}"] = "on"
            else:
                data[f"opt-{engine}-{key}"] = str(value)
        response = host.post("/new/", data)
        assert response.status_code == 302, response.content[:500]
        table = Table.objects.get(host=host.player)
        for person in people[1:]:
            assert person.post(f"/t/{table.code}/join/").status_code == 302
        return table, people

    return make


def start(table: Table, host: Guest):
    """The host starts the game; returns the running Game."""
    response = host.post(f"/t/{table.code}/host/start/")
    assert response.status_code == 302
    return table.games.get(status="running")
