"""The flow of a round of UNO Attack (the ``attack-*`` rulesets): a pure, deterministic state machine
(rules.md §1, §3-5).

sans-IO: :func:`new_game` and :func:`apply` take plain data and return a new immutable
:class:`GameState` plus a list of effects (plain dicts) for the caller to show or act on; they never
touch a pin, a file or a clock. Bad input raises ``InvalidParams`` / ``NotFound`` / ``Refused`` and,
the state being immutable, leaves the caller's state as it was. The caller logs the actions (JSON
dicts) verbatim: replaying them from the same ``new_game`` call rebuilds the same state, so undo is a
replay of all the actions but the last.

What the controller follows is *whose move it is*: who owes presses (a queue of obligations: hits,
penalties, Wild All Hit) and, once nobody owes any, who plays. It does not see the cards: it trusts
the table that a card matches the discard pile, and hands (Discard All, Trade Hands) are the
players' business. A press is reported by the launcher with the number of cards counted at the exit
beam; the controller attributes it to the player whose move it is.

Seats are indexes in the ``players`` list, which is the clockwise seating order.

Where the rules are silent, this module decides:

- ``color`` is the current color when known: named by a wild, or shown by a colored card; both
  are required, so that the next play is checked against the pile (#21).
- Early stop applies to every obligation with a count (hits, Mega Hit, penalties, first card), as
  001 says it of any "appuis demandés"; Wild Hit-Fire always ends when cards come out.
- Wild All Hit: the presses are not turns; play then goes on with the player after the one who
  played it. With two players it is an attack like the others, so its player plays again (000).
- Mega Hit: a single Hit card answered by nobody resumes after its victim (the card's own rule);
  the ``resume`` option applies once at least one card was stacked.
- Last card: only Wild Attack-Attack still attacks (001); played on a Mega Hit it passes the whole
  stack. A last Hit card attacks nobody. A round cannot end on Trade Hands.
- Uno: the catch window and what a turn is are ``controller/rules/state.py``'s (one for every
  ruleset); the hands a catch, a last card and a round's winner need, ``hands.py``'s. A call covers
  one play: the player's next one (a call made early) or the one just made.
- Legality: the table is trusted, except where the controller knows enough to be sure: a colored
  card whose color is given, on a pile whose color and card are known, must match one of them
  (a Hit card answering a Mega Hit matches anything, a wild goes on anything).
- A press while a turned-up Wild Attack-Attack waits for its color and target is the first
  player's: the cards are theirs, and they still name the color and the target.
- Penalties go after penalties already owed and before any turn's obligation.
- First card: a turned-up Hit is pressed by the first player with no stacking (nobody attacked);
  a turned-up Wild Attack-Attack waits for a ``first_attack`` action from the first player, then
  works as if they had played it (Mega Hit included); a turned-up Discard All waits for the first
  player to discard that colour (a play of that colour, laid as under a Discard All) or press; Wild
  needs nothing; Wild All Hit and Wild Hit-Fire act as if the dealer had played them; Trade Hands
  and numbers only set the color.
"""

from __future__ import annotations

from firmware.errors import InvalidParams, Refused
from firmware.i18n import message

from controller.rules import hands, rulesets
from controller.rules.points import COLORS
from controller.rules.rulesets import CANNOT_END, RULESETS, TARGETED_CARDS, WILD_CARDS, Ruleset
from controller.rules.state import (
    Chain, GameState, Owed, aim, bump, check_by, checked, direction_word, find, new_action, next_seat,
    owed_press, plays, refuse_when_over, replace, require_color, takes_turn, turn_seat,
)
from controller.rules.uno import hand_sizes, owed_json
from controller.text import wording

PENALTIES = frozenset({"uno", "hint"})  # obligations owed out of turn, pressed before anything else
AWAITING_FIRST_ATTACK = "first_attack"
# A turned-up Discard All: the first player discards that colour or presses (000).
AWAITING_FIRST_DISCARD = "first_discard"


def _option(state: GameState, name: str) -> str:
    return dict(state.options)[name]


def _early_stop(state: GameState) -> bool:
    return _option(state, "early_stop") == "true"


def _color(color: str | None) -> str | None:
    if color is not None and color not in COLORS:
        raise InvalidParams(message("unknown_colour", color=str(color), colors=list(COLORS)))
    return color


def _check_target(state: GameState, target: str, seat: int, card: str) -> int:
    victim = find(state.players, target)
    if victim == seat:
        raise Refused(message("names_another_player", card=card, player=state.players[seat]))
    return victim


# ---- actions: shapes ----------------------------------------------------------------------------

# For each action type, its keys: (type, required). Every key may be given as null when optional.
ACTIONS: dict[str, dict[str, tuple[type, bool]]] = {
    "play": {
        "card": (str, True),
        "color": (str, False),
        "target": (str, False),
        "last": (bool, False),
        "by": (str, False),
    },
    # ``ended``: how a burst cut short ended ("jam", "empty", "lid"), kept for the log to say (#40).
    "press": {"cards": (int, True), "press_id": (int, False), "by": (str, False), "ended": (str, False)},
    "cards": {"cards": (int, True), "press_id": (int, False), "by": (str, False)},
    "uno": {"player": (str, True)},
    "catch": {"player": (str, True)},
    "hint": {"player": (str, True)},
    "first_attack": {"color": (str, True), "target": (str, True), "by": (str, False)},
}


# ---- the effect of a card -----------------------------------------------------------------------


def _card_effect(
    state: GameState, rs: Ruleset, seat: int, card: str, target: int | None
) -> tuple[GameState, list[dict]]:
    """What a card played by ``seat`` (with nothing owed, the round going on) does to the flow."""
    n = len(state.players)
    names = state.players
    said = []
    if card == "reverse":
        if n > 2:  # with two players Reverse acts as Skip: the direction does not matter
            state = replace(state, direction=-state.direction)
            said.append(wording.said("direction_now", direction=direction_word(state)))
        active = next_seat(state, seat)
    elif card == "skip":
        said.append(wording.said("skipped", player=names[next_seat(state, seat)]))
        active = next_seat(state, seat, 2)
    elif card in rs.hits:
        victim = target if card == "wild-attack" else next_seat(state, seat)
        presses = rs.hits[card]
        chain = Chain(presses, seat, 0) if rs.mega_hit else None
        reason = "attack" if card == "wild-attack" else "hit"
        owed = Owed(victim, presses, _early_stop(state), reason, chain)
        state = replace(state, queue=(owed,))
        said.append(wording.said("owes_or_stack" if chain else "owes", player=names[victim],
                                 presses=presses))
        active = next_seat(state, victim)
    elif card == "wild-all-hit":
        order = [next_seat(state, seat, i) for i in range(1, n)]
        state = replace(
            state, queue=tuple(Owed(v, 1, _early_stop(state), "all-hit") for v in order)
        )
        said.append(wording.said("all_hit", players=[names[v] for v in order]))
        active = next_seat(state, seat)
    elif card == "wild-hit-fire":
        victim = next_seat(state, seat)
        state = replace(state, queue=(Owed(victim, None, True, "hit-fire"),))
        said.append(wording.said("hit_fire", player=names[victim]))
        active = next_seat(state, victim)
    else:
        if card == "trade-hands":
            said.append(wording.said("swap_hands", player=names[seat], target=names[target]))
        active = next_seat(state, seat)
    if n == 2 and card in rs.two_players_replay:
        if state.queue:  # an attack: the turn comes back once the other player has pressed
            said.append(wording.said("plays_again_after_presses", player=names[seat],
                                     victim=names[state.queue[0].seat]))
        else:
            said.append(wording.said("plays_again", player=names[seat]))
        active = seat
    return replace(state, active=active), said


def _stack(
    state: GameState, rs: Ruleset, seat: int, card: str, target: int | None
) -> tuple[GameState, list[dict]]:
    """A Hit card answering a Mega Hit: the hits add up and pass on (rules.md §4)."""
    chain = state.queue[0].chain
    hits = chain.hits + rs.hits[card]
    victim = target if card == "wild-attack" else next_seat(state, seat)
    if _option(state, "resume") == "first_attacker":
        active = chain.started_by
    else:
        active = next_seat(state, chain.started_by)
    stacked = Chain(hits, chain.started_by, chain.stacks + 1)
    owed = Owed(victim, hits, _early_stop(state), "mega-hit", stacked, chain.started_by)
    state = replace(state, queue=(owed,) + state.queue[1:], active=active)
    return state, [wording.said("mega_hit_passes", hits=hits, player=state.players[victim])]


def _end_round(
    state: GameState, rs: Ruleset, seat: int, card: str, target: int | None
) -> tuple[GameState, list[dict]]:
    """The last card: the round is over; a last Wild Attack-Attack still attacks (001 §2)."""
    front = state.queue[0] if state.queue else None
    name = state.players[seat]
    state = replace(state, round_over=True, winner=seat, catchable=None, queue=())
    effects = [
        wording.said("wins_round", player=name, round=state.round_no),
        {"type": "round_over", "winner": name},
    ]
    if card == "wild-attack":
        # Played on a Mega Hit, the card passes the whole stack on, as it would mid-round.
        presses = rs.hits[card] + (front.chain.hits if front is not None else 0)
        owed = Owed(target, presses, _early_stop(state), "last-card-attack")
        state = replace(state, queue=(owed,), last_attack_victim=target)
        effects.append(wording.said("last_card_attack", player=state.players[target], presses=presses))
    return state, effects


# ---- action handlers ------------------------------------------------------------------------------


def _play(state: GameState, p: dict) -> tuple[GameState, list[dict]]:
    rs = rulesets.get(state.ruleset)
    card = p["card"]
    if card not in rs.cards:
        raise InvalidParams(message("not_a_card", card=card, ruleset=rs.id, cards=list(rs.cards)))
    color = _color(p["color"])
    if card in WILD_CARDS and color is None:
        raise InvalidParams(message("names_a_color", card=card, colors=list(COLORS)))
    if card in TARGETED_CARDS and p["target"] is None:
        raise InvalidParams(message("names_a_target", card=card))
    if card not in TARGETED_CARDS and p["target"] is not None:
        raise InvalidParams(message("takes_no_target", card=card, cards=sorted(TARGETED_CARDS)))
    refuse_when_over(state)
    seat = turn_seat(state)
    name = state.players[seat]
    check_by(state, p["by"], seat)
    if state.awaiting == AWAITING_FIRST_ATTACK and not state.queue:
        raise Refused(message("first_names_color_target", player=name))
    front = state.queue[0] if state.queue else None
    if front is not None and front.chain is None:
        if rs.mega_hit:
            raise Refused(message("owes_first", player=name, presses=front.presses))
        raise Refused(message("owes_first_no_mega_hit", player=name, presses=front.presses,
                              ruleset=rs.id))
    if front is not None and card not in rs.hits:
        raise Refused(message("only_hit_answers", cards=list(rs.hits), player=name))
    target = None if p["target"] is None else _check_target(state, p["target"], seat, card)
    answers_discard = state.awaiting == AWAITING_FIRST_DISCARD and front is None
    discards = card in hands.DISCARDS or answers_discard
    hands.check_play(state, seat, p["last"], discards)
    last = p["last"] or hands.empties(state, seat)  # a hand of one: this card is the last, told or not
    if last and card in CANNOT_END and new_action():
        raise Refused(message("cannot_end_on", card=card))

    require_color(state, COLORS, card, color, any_color=front is not None)  # any Hit card stacks
    if answers_discard:
        _check_first_discard(state, name, card, color)
    elif front is None and card not in WILD_CARDS:
        _check_match(state, card, color)

    described = plays(name, card, color, None if target is None else state.players[target])
    state = replace(takes_turn(state), top_card=card, color=color, catchable=seat,
                    **hands.played(state, seat, last, discards,
                                   target if card == "trade-hands" and not last else None))
    if answers_discard:  # the colour laid without its cards' effects, as under a Discard All
        state = replace(state, awaiting=None)
    if last:
        state, effects = _end_round(state, rs, seat, card, target)
    elif answers_discard:
        state = replace(state, active=next_seat(state, seat))
        effects = [wording.said("first_discard_done", player=name, color=color)]
    elif front is not None:
        state, effects = _stack(state, rs, seat, card, target)
    else:
        state, effects = _card_effect(state, rs, seat, card, target)
    return state, [described] + effects


def choices(state: GameState) -> list[str]:
    """What the player whose move it is may do now, as the ruleset's own rules allow (the page offers
    these controls only): ``play``, ``press``, ``first_attack``, ``end_round``; the other flows say
    theirs (``controller/rules/classic.py``, ``controller/rules/blast.py``). Uno and catch are anyone's: see
    ``uno_called`` and ``catchable_players``."""
    if state.queue:
        front = state.queue[0]
        return ["press", "play"] if front.chain is not None else ["press"]
    if state.round_over:
        return ["end_round"]
    if state.awaiting == AWAITING_FIRST_ATTACK:
        return ["first_attack"]
    return ["play", "press"] if hands.bounds(state, state.active)[1] > 0 else ["press"]


def resumes_after_mega_hit(state: GameState, owed: Owed) -> dict:
    """Where play resumes once a stacked Mega Hit is pressed out, and why (option ``resume``)."""
    attacker = state.players[owed.started_by]
    if state.active == owed.started_by:
        return message("resumes_with_first_attacker", player=attacker)
    return message("resumes_after_first_attacker", player=state.players[state.active], attacker=attacker)


def _check_first_discard(state: GameState, name: str, card: str, color: str | None) -> None:
    """The first player's answer to a turned-up Discard All: that colour, discarded, or a press."""
    if (card in WILD_CARDS or state.color not in (None, color)) and new_action():
        if state.color is None:  # the Discard All's colour was not said: a wild is still no answer
            raise Refused(message("first_discard_all_only_any", player=name))
        raise Refused(message("first_discard_all_only", player=name, color=state.color))


def _check_match(state: GameState, card: str, color: str | None) -> None:
    """Refuse a colored card that can match neither the color nor the card on the pile, when both are known."""
    if color is None or state.color is None or state.top_card is None:
        return
    if color != state.color and card != state.top_card:
        kind = "pile_mismatch_wild" if state.top_card in WILD_CARDS else "pile_mismatch"
        raise Refused(message(kind, color=color, card=card, pile_color=state.color,
                              pile_card=state.top_card))


def _press(state: GameState, p: dict) -> tuple[GameState, list[dict]]:
    cards = p["cards"]
    if cards < 0:
        raise InvalidParams(f"press: cards must be 0 or more, not {cards}")
    if not state.queue:  # after the last card only a last-card attack is still pressed
        refuse_when_over(state)
    seat = turn_seat(state)
    check_by(state, p["by"], seat)
    name = state.players[seat]
    state = replace(
        state,
        last_presser=seat,
        last_press_was_attack=bool(state.queue) and state.queue[0].reason == "last-card-attack",
        cards_taken=bump(state.cards_taken, seat, cards),
        presses=bump(state.presses, seat, 1),
        # Cards in hand again: an earlier Uno call no longer covers this player.
        uno_called=state.uno_called - {seat} if cards else state.uno_called,
        **hands.took(state, seat, cards),
    )
    if state.awaiting == AWAITING_FIRST_ATTACK and not state.queue:
        # The turned-up attack still waits for its color and victim: pressing does not skip it.
        return state, [wording.said("pressed_still_names", player=name, cards=cards)]
    if not state.queue:  # the "cannot or will not play" press: the turn is over
        state = replace(takes_turn(state), active=next_seat(state, seat), awaiting=None)
        return state, [wording.said("pressed_turn_over", player=name, cards=cards)]
    owed = state.queue[0]
    left = None if owed.presses is None else owed.presses - 1
    done = left == 0 or (owed.until_cards and cards > 0)
    if done:
        rest = state.queue[1:]
        said = wording.said("pressed_done", player=name, cards=cards)
    else:  # pressing once closes a Mega Hit: no stacking after that
        rest = (replace(owed, presses=left, chain=None),) + state.queue[1:]
        said = wording.said("pressed_still_owes", player=name, cards=cards, presses=left)
    state = owed_press(state, owed)  # presses owed are no turn: the window stays open
    if owed.reason == "last-card-attack":
        state = replace(state, last_attack_cards=state.last_attack_cards + cards)
    if done and owed.started_by is not None and not rest:
        # Said, since the turn may go back round the table: who plays now, and why.
        return replace(state, queue=rest), [said, wording.effect(resumes_after_mega_hit(state, owed))]
    if done and rest:  # what is still owed, and by whom (a penalty first, then the hit it went before)
        return replace(state, queue=rest), [said, wording.said("then_owes", player=state.players[rest[0].seat],
                                                               presses=rest[0].presses)]
    return replace(state, queue=rest), [said]


def _late_cards(state: GameState, p: dict) -> tuple[GameState, list[dict]]:
    """Cards counted after their press was settled (one fell out late): the presser's too (§2)."""
    cards = p["cards"]
    if cards < 1:
        raise InvalidParams(f"cards: cards must be 1 or more, not {cards}")
    seat = state.last_presser
    if seat is None:
        raise Refused(message("nobody_pressed"))
    if p["by"] is not None and find(state.players, p["by"]) != seat:
        raise Refused(message("last_press_was", player=state.players[seat], by=p["by"]))
    state = replace(
        state,
        cards_taken=bump(state.cards_taken, seat, cards),
        uno_called=state.uno_called - {seat},
        **hands.took(state, seat, cards),
        last_attack_cards=state.last_attack_cards + (cards if state.last_press_was_attack else 0),
    )
    return state, [wording.said("late_cards", player=state.players[seat], cards=cards)]


def _penalty(state: GameState, p: dict, reason: str) -> tuple[GameState, list[dict]]:
    """Presses owed at once, out of turn, before anything else already owed (rules.md §3)."""
    rs = rulesets.get(state.ruleset)
    seat = find(state.players, p["player"])
    name = state.players[seat]
    refuse_when_over(state)
    if reason == "hint":
        if rs.hint_penalty is None:
            raise Refused(message("no_advice_penalty", ruleset=rs.id))
        presses = rs.hint_penalty
    else:
        refused = hands.catch_refusal(state, seat)
        if refused is not None and (refused["id"] != "catch_needs_one" or new_action()):
            raise Refused(refused)
        presses = rs.uno_penalty
    # After the penalties already waiting, before any turn's obligation: those resume afterwards.
    at = next((i for i, o in enumerate(state.queue) if o.reason not in PENALTIES), len(state.queue))
    owed = Owed(seat, presses, _early_stop(state), reason)
    state = replace(
        state,
        queue=state.queue[:at] + (owed,) + state.queue[at:],
        caught=state.caught or reason == "uno",  # the window stays open: a penalty is no turn
    )
    return state, [wording.said("no_uno" if reason == "uno" else "gave_advice", player=name,
                                presses=presses)]


def _catch(state: GameState, p: dict) -> tuple[GameState, list[dict]]:
    return _penalty(state, p, "uno")


def _hint(state: GameState, p: dict) -> tuple[GameState, list[dict]]:
    return _penalty(state, p, "hint")


def _uno(state: GameState, p: dict) -> tuple[GameState, list[dict]]:
    seat = find(state.players, p["player"])
    refuse_when_over(state)
    state = replace(state, uno_called=state.uno_called | {seat})
    return state, [wording.said("calls_uno", player=state.players[seat])]


def _first_attack(state: GameState, p: dict) -> tuple[GameState, list[dict]]:
    """The first player names the color and the victim of a turned-up Wild Attack-Attack (§5)."""
    rs = rulesets.get(state.ruleset)
    color = _color(p["color"])
    refuse_when_over(state)
    if state.awaiting != AWAITING_FIRST_ATTACK:
        raise Refused(message("no_first_attack_waiting"))
    seat = turn_seat(state)
    if state.queue:
        raise Refused(message("owes_first", player=state.players[seat],
                              presses=state.queue[0].presses))
    check_by(state, p["by"], seat)
    target = _check_target(state, p["target"], seat, "wild-attack")
    state = replace(state, awaiting=None, color=color)
    named = wording.said("names_color_target", player=state.players[seat], color=color,
                         target=state.players[target])
    state, effects = _card_effect(state, rs, seat, "wild-attack", target)
    return state, [named] + effects


_HANDLERS = {
    "play": _play,
    "press": _press,
    "cards": _late_cards,
    "uno": _uno,
    "catch": _catch,
    "hint": _hint,
    "first_attack": _first_attack,
}


# ---- the first card -------------------------------------------------------------------------------


def _first_card(state: GameState, rs: Ruleset, card: str | None) -> tuple[GameState, list[dict]]:
    """The effect of the card turned up to start the discard pile (rules.md §5)."""
    first = state.active
    names = state.players
    es = _early_stop(state)
    if card == "reverse":
        direction = state.direction if len(names) == 2 else -state.direction
        state = replace(state, active=state.dealer, direction=direction)
        said = wording.said("first_reverse", dealer=names[state.dealer], direction=direction_word(state))
    elif card == "skip":
        state = replace(state, active=next_seat(state, first))
        said = wording.said("first_skip", player=names[first])
    elif card in ("hit-1", "hit-2"):
        presses = rs.hits[card]
        owed = Owed(first, presses, es, "first-card")
        state = replace(state, queue=(owed,), active=next_seat(state, first))
        said = wording.said("first_hit", card=card, player=names[first], presses=presses)
    elif card == "wild":
        said = wording.said("first_wild", player=names[first])
    elif card == "discard-all":
        state = replace(state, awaiting=AWAITING_FIRST_DISCARD)
        said = wording.said("first_discard_all", player=names[first])
    elif card == "wild-attack":
        state = replace(state, awaiting=AWAITING_FIRST_ATTACK)
        said = wording.said("first_wild_attack", player=names[first])
    elif card == "wild-all-hit":  # as if the dealer had played it, like a turned-up Hit card
        order = [next_seat(state, state.dealer, i) for i in range(1, len(names))]
        state = replace(state, queue=tuple(Owed(v, 1, es, "all-hit") for v in order))
        said = wording.said("first_wild_all_hit", players=[names[v] for v in order])
    elif card == "wild-hit-fire":
        owed = Owed(first, None, True, "hit-fire")
        state = replace(state, queue=(owed,), active=next_seat(state, first))
        said = wording.said("first_wild_hit_fire", player=names[first])
    else:  # a number or Trade Hands (nobody trades): only the start color
        return state, []
    return state, [said]


# ---- public interface -----------------------------------------------------------------------------


def new_game(
    ruleset: str,
    players: list[str],
    dealer: str | None = None,
    first_card: str | None = None,
    color: str | None = None,
    options: dict[str, str] | None = None,
    round_no: int = 1,
) -> tuple[GameState, list[dict]]:
    """A round ready to play, and the effects of the card turned up.

    ``players`` in clockwise seating order; ``dealer`` defaults to the last name, so that the first
    name plays first. ``first_card`` is the card turned up (None: a number, or not told);
    ``color`` its color, or the color the first player named for a turned-up Wild.
    """
    rs = rulesets.get(ruleset)
    chosen = rulesets.resolve_options(rs, options)
    names = rulesets.seating(players)
    dealer_seat = len(names) - 1 if dealer is None else find(names, dealer)
    if first_card is not None and first_card not in rs.cards:
        raise InvalidParams(message("not_a_card", card=first_card, ruleset=rs.id, cards=list(rs.cards)))
    if isinstance(round_no, bool) or not isinstance(round_no, int) or round_no < 1:
        raise InvalidParams(f"round_no is a number from 1, not {round_no!r}")
    state = GameState(
        ruleset=rs.id,
        players=names,
        dealer=dealer_seat,
        options=tuple(chosen.items()),
        round_no=round_no,
        first_card=first_card,
        active=(dealer_seat + 1) % len(names),  # left of the dealer, play clockwise
        direction=1,
        cards_taken=(0,) * len(names),
        presses=(0,) * len(names),
        played=(0,) * len(names),
        **hands.by_hand(len(names)),
        color=_color(color),
        top_card=first_card,
    )
    head = wording.said("round_deals", round=round_no, ruleset=rs.id, dealer=names[dealer_seat])
    state, effects = _first_card(state, rs, first_card)
    return state, [head] + effects + [aim(state, turn_seat(state))]


def apply(state: GameState, action: dict) -> tuple[GameState, list[dict]]:
    """The state after one action, and its effects; raises, state untouched, if it is not allowed.

    An ``aim`` effect is added whenever the player whose move it is changes.
    """
    kind, params = checked(action, ACTIONS, state.ruleset)
    before = turn_seat(state)
    state, effects = _HANDLERS[kind](state, params)
    after = turn_seat(state)
    if after is not None and after != before:
        effects.append(aim(state, after))
    return state, effects


def status(state: GameState) -> dict:
    """The `game status --json` view of a round."""
    turn = turn_seat(state)
    chained = next((o for o in state.queue if o.chain is not None), None)
    attack = None
    if state.last_attack_victim is not None:
        owed = state.queue[0].presses if state.queue else 0
        attack = {
            "victim": state.players[state.last_attack_victim],
            "presses_owed": owed,
            "cards": state.last_attack_cards,
        }
    return {
        "ruleset": state.ruleset,
        "round": state.round_no,
        "players": [
            {"name": name, "seat": seat, "cards_taken": taken, "presses": pressed,
             **hands.status_view(state, seat)}
            for seat, (name, taken, pressed) in enumerate(
                zip(state.players, state.cards_taken, state.presses)
            )
        ],
        "hand_sizes": hand_sizes(state),  # per seat, [fewest, most] cards (controller/rules/uno.py)
        "dealer": state.players[state.dealer],
        "first_card": state.first_card,
        "turn": None if turn is None else state.players[turn],
        "aim": None if turn is None else state.players[turn],
        "direction": direction_word(state),
        "owed": owed_json(state, state.queue[0]) if state.queue else None,
        "queue": [owed_json(state, o) for o in state.queue],
        "chain": None
        if chained is None
        else {
            "hits": chained.chain.hits,
            "started_by": state.players[chained.chain.started_by],
            "target": state.players[chained.seat],
            "stacks": chained.chain.stacks,
        },
        # A stacked Mega Hit owed: who plays once it is pressed out, after whom (option resume).
        "resumes": None if not state.queue or state.queue[0].started_by is None else {
            "player": state.players[state.active], "first_attacker": state.players[state.queue[0].started_by]},
        "awaiting": state.awaiting,
        "top_card": state.top_card,
        "color": state.color,
        "named_color": state.color if state.top_card in WILD_CARDS else None,
        "colors": list(COLORS),
        # Who a catch would succeed against (controller/rules/hands.py), and the same as a list.
        "catchable": None if hands.catchable(state) is None else state.players[state.catchable],
        "catchable_players": hands.catchable_players(state),
        "uno_called": [state.players[s] for s in sorted(state.uno_called)],
        "round_over": state.round_over,
        "winner": None if state.winner is None else state.players[state.winner],
        "choices": choices(state),
        "last_card_attack": attack,
        "options": dict(state.options),
    }


__all__ = ["ACTIONS", "RULESETS", "apply", "choices", "new_game", "status"]
