"""The state of a round, shared by every ruleset's flow, and the helpers the flows build on.

A :class:`GameState` is immutable and plain data; each flow (``controller/rules/attack.py``,
``classic.py``, ``blast.py``) takes one with an action and returns a new one. Seats are indexes in
the ``players`` list, which is the clockwise seating order.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, TypeVar

from firmware.errors import InvalidParams, NotFound, Refused
from firmware.i18n import message

from controller.text import wording


_Frozen = TypeVar("_Frozen")


def replace(state: _Frozen, /, **changes: Any) -> _Frozen:
    """``dataclasses.replace`` for the rules' frozen dataclasses (every field an ``__init__``
    argument, no ``__post_init__``, nothing but fields in the instance): a copy of the fields with
    ``changes``. The generated ``__init__`` of a frozen dataclass sets each of GameState's 27
    fields through ``object.__setattr__``; at three copies an action, that was a third of the time
    of replaying a match (a daemon's start on a long log, every game/stats and undo)."""
    fields = state.__dataclass_fields__  # type: ignore[attr-defined]
    unknown = changes.keys() - fields.keys()
    if unknown:
        raise TypeError(f"{type(state).__name__} has no field {sorted(unknown)[0]!r}")
    copy = object.__new__(type(state))
    copy.__dict__.update(state.__dict__, **changes)
    return copy


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
    """One round in progress; immutable and picklable."""

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
    caught: bool = False  # ``catchable`` was caught for that card: one penalty per card
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
    # Per seat, the cards played this round; and where the table deals (Attack, Blast) the fewest
    # and the most cards each hand may hold (controller/rules/hands.py). Empty: not kept (an older state).
    played: tuple[int, ...] = ()
    hand_low: tuple[int, ...] = ()
    hand_high: tuple[int, ...] = ()
    blaster_cards: int = 0  # Blast: cards in the blaster's slots, as the insertions told them

# ---- who moves ----------------------------------------------------------------------------------


def aim(state: GameState, seat: int) -> dict:
    """The effect that turns the launcher towards ``seat``."""
    return {"type": "aim", "player": state.players[seat], "seat": seat}


def next_seat(state: GameState, seat: int, steps: int = 1) -> int:
    """The seat ``steps`` places after ``seat`` in the current direction."""
    return (seat + steps * state.direction) % len(state.players)


def direction_word(state: GameState) -> str:
    return "clockwise" if state.direction > 0 else "counterclockwise"


def turn_seat(state: GameState) -> int | None:
    """Whose move it is: who owes presses (or is owed cards) first, else who plays; None once the
    round is settled."""
    if state.queue:
        return state.queue[0].seat
    return None if state.round_over else state.active


def turn(state: GameState) -> str | None:
    """The name of whoever's move it is; None once the round is settled."""
    seat = turn_seat(state)
    return None if seat is None else state.players[seat]


def find(players: tuple[str, ...], name: str) -> int:
    """The seat of a player, names compared without case."""
    wanted = name.casefold()
    for seat, player in enumerate(players):
        if player.casefold() == wanted:
            return seat
    raise NotFound(message("no_player", name=name, players=list(players)))


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
    return replace(state, catchable=None, caught=False, uno_called=state.uno_called - {state.catchable})


# ---- the catch window (rules.md §3, §6, §7; docs/rules.md "Decisions") ------------------------
# One window for every ruleset, as the seeds word it: a player who did not call Uno can be caught
# "before the next player has taken their turn" (000, 002, 004). A turn is taken by playing a card,
# pressing or drawing because one cannot or will not play, or naming a turned-up attack's colour
# and target. Presses, insertions and cards owed for someone else's card (a Hit, an attack, a Wild
# All Hit, a Draw Two, a Wild Draw Four accepted or challenged, the Minions' deals) or for a
# penalty are no turn: the seeds say the player "misses" or "loses" the turn (000, 004). Blast's
# Draw One and Wild Blast are the exception its seed words: "this counts as their turn" (002).
OWED_TURNS = frozenset({"draw-one", "wild-blast"})


def takes_turn(state: GameState) -> GameState:
    """A player takes a turn of their own: the catch window closes (``window_closed``)."""
    return window_closed(state)


def owed_press(state: GameState, owed: Owed) -> GameState:
    """A press (insertion, deal) made for ``owed``: a turn only where the seed says so."""
    return takes_turn(state) if owed.reason in OWED_TURNS else state


# Set while a log is replayed (controller.match.table.replay): an action logged before #21 was accepted
# then, and is again (a colored card without its color, a catch or a last card the hand counts
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
    """A colored card shows its color: the pile's color comes from it, and the next play is checked
    against it. Refused with the colors it may have (``any_color``: whatever the pile)."""
    if color is None and new_action():
        legal = list(colors) if any_color else legal_colors(colors, card, state.top_card, state.color)
        raise InvalidParams(message("needs_its_color", card=card, colors=legal))


def _not_a_move(kind: str, ruleset: str, shapes: Mapping[str, object], dealer: bool) -> dict:
    """What a table may do instead, as moves in words (the ``move`` kind, #40): a ``press`` is the
    launch button (where the launcher deals, also a draw) and ``cards`` (a late card) is the launcher's own."""
    moves = []
    for known in shapes:
        if known == "press" and dealer:
            moves.append("draw")
        elif known not in ("press", "cards"):
            moves.append(known)
    said = "not_a_move_of_or_press" if "press" in shapes else "not_a_move_of"
    return message(said, move=kind, ruleset=ruleset, moves=moves)


def legal_colors(colors: tuple[str, ...], card: str, top_card: str | None, pile_color: str | None) -> list[str]:
    """The colors a colored ``card`` may have on this pile: the pile's, unless it is the same card.

    A refusal names them; ``launcherctl game play`` fills in the color when only one is left.
    """
    if top_card is None or pile_color is None or card == top_card:
        return list(colors)
    return [pile_color]


def check_by(state: GameState, by: str | None, seat: int) -> None:
    """``by`` names who the caller thinks moves: refuse it when the move is someone else's."""
    if by is not None and find(state.players, by) != seat:
        raise Refused(message("not_your_move", player=state.players[seat], by=by))


def checked(action: object, shapes: Mapping[str, Mapping[str, tuple[type, bool]]],
            ruleset: str | None = None, dealer: bool = False) -> tuple[str, dict]:
    """The action's type and parameters (optional keys missing as None); InvalidParams if malformed.

    ``shapes``: each action type's keys, with their type and whether they are required.
    ``ruleset``: whose moves they are, named when an action is none of them (``game hint`` in classic);
    ``dealer``: the launcher deals in that ruleset, so a press is also a draw.
    """
    if not isinstance(action, dict):
        raise InvalidParams(message("action_not_json"))
    kind = action.get("type")
    if kind not in shapes and ruleset is not None and isinstance(kind, str):
        raise InvalidParams(_not_a_move(kind, ruleset, shapes, dealer))
    if kind not in shapes:
        raise InvalidParams(message("action_unknown", move=repr(kind), moves=list(shapes)))
    spec = shapes[kind]
    extra = sorted(set(action) - set(spec) - {"type"})
    if extra == ["target"] and ruleset is not None:  # a card that attacks, in a box that has none
        raise InvalidParams(message("no_targets_in", ruleset=ruleset))
    if extra:
        raise InvalidParams(message("action_unknown_key", move=kind, key=repr(extra[0])))
    params = {}
    for key, (kind_of, required) in spec.items():
        value = action.get(key)
        if value is None:
            if required:
                raise InvalidParams(message("action_key_missing", move=kind, key=key))
        # bool is an int in Python: a card count of `true` is a mistake, not 1.
        elif not isinstance(value, kind_of) or (kind_of is int and isinstance(value, bool)):
            raise InvalidParams(message("action_key_type", move=kind, key=key, given=repr(value)))
        params[key] = value
    return kind, params


# ---- what is known of the hands ----------------------------------------------------------------

HAND = 7  # cards each player is dealt (rules.md §1)


def plays(player: str, card: str, color: str | None, target: str | None = None) -> dict:
    """The effect that says a card was played: "Ann plays wild-attack (red) at Bob"."""
    if color is None:
        if target is None:
            return wording.said("plays", player=player, card=card)
        return wording.said("plays_at", player=player, card=card, target=target)
    if target is None:
        return wording.said("plays_color", player=player, card=card, color=color)
    return wording.said("plays_color_at", player=player, card=card, color=color, target=target)

