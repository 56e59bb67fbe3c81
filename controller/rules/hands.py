"""What the controller knows of every hand, in every ruleset: one model, used wherever it decides.

Each seat's hand is known as a range, ``hand_low`` to ``hand_high`` cards (``GameState``). Where the
launcher deals every card (``classic``, ``despicable-me-4``) the count is exact: ``hands``, the
cards dealt less the cards played, the Minions discards and their deals. Where the table deals by
hand (the Attack editions, Blast) it starts at the 7 dealt (rules.md §1) and follows what the
controller sees:

- cards that came out for a player (a press, a late card, a blast) add to both ends;
- a card played takes one from both ends, and a play that is not the last leaves at least one
  card: the round would have ended on it otherwise;
- a Discard All or Discard Color lays the card and any number of that colour under it (as does the
  first player's answer to a turned-up Discard All): the top end loses one, the bottom end falls to
  1 (0 with the last card), since nobody tells how many went;
- Trade Hands swaps the two ranges, after its player laid it.

Decisions taken from the range (each refusal says what was counted and how to correct it, since a
count is only wrong when an action was not recorded):

- a catch needs a hand that may be one card (``low <= 1 <= high``);
- a last card needs a hand of one (``low <= 1``), or, for a Discard All / Discard Color, a hand of
  at least one (every card left may be of its colour);
- a play with no card in hand (``high == 0``) is refused, and a play that leaves none
  (``high == 1``) is the last card, told or not;
- a round ended at the table needs a winner who may hold one card still (``low <= 1``: the last
  card was not recorded) or none;
- the hands entered at the end of a round must be possible: no more copies of a card than the box
  holds (over all the hands), no hand of 0 points for a player who holds a card where the deck has
  no 0, as many cards as the count allows, and points that so many cards can make. A correction
  of an ended round is checked against that round's last state (``controller.match.table``).
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Mapping

from firmware.errors import InvalidParams, Refused
from firmware.i18n import Message, message

from controller.rules.state import HAND, GameState, bump, new_action

# Cards that lay any number of cards of their colour beneath them (Discard All, Discard Color).
DISCARDS = frozenset({"discard-all", "discard-color"})


def by_hand(players: int) -> dict[str, tuple[int, ...]]:
    """The ranges of a round the table dealt by hand: 7 each, known exactly."""
    return {"hand_low": (HAND,) * players, "hand_high": (HAND,) * players}


def bounds(state: GameState, seat: int) -> tuple[int, int]:
    """The fewest and the most cards the player may hold; (0, 99) where nothing is counted (a state
    from before the ranges were kept)."""
    if state.hands:
        return state.hands[seat], state.hands[seat]
    if not state.hand_high:
        return 0, 99
    return state.hand_low[seat], state.hand_high[seat]


def took(state: GameState, seat: int, cards: int) -> dict[str, Any]:
    """The ranges after ``cards`` came out for ``seat`` (fields for ``replace``)."""
    if not cards or not state.hand_high:
        return {}
    return {"hand_low": bump(state.hand_low, seat, cards), "hand_high": bump(state.hand_high, seat, cards)}


def empties(state: GameState, seat: int) -> bool:
    """A play by ``seat`` now is their last card whatever the table says: they hold at most one."""
    return bounds(state, seat)[1] <= 1


def _count_words(state: GameState) -> Message:
    """How the controller counts a hand, in words, for a refusal."""
    return message("hand_count_dealer" if state.hands else "hand_count_by_hand", hand=HAND)


def _holds(state: GameState, seat: int) -> Message:
    low, high = bounds(state, seat)
    if low == high:
        return message("holds_exactly", player=state.players[seat], cards=low, count=_count_words(state))
    return message("holds_at_least", player=state.players[seat], cards=low, count=_count_words(state))


def check_play(state: GameState, seat: int, last: bool, discards: bool) -> None:
    """Refuse a play the hand cannot make: no card held, or a last card from more than one."""
    if not new_action():
        return
    low, high = bounds(state, seat)
    if high <= 0:
        raise Refused(message("no_card_to_play", holds=_holds(state, seat), player=state.players[seat]))
    if last and low > 1 and not discards:
        raise Refused(message("last_needs_one", holds=_holds(state, seat), player=state.players[seat]))


def played(state: GameState, seat: int, last: bool, discards: bool = False,
           traded_with: int | None = None) -> dict[str, Any]:
    """The ranges after ``seat`` played a card (fields for ``replace``): ``last`` it ended the
    round, ``discards`` it laid its colour beneath it, ``traded_with`` the hands were then swapped."""
    if state.hands:  # (never below none: a log from before the count was checked replays too)
        return {"hands": bump(state.hands, seat, -1 if state.hands[seat] else 0),
                "played": bump(state.played, seat, 1)}
    if not state.hand_high:
        return {}
    low, high = bounds(state, seat)
    high = max(high, 1)  # (as above)
    if last:
        low, high = 0, 0
    elif discards:
        low, high = min(1, high - 1), high - 1
    else:
        low, high = max(low - 1, 1 if high > 1 else 0), high - 1
    lows = state.hand_low[:seat] + (low,) + state.hand_low[seat + 1:]
    highs = state.hand_high[:seat] + (high,) + state.hand_high[seat + 1:]
    if traded_with is not None:
        lows = _swapped(lows, seat, traded_with)
        highs = _swapped(highs, seat, traded_with)
    return {"hand_low": lows, "hand_high": highs, "played": bump(state.played, seat, 1)}


def _swapped(values: tuple[int, ...], a: int, b: int) -> tuple[int, ...]:
    swapped = list(values)
    swapped[a], swapped[b] = values[b], values[a]
    return tuple(swapped)


def catch_refusal(state: GameState, seat: int) -> Message | None:
    """Why a catch of ``seat`` is refused, or None: the catch window (``controller.rules.state``
    ``takes_turn``), an Uno called, or a hand that cannot be one card by the count."""
    name = state.players[seat]
    if any(owed.seat == seat and owed.reason == "uno" for owed in state.queue):
        return message("caught_already", player=name)
    if state.catchable == seat and state.caught:
        return message("caught_already_paid", player=name)
    if state.catchable != seat:
        if state.played and not state.played[seat]:
            return message("catch_nothing_played", player=name)
        return message("catch_window_closed", player=name)
    if seat in state.uno_called:
        return message("called_uno", player=name)
    low, high = bounds(state, seat)
    if low <= 1 <= high:
        return None
    return message("catch_needs_one", holds=_holds(state, seat), player=name)


def catchable(state: GameState) -> int | None:
    """The seat a catch is accepted against now, if any."""
    seat = state.catchable
    return None if seat is None or catch_refusal(state, seat) is not None else seat


def catchable_players(state: GameState) -> list[str]:
    """Whom a catch makes sense against (the page offers it): ``catchable``, as a list."""
    seat = catchable(state)
    return [] if seat is None else [state.players[seat]]


def winner_refusal(state: GameState, seat: int) -> Message | None:
    """Why ``seat`` cannot have won the round still going on, or None: they hold one card at most
    (the last card, played but not recorded) by the count."""
    if state.round_over or bounds(state, seat)[0] <= 1:
        return None
    return message("winner_not_emptied", holds=_holds(state, seat), player=state.players[seat])


def hands_refusal(state: GameState, deck: Mapping[str, int | None], points: Mapping[str, int],
                  winner: str, entered: Mapping[str, tuple[int, tuple[str, ...] | None]]) -> Message | None:
    """Why the hands entered at the end of the round cannot be, or None.

    ``entered``: per player, the hand's points and its cards when they were named (the winner's,
    empty, is not looked at: the score counter refuses any other).
    """
    copies: Counter[str] = Counter()
    has_zero = "0" in points
    for name, (total, cards) in entered.items():
        if name == winner or name not in state.players:
            continue  # the counter says who is not seated
        seat = state.players.index(name)
        low, high = bounds(state, seat)
        low = max(low, 1)  # only the winner emptied their hand
        if cards is not None:
            copies.update(cards)
            if not low <= len(cards) <= high:
                return message("hand_count_differs", player=name, entered=len(cards),
                               holds=_holds(state, seat))
        elif total == 0 and not has_zero:
            return message("hand_zero_no_zero_card", player=name, ruleset=state.ruleset)
        elif total > high * max(points.values()):
            return message("hand_points_too_many", player=name, points=total, holds=_holds(state, seat))
    for card, count in sorted(copies.items()):
        boxed = deck.get(card)
        if boxed is not None and count > boxed:
            return message("more_copies_than_the_box", card=card, count=count, boxed=boxed,
                           ruleset=state.ruleset)
    return None


def refuse(reason: Message | None, invalid: bool = False) -> None:
    """Raise a refusal's message, if any (``invalid``: as bad input rather than a refused move)."""
    if reason is not None and new_action():
        raise (InvalidParams if invalid else Refused)(reason)


def status_view(state: GameState, seat: int) -> dict[str, int]:
    """The ``hand_min`` and ``hand_max`` of a player in the status."""
    low, high = bounds(state, seat)
    return {"hand_min": low, "hand_max": high} if high != 99 else {}


__all__ = ["bounds", "by_hand", "catch_refusal", "catchable", "catchable_players", "check_play", "empties",
           "hands_refusal", "played", "refuse", "status_view", "took", "winner_refusal"]
