"""The flow of a round of UNO Attack: a pure, deterministic state machine (rules.md §1, §3-5).

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

- ``color`` is the current colour when known: named by a wild, or shown by a coloured card; both
  are required, so that the next play is checked against the pile (#21).
- Early stop applies to every obligation with a count (hits, Mega Hit, penalties, first card), as
  001 says it of any "appuis demandés"; Wild Hit-Fire always ends when cards come out.
- Wild All Hit: the presses are not turns; play then goes on with the player after the one who
  played it. With two players it is an attack like the others, so its player plays again (000).
- Mega Hit: a single Hit card answered by nobody resumes after its victim (the card's own rule);
  the ``resume`` option applies once at least one card was stacked.
- Last card: only Wild Attack-Attack still attacks (001); played on a Mega Hit it passes the whole
  stack. A last Hit card attacks nobody. A round cannot end on Trade Hands.
- Uno: a catch is allowed against the player who played the latest card until the next player's
  turn begins (the next play, or a press other than a penalty's), unless that player called Uno
  since they last took cards from the launcher. A call covers one play: the player's next one (a
  call made early) or the one just made; once the next player's turn begins it is spent.
- Legality: the table is trusted, except where the controller knows enough to be sure: a coloured
  card whose colour is given, on a pile whose colour and card are known, must match one of them
  (a Hit card answering a Mega Hit matches anything, a wild goes on anything).
- A press while a turned-up Wild Attack-Attack waits for its colour and target is the first
  player's: the cards are theirs, and they still name the colour and the target.
- Penalties go after penalties already owed and before any turn's obligation.
- First card: a turned-up Hit is pressed by the first player with no stacking (nobody attacked);
  a turned-up Wild Attack-Attack waits for a ``first_attack`` action from the first player, then
  works as if they had played it (Mega Hit included); Discard All and Wild need nothing (the first
  player plays or presses); Wild All Hit and Wild Hit-Fire act as if the dealer had played them;
  Trade Hands and numbers only set the colour.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import asdict, dataclass, replace

from firmware.errors import InvalidParams, NotFound, Refused
from firmware.i18n import message

from controller.rules import rulesets

from controller.text import wording
from controller.rules.points import COLORS
from controller.rules.rulesets import CANNOT_END, TARGETED_CARDS, WILD_CARDS, Ruleset

PENALTIES = frozenset({"uno", "hint"})  # obligations owed out of turn, pressed before anything else
AWAITING_FIRST_ATTACK = "first_attack"


@dataclass(frozen=True)
class Chain:
    """A Mega Hit stack still open: the player who owes it may answer it with a Hit card."""

    hits: int
    started_by: int  # seat of the player who played the first Hit card
    stacks: int  # Hit cards played on top of the first one


@dataclass(frozen=True)
class Owed:
    """Presses one player owes before play goes on."""

    seat: int
    presses: int | None  # presses left; None: until cards come out (Wild Hit-Fire)
    until_cards: bool  # the obligation also ends at the first press that gives cards
    # hit, attack, mega-hit, all-hit, hit-fire, first-card, uno, hint or last-card-attack
    reason: str
    chain: Chain | None = None
    # A Mega Hit stacked on (reason "mega-hit"): the seat of the player who started it, for the
    # table to hear where play resumes once it is pressed out; kept after the first press closes it.
    started_by: int | None = None


@dataclass(frozen=True)
class GameState:
    """One round in progress; immutable and picklable (see also :func:`to_json`)."""

    ruleset: str
    players: tuple[str, ...]
    dealer: int
    options: tuple[tuple[str, str], ...]
    round_no: int
    first_card: str | None
    active: int  # who plays once nobody owes presses
    direction: int  # +1 clockwise (seat order), -1 counterclockwise
    cards_taken: tuple[int, ...]  # per seat, cards the launcher gave this round
    presses: tuple[int, ...]  # per seat, presses attributed this round
    queue: tuple[Owed, ...] = ()
    color: str | None = None
    top_card: str | None = None
    awaiting: str | None = None  # AWAITING_FIRST_ATTACK: a turned-up Wild Attack-Attack waits
    catchable: int | None = None  # who played last, until the next player's turn begins
    uno_called: frozenset[int] = frozenset()  # called Uno for their next play, or for the one just made
    round_over: bool = False
    winner: int | None = None
    last_attack_victim: int | None = None  # victim of a Wild Attack-Attack played as the last card
    last_attack_cards: int = 0
    last_presser: int | None = None  # who made the latest press: cards that come out late are theirs
    last_press_was_attack: bool = False  # that press was owed for a last-card attack
    # The dealer games (controller/rules/classic.py): per seat, the cards in hand (dealt, less played,
    # plus penalties), known because the launcher dealt every one. Empty where the table deals.
    hands: tuple[int, ...] = ()
    turned: int = 0  # cards turned up to start the pile (an ignored one is followed by another)
    # Where the table deals (Attack, Blast): per seat, the cards played this round, and the seats
    # whose hand no count tells (they discarded a colour, or traded hands). With the 7 dealt and the
    # cards taken it bounds a hand from above: see may_hold_one. Empty: not kept (an older state).
    played: tuple[int, ...] = ()
    hand_unsure: frozenset[int] = frozenset()


# ---- small helpers ------------------------------------------------------------------------------
# bump, check_by, find, next_seat, refuse_when_over and window_closed are public: the blast and
# classic flows (controller/rules/blast.py, controller/rules/classic.py) build on the same state with them.


def _flow(ruleset: object):
    """The module that plays ``ruleset`` when it is not an Attack edition (blast, classic), else None.

    Imported here, not at the top: both flows import this module for its state and helpers.
    """
    from controller.rules import blast, classic

    if isinstance(ruleset, str):
        for flow in (blast, classic):
            if ruleset in flow.RULESETS:
                return flow
    return None


def _aim(state: GameState, seat: int) -> dict:
    return {"type": "aim", "player": state.players[seat], "seat": seat}


def _option(state: GameState, name: str) -> str:
    return dict(state.options)[name]


def _early_stop(state: GameState) -> bool:
    return _option(state, "early_stop") == "true"


def next_seat(state: GameState, seat: int, steps: int = 1) -> int:
    """The seat ``steps`` places after ``seat`` in the current direction."""
    return (seat + steps * state.direction) % len(state.players)


def _direction(state: GameState) -> str:
    return "clockwise" if state.direction > 0 else "counterclockwise"


def _turn(state: GameState) -> int | None:
    """Whose move it is: who owes presses first, else who plays; None once the round is settled."""
    if state.queue:
        return state.queue[0].seat
    return None if state.round_over else state.active


def find(players: tuple[str, ...], name: str) -> int:
    """The seat of a player, names compared without case."""
    wanted = name.casefold()
    for seat, player in enumerate(players):
        if player.casefold() == wanted:
            return seat
    raise NotFound(message("no_player", name=name, players=list(players)))


def _color(color: str | None) -> str | None:
    if color is not None and color not in COLORS:
        raise InvalidParams(message("unknown_colour", color=str(color), colors=list(COLORS)))
    return color


def bump(values: tuple[int, ...], seat: int, by: int) -> tuple[int, ...]:
    return values[:seat] + (values[seat] + by,) + values[seat + 1 :]


def refuse_when_over(state: GameState) -> None:
    if state.round_over:
        raise Refused(
            message("round_is_over", round=state.round_no, winner=state.players[state.winner])
        )


def window_closed(state: GameState) -> GameState:
    """The next player's turn begins: the latest play can no longer be caught, its Uno call is spent."""
    if state.catchable is None:
        return state
    return replace(state, catchable=None, uno_called=state.uno_called - {state.catchable})


# Set while a log is replayed (controller.match.table.replay): an action logged before #21 was accepted
# then, and is again (a coloured card without its colour, a catch or a last card the hand counts
# refuse now), so that a match begun on an older version still resumes and shows in the history.
_REPLAYING: ContextVar[bool] = ContextVar("replaying", default=False)


@contextmanager
def replaying() -> Iterator[None]:
    token = _REPLAYING.set(True)
    try:
        yield
    finally:
        _REPLAYING.reset(token)


def new_action() -> bool:
    """The action is being checked as a new one, not replayed from the log."""
    return not _REPLAYING.get()


def require_color(state: GameState, colors: tuple[str, ...], card: str, color: str | None,
                  any_color: bool = False) -> None:
    """A coloured card shows its colour: the pile's colour comes from it, and the next play is checked
    against it. Refused with the colours it may have (``any_color``: whatever the pile)."""
    if color is None and new_action():
        legal = list(colors) if any_color else legal_colors(colors, card, state.top_card, state.color)
        raise InvalidParams(message("needs_its_color", card=card, colors=legal))


def _command(kind: str) -> str:
    """An action type as launcherctl's command names it: ``first_attack`` is ``game first-attack``."""
    return kind.replace("_", "-")


def _not_a_move(kind: str, ruleset: str, shapes: Mapping[str, object]) -> dict:
    """What a table may do instead, as ``launcherctl game`` commands: a ``press`` is the launch
    button (in the dealer games also ``game draw``) and ``cards`` (a late card) is the launcher's own."""
    from controller.rules import classic

    moves = []
    for known in shapes:
        if known == "press" and ruleset in classic.RULESETS:
            moves.append("draw")
        elif known not in ("press", "cards"):
            moves.append(_command(known))
    said = "not_a_move_of_or_press" if "press" in shapes else "not_a_move_of"
    return message(said, move=_command(kind), ruleset=ruleset, moves=moves)


def legal_colors(colors: tuple[str, ...], card: str, top_card: str | None, pile_color: str | None) -> list[str]:
    """The colours a coloured ``card`` may have on this pile: the pile's, unless it is the same card.

    A refusal names them; ``launcherctl game play`` fills in the colour when only one is left.
    """
    if top_card is None or pile_color is None or card == top_card:
        return list(colors)
    return [pile_color]


def check_by(state: GameState, by: str | None, seat: int) -> None:
    """``by`` names who the caller thinks moves: refuse it when the move is someone else's."""
    if by is not None and find(state.players, by) != seat:
        raise Refused(message("not_your_move", player=state.players[seat], by=by))


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
    "press": {"cards": (int, True), "press_id": (int, False), "by": (str, False)},
    "cards": {"cards": (int, True), "press_id": (int, False), "by": (str, False)},
    "uno": {"player": (str, True)},
    "catch": {"player": (str, True)},
    "hint": {"player": (str, True)},
    "first_attack": {"color": (str, True), "target": (str, True), "by": (str, False)},
}


def checked(action: object, shapes: Mapping[str, Mapping[str, tuple[type, bool]]],
            ruleset: str | None = None) -> tuple[str, dict]:
    """The action's type and parameters (optional keys missing as None); InvalidParams if malformed.

    ``shapes``: each action type's keys, with their type and whether they are required.
    ``ruleset``: whose moves they are, named when an action is none of them (``game hint`` in classic).
    """
    if not isinstance(action, dict):
        raise InvalidParams(f"an action is a JSON object, not {type(action).__name__}")
    kind = action.get("type")
    if kind not in shapes and ruleset is not None and isinstance(kind, str):
        raise InvalidParams(_not_a_move(kind, ruleset, shapes))
    if kind not in shapes:
        raise InvalidParams(f"unknown action type {kind!r}; types: " + ", ".join(shapes))
    spec = shapes[kind]
    extra = sorted(set(action) - set(spec) - {"type"})
    if extra:
        raise InvalidParams(f"{kind}: unknown key {extra[0]!r}; keys: " + ", ".join(spec))
    params = {}
    for key, (kind_of, required) in spec.items():
        value = action.get(key)
        if value is None:
            if required:
                raise InvalidParams(f"{kind}: {key} is required")
        # bool is an int in Python: a card count of `true` is a mistake, not 1.
        elif not isinstance(value, kind_of) or (kind_of is int and isinstance(value, bool)):
            raise InvalidParams(f"{kind}: {key} must be {kind_of.__name__}, not {value!r}")
        params[key] = value
    return kind, params


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
            said.append(wording.said("direction_now", direction=_direction(state)))
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
    seat = _turn(state)
    name = state.players[seat]
    check_by(state, p["by"], seat)
    if state.awaiting and not state.queue:
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
    if p["last"] and card in CANNOT_END:
        raise Refused(message("cannot_end_on", card=card))

    require_color(state, COLORS, card, color, any_color=front is not None)  # any Hit card stacks
    if front is None and card not in WILD_CARDS:
        _check_match(state, card, color)

    described = plays(name, card, color, None if target is None else state.players[target])
    state = replace(window_closed(state), top_card=card, color=color, catchable=seat,
                    **counted_play(state, seat, card, target))
    if p["last"]:
        state, effects = _end_round(state, rs, seat, card, target)
    elif front is not None:
        state, effects = _stack(state, rs, seat, card, target)
    else:
        state, effects = _card_effect(state, rs, seat, card, target)
    return state, [described] + effects


HAND = 7  # cards each player is dealt (rules.md §1)
# Cards after which a hand's size is no longer told by counting: a colour discarded, hands traded.
UNSURE_AFTER = frozenset({"discard-all", "discard-color", "trade-hands"})


def counted_play(state: GameState, seat: int, card: str, target: int | None = None) -> dict:
    """The ``played`` and ``hand_unsure`` of a state after ``seat`` played ``card`` (at ``target``)."""
    if not state.played:
        return {}
    unsure = state.hand_unsure
    if card in UNSURE_AFTER:
        unsure = unsure | {seat} | ({target} if card == "trade-hands" and target is not None else set())
    return {"played": bump(state.played, seat, 1), "hand_unsure": unsure}


def may_hold_one(state: GameState, seat: int) -> bool:
    """Whether the player may be on their last card, from what the controller knows: the hand in
    the dealer games; elsewhere the 7 dealt plus the cards taken less the cards played, an upper
    bound (a Discard All lays more than one card), unless a colour discarded or hands traded make
    it unknown. Always True where nothing is counted (a state from before it was kept)."""
    if state.hands:
        return state.hands[seat] == 1
    if not state.played or seat in state.hand_unsure:
        return True
    return HAND + state.cards_taken[seat] - state.played[seat] <= 1


def catchable_players(state: GameState) -> list[str]:
    """Whom a catch makes sense against: the player who played last, did not call Uno, and may be
    on their last card (``may_hold_one``); ``catchable`` says whom a catch is accepted against."""
    seat = state.catchable
    if seat is None or seat in state.uno_called or not may_hold_one(state, seat):
        return []
    return [state.players[seat]]


def choices(state: GameState) -> list[str]:
    """What the player whose move it is may do now, as the ruleset's own rules allow (the page offers
    these controls only): ``play``, ``press``, ``first_attack``, ``end_round``; the other flows say
    theirs (``controller/rules/classic.py``, ``controller/rules/blast.py``). Uno and catch are anyone's: see
    ``uno_called`` and ``catchable_players``."""
    flow = _flow(state.ruleset)
    if flow is not None:
        return flow.choices(state)
    if state.queue:
        front = state.queue[0]
        return ["press", "play"] if front.chain is not None else ["press"]
    if state.round_over:
        return ["end_round"]
    if state.awaiting == AWAITING_FIRST_ATTACK:
        return ["first_attack"]
    return ["play", "press"]


def resumes_after_mega_hit(state: GameState, owed: Owed) -> dict:
    """Where play resumes once a stacked Mega Hit is pressed out, and why (option ``resume``)."""
    attacker = state.players[owed.started_by]
    if state.active == owed.started_by:
        return message("resumes_with_first_attacker", player=attacker)
    return message("resumes_after_first_attacker", player=state.players[state.active], attacker=attacker)


def plays(player: str, card: str, color: str | None, target: str | None = None) -> dict:
    """The effect that says a card was played: "Ann plays wild-attack (red) at Bob"."""
    if color is None:
        if target is None:
            return wording.said("plays", player=player, card=card)
        return wording.said("plays_at", player=player, card=card, target=target)
    if target is None:
        return wording.said("plays_color", player=player, card=card, color=color)
    return wording.said("plays_color_at", player=player, card=card, color=color, target=target)


def _check_match(state: GameState, card: str, color: str | None) -> None:
    """Refuse a coloured card that can match neither the colour nor the card on the pile, when both are known."""
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
    seat = _turn(state)
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
    )
    if state.awaiting and not state.queue:
        # The turned-up attack still waits for its colour and victim: pressing does not skip it.
        return state, [wording.said("pressed_still_names", player=name, cards=cards)]
    if not state.queue:  # the "cannot or will not play" press: the turn is over
        state = replace(window_closed(state), active=next_seat(state, seat))
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
    if owed.reason not in PENALTIES:  # a penalty is out of turn: the next player has not moved yet
        state = window_closed(state)
    if owed.reason == "last-card-attack":
        state = replace(state, last_attack_cards=state.last_attack_cards + cards)
    if done and owed.started_by is not None and not rest:
        # Said, since the turn may go back round the table: who plays now, and why.
        return replace(state, queue=rest), [said, wording.effect(resumes_after_mega_hit(state, owed))]
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
        if state.catchable != seat:
            raise Refused(message("catch_only_after_play", player=name))
        if seat in state.uno_called:
            raise Refused(message("called_uno", player=name))
        presses = rs.uno_penalty
    # After the penalties already waiting, before any turn's obligation: those resume afterwards.
    at = next((i for i, o in enumerate(state.queue) if o.reason not in PENALTIES), len(state.queue))
    owed = Owed(seat, presses, _early_stop(state), reason)
    state = replace(
        state,
        queue=state.queue[:at] + (owed,) + state.queue[at:],
        catchable=None if reason == "uno" else state.catchable,
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
    """The first player names the colour and the victim of a turned-up Wild Attack-Attack (§5)."""
    rs = rulesets.get(state.ruleset)
    color = _color(p["color"])
    refuse_when_over(state)
    if state.awaiting != AWAITING_FIRST_ATTACK:
        raise Refused(message("no_first_attack_waiting"))
    seat = _turn(state)
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
        said = wording.said("first_reverse", dealer=names[state.dealer], direction=_direction(state))
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
    else:  # a number or Trade Hands (nobody trades): only the start colour
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
    ``color`` its colour, or the colour the first player named for a turned-up Wild.
    """
    flow = _flow(ruleset)
    if flow is not None:
        return flow.new_game(ruleset, players, dealer, first_card, color, options, round_no)
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
        color=_color(color),
        top_card=first_card,
    )
    head = wording.said("round_deals", round=round_no, ruleset=rs.id, dealer=names[dealer_seat])
    state, effects = _first_card(state, rs, first_card)
    return state, [head] + effects + [_aim(state, _turn(state))]


def apply(state: GameState, action: dict) -> tuple[GameState, list[dict]]:
    """The state after one action, and its effects; raises, state untouched, if it is not allowed.

    An ``aim`` effect is added whenever the player whose move it is changes.
    """
    flow = _flow(state.ruleset)
    if flow is not None:
        return flow.apply(state, action)
    kind, params = checked(action, ACTIONS, state.ruleset)
    before = _turn(state)
    state, effects = _HANDLERS[kind](state, params)
    after = _turn(state)
    if after is not None and after != before:
        effects.append(_aim(state, after))
    return state, effects


def turn(state: GameState) -> str | None:
    """The name of whoever's move it is (owes presses, else plays); None once the round is settled."""
    seat = _turn(state)
    return None if seat is None else state.players[seat]


def _owed_json(state: GameState, owed: Owed) -> dict:
    return {
        "player": state.players[owed.seat],
        "seat": owed.seat,
        "presses": owed.presses,
        "until_cards": owed.until_cards,
        "reason": owed.reason,
    }


def status(state: GameState) -> dict:
    """The `game status --json` view of a round."""
    flow = _flow(state.ruleset)
    if flow is not None:
        return flow.status(state)
    turn = _turn(state)
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
            {"name": name, "seat": seat, "cards_taken": taken, "presses": pressed}
            for seat, (name, taken, pressed) in enumerate(
                zip(state.players, state.cards_taken, state.presses)
            )
        ],
        "dealer": state.players[state.dealer],
        "first_card": state.first_card,
        "turn": None if turn is None else state.players[turn],
        "aim": None if turn is None else state.players[turn],
        "direction": _direction(state),
        "owed": _owed_json(state, state.queue[0]) if state.queue else None,
        "queue": [_owed_json(state, o) for o in state.queue],
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
        # Who a catch would succeed against: not a player whose Uno call covers the play.
        "catchable": None
        if state.catchable is None or state.catchable in state.uno_called
        else state.players[state.catchable],
        "catchable_players": catchable_players(state),
        "uno_called": [state.players[s] for s in sorted(state.uno_called)],
        "round_over": state.round_over,
        "winner": None if state.winner is None else state.players[state.winner],
        "choices": choices(state),
        "last_card_attack": attack,
        "options": dict(state.options),
    }


def to_json(state: GameState) -> dict:
    """The whole state as JSON data (a snapshot; the action log stays the reference)."""
    data = asdict(state)
    data["options"] = dict(state.options)
    data["uno_called"] = sorted(state.uno_called)
    data["hand_unsure"] = sorted(state.hand_unsure)
    return data


def from_json(data: dict) -> GameState:
    """The state :func:`to_json` gave (after a trip through JSON text)."""
    queue = tuple(
        Owed(**{**o, "chain": None if o["chain"] is None else Chain(**o["chain"])})
        for o in data["queue"]
    )
    return GameState(
        **{
            **data,
            "players": tuple(data["players"]),
            "options": tuple(data["options"].items()),
            "cards_taken": tuple(data["cards_taken"]),
            "presses": tuple(data["presses"]),
            "queue": queue,
            "uno_called": frozenset(data["uno_called"]),
            "hands": tuple(data.get("hands", ())),
            "played": tuple(data.get("played", ())),
            "hand_unsure": frozenset(data.get("hand_unsure", ())),
        }
    )
