"""Card names and point values of every ruleset (rules.md §3, §6, §7).

Card names are the ones players type: numbers as digits, actions in lower case with hyphens.
A ruleset's cards are exactly the keys of its table, so a card a box does not have is unknown.
"""

from __future__ import annotations

from types import MappingProxyType

COLORS = ("red", "yellow", "green", "blue")


def _numbers(first: int) -> dict[str, int]:
    return {str(n): n for n in range(first, 10)}


POINTS: MappingProxyType[str, MappingProxyType[str, int]] = MappingProxyType(
    {
        name: MappingProxyType(table)
        for name, table in {
            "attack-mega-hit": {
                **_numbers(1), "reverse": 20, "skip": 20, "hit-1": 20, "discard-all": 30,
                "hit-2": 40, "wild": 50, "wild-attack": 50,
            },
            "attack-2005": {
                **_numbers(1), "reverse": 20, "skip": 20, "hit-2": 20, "discard-all": 30,
                "trade-hands": 30, "wild": 50, "wild-all-hit": 50, "wild-hit-fire": 50,
            },
            "attack-2010": {
                **_numbers(1), "reverse": 20, "skip": 20, "hit-2": 20, "discard-all": 30,
                "wild": 50, "wild-attack": 50,
            },
            "blast": {
                **_numbers(1), "draw-one": 20, "discard-color": 20, "reverse": 20, "skip": 20,
                "wild": 50, "wild-blast": 50,
            },
            # The standard deck: no Wild Mega Minions Power, which is despicable-me-4's alone.
            "classic": {
                **_numbers(0), "draw-two": 20, "reverse": 20, "skip": 20, "wild": 50,
                "wild-draw-four": 50,
            },
            "despicable-me-4": {
                **_numbers(0), "draw-two": 20, "reverse": 20, "skip": 20, "wild": 50,
                "wild-draw-four": 50, "wild-mega-minions": 50,
            },
        }.items()
    }
)


def card_points(ruleset: str, card: str) -> int:
    """Points of one card under a ruleset; KeyError names what the ruleset has instead."""
    table = POINTS[ruleset]
    try:
        return table[card]
    except KeyError:
        raise KeyError(
            f"{card!r} is not a card of {ruleset}; its cards are: " + ", ".join(table)
        ) from None


def hand_points(ruleset: str, cards: list[str]) -> int:
    """The total of a hand named card by card."""
    return sum(card_points(ruleset, card) for card in cards)
