"""UNO Blast with the card blaster: the ``blast`` ruleset (rules.md §1, §5, §6; seed 002).

Pure and sans-IO like ``controller/rules/attack.py``, on its :class:`~controller.rules.state.GameState` and
:class:`~controller.rules.state.Owed`, with the UNO pieces of ``controller/rules/uno.py``;
``controller/rules/game.py`` hands a ``blast`` state to this module.

Nobody draws into a hand: a player who cannot or will not play takes the top card and inserts it
in the blaster, which reports an ``insert`` action: ``blast`` false (safe) or true with the
``cards`` that came out, all for the player who inserted. An Owed's ``presses`` counts insertions
still owed (None: until the blast, for a Wild Blast), and ``until_cards`` says that a blast ends
it.

Settled where the sources are silent:

- An insertion ends the turn, fired or not; with nothing owed it is the active player's, else
  it counts for the obligation at the front of the queue.
- Draw One: the next player owes 1 insertion, which is their turn. Wild Blast: the next player
  inserts until the blast and takes all that comes out; that is their turn. Nothing answers
  either (no stacking). With two players the player who played it plays again afterwards.
- Uno not called: 2 insertions, owed at once, out of turn, before any turn's obligation; each
  may blast, and the penalty goes on after a blast (it is 2 cards drawn, not "until the blast").
- Discard Color works as Discard All: the discards are the player's business; the flow only
  sees the color. A round ending on Draw One or Wild Blast makes nobody insert.
- First card (§5): an action card is ignored and another turned up.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Mapping

from firmware.errors import InvalidParams, Refused
from firmware.i18n import message

from controller.rules import hands
from controller.rules.points import POINTS
from controller.rules.state import (
    GameState, Owed, aim, bump, check_by, new_action, next_seat, owed_press, plays, refuse_when_over, replace,
    takes_turn, turn_seat,
)
from controller.rules.uno import (
    STANDARD_COLORS, FlowRuleset, apply_with, base_state, base_status, catch, check_card,
    check_match, color_of, owed_json, per_color, turn_effect, turn_up, turn_up_action, uno,
)
from controller.text import wording

RULESET = FlowRuleset(
    id="blast",
    source="002 (UNO Blast)",
    dealer=False,
    blaster=True,
    colors=STANDARD_COLORS,
    deck=MappingProxyType({
        **per_color({str(n): 2 for n in range(1, 10)}),
        **per_color({"draw-one": 2, "reverse": 2, "skip": 2, "discard-color": 1}),
        "wild": 4, "wild-blast": 6,
    }),
    points=POINTS["blast"],
    wild=frozenset({"wild", "wild-blast"}),
    uno_penalty=2,
    options=MappingProxyType({}),
)
RULESETS: Mapping[str, FlowRuleset] = MappingProxyType({RULESET.id: RULESET})
SLOTS = 4  # the blaster's slots: filling the last empty one always fires (rules.md §6)

ACTIONS: Mapping[str, Mapping[str, tuple[type, bool]]] = MappingProxyType({
    "play": {"card": (str, True), "color": (str, False), "last": (bool, False), "by": (str, False)},
    "insert": {"blast": (bool, True), "cards": (int, True), "insert_id": (int, False), "by": (str, False)},
    "uno": {"player": (str, True)},
    "catch": {"player": (str, True)},
    "turn_up": {"card": (str, True), "color": (str, False)},
})


def _card_effect(state: GameState, seat: int, card: str) -> tuple[GameState, list[dict]]:
    names = state.players
    victim = next_seat(state, seat)
    owed = {"draw-one": Owed(victim, 1, False, "draw-one"),
            "wild-blast": Owed(victim, None, True, "wild-blast")}.get(card)
    if owed is None:
        state, said, active = turn_effect(state, seat, card)
        return replace(state, active=active), said
    # The insertions are the victim's turn: play goes on after them.
    state = replace(state, queue=state.queue + (owed,), active=next_seat(state, victim))
    if len(names) == 2:
        return state, [wording.said("owes_inserts_then", player=names[victim], inserts=owed.presses,
                                    again=names[seat])]
    return state, [wording.said("owes_inserts", player=names[victim], inserts=owed.presses)]


def _play(state: GameState, p: dict) -> tuple[GameState, list[dict]]:
    card = p["card"]
    color = color_of(RULESET, p["color"])
    check_card(RULESET, card, color)
    refuse_when_over(state)
    seat = turn_seat(state)
    name = state.players[seat]
    check_by(state, p["by"], seat)
    if state.queue:
        raise Refused(message("owes_inserts_first", player=name, inserts=state.queue[0].presses))
    check_match(state, RULESET, card, color)
    discards = card in hands.DISCARDS
    hands.check_play(state, seat, p["last"], discards)
    last = p["last"] or hands.empties(state, seat)  # a hand of one: this card is the last, told or not
    described = plays(name, card, color)
    state = replace(takes_turn(state), top_card=card, color=color, catchable=seat,
                    **hands.played(state, seat, last, discards))
    if last:
        state = replace(state, round_over=True, winner=seat, catchable=None)
        return state, [described, wording.said("wins_round", player=name, round=state.round_no),
                       {"type": "round_over", "winner": name}]
    state, effects = _card_effect(state, seat, card)
    return state, [described] + effects


def _insert(state: GameState, p: dict) -> tuple[GameState, list[dict]]:
    blast, cards = p["blast"], p["cards"]
    if cards < 0 or (blast and cards < 1) or (not blast and cards):
        raise InvalidParams(message("insert_cards_bad", cards=cards) if blast
                            else message("insert_safe_gives_none", cards=cards))
    if not state.queue:
        refuse_when_over(state)
    seat = turn_seat(state)
    check_by(state, p["by"], seat)
    name = state.players[seat]
    if not blast and p["insert_id"] is None and state.blaster_cards >= SLOTS - 1 and new_action():
        # Typed at a table without a blaster (a fitted one reports its own slots, loaded cards and all).
        raise Refused(message("last_slot_fires", player=name, cards=state.blaster_cards,
                              blasted=state.blaster_cards + 1))
    state = replace(state, cards_taken=bump(state.cards_taken, seat, cards),
                    presses=bump(state.presses, seat, 1),
                    blaster_cards=0 if blast else state.blaster_cards + 1,
                    uno_called=state.uno_called - {seat} if cards else state.uno_called,
                    **hands.took(state, seat, cards))
    # "the blast: Bob takes 4 cards" or "Bob is safe", then what it does to the turn.
    outcome = {"player": name, "cards": cards} if blast else {"player": name}
    prefix = "blast" if blast else "safe"
    if not state.queue:
        state = replace(takes_turn(state), active=next_seat(state, seat))
        return state, [wording.said(f"{prefix}_turn_over", **outcome)]
    owed = state.queue[0]
    left = None if owed.presses is None else owed.presses - 1
    if left == 0 or (owed.until_cards and blast):
        rest, said = state.queue[1:], wording.said(f"{prefix}_done", **outcome)
    else:
        rest = (replace(owed, presses=left),) + state.queue[1:]
        said = wording.said(f"{prefix}_still_owes", **outcome, inserts=left)
    state = owed_press(state, owed)  # Draw One and Wild Blast are the victim's turn (002), a penalty is not
    if rest and len(rest) < len(state.queue):  # settled: what is still owed, and by whom
        return replace(state, queue=rest), [said, wording.said("then_owes_inserts",
                                                               player=state.players[rest[0].seat],
                                                               inserts=rest[0].presses)]
    return replace(state, queue=rest), [said]


_HANDLERS = {
    "play": _play, "insert": _insert, "uno": uno,
    "catch": lambda state, p: catch(state, p, RULESET, "inserts"),
    "turn_up": lambda state, p: turn_up_action(state, p, RULESET),
}


def new_game(ruleset: str, players: list[str], dealer: str | None = None, first_card: str | None = None,
             color: str | None = None, options: dict[str, str] | None = None,
             round_no: int = 1) -> tuple[GameState, list[dict]]:
    """A round ready to play (the table deals 7 each by hand) and the effects of the first card."""
    if ruleset != RULESET.id:
        raise InvalidParams(f"{ruleset!r} is not played with the blaster; it plays: {RULESET.id}")
    state = base_state(RULESET, players, dealer, options, round_no)
    state = replace(state, **hands.by_hand(len(state.players)))
    state, first = turn_up(state, RULESET, first_card, color)
    head = wording.said("round_deals", round=round_no, ruleset=RULESET.id, dealer=state.players[state.dealer])
    return state, [head] + first + [aim(state, turn_seat(state))]


def choices(state: GameState) -> list[str]:
    """What the player whose move it is may do now (``controller.rules.game.choices``): ``play``,
    ``insert`` (safe, or ``blast`` with its cards), ``turn_up``, ``end_round``."""
    if state.queue:
        return ["insert"]
    if state.round_over:
        return ["end_round"]
    if state.top_card is None:
        return ["turn_up"]
    return ["play", "insert"]


def apply(state: GameState, action: dict) -> tuple[GameState, list[dict]]:
    return apply_with(_HANDLERS, ACTIONS, RULESET, state, action)


def _owed_view(state: GameState, owed: Owed) -> dict:
    return {**owed_json(state, owed), "inserts": owed.presses, "until_blast": owed.until_cards}


def status(state: GameState) -> dict:
    # The cards in the blaster's slots, as the insertions told them (a fitted blaster's own are in
    # status/get): the last empty slot always fires.
    return {**base_status(state, RULESET, _owed_view, choices), "blaster_cards": state.blaster_cards}


__all__ = ["ACTIONS", "RULESET", "RULESETS", "apply", "choices", "new_game", "status"]
