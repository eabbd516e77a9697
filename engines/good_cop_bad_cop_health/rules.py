"""The transitions of the health-token edition: the deal, one handler per move, eliminations, endings."""

from __future__ import annotations

from typing import cast

from engines.base import IllegalAction, Rng, State, first_player, next_seat, state_rng

from .cards import (
    BAD,
    DAMAGE,
    FLAWLESS_SHOT,
    GOOD,
    JAMMER,
    MARKET_SIZE,
    START_HEALTH,
    TEAM_TABLE,
    VARIANTS,
    VEST,
    WANTED,
    Action,
    Card,
    HealthState,
    Options,
    Phase,
    Player,
    Variant,
    build_deck,
    identity_cards,
    opposite,
)
from .legal import can_draw_from_deck


def variant_for(players: int) -> Variant:
    """The seed's variant for this many players: duel (2), wanted (3) or standard (4-8)."""
    return VARIANTS.get(players, Variant.STANDARD)


def new_player(identity: str | None, players: int) -> Player:
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


def setup_state(players: int, options: Options, seed: int) -> HealthState:
    """Deal identities, shuffle the equipment deck, lay out the market, pick the first player."""
    rng = Rng(seed)
    variant = variant_for(players)
    pile = rng.shuffle(identity_cards())
    if variant == Variant.DUEL:
        seats = [new_player(None, players) for _ in range(players)]
        for player in seats:
            player["choices"] = [pile.pop(0), pile.pop(0)]
    elif variant == Variant.WANTED:
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
    first = first_player(dict(options), rng, players)
    state: HealthState = {
        "seed": seed,
        "draws": rng.counter,
        "n": players,
        "variant": variant,
        "options": options.copy(),
        "phase": Phase.KEEP_IDENTITY if variant == Variant.DUEL else Phase.DRAW,
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
    if variant != Variant.DUEL:
        start_turn(state, first)
    return state


# ---------------------------------------------------------------- turns and cards


def rng_of(state: HealthState) -> Rng:
    """The generator that continues the state's stream (base.state_rng on this game's state)."""
    return state_rng(cast(State, state))


def take_top(state: HealthState, rng: Rng) -> Card | None:
    """The top equipment card; an empty deck is first rebuilt from the shuffled discards."""
    if not state["deck"] and state["discard"]:
        # Decision: the seed does not say; the discard pile becomes the new deck.
        state["deck"] = rng.shuffle(state["discard"])
        state["discard"] = []
        state["log"].append({"event": "reshuffle", "cards": len(state["deck"])})
    return state["deck"].pop(0) if state["deck"] else None


def start_turn(state: HealthState, seat: int) -> None:
    """Open ``seat``'s turn at the draw step (skipped when nothing at all can be drawn)."""
    state["turn"] = seat
    state["equipped"] = False
    state["phase"] = Phase.DRAW
    state["log"].append({"event": "turn", "seat": seat})
    if not can_draw_from_deck(state) and all(card is None for card in state["market"]):
        state["log"].append({"event": "no_draw", "seat": seat})
        state["phase"] = Phase.ACT


def next_turn(state: HealthState) -> None:
    """Pass the turn clockwise to the next living player (the mover is alive, so one exists)."""
    start_turn(state, next_seat([p["alive"] for p in state["players"]], state["turn"]))


def find_card(cards: list[Card], card_id: int) -> Card:
    """The card with this id in ``cards``; IllegalAction when absent."""
    for card in cards:
        if card["id"] == card_id:
            return card
    raise IllegalAction("no such card")


def remove_one(cards: list[Card], kind: str) -> Card | None:
    """Take the lowest-id card of ``kind`` out of ``cards``, if any."""
    matching = [card for card in cards if card["kind"] == kind]
    if not matching:
        return None
    card = min(matching, key=lambda c: c["id"])
    cards.remove(card)
    return card


# ---------------------------------------------------------------- the move handlers


def keep_identity(state: HealthState, seat: int, action: Action) -> None:
    """Two players: keep one dealt identity, the other goes face-down into the pile."""
    index = action["index"]
    player = state["players"][seat]
    choices = player["choices"]
    assert choices is not None  # keep_identity is legal only while the seat still chooses
    kept, aside = choices[index], choices[1 - index]
    player["identity"] = kept
    player["choices"] = None
    state["identity_pile"].append(aside)
    state["log"].append({"event": "identity_kept", "seat": seat})
    if all(p["choices"] is None for p in state["players"]):
        start_turn(state, state["first"])


def draw(state: HealthState, seat: int, action: Action) -> None:
    """Take the top deck card (private) or a market card (public); the market refills at once."""
    rng = rng_of(state)
    player = state["players"][seat]
    if action["from"] == "deck":
        card = take_top(state, rng)
        assert card is not None  # a deck draw is legal only when a card can be drawn
        player["hand"].append(card)
        state["log"].append({"event": "draw", "seat": seat, "from": "deck"})
        state["log"].append({"event": "drew", "seat": seat, "kind": card["kind"], "private": True, "to": seat})
    else:
        index = action["index"]
        taken = state["market"][index]
        assert taken is not None  # a market draw is listed only for a filled slot
        player["hand"].append(taken)
        refill = take_top(state, rng)
        state["market"][index] = refill
        state["log"].append({"event": "draw", "seat": seat, "from": "market", "kind": taken["kind"]})
        if refill is not None:
            state["log"].append({"event": "market_refill", "kind": refill["kind"]})
    state["phase"] = Phase.ACT
    state["draws"] = rng.counter


def equip(state: HealthState, seat: int, action: Action) -> None:
    """Put one card from hand into play, face-up; no inspecting or shooting this turn."""
    player = state["players"][seat]
    card = find_card(player["hand"], action["card"])
    player["hand"].remove(card)
    player["in_play"].append(card)
    state["equipped"] = True
    state["log"].append({"event": "equip", "seat": seat, "kind": card["kind"]})


def inspect(state: HealthState, seat: int, action: Action) -> None:
    """Spend an inspection; a jammer in play blocks it (and is used up), else learn the identity."""
    target = action["target"]
    player = state["players"][seat]
    card = find_card(player["hand"], action["card"])
    player["hand"].remove(card)
    # Decision: the inspection card is spent even when a jammer blocks it.
    state["discard"].append(card)
    jammer = remove_one(state["players"][target]["in_play"], JAMMER)
    if jammer is not None:
        state["discard"].append(jammer)
        state["log"].append({"event": "jammed", "seat": seat, "target": target})
    else:
        identity = state["players"][target]["identity"]
        player["learned"][target] = identity
        state["log"].append({"event": "inspect", "seat": seat, "target": target})
        state["log"].append({"event": "inspect_result", "seat": seat, "target": target,
                             "identity": identity, "private": True, "to": seat})
    next_turn(state)


def shoot(state: HealthState, seat: int, action: Action) -> None:
    """Shoot with a gun in play; one vest absorbs 1 damage; 0 health eliminates."""
    rng = rng_of(state)
    target = action["target"]
    gun = find_card(state["players"][seat]["in_play"], action["gun"])
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
    if state["result"] is None:
        next_turn(state)
    state["draws"] = rng.counter


def end_turn(state: HealthState, seat: int, action: Action) -> None:
    """The player on turn stops; the next living player's turn begins."""
    next_turn(state)


# ---------------------------------------------------------------- eliminations and endings


def eliminate(state: HealthState, target: int, shooter: int, rng: Rng) -> None:
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
    if variant == Variant.DUEL:
        finish(state, [shooter], "last_standing")
        return
    if variant == Variant.WANTED:
        if identity in (GOOD, BAD):
            winners = [s for s, p in enumerate(state["players"])
                       if p["identity"] == opposite(identity)
                       or (p["identity"] == WANTED and p["alive"])]
            finish(state, winners, f"{identity}_eliminated")
        return
    assert identity is not None  # the identity table deals every seat an identity
    elimination_bonus(state, identity, rng)
    if identity == GOOD:
        flawless_shot(state, shooter)
    check_team_end(state)


def elimination_bonus(state: HealthState, identity: str, rng: Rng) -> None:
    """Every living player of the eliminated player's identity draws one card, secretly."""
    state["log"].append({"event": "bonus", "identity": identity})
    for seat, player in enumerate(state["players"]):
        if player["alive"] and player["identity"] == identity:
            card = take_top(state, rng)
            if card is None:
                continue
            player["hand"].append(card)
            state["log"].append({"event": "bonus_card", "seat": seat, "kind": card["kind"],
                                 "private": True, "to": seat})


def flawless_shot(state: HealthState, shooter: int) -> None:
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
    assert old is not None  # only the identity table (every seat dealt one) has Flawless Shots
    state["identity_pile"].append(old)
    player["identity"] = new
    player["previous"] = old
    state["log"].append({"event": "flawless_shot", "seat": shooter})
    state["log"].append({"event": "new_identity", "seat": shooter, "identity": new, "old": old,
                         "private": True, "to": shooter})


def check_team_end(state: HealthState) -> None:
    """Good wins when no Bad lives, Bad when no Good lives (by current identity)."""
    players = state["players"]
    for team in (GOOD, BAD):
        enemy = opposite(team)
        if not any(p["alive"] and p["identity"] == enemy for p in players):
            winners = [s for s, p in enumerate(players) if p["identity"] == team]
            finish(state, winners, f"{team}_wins")
            return


def finish(state: HealthState, winners: list[int], reason: str) -> None:
    """Record the end of the game."""
    state["phase"] = Phase.OVER
    state["result"] = {"winners": sorted(winners), "reason": reason}
    state["log"].append({"event": "game_over", "winners": sorted(winners), "reason": reason})


def copy_state(state: HealthState) -> HealthState:
    """A copy safe to mutate: cards and log entries are never changed once made, so share them."""
    new = state.copy()
    new["deck"] = list(state["deck"])
    new["discard"] = list(state["discard"])
    new["market"] = list(state["market"])
    new["identity_pile"] = list(state["identity_pile"])
    new["log"] = list(state["log"])
    new["players"] = [
        {**p, "hand": list(p["hand"]), "in_play": list(p["in_play"]), "learned": list(p["learned"]),
         "choices": list(p["choices"]) if p["choices"] else None}
        for p in state["players"]
    ]
    return new
