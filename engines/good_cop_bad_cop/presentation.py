"""What the web layer shows of Good Cop Bad Cop beside its views: the reference card's facts, a seat's role
from the end's reveal, the Kingpin as the minority role a fair deal evens out, and the board's public parts
(each seat's element, ``bv-seat-N``, as the plain dict it shows, and what the board, the phone's status line and its
public part show outside their pieces: ``public_parts``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engines.base import JSONDict, item_at, seat_name, seat_team

from . import cards, rules

MINORITY = ("role", cards.KINGPIN)


def reference(view: JSONDict, players: int, options: JSONDict) -> JSONDict:
    """The integrity cards and guns for this many players, the equipment deck."""
    side = cards.SIDE_CARDS.get(players, 0)
    return {"integrity": [{"name": cards.HONEST, "n": side}, {"name": cards.CROOKED, "n": side},
                          {"name": cards.AGENT, "n": 1}, {"name": cards.KINGPIN, "n": 1}],
            "guns": cards.GUNS.get(players, 0), "equipment": rules.equipment_deck(players, bribe=False),
            "bribe": cards.BRIBE}


def seat_role(outcome: JSONDict, seat: int) -> str | None:
    """Kingpin or agent for the leaders, else the team (honest or crooked)."""
    revealed = (outcome.get("reveal") or {}).get("cards")
    mine = revealed[seat] if isinstance(revealed, list) and seat < len(revealed) else []
    for leader in ("kingpin", "agent"):
        if leader in mine:
            return leader
    return seat_team(outcome, seat)


def is_minority(view: JSONDict, seat: int) -> bool:
    """A seat whose own integrity cards hold the Kingpin."""
    own = view.get("cards") or []
    return seat < len(own) and any(card.get("name") == "kingpin" for card in own[seat])


def public_parts(view: JSONDict, seats: Sequence[JSONDict],
                 ended_views: Sequence[JSONDict] | None) -> dict[str, JSONDict]:
    """The board's seats (``bv-seat-N``: templates/games/good_cop_bad_cop/board_seat.jinja), each as all it shows:
    its name, its cards, its badges, and whether the latest public log line names it (``is_new``). Three keys are
    not element ids: ``board``, ``status`` and ``phone``, what board.jinja, phone_status.jinja (as ``part``) and
    phone_public.jinja show outside their pieces."""
    log = view.get("log") or []
    last = log[-1] if log and isinstance(log[-1], dict) else {}
    parts = {f"bv-seat-{i}": board_seat(view, seats, ended_views, i, last) for i in range(len(view["cards"]))}
    names = [str(s.get("name", "")) for s in seats]
    parts["board"] = board_part(view, names, ended_views)
    parts["status"] = {"shown": not view.get("outcome"),
                       "line": None if view.get("outcome") else status_line(view, names)}
    parts["phone"] = phone_part(view, seats, names)
    return parts


def board_part(view: JSONDict, names: Sequence[str], ended_views: Sequence[JSONDict] | None) -> JSONDict:
    """What board.jinja shows outside its pieces: the phase (``data-phase``), the seats' indexes in order (where it
    places ``bv-seat-N``), the status line (:func:`status_line`; None in a game the host ended), the Lead
    Investigator's name, the direction, the guns left in the centre and the cards a Defibrillator removed (ids)."""
    return {
        "phase": str(view["phase"]),
        "seats": list(range(len(view["cards"]))),
        "status": None if ended_views else status_line(view, names),
        "lead": seat_name(view["turn"], names),
        "clockwise": view.get("direction") == 1,
        "guns_left": int(view.get("guns_left") or 0),
        "removed": list(view.get("removed") or []),
    }


NAMING_THE_SEAT = ("respond", "reveal", "keep", "bribe", "redirect")  # the phases whose status names the pending seat


def status_line(view: JSONDict, names: Sequence[str]) -> JSONDict:
    """What the table does now and whom it waits for (status.jinja): the phase and the names its sentence holds, each
    only in the phases that say it (the end's team and winners; the Lead Investigator choosing or aiming; the seat the
    pending step is about, its target and its card; the window's ``when``: "shoot", "investigate" or its end)."""
    phase = str(view["phase"])
    pending = view.get("pending") or {}
    outcome = (view.get("outcome") or {}) if phase == "over" else {}
    window = pending.get("when") if phase == "respond" else None
    targeted = phase == "redirect" or window in ("shoot", "investigate")
    return {
        "phase": phase,
        "team": outcome.get("team") if phase == "over" else None,
        "winners": [seat_name(s, names) for s in outcome.get("winners") or []],
        "lead": seat_name(view["turn"], names) if phase in ("action", "aim") else None,
        "when": window,
        "who": seat_name(pending.get("seat"), names) if phase in NAMING_THE_SEAT else None,
        "target": seat_name(pending.get("target"), names) if targeted else None,
        "card": pending.get("card") if window == "investigate" else None,
        "awaiting": [seat_name(s, names) for s in view.get("awaiting") or []],
    }


def phone_part(view: JSONDict, seats: Sequence[JSONDict], names: Sequence[str]) -> JSONDict:
    """What phone_public.jinja shows outside its pieces: each seat as the phone's table shows it (:func:`phone_seat`),
    the newest public log lines (oldest first) and the names they are told with."""
    return {"seats": [phone_seat(view, seats, names, i) for i in range(len(view["cards"]))],
            "log": newest_public(view.get("log") or [], PHONE_LOG_LINES), "names": list(names)}


PHONE_LOG_LINES = 8  # the phone's "Recent events"


def phone_seat(view: JSONDict, seats: Sequence[JSONDict], names: Sequence[str], i: int) -> JSONDict:
    """Seat ``i`` on a phone's table: its name, bot or not, its state (lead, out, awaited), its cards as the table
    sees them (a face-down one by position alone: no name) and its badges (wound, gun and aim, Planted Evidence,
    Coffee)."""
    aim = item_at(view["guns"], i)
    return {
        "index": i,
        "name": seat_name(i, names),
        "is_bot": bool((item_at(seats, i) or {}).get("is_bot")),
        "active": i == view["turn"],
        "out": not item_at(view["alive"], i),
        "awaited": i in (view.get("awaiting") or []),
        "cards": [{"name": c["name"] if c["face_up"] else None, "face_up": bool(c["face_up"])}
                  for c in view["cards"][i]],
        "wounded": bool(item_at(view["wounded"], i)),
        "armed": bool(item_at(view["armed"], i)),
        "aim": None if aim is None else seat_name(aim, names),
        "planted": view.get("planted") == i,
        "coffee": view.get("coffee") == i,
    }


def newest_public(log: Sequence[Any], count: int) -> list[JSONDict]:
    """The newest ``count`` lines everyone may read (no ``private`` mark), oldest first; only the newest looked at."""
    newest: list[JSONDict] = []
    for line in reversed(log):
        if len(newest) >= count:
            break
        if not line.get("private"):
            newest.append(line)
    return newest[::-1]


def board_seat(view: JSONDict, seats: Sequence[JSONDict], ended_views: Sequence[JSONDict] | None, i: int,
               last: JSONDict) -> JSONDict:
    """Seat ``i`` on the board: who (``seat``: name, is_bot), its state (lead, out, awaited, newly named by the log),
    its cards (``cards``; ``revealed``: every one face up at the end) and its badges (team, wound, gun and aim,
    Planted Evidence, Coffee)."""
    seat = item_at(seats, i) or {}
    names = [s.get("name") for s in seats]
    aim = item_at(view["guns"], i)
    cards = revealed_cards(view, ended_views, i)
    return {
        "index": i,
        "seat": {"name": seat.get("name", ""), "is_bot": bool(seat.get("is_bot"))},
        "active": i == view["turn"],
        "out": not item_at(view["alive"], i),
        "awaited": i in (view.get("awaiting") or []),
        "is_new": i == last.get("seat") or i == last.get("target"),
        "revealed": cards is not None,
        "cards": cards if cards is not None else [{"name": c["name"], "face_up": bool(c["face_up"])}
                                                  for c in view["cards"][i]],
        "team": ((view.get("outcome") or {}).get("teams") or {}).get(str(i)) or None,
        "wounded": bool(item_at(view["wounded"], i)),
        "armed": bool(item_at(view["armed"], i)),
        "aim": None if aim is None else item_at(names, aim),
        "planted": view.get("planted") == i,
        "coffee": view.get("coffee") == i,
    }


def revealed_cards(view: JSONDict, ended_views: Sequence[JSONDict] | None, i: int) -> list[JSONDict] | None:
    """Seat ``i``'s cards all face up at the end (a finished game's reveal, else its own last view in a game the host
    ended), by name; None while they lie as the table sees them."""
    own = item_at(ended_views, i) or {}
    shown = item_at((view.get("reveal") or {}).get("cards"), i) or item_at(own.get("cards"), i)
    if not shown:
        return None
    return [{"name": (card.get("name") if isinstance(card, dict) else None) or card, "face_up": True} for card in shown]


# Marks beside the words (``mark(kind)``): integrity cards and teams (the leaders a star and a diamond).
MARK_SHAPES = {"honest": "circle", "crooked": "triangle", "both": "triangle", "agent": "star", "kingpin": "diamond"}
