"""What the web layer shows of Good Cop Bad Cop (health edition) beside its views: the board's seats as plain parts
(``public_parts``: each seat's element projected from the board's view alone), the reference card's facts,
a seat's final identity from the end's reveal, and the Bad Cops as the minority a fair deal evens out."""

from __future__ import annotations

from collections.abc import Sequence

from engines.base import JSONDict, item_at, seat_name

from . import cards

MINORITY = ("role", "bad")


PHONE_LOG_LINES = 10  # the newest public lines a phone's public part shows


def public_parts(view: JSONDict, seats: Sequence[JSONDict],
                 ended_views: Sequence[JSONDict] | None) -> dict[str, JSONDict]:
    """Each seat's element of the board (``bv-seat-N``, templates/games/good_cop_bad_cop_health/board_seat.jinja): all
    it shows, from the board's view, the seats and, for a game the host ended, each seat's own last view (its
    identity, face up).

    Three keys are not element ids: ``board``, ``status`` and ``phone``, what board.jinja, phone_status.jinja (as
    ``part``) and phone_public.jinja show outside their pieces."""
    log = view.get("log") or []
    last = log[-1] if log else {}
    names = [str(s["name"]) for s in seats]
    parts = {f"bv-seat-{s['index']}": _seat_part(view, s, last, ended_views) for s in seats}
    parts["board"] = board_part(view, seats, ended_views)
    parts["status"] = status_part(view, names)
    parts["phone"] = phone_part(view, seats)
    return parts


def board_part(view: JSONDict, seats: Sequence[JSONDict], ended_views: Sequence[JSONDict] | None) -> JSONDict:
    """What board.jinja shows outside its pieces: the seats' indexes in order (where it places ``bv-seat-N``), the
    phase, the end's outcome (brief: the seats show the identities; None before the end), whose turn it is and the
    market (both None at the end and in a game the host ended)."""
    names = [str(s["name"]) for s in seats]
    outcome = view.get("outcome")
    live = not outcome and not ended_views
    log = view.get("log") or []
    last = log[-1] if log else {}
    new = last.get("event") == "market_refill" or (last.get("event") == "draw" and last.get("from") != "deck")
    return {
        "seats": [s["index"] for s in seats], "phase": view.get("phase"),
        "outcome": {"reason": outcome.get("reason"),
                    "winners": [seat_name(s, names) for s in outcome.get("winners") or []],
                    "won": None, "reveal": None, "identities": None} if outcome else None,
        "turn": status_part(view, names) if live else None,
        "market": {**_market(view), "new": new} if live else None,
    }


def status_part(view: JSONDict, names: Sequence[str]) -> JSONDict:
    """Whom the table waits for (the phone's status line, phone_status.jinja, and the board's turn line): nothing once
    the game is over (``shown``), else the phase, the seats choosing an identity (keep_identity) or whose turn it is."""
    phase = view.get("phase")
    return {"shown": not view.get("outcome"), "phase": phase,
            "awaiting": [seat_name(s, names) for s in view.get("awaiting") or []] if phase == "keep_identity" else [],
            "turn": seat_name(view.get("turn"), names) if phase != "keep_identity" else None}


def phone_part(view: JSONDict, seats: Sequence[JSONDict]) -> JSONDict:
    """What phone_public.jinja shows outside its pieces: each seat's line (name, bot or not, out, whose turn, health,
    identity once eliminated, equipment in play), the market, and the newest public log lines (newest first) with the
    seats' names."""
    lines: list[JSONDict] = []
    for line in reversed(view.get("log") or []):
        if len(lines) >= PHONE_LOG_LINES:
            break
        if not line.get("private"):
            lines.append(line)
    return {
        "seats": [{"index": s["index"], "name": s["name"], "is_bot": bool(s["is_bot"]),
                   "out": not item_at(view.get("alive"), s["index"]), "active": view.get("turn") == s["index"],
                   "health": item_at(view.get("health"), s["index"]),
                   "revealed": item_at(view.get("revealed"), s["index"]) or None,
                   "in_play": [{"kind": card["kind"]} for card in item_at(view.get("in_play"), s["index"]) or []]}
                  for s in seats],
        "market": _market(view), "log": lines, "names": [s["name"] for s in seats],
    }


def _market(view: JSONDict) -> JSONDict:
    """The market (each place's kind, None for a face-down place), the deck's count, Flawless Shot for every shooter."""
    return {"cards": [card["kind"] if card else None for card in view.get("market") or []], "deck": view.get("deck"),
            "flawless_shot_always": bool(view.get("flawless_shot_always"))}




def _seat_part(view: JSONDict, seat: JSONDict, last: JSONDict,
               ended_views: Sequence[JSONDict] | None) -> JSONDict:
    """One seat's element: its state on the table (the classes), its health, its equipment in play, its identity once
    eliminated (``revealed``) and every seat's at the end (``end``: a finished game's reveal, or the seat's own last
    view in a game the host ended; ``identity`` None there draws the back)."""
    index = int(seat["index"])
    identities = (view.get("reveal") or {}).get("identities")
    end = bool(identities or ended_views)
    identity = item_at(identities, index) or (item_at(ended_views, index) or {}).get("identity") if end else None
    return {
        "index": index,
        "seat": {"name": seat["name"], "is_bot": bool(seat["is_bot"])},
        "out": not item_at(view.get("alive"), index),
        "active": view.get("turn") == index,
        "awaited": index in (view.get("awaiting") or ()),
        "new": index in (last.get("seat"), last.get("target")),
        "health": item_at(view.get("health"), index),
        "revealed": item_at(view.get("revealed"), index) or None,
        "in_play": [{"kind": card["kind"]} for card in item_at(view.get("in_play"), index) or []],
        "end": end,
        "identity": identity or None,
    }


def reference(view: JSONDict, players: int, options: JSONDict) -> JSONDict:
    """The kinds of equipment with this table's deck counts, guns' damage, the identities."""
    # The deck as this table deals it: the host may change the counts (the ``deck`` option).
    deck = options.get("deck") or cards.DEFAULT_DECK
    return {"kinds": [{"kind": k, "damage": cards.DAMAGE.get(k), "n": int(deck.get(k, 0))} for k in cards.KINDS],
            "deck": sum(int(deck.get(k, 0)) for k in cards.KINDS),
            "health": cards.START_HEALTH, "market": cards.MARKET_SIZE,
            "identities": dict(cards.IDENTITY_CARDS), "variant": cards.VARIANTS.get(players, cards.Variant.STANDARD),
            "flawless_shot_always": bool(options.get("flawless_shot_always")),
            "teams": cards.TEAM_TABLE.get(players)}


def seat_role(outcome: JSONDict, seat: int) -> str | None:
    """The final identity (good, bad or wanted)."""
    identities = (outcome.get("reveal") or {}).get("identities")
    return str(identities[seat]) if isinstance(identities, list) and seat < len(identities) else None


def is_minority(view: JSONDict, seat: int) -> bool:
    """A seat whose own identity is a Bad Cop."""
    return bool(view.get("identity") == "bad")


# Marks beside the words (``mark(kind)``): identities.
MARK_SHAPES = {"good": "circle", "bad": "triangle", "wanted": "square"}
