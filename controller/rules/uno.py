"""The pieces of the UNO flow that ``controller/rules/classic.py`` (the launcher deals) and
``controller/rules/blast.py`` (the blaster) share: their ruleset's shape, the checks of a card, Reverse
and Skip, Uno and catch, the first card, and the status both report.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Callable, Mapping

from firmware.errors import InvalidParams, Refused
from firmware.i18n import message

from controller.rules import hands, rulesets
from controller.rules.rulesets import Option
from controller.rules.state import (
    GameState, Owed, aim, checked, direction_word, find, new_action, next_seat, refuse_when_over, replace,
    require_color, turn_seat,
)
from controller.text import wording

STANDARD_COLORS = ("red", "yellow", "green", "blue")
PENALTIES = frozenset({"uno"})  # owed out of turn, dealt (or inserted) before anything else


@dataclass(frozen=True)
class FlowRuleset:
    """One ruleset played by ``controller/rules/classic.py`` or ``controller/rules/blast.py``: its deck
    and point table, and what plays it."""

    id: str
    source: str
    dealer: bool  # the launcher deals every card (dealer mode)
    blaster: bool  # played with the card blaster
    colors: tuple[str, ...]
    deck: Mapping[str, int]  # count of each card in the box
    points: Mapping[str, int]  # its table in controller/rules/points.py
    wild: frozenset[str]  # cards that name a color
    uno_penalty: int  # cards (classic) or insertions (blast)
    options: Mapping[str, Option]

    @property
    def hits(self) -> Mapping[str, int]:
        """No Hit cards in these families: nothing a Mega Hit accepts, no hits sent (as an Attack
        edition's ``hits`` says)."""
        return MappingProxyType({})

    @property
    def cards(self) -> tuple[str, ...]:
        return tuple(self.points)

    @property
    def deck_size(self) -> int:
        return sum(self.deck.values())


def per_color(counts: dict[str, int], colors: int = 4) -> dict[str, int]:
    return {card: colors * n for card, n in counts.items()}


# Cards that do something to the flow when turned up first are ignored (§5): all but these.
NUMBERS = frozenset(str(n) for n in range(10))


def color_of(rs: FlowRuleset, value: str | None) -> str | None:
    if value is not None and value not in rs.colors:
        raise InvalidParams(message("unknown_colour_of", color=str(value), ruleset=rs.id, colors=list(rs.colors)))
    return value


def check_card(rs: FlowRuleset, card: str, color: str | None) -> None:
    if card not in rs.cards:
        raise InvalidParams(message("not_a_card", card=card, ruleset=rs.id, cards=list(rs.cards)))
    if card in rs.wild and color is None:
        raise InvalidParams(message("names_a_color", card=card, colors=list(rs.colors)))


def check_match(state: GameState, rs: FlowRuleset, card: str, color: str | None) -> None:
    """A colored card shows its color, and matches the pile's color or its card when both are known."""
    require_color(state, rs.colors, card, color)
    if card in rs.wild or color is None or state.color is None or state.top_card is None:
        return  # (a color missing only in a log written before #21)
    if color != state.color and card != state.top_card:
        raise Refused(message("pile_mismatch_uno", color=color, card=card, pile_color=state.color,
                              pile_card=state.top_card))



def turn_effect(state: GameState, seat: int, card: str) -> tuple[GameState, list[dict], int]:
    """Reverse and Skip, the cards every UNO has: the new state, its message effects, who plays next.

    With two players Reverse acts as Skip: its player plays again.
    """
    n = len(state.players)
    if card == "reverse" and n > 2:
        state = replace(state, direction=-state.direction)
        return state, [wording.said("direction_now", direction=direction_word(state))], next_seat(state, seat)
    if card in ("reverse", "skip"):
        skipped = state.players[next_seat(state, seat)]
        if n == 2:
            said = wording.said("skipped_plays_again", player=skipped, again=state.players[seat])
        else:
            said = wording.said("skipped", player=skipped)
        return state, [said], next_seat(state, seat, 2)
    return state, [], next_seat(state, seat)


def owe_penalty(state: GameState, owed: Owed) -> GameState:
    """A penalty goes after the penalties already owed, before any turn's obligation."""
    at = next((i for i, o in enumerate(state.queue) if o.reason not in PENALTIES), len(state.queue))
    return replace(state, queue=state.queue[:at] + (owed,) + state.queue[at:])


def uno(state: GameState, p: dict) -> tuple[GameState, list[dict]]:
    seat = find(state.players, p["player"])
    refuse_when_over(state)
    return replace(state, uno_called=state.uno_called | {seat}), [
        wording.said("calls_uno", player=state.players[seat])]


def catch(state: GameState, p: dict, rs: FlowRuleset, unit: str) -> tuple[GameState, list[dict]]:
    """An Uno not called, caught before the next player's turn: ``rs.uno_penalty`` of ``unit``.

    ``unit``: "cards" (dealt by the launcher) or "inserts" (insertions in the blaster).
    """
    seat = find(state.players, p["player"])
    name = state.players[seat]
    refuse_when_over(state)
    refused = hands.catch_refusal(state, seat)
    if refused is not None and (refused["id"] != "catch_needs_one" or new_action()):
        raise Refused(refused)
    state = owe_penalty(state, Owed(seat, rs.uno_penalty, False, "uno"))
    state = replace(state, caught=True)  # the window stays open: a catch is no turn
    return state, [wording.said(f"no_uno_{unit}", player=name, **{unit: rs.uno_penalty})]


def base_state(rs: FlowRuleset, players: list[str], dealer: str | None, options: dict | None,
               round_no: int) -> GameState:
    chosen = rulesets.resolve_options(rs, options)
    names = rulesets.seating(players)
    dealer_seat = len(names) - 1 if dealer is None else find(names, dealer)
    if isinstance(round_no, bool) or not isinstance(round_no, int) or round_no < 1:
        raise InvalidParams(f"round_no is a number from 1, not {round_no!r}")
    return GameState(
        ruleset=rs.id, players=names, dealer=dealer_seat, options=tuple(chosen.items()),
        round_no=round_no, first_card=None, active=(dealer_seat + 1) % len(names), direction=1,
        cards_taken=(0,) * len(names), presses=(0,) * len(names), played=(0,) * len(names),
    )


def turn_up(state: GameState, rs: FlowRuleset, card: str | None, color: str | None) -> tuple[GameState, list[dict]]:
    """The first card (§5): a number starts the pile; an action card is ignored, turn another.

    Not told (None): no color is known until ``turn_up`` tells it or a card is played.
    """
    if card is None:
        return replace(state, color=color_of(rs, color)), []
    if card not in rs.cards:
        raise InvalidParams(message("not_a_card", card=card, ruleset=rs.id, cards=list(rs.cards)))
    state = replace(state, first_card=state.first_card or card, turned=state.turned + 1)
    if card in NUMBERS:
        require_color(state, rs.colors, card, color_of(rs, color), any_color=True)
        return replace(state, top_card=card, color=color), []
    asks = "first_ignored_dealer" if rs.dealer else "first_ignored"
    return state, [wording.said(asks, card=card)]


def turn_up_action(state: GameState, p: dict, rs: FlowRuleset) -> tuple[GameState, list[dict]]:
    """``turn_up``: the card turned up after an ignored one (or one not told at the start)."""
    refuse_when_over(state)
    if state.top_card is not None:
        raise Refused(message("pile_started", card=state.top_card, color=state.color) if state.color is not None
                      else message("pile_started_no_color", card=state.top_card))
    state, said = turn_up(state, rs, p["card"], p["color"])
    if state.top_card is not None:
        said = [wording.said("pile_starts", card=state.top_card, color=state.color)]
    return state, said


def owed_json(state: GameState, owed: Owed) -> dict[str, Any]:
    # presses and until_cards as in controller/rules/attack.py's view, for readers of every ruleset's status
    # (the page, the voice); each flow adds its own words for them (inserts, cards).
    return {"player": state.players[owed.seat], "seat": owed.seat, "reason": owed.reason,
            "presses": owed.presses, "until_cards": owed.until_cards}


def hand_sizes(state: GameState) -> list[list[int] | None]:
    """The status's ``hand_sizes``: per seat, ``[low, high]`` from the hand model (``hands.bounds``)."""
    return [None if high == 99 else [low, high]
            for low, high in (hands.bounds(state, s) for s in range(len(state.players)))]


def base_status(state: GameState, rs: FlowRuleset, owed_view: Callable[[GameState, Owed], dict],
                choices: Callable[[GameState], list[str]]) -> dict[str, Any]:
    """The status every UNO flow reports; ``owed_view`` and ``choices`` are the flow's own."""
    seat = turn_seat(state)
    name = None if seat is None else state.players[seat]
    return {
        "ruleset": state.ruleset,
        "device": "blaster" if rs.blaster else "launcher",
        "round": state.round_no,
        "players": [{"name": n, "seat": s, "cards_taken": t, "presses": p,
                     **({"hand": state.hands[s]} if state.hands else {}), **hands.status_view(state, s)}
                    for s, (n, t, p) in enumerate(zip(state.players, state.cards_taken, state.presses))],
        # Each seat's hand as [fewest, most] cards, in seat order (equal when exact); None where
        # nothing is counted (a state from before the ranges were kept).
        "hand_sizes": hand_sizes(state),
        "dealer": state.players[state.dealer],
        "first_card": state.first_card,
        "turn": name,
        "aim": name,
        "direction": direction_word(state),
        "owed": owed_view(state, state.queue[0]) if state.queue else None,
        "queue": [owed_view(state, o) for o in state.queue],
        "awaiting": state.awaiting,
        "top_card": state.top_card,
        "color": state.color,
        "named_color": state.color if state.top_card in rs.wild else None,
        "catchable": None if hands.catchable(state) is None else state.players[state.catchable],
        "colors": list(rs.colors),
        "catchable_players": hands.catchable_players(state),
        "uno_called": [state.players[s] for s in sorted(state.uno_called)],
        "round_over": state.round_over,
        "winner": None if state.winner is None else state.players[state.winner],
        "choices": choices(state),
        "options": dict(state.options),
    }



def apply_with(handlers: dict, shapes: Mapping, rs: FlowRuleset, state: GameState,
               action: dict) -> tuple[GameState, list[dict]]:
    """Check ``action`` against ``shapes``, run its handler, and aim at the player whose move it now is."""
    kind, params = checked(action, shapes, state.ruleset, rs.dealer)
    before = turn_seat(state)
    state, effects = handlers[kind](state, params)
    after = turn_seat(state)
    if after is not None and after != before:
        effects.append(aim(state, after))
    return state, effects

