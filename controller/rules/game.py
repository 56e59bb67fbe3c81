"""Every ruleset a game may be started with, and the flow that plays it: one registry, one door.

Each family of rulesets is a module with the same interface (``RULESETS``, ``ACTIONS``, ``new_game``,
``apply``, ``status``, ``choices``): ``attack`` (the UNO Attack editions, the table presses the
launcher), ``classic`` (the launcher deals) and ``blast`` (the card blaster). :data:`FLOWS` maps each
ruleset id to its family; callers go through this module and ask a ruleset's fields (``dealer``,
``blaster``) rather than which family holds it.

sans-IO like the flows: every function takes plain data and returns a new immutable state and effects.
"""

from __future__ import annotations

from types import MappingProxyType, ModuleType
from typing import Mapping

from firmware.errors import InvalidParams
from firmware.i18n import message

from controller.rules import attack, blast, classic
from controller.rules.rulesets import Ruleset
from controller.rules.state import GameState
from controller.rules.uno import FlowRuleset

FLOWS: Mapping[str, ModuleType] = MappingProxyType(
    {ruleset_id: family for family in (attack, blast, classic) for ruleset_id in family.RULESETS}
)
RULESET_IDS = tuple(FLOWS)  # in the order listings show them
# Every action type some ruleset takes (a logged action is one of these).
ACTION_TYPES = frozenset().union(*(family.ACTIONS for family in (attack, blast, classic)))


def flow(ruleset_id: str) -> ModuleType:
    """The module that plays ``ruleset_id``; InvalidParams lists every known ruleset."""
    try:
        return FLOWS[ruleset_id]
    except (KeyError, TypeError):
        raise InvalidParams(message("unknown_ruleset", ruleset=repr(ruleset_id),
                                    rulesets=list(FLOWS))) from None


def ruleset(ruleset_id: str) -> Ruleset | FlowRuleset:
    """The ruleset's data: its cards, deck, points and fields such as ``dealer`` and ``blaster``."""
    return flow(ruleset_id).RULESETS[ruleset_id]


def new_game(ruleset: str, players: list[str], dealer: str | None = None, first_card: str | None = None,
             color: str | None = None, options: dict[str, str] | None = None,
             round_no: int = 1) -> tuple[GameState, list[dict]]:
    """A round ready to play, and its first effects (see each family's ``new_game``).

    ``players`` in clockwise seating order; ``dealer`` defaults to the last name, so that the first
    name plays first. ``first_card`` is the card turned up (None: not told); ``color`` its color,
    or the color the first player named for a turned-up Wild.
    """
    return flow(ruleset).new_game(ruleset, players, dealer, first_card, color, options, round_no)


def apply(state: GameState, action: dict) -> tuple[GameState, list[dict]]:
    """The state after one action, and its effects; raises, state untouched, if it is not allowed.

    An ``aim`` effect is added whenever the player whose move it is changes.
    """
    return flow(state.ruleset).apply(state, action)


def status(state: GameState) -> dict:
    """The `game status --json` view of a round."""
    return flow(state.ruleset).status(state)


def choices(state: GameState) -> list[str]:
    """What the player whose move it is may do now, as the ruleset's own rules allow (the page offers
    these controls only). Uno and catch are anyone's: see ``uno_called`` and ``catchable_players``."""
    return flow(state.ruleset).choices(state)
