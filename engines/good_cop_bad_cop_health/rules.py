"""Setup, legal moves and their effects for the health-token edition."""

from __future__ import annotations

from engines.base import IllegalAction, Rng, state_rng

from .cards import (
    BAD,
    DAMAGE,
    EQUIPPABLE,
    FLAWLESS_SHOT,
    GOOD,
    GUNS,
    INSPECTION,
    JAMMER,
    MARKET_SIZE,
    START_HEALTH,
    TEAM_TABLE,
    VEST,
    WANTED,
    build_deck,
    identity_cards,
    opposite,
)

DUEL = "duel"
WANTED_VARIANT = "wanted"
STANDARD = "standard"


def variant_for(players: int) -> str:
    """The seed's variant for this many players: duel (2), wanted (3) or standard (4-8)."""
    return {2: DUEL, 3: WANTED_VARIANT}.get(players, STANDARD)


def new_player(identity: str | None, players: int) -> dict:
    """One seat's starting record (its secrets: identity, hand, learned)."""
    return {
        "identity": identity,
        "choices": None,
        "previous": None,
        "health": START_HEALTH,
        "alive": True,
        "hand": [],
        "in_play": [],
        "learned": [None] * players,
    }


def setup_state(players: int, options: dict, seed: int) -> dict:
    """Deal identities, shuffle the equipment deck, lay out the market, pick the first player."""
    rng = Rng(seed)
    variant = variant_for(players)
    pile = rng.shuffle(identity_cards())
    if variant == DUEL:
        seats = [new_player(None, players) for _ in range(players)]
        for player in seats:
            player["choices"] = [pile.pop(0), pile.pop(0)]
    elif variant == WANTED_VARIANT:
        # Decision: one Good, one Bad, one Wanted; the pile keeps the other 14 cards.
        dealt = rng.shuffle([GOOD, BAD, WANTED])
        pile.remove(GOOD)
        pile.remove(BAD)
        seats = [new_player(identity, players) for identity in dealt]
    else:
        good, bad = TEAM_TABLE[players]
        dealt = rng.shuffle([GOOD] * good + [BAD] * bad)
        for identity in dealt:
            pile.remove(identity)
        seats = [new_player(identity, players) for identity in dealt]
    deck = rng.shuffle(build_deck(options["deck"]))
    market = [deck.pop(0) if deck else None for _ in range(MARKET_SIZE)]
    first = options["first_player"]
    if first is None:
        first = rng.randbelow(players)
    state = {
        "seed": seed,
        "draws": rng.counter,
        "n": players,
        "variant": variant,
        "options": dict(options),
        "phase": "keep_identity" if variant == DUEL else "draw",
        "turn": first,
        "first": first,
        "equipped": False,
        "players": seats,
        "deck": deck,
        "discard": [],
        "market": market,
        "identity_pile": pile,
        "log": [{"event": "start", "seat": first, "variant": variant}],
        "result": None,
    }
    if variant != DUEL:
        start_turn(state, first)
    return state


# ---------------------------------------------------------------- legal moves


def living_others(state: dict, seat: int) -> list[int]:
    """Every living seat but ``seat``, in seat order."""
    return [s for s, p in enumerate(state["players"]) if p["alive"] and s != seat]


def first_of_each_kind(cards: list[dict], kinds) -> list[dict]:
    """The lowest-id card of each kind present (identical cards need one listed action)."""
    chosen: dict[str, dict] = {}
    for card in sorted(cards, key=lambda c: c["id"]):
        if card["kind"] in kinds and card["kind"] not in chosen:
            chosen[card["kind"]] = card
    return [chosen[kind] for kind in kinds if kind in chosen]


def can_draw_from_deck(state: dict) -> bool:
    """A deck draw is possible (the discard pile reshuffles into an empty deck)."""
    return bool(state["deck"] or state["discard"])


def legal(state: dict, seat: int) -> list[dict]:
    """Every concrete action ``seat`` may take now."""
    if state["result"] is not None:
        return []
    player = state["players"][seat]
    if state["phase"] == "keep_identity":
        if player["choices"] is None:
            return []
        return [{"type": "keep_identity", "index": 0}, {"type": "keep_identity", "index": 1}]
    if seat != state["turn"]:
        return []
    if state["phase"] == "draw":
        actions: list[dict] = [{"type": "draw", "from": "deck"}] if can_draw_from_deck(state) else []
        actions += [{"type": "draw", "from": "market", "index": i}
                    for i, card in enumerate(state["market"]) if card is not None]
        return actions
    actions = [{"type": "equip", "card": card["id"]} for card in player["hand"] if card["kind"] in EQUIPPABLE]
    if not state["equipped"]:
        targets = living_others(state, seat)
        for card in first_of_each_kind(player["hand"], (INSPECTION,)):
            actions += [{"type": "inspect", "card": card["id"], "target": t} for t in targets]
        for gun in first_of_each_kind(player["in_play"], GUNS):
            actions += [{"type": "shoot", "gun": gun["id"], "target": t} for t in targets]
    actions.append({"type": "end_turn"})
    return actions


# ---------------------------------------------------------------- effects


def take_top(state: dict, rng: Rng) -> dict | None:
    """The top equipment card; an empty deck is first rebuilt from the shuffled discards."""
    if not state["deck"] and state["discard"]:
        # Decision: the seed does not say; the discard pile becomes the new deck.
        state["deck"] = rng.shuffle(state["discard"])
        state["discard"] = []
        state["log"].append({"event": "reshuffle", "cards": len(state["deck"])})
    return state["deck"].pop(0) if state["deck"] else None


def start_turn(state: dict, seat: int) -> None:
    """Open ``seat``'s turn at the draw step (skipped when nothing at all can be drawn)."""
    state["turn"] = seat
    state["equipped"] = False
    state["phase"] = "draw"
    state["log"].append({"event": "turn", "seat": seat})
    if not can_draw_from_deck(state) and all(card is None for card in state["market"]):
        state["log"].append({"event": "no_draw", "seat": seat})
        state["phase"] = "act"


def next_turn(state: dict) -> None:
    """Pass the turn clockwise to the next living player."""
    n = state["n"]
    seat = state["turn"]
    for step in range(1, n + 1):
        candidate = (seat + step) % n
        if state["players"][candidate]["alive"]:
            start_turn(state, candidate)
            return


def find_card(cards: list[dict], card_id) -> dict:
    """The card with this id in ``cards``; IllegalAction when absent."""
    for card in cards:
        if card["id"] == card_id:
            return card
    raise IllegalAction("no such card")


def do_keep_identity(state: dict, seat: int, index: int) -> None:
    """Two players: keep one dealt identity, the other goes face-down into the pile."""
    player = state["players"][seat]
    kept, aside = player["choices"][index], player["choices"][1 - index]
    player["identity"] = kept
    player["choices"] = None
    state["identity_pile"].append(aside)
    state["log"].append({"event": "identity_kept", "seat": seat})
    if all(p["choices"] is None for p in state["players"]):
        start_turn(state, state["first"])


def do_draw(state: dict, seat: int, action: dict, rng: Rng) -> None:
    """Take the top deck card (private) or a market card (public); the market refills at once."""
    player = state["players"][seat]
    if action["from"] == "deck":
        card = take_top(state, rng)
        assert card is not None  # a deck draw is legal only when a card can be drawn
        player["hand"].append(card)
        state["log"].append({"event": "draw", "seat": seat, "from": "deck"})
        state["log"].append({"event": "drew", "seat": seat, "kind": card["kind"], "private": True})
    else:
        index = action["index"]
        card = state["market"][index]
        player["hand"].append(card)
        refill = take_top(state, rng)
        state["market"][index] = refill
        state["log"].append({"event": "draw", "seat": seat, "from": "market", "kind": card["kind"]})
        if refill is not None:
            state["log"].append({"event": "market_refill", "kind": refill["kind"]})
    state["phase"] = "act"


def do_equip(state: dict, seat: int, card_id: int) -> None:
    """Put one card from hand into play, face-up; no inspecting or shooting this turn."""
    player = state["players"][seat]
    card = find_card(player["hand"], card_id)
    player["hand"].remove(card)
    player["in_play"].append(card)
    state["equipped"] = True
    state["log"].append({"event": "equip", "seat": seat, "kind": card["kind"]})


def remove_one(cards: list[dict], kind: str) -> dict | None:
    """Take the lowest-id card of ``kind`` out of ``cards``, if any."""
    matching = [card for card in cards if card["kind"] == kind]
    if not matching:
        return None
    card = min(matching, key=lambda c: c["id"])
    cards.remove(card)
    return card


def do_inspect(state: dict, seat: int, card_id: int, target: int) -> None:
    """Spend an inspection; a jammer in play blocks it (and is used up), else learn the identity."""
    player = state["players"][seat]
    card = find_card(player["hand"], card_id)
    player["hand"].remove(card)
    # Decision: the inspection card is spent even when a jammer blocks it.
    state["discard"].append(card)
    jammer = remove_one(state["players"][target]["in_play"], JAMMER)
    if jammer is not None:
        state["discard"].append(jammer)
        state["log"].append({"event": "jammed", "seat": seat, "target": target})
        return
    identity = state["players"][target]["identity"]
    player["learned"][target] = identity
    state["log"].append({"event": "inspect", "seat": seat, "target": target})
    state["log"].append({"event": "inspect_result", "seat": seat, "target": target,
                         "identity": identity, "private": True})


def do_shoot(state: dict, seat: int, gun_id: int, target: int, rng: Rng) -> None:
    """Shoot with a gun in play; one vest absorbs 1 damage; 0 health eliminates."""
    gun = find_card(state["players"][seat]["in_play"], gun_id)
    victim = state["players"][target]
    damage = DAMAGE[gun["kind"]]
    vest = remove_one(victim["in_play"], VEST)
    absorbed = 0
    if vest is not None:
        state["discard"].append(vest)
        absorbed = 1
    dealt = min(victim["health"], damage - absorbed)
    victim["health"] -= dealt
    state["log"].append({"event": "shoot", "seat": seat, "target": target, "kind": gun["kind"],
                         "damage": dealt, "absorbed": absorbed, "health": victim["health"]})
    if victim["health"] == 0:
        eliminate(state, target, seat, rng)


def eliminate(state: dict, target: int, shooter: int, rng: Rng) -> None:
    """Reveal the identity, clear the player's cards, then the variant's consequences."""
    victim = state["players"][target]
    victim["alive"] = False
    identity = victim["identity"]
    state["log"].append({"event": "eliminated", "seat": target, "identity": identity})
    # Decision: equipment in play is discarded; the hand stays face-down with the player, out
    # of the game, so no count on the table ever shows how many cards the player held.
    state["discard"].extend(victim["in_play"])
    victim["in_play"] = []
    variant = state["variant"]
    if variant == DUEL:
        finish(state, [shooter], "last_standing")
        return
    if variant == WANTED_VARIANT:
        if identity in (GOOD, BAD):
            winners = [s for s, p in enumerate(state["players"])
                       if p["identity"] == opposite(identity)
                       or (p["identity"] == WANTED and p["alive"])]
            finish(state, winners, f"{identity}_eliminated")
        return
    elimination_bonus(state, identity, rng)
    if identity == GOOD:
        flawless_shot(state, shooter)
    check_team_end(state)


def elimination_bonus(state: dict, identity: str, rng: Rng) -> None:
    """Every living player of the eliminated player's identity draws one card, secretly."""
    state["log"].append({"event": "bonus", "identity": identity})
    for seat, player in enumerate(state["players"]):
        if player["alive"] and player["identity"] == identity:
            card = take_top(state, rng)
            if card is None:
                continue
            player["hand"].append(card)
            state["log"].append({"event": "bonus_card", "seat": seat, "kind": card["kind"],
                                 "private": True})


def flawless_shot(state: dict, shooter: int) -> None:
    """After killing a Good player with a Flawless Shot, the shooter takes a new identity."""
    player = state["players"][shooter]
    always = state["options"]["flawless_shot_always"]
    if not always:
        card = remove_one(player["in_play"], FLAWLESS_SHOT)
        if card is None:
            return
        state["discard"].append(card)
    new = state["identity_pile"].pop(0)
    old = player["identity"]
    state["identity_pile"].append(old)
    player["identity"] = new
    player["previous"] = old
    state["log"].append({"event": "flawless_shot", "seat": shooter})
    state["log"].append({"event": "new_identity", "seat": shooter, "identity": new, "old": old,
                         "private": True})


def check_team_end(state: dict) -> None:
    """Good wins when no Bad lives, Bad when no Good lives (by current identity)."""
    players = state["players"]
    for team in (GOOD, BAD):
        enemy = opposite(team)
        if not any(p["alive"] and p["identity"] == enemy for p in players):
            winners = [s for s, p in enumerate(players) if p["identity"] == team]
            finish(state, winners, f"{team}_wins")
            return


def finish(state: dict, winners: list[int], reason: str) -> None:
    """Record the end of the game."""
    state["phase"] = "over"
    state["result"] = {"winners": sorted(winners), "reason": reason}
    state["log"].append({"event": "game_over", "winners": sorted(winners), "reason": reason})


def copy_state(state: dict) -> dict:
    """A copy safe to mutate: cards and log entries are never changed once made, so share them."""
    new = dict(state)
    for key in ("deck", "discard", "market", "identity_pile", "log"):
        new[key] = list(state[key])
    new["players"] = [
        {**p, "hand": list(p["hand"]), "in_play": list(p["in_play"]), "learned": list(p["learned"]),
         "choices": list(p["choices"]) if p["choices"] else None}
        for p in state["players"]
    ]
    return new


def apply_action(state: dict, seat: int, action: dict) -> None:
    """Carry out an already-legal action on ``state`` (a private copy)."""
    rng = state_rng(state)
    kind = action["type"]
    if kind == "keep_identity":
        do_keep_identity(state, seat, action["index"])
    elif kind == "draw":
        do_draw(state, seat, action, rng)
    elif kind == "equip":
        do_equip(state, seat, action["card"])
    elif kind == "inspect":
        do_inspect(state, seat, action["card"], action["target"])
        next_turn(state)
    elif kind == "shoot":
        do_shoot(state, seat, action["gun"], action["target"], rng)
        if state["result"] is None:
            next_turn(state)
    elif kind == "end_turn":
        next_turn(state)
    state["draws"] = rng.counter
