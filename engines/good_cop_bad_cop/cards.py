"""Integrity cards, guns and equipment of Good Cop Bad Cop, and the deal."""

from __future__ import annotations

from engines.base import Rng

HONEST = "honest"
CROOKED = "crooked"
AGENT = "agent"
KINGPIN = "kingpin"
LEADERS = (AGENT, KINGPIN)

# Honest = Crooked count by players (the printed 5+/6+/7+/8+ markings), and guns.
SIDE_CARDS = {4: 5, 5: 7, 6: 8, 7: 10, 8: 11}
GUNS = {4: 2, 5: 3, 6: 3, 7: 4, 8: 4}

EQUIPMENT = [
    "blackmail", "coffee", "defibrillator", "evidence_bag", "flashbang", "k9_unit",
    "metal_detector", "planted_evidence", "polygraph", "report_audit", "restraining_order",
    "smoke_grenade", "surveillance_camera", "taser", "truth_serum", "wiretap",
]
BRIBE = "bribe"
# Cards printed for larger tables only.
MIN_PLAYERS = {"defibrillator": 5, "report_audit": 6}


def equipment_deck(players: int, bribe: bool) -> list[str]:
    """The equipment cards in play for this table (before shuffling)."""
    deck = [card for card in EQUIPMENT if players >= MIN_PLAYERS.get(card, 0)]
    if bribe:
        deck.append(BRIBE)
    return deck


def deal_integrity(rng: Rng, players: int) -> tuple[list[list[str]], list[str]]:
    """Three integrity cards per player (never both leaders to one), and the burned rest."""
    others = rng.shuffle([HONEST] * SIDE_CARDS[players] + [CROOKED] * SIDE_CARDS[players])
    first = rng.shuffle([AGENT, KINGPIN] + others[: players - 2])
    rest = others[players - 2:]
    hands = [[first[s]] + rest[2 * s: 2 * s + 2] for s in range(players)]
    return hands, rest[2 * players:]


def side_of(card: str, planted: bool) -> str:
    """The side an integrity card counts for; Planted Evidence flips Honest and Crooked."""
    if card == AGENT:
        return HONEST
    if card == KINGPIN:
        return CROOKED
    if planted:
        return CROOKED if card == HONEST else HONEST
    return card


def team_of(cards: list[str], planted: bool) -> str:
    """'honest', 'crooked' or 'both' (holding Agent and Kingpin) from a player's cards."""
    if AGENT in cards and KINGPIN in cards:
        return "both"
    if AGENT in cards:
        return HONEST
    if KINGPIN in cards:
        return CROOKED
    honest = sum(1 for card in cards if side_of(card, planted) == HONEST)
    return HONEST if 2 * honest > len(cards) else CROOKED


def permutations(n: int) -> list[list[int]]:
    """Every order of range(n), in lexicographic order (identity first)."""
    if n <= 1:
        return [list(range(n))]
    result = []
    for first in range(n):
        for tail in permutations(n - 1):
            rest = [i for i in range(n) if i != first]
            result.append([first] + [rest[i] for i in tail])
    return result
