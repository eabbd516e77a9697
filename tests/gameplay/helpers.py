"""Helpers for web-layer tests: post a move as a phone would."""

from __future__ import annotations

import json
import uuid

from engines.registry import get_engine
from gameplay.models import Game
from gameplay.selectors import game_state
from gameplay.services import MoveRefused, move_submit
from gameplay.web.views import refusal_answer


def move_data(game: Game, action: dict, *, version: int | None = None, move_id: str | None = None) -> dict:
    """The form fields a phone's move button sends."""
    data = {"version": str(game.version if version is None else version), "action": json.dumps(action)}
    data["move_id"] = move_id or uuid.uuid4().hex
    return data


def submit_status(**kwargs) -> int:
    """``move_submit(**kwargs)`` answered as the move view answers it: 200, or its refusal's status."""
    try:
        move_submit(**kwargs)
    except MoveRefused as refusal:
        return refusal_answer(refusal)[0]
    return 200


def legal(game: Game, seat: int) -> list[dict]:
    """The seat's legal actions now (read through the engine's view, as a phone sees them)."""
    game.refresh_from_db()
    return get_engine(game.engine).view(game_state(game), seat)["legal"]


def coup_incomes_until(table, people, game: Game, seat: int) -> None:
    """Coup: every seat to move takes Income, through its guest's posts, until ``seat`` is to move."""
    while not legal(game, seat):
        mover = next(s for s in range(game.players) if legal(game, s))
        income = next(a for a in legal(game, mover) if a["type"] == "income")
        assert people[mover].htmx_post(f"/t/{table.code}/move/", move_data(game, income)).status_code == 200


def awaited_movers(game: Game) -> list[int]:
    """Seats that have something to do now."""
    game.refresh_from_db()
    return [s for s in range(game.players) if legal(game, s)]


def play_until_over(game: Game, move, limit: int) -> None:
    """``move()`` until ``game`` is over (at most ``limit`` moves); the game is read afresh."""
    for _ in range(limit):
        game.refresh_from_db()
        if game.over:
            return
        move()
    game.refresh_from_db()
