"""Classic UNO with the launcher as an exact dealer: rulesets ``classic`` and ``despicable-me-4``
(rules.md §1, §5, §7; seed 004).

Pure and sans-IO like ``controller/rules/attack.py``, on the same immutable
:class:`~controller.rules.state.GameState` and :class:`~controller.rules.state.Owed`: :func:`new_game` and
:func:`apply` return a new state and effects, and raise ``InvalidParams`` / ``NotFound`` / ``Refused``
leaving the state as it was; ``controller/rules/game.py`` hands a state of these rulesets to this module.

What an Owed means here: ``presses`` is the number of cards still to deal to ``seat`` (the
launcher dispenses them, aimed at the seat); a ``deal`` effect asks the service for them. The
launcher's count comes back as a ``press`` action: with a deal owed it counts against the deal (any
number up to what is owed), else it is the draw of exactly one card by the player whose move it
is, who may then ``play`` that card or ``pass``.

Settled where the sources are silent:

- Dealing: 7 to each seat in turn order from the player left of the dealer, each a ``deal``
  effect with the pause before the next seat (``deal_pause_s``, or ``deal_pause=press``).
- First card (§5): an action card is ignored and another turned (the state keeps it as
  ``first_card`` but not as the pile: no color is known until a card is played).
- Draw Two: the next player is dealt 2 and loses the turn; nothing answers it (no stacking).
- Wild Draw Four: the next player must ``accept`` (dealt 4, turn lost) or ``challenge``; the table
  then gives ``challenge-result legal`` (the challenger is dealt 6 and loses the turn) or
  ``illegal`` (the player who played it is dealt 4, the challenger plays normally).
- Wild Mega Minions Power: the table enters each other player's count (``minions``, every other
  player named once); each is dealt that many, in turn order; play goes on with the next player.
- A deal owed for a penalty (Uno) goes before any turn's deal, as in ``attack.py``.
- ``last_card_draws`` (§7): a round won on Draw Two or Wild Draw Four still deals 2 / 4 to the
  next player (no challenge: the round is over), and those cards count in the score.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Mapping

from firmware.errors import InvalidParams, Refused
from firmware.i18n import message

from controller.rules import hands, rulesets
from controller.rules.rulesets import Option
from controller.rules.points import POINTS
from controller.rules.state import (
    HAND, GameState, Owed, aim, bump, check_by, find, new_action, next_seat, plays, refuse_when_over, replace,
    takes_turn, turn_seat,
)
from controller.rules.uno import (
    STANDARD_COLORS, FlowRuleset, apply_with, base_state, base_status, catch, check_card, check_match,
    color_of, owe_penalty, owed_json, per_color, turn_effect, turn_up, turn_up_action, uno,
)
from controller.text import wording

MINION_COLORS = ("blue", "orange", "purple", "yellow")

# awaiting: what the flow waits for before anything else may happen.
DRAWN = "play_or_pass"
CHALLENGE = "challenge_or_accept"
RESULT = "challenge_result"
MINIONS = "minions"

_CLASSIC_DECK = {**per_color({"0": 1}), **per_color({str(n): 2 for n in range(1, 10)}),
                 **per_color({"draw-two": 2, "reverse": 2, "skip": 2}), "wild": 4, "wild-draw-four": 4}

_OPTIONS = MappingProxyType({
    "deal_pause_s": Option("2", tuple(str(n) for n in range(0, 31)),
                           "seconds between two seats' piles when dealing without an aim servo"),
    "deal_pause": Option("timer", ("timer", "press"),
                         "timer: wait deal_pause_s between seats; press: wait for the button"),
    "last_card_draws": Option("false", rulesets.BOOLEAN,
                              "true: a round won on Draw Two / Wild Draw Four still deals the next"
                              " player 2 / 4, and those cards count (§7)"),
})

RULESETS: Mapping[str, FlowRuleset] = MappingProxyType({rs.id: rs for rs in (
    FlowRuleset(
        id="classic", source="standard UNO rules (as in 004) with the standard deck",
        dealer=True, blaster=False, colors=STANDARD_COLORS, deck=MappingProxyType(_CLASSIC_DECK),
        points=POINTS["classic"], wild=frozenset({"wild", "wild-draw-four"}),
        uno_penalty=2, options=_OPTIONS,
    ),
    FlowRuleset(
        id="despicable-me-4", source="004 (UNO Despicable Me 4)",
        dealer=True, blaster=False, colors=MINION_COLORS,
        deck=MappingProxyType({**_CLASSIC_DECK, "wild-mega-minions": 4}),
        points=POINTS["despicable-me-4"],
        wild=frozenset({"wild", "wild-draw-four", "wild-mega-minions"}), uno_penalty=2, options=_OPTIONS,
    ),
)})



def get(ruleset_id: str) -> FlowRuleset:
    """A ruleset this module plays; InvalidParams lists them."""
    try:
        return RULESETS[ruleset_id]
    except (KeyError, TypeError):
        raise InvalidParams(message("unknown_ruleset", ruleset=repr(ruleset_id), rulesets=list(RULESETS))) from None


def draw_allowed(state: GameState) -> bool:
    """The player whose move it is may draw one card now: the pile is started and nothing waits
    (no deal owed, no challenge, no Minions counts, no card just drawn, the round going on)."""
    return not state.round_over and not state.queue and state.awaiting is None and state.top_card is not None


def choices(state: GameState) -> list[str]:
    """What the player whose move it is may do now (``controller.rules.game.choices``): ``play``, ``draw``
    (a press of the button, or ``game/draw``), ``pass``, ``accept``, ``challenge``,
    ``challenge_result``, ``minions``, ``turn_up``, ``end_round``; none while the launcher deals."""
    if state.queue:
        return []
    if state.round_over:
        return ["end_round"]
    if state.top_card is None:
        return ["turn_up"]
    return {DRAWN: ["play", "pass"], CHALLENGE: ["accept", "challenge"], RESULT: ["challenge_result"],
            MINIONS: ["minions"]}.get(state.awaiting, ["play", "draw"])


# ---- the classic flow -----------------------------------------------------------------------------

ACTIONS: Mapping[str, Mapping[str, tuple[type, bool]]] = MappingProxyType({
    "play": {"card": (str, True), "color": (str, False), "last": (bool, False), "by": (str, False)},
    "press": {"cards": (int, True), "press_id": (int, False), "by": (str, False)},
    "pass": {"by": (str, False)},
    "challenge": {"by": (str, False)},
    "challenge-result": {"result": (str, True)},
    "accept": {"by": (str, False)},
    "minions": {"counts": (dict, True)},
    "uno": {"player": (str, True)},
    "catch": {"player": (str, True)},
    "turn_up": {"card": (str, True), "color": (str, False)},
})


def _deal(state: GameState, seat: int, cards: int, reason: str) -> Owed:
    return Owed(seat, cards, False, reason)


def _deal_effect(state: GameState, owed: Owed) -> dict:
    """Ask the service to dispense the cards of ``owed`` at its seat."""
    effect = {"type": "deal", "player": state.players[owed.seat], "seat": owed.seat,
              "cards": owed.presses, "reason": owed.reason}
    if owed.reason == "deal":
        options = dict(state.options)
        effect["pause"] = "press" if options["deal_pause"] == "press" else float(options["deal_pause_s"])
    return effect


def _owe(state: GameState, owed: tuple[Owed, ...]) -> tuple[GameState, list[dict]]:
    """Deals owed for a turn go after what is already owed; each is announced as a deal effect."""
    return replace(state, queue=state.queue + owed), [_deal_effect(state, o) for o in owed]


def _card_effect(state: GameState, rs: FlowRuleset, seat: int, card: str) -> tuple[GameState, list[dict]]:
    names = state.players
    victim = next_seat(state, seat)
    if card == "draw-two":
        state, effects = _owe(state, (_deal(state, victim, 2, "draw-two"),))
        state = replace(state, active=next_seat(state, victim))
        return state, [wording.said("dealt_two_loses_turn", player=names[victim])] + effects
    if card == "wild-draw-four":
        state = replace(state, awaiting=CHALLENGE, active=victim)
        return state, [wording.said("accept_or_challenge", player=names[victim])]
    if card == "wild-mega-minions":
        state = replace(state, awaiting=MINIONS, active=victim)
        return state, [wording.said("minions_discard")]
    state, said, active = turn_effect(state, seat, card)
    return replace(state, active=active), said


def _end_round(state: GameState, seat: int, card: str) -> tuple[GameState, list[dict]]:
    name = state.players[seat]
    state = replace(state, round_over=True, winner=seat, catchable=None, queue=(), awaiting=None)
    effects = [wording.said("wins_round", player=name, round=state.round_no),
               {"type": "round_over", "winner": name}]
    draws = {"draw-two": 2, "wild-draw-four": 4}.get(card)
    if draws and dict(state.options)["last_card_draws"] == "true":
        victim = next_seat(state, seat)
        state, deal = _owe(state, (_deal(state, victim, draws, "last-card-draw"),))
        state = replace(state, last_attack_victim=victim)
        effects += [wording.said("still_dealt", player=state.players[victim], cards=draws)]
        effects += deal
    return state, effects


def _play(state: GameState, p: dict) -> tuple[GameState, list[dict]]:
    rs = get(state.ruleset)
    card = p["card"]
    color = color_of(rs, p["color"])
    check_card(rs, card, color)
    refuse_when_over(state)
    seat = turn_seat(state)
    name = state.players[seat]
    check_by(state, p["by"], seat)
    if state.queue:
        raise Refused(message("is_dealt_first", player=name, cards=state.queue[0].presses))
    if state.awaiting in (CHALLENGE, RESULT, MINIONS):
        raise Refused(message("settles_first", player=name, card=state.top_card, awaiting=state.awaiting))
    _refuse_before_first_card(state)
    check_match(state, rs, card, color)
    hands.check_play(state, seat, p["last"], discards=False)
    last = p["last"] or hands.empties(state, seat)  # the last card: the round ends on it, told or not
    described = plays(name, card, color)
    state = replace(takes_turn(state), top_card=card, color=color, catchable=seat, awaiting=None,
                    **hands.played(state, seat, last))
    if last:
        state, effects = _end_round(state, seat, card)
    else:
        state, effects = _card_effect(state, rs, seat, card)
    return state, [described] + effects


def _refuse_before_first_card(state: GameState) -> None:
    """Nothing is played or drawn before the first card is turned up to start the pile (§5)."""
    if state.top_card is None and new_action():
        raise Refused(message("first_card_first", player=state.players[state.active]))


def _dealt_seat(state: GameState, by: str | None) -> int:
    """Whose press it is: the player it was dealt for, when cards are owed to them.

    A penalty owed meanwhile (a catch while Bob's Draw Two comes out) goes first in the queue, yet
    Bob's cards are still Bob's.
    """
    seat = turn_seat(state)
    if by is not None and state.queue:
        named = find(state.players, by)
        if any(owed.seat == named for owed in state.queue):
            return named
    check_by(state, by, seat)
    return seat


def _press(state: GameState, p: dict) -> tuple[GameState, list[dict]]:
    cards = p["cards"]
    if cards < 0:
        raise InvalidParams(f"press: cards must be 0 or more, not {cards}")
    if not state.queue:
        refuse_when_over(state)
    seat = _dealt_seat(state, p["by"])
    name = state.players[seat]
    if not state.queue:
        _refuse_before_first_card(state)
        if state.awaiting == DRAWN:
            raise Refused(message("has_drawn", player=name))
        if state.awaiting is not None:
            raise Refused(message("settles_first", player=name, card=state.top_card, awaiting=state.awaiting))
        if cards != 1:
            raise Refused(message("draw_is_one", cards=cards, player=name))
        state = replace(takes_turn(state), awaiting=DRAWN,
                        cards_taken=bump(state.cards_taken, seat, 1), presses=bump(state.presses, seat, 1),
                        uno_called=state.uno_called - {seat}, hands=bump(state.hands, seat, 1))
        return state, [wording.said("draws_one", player=name)]
    at = next(i for i, o in enumerate(state.queue) if o.seat == seat)
    owed = state.queue[at]
    if cards > owed.presses:
        raise Refused(message("owed_never_more", player=name, owed=owed.presses, cards=cards))
    left = owed.presses - cards
    kept = () if left == 0 else (replace(owed, presses=left),)
    rest = state.queue[:at] + kept + state.queue[at + 1:]
    # Dealt cards are no turn: the catch window stays open until the next player who has a turn acts.
    state = replace(state, queue=rest, cards_taken=bump(state.cards_taken, seat, cards),
                    uno_called=state.uno_called - {seat} if cards else state.uno_called,
                    hands=bump(state.hands, seat, cards))
    if owed.reason == "last-card-draw":
        state = replace(state, last_attack_cards=state.last_attack_cards + cards)
    if left == 0:
        return state, [wording.said("dealt_done", player=name, cards=cards)]
    return state, [wording.said("dealt_to_come", player=name, cards=cards, left=left)]


def _pass(state: GameState, p: dict) -> tuple[GameState, list[dict]]:
    refuse_when_over(state)
    seat = turn_seat(state)
    check_by(state, p["by"], seat)
    if state.queue or state.awaiting != DRAWN:
        raise Refused(message("pass_after_draw"))
    state = replace(state, awaiting=None, active=next_seat(state, seat))
    return state, [wording.said("keeps_card", player=state.players[seat])]


def _victim_move(state: GameState, p: dict, waiting: str, nothing_waits: str) -> int:
    """The seat of the player who answers what the round waits for; ``nothing_waits``: the refusal's id."""
    refuse_when_over(state)
    if state.awaiting != waiting:
        raise Refused(message(nothing_waits))
    seat = turn_seat(state)
    if state.queue:
        raise Refused(message("is_dealt_first", player=state.players[seat], cards=state.queue[0].presses))
    check_by(state, p["by"], seat)
    return seat


def _challenge(state: GameState, p: dict) -> tuple[GameState, list[dict]]:
    seat = _victim_move(state, p, CHALLENGE, "no_challenge_now")
    player = next_seat(state, seat, -1)
    state = replace(state, awaiting=RESULT)  # a challenge is no turn: the window stays open
    return state, [wording.said("challenges", player=state.players[seat], challenged=state.players[player])]


def _accept(state: GameState, p: dict) -> tuple[GameState, list[dict]]:
    seat = _victim_move(state, p, CHALLENGE, "no_accept_now")
    state, effects = _owe(replace(state, awaiting=None, active=next_seat(state, seat)),  # nor is an accept
                          (_deal(state, seat, 4, "wild-draw-four"),))
    return state, [wording.said("accepts", player=state.players[seat])] + effects


def _challenge_result(state: GameState, p: dict) -> tuple[GameState, list[dict]]:
    result = p["result"]
    if result not in ("legal", "illegal"):
        raise InvalidParams(f"challenge-result: result is legal or illegal, not {result!r}")
    refuse_when_over(state)
    if state.awaiting != RESULT:
        raise Refused(message("no_challenge_waiting"))
    challenger = state.active
    player = next_seat(state, challenger, -1)
    names = state.players
    state = replace(state, awaiting=None)
    if result == "legal":
        state, effects = _owe(replace(state, active=next_seat(state, challenger)),
                              (_deal(state, challenger, 6, "challenge-lost"),))
        said = wording.said("challenge_legal", player=names[challenger])
    else:
        # Dealt before the challenger's turn: it is owed at once, like a penalty.
        state = owe_penalty(state, _deal(state, player, 4, "illegal-wild-draw-four"))
        effects = [_deal_effect(state, state.queue[0])]
        said = wording.said("challenge_illegal", player=names[player], challenger=names[challenger])
    return state, [said] + effects


def _minions(state: GameState, p: dict) -> tuple[GameState, list[dict]]:
    refuse_when_over(state)
    if state.awaiting != MINIONS:
        raise Refused(message("no_minions_waiting"))
    first = state.active
    player = next_seat(state, first, -1)
    order = [next_seat(state, player, i) for i in range(1, len(state.players))]
    counts: dict[int, int] = {}
    for name, count in p["counts"].items():
        seat = find(state.players, name)
        if seat == player:
            raise Refused(message("discards_nothing", player=state.players[player]))
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise InvalidParams(message("minions_count", player=state.players[seat], count=repr(count)))
        if seat in counts:
            raise InvalidParams(message("minions_twice", player=state.players[seat]))
        counts[seat] = count
    missing = [state.players[s] for s in order if s not in counts]
    if missing:
        raise InvalidParams(message("minions_missing", players=missing))
    deals = tuple(_deal(state, s, counts[s], "minions") for s in order if counts[s])
    held = state.hands
    for seat, count in counts.items():
        if count > held[seat] and new_action():
            raise Refused(message("minions_more_than_held", player=state.players[seat], count=count,
                                  cards=held[seat]))
        held = bump(held, seat, -count)  # the discards; the deals give as many back
    state, effects = _owe(replace(state, awaiting=None, hands=held), deals)
    deals = [message("is_dealt_n", player=state.players[s], cards=counts[s]) for s in order]
    return state, [wording.said("joined", messages=deals)] + effects


_HANDLERS = {
    "play": _play, "press": _press, "pass": _pass, "challenge": _challenge,
    "challenge-result": _challenge_result, "accept": _accept, "minions": _minions, "uno": uno,
    "catch": lambda state, p: catch(state, p, get(state.ruleset), "cards"),
    "turn_up": lambda state, p: turn_up_action(state, p, get(state.ruleset)),
}


def new_game(ruleset: str, players: list[str], dealer: str | None = None, first_card: str | None = None,
             color: str | None = None, options: dict[str, str] | None = None,
             round_no: int = 1) -> tuple[GameState, list[dict]]:
    """A round: 7 dealt to every seat, seat by seat from the dealer's left, then the first card."""
    rs = get(ruleset)
    state = base_state(rs, players, dealer, options, round_no)
    names = state.players
    state = replace(state, hands=(0,) * len(names))
    seats = [next_seat(state, state.dealer, i) for i in range(1, len(names) + 1)]
    state, deals = _owe(state, tuple(_deal(state, s, HAND, "deal") for s in seats))
    state, first = turn_up(state, rs, first_card, color)
    head = wording.said("round_deals_each", round=round_no, ruleset=rs.id, dealer=names[state.dealer],
                        hand=HAND)
    return state, [head] + deals + first + [aim(state, turn_seat(state))]


def apply(state: GameState, action: dict) -> tuple[GameState, list[dict]]:
    return apply_with(_HANDLERS, ACTIONS, get(state.ruleset), state, action)


def _owed_view(state: GameState, owed: Owed) -> dict:
    return {**owed_json(state, owed), "cards": owed.presses}


def status(state: GameState) -> dict:
    rs = get(state.ruleset)
    view = base_status(state, rs, _owed_view, choices)
    if state.awaiting in (CHALLENGE, RESULT):
        view["challenge"] = {"challenger": state.players[state.active],
                             "player": state.players[next_seat(state, state.active, -1)]}
    if state.last_attack_victim is not None:
        view["last_card_draw"] = {"victim": state.players[state.last_attack_victim],
                                  "cards": state.last_attack_cards}
    return view


__all__ = ["ACTIONS", "RULESETS", "apply", "choices", "get", "new_game", "status"]
