"""The score counter (rules.md §8): pure functions over an immutable ``MatchState``.

A match is a ruleset, the players in seat order (clockwise), a scoring variant and a target, then the
rounds that ended. Each round keeps what was entered, so that a caller can log the inputs and replay
them, and what it did: points, running totals, who left the table, whether it ended the match. Every
function returns a new state or raises before building one, so a bad input never changes anything.

Variants (``SCORINGS``):

- ``standard``: the round winner scores the hands left to the others; the first to the target wins.
  Only the round winner scores, so only one player can reach the target in a round: no tie exists.
- ``lowest``: each player scores their own hand; once anyone reaches or passes the target, the fewest
  points win (several players sharing the fewest is a shared win, reported as a list).
- ``elimination``: the ``lowest`` tally; whoever reaches the target leaves the table, until two remain;
  the next round between those two (the duel) decides the match. When more players reach the target
  in one round than may leave, the most points leave first; players tied at that cut all stay, since
  choosing between them would be arbitrary; two always remain.

Hands are totals (``37``, always accepted as entered: an old box counts with its own table) or card
names (``7,hit-2,wild``) counted with the ruleset's table from ``controller.rules.points``.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType

from controller.rules.points import POINTS, hand_points
from controller.rules.rulesets import seating
from controller.rules.state import new_action
from firmware.errors import InvalidParams, NotFound, Refused
from firmware.i18n import message

from controller.text.messages import card_id
from controller.text.wording import text

__all__ = [
    "DEFAULT_TARGET",
    "SCORINGS",
    "SCORING_RULES",
    "MatchState",
    "csv_cell",
    "edit_round",
    "end_round",
    "new_match",
    "next_dealer",
    "parse_hand",
    "scores",
    "scores_csv",
    "seated",
]

# Each variant in one sentence, for `launcherctl game rules` and docs/rules.md (rules.md §8).
SCORING_RULES = MappingProxyType({
    "standard": "the round winner scores the points left in the other players' hands; the first to"
                " reach the target wins",
    "lowest": "each player scores the points left in their own hand; once anyone reaches the target,"
              " the fewest points win (equal fewest share the win)",
    "elimination": "the lowest tally; whoever reaches the target leaves the table, until two remain;"
                   " the next round between those two decides the match",
})
SCORINGS = tuple(SCORING_RULES)
DEFAULT_TARGET = 500

# A hand typed as one number (possibly signed or with a fraction, so that those get a precise error
# rather than "unknown card").
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)")


@dataclass(frozen=True)
class Hand:
    """One player's hand at the end of a round: its points, its cards if named, the value as entered."""

    points: int
    cards: tuple[str, ...] | None = None
    entered: str | int | tuple[str, ...] | None = None  # None: the winner's empty hand, omitted


@dataclass(frozen=True)
class Round:
    """An ended round: its inputs (winner, hands, ejected) and what they did."""

    number: int
    dealer: str
    seated: tuple[str, ...]  # who played it, in seat order
    winner: str
    hands: Mapping[str, Hand]  # every seated player's, the winner's included
    ejected: Mapping[str, int]  # cards a last-card attack ejected, per victim (launcher count)
    points: Mapping[str, int]  # scored this round, per seated player
    totals: Mapping[str, int]  # running totals after the round, every player
    left: tuple[str, ...]  # eliminated after this round, in order
    result: str | tuple[str, ...] | None  # the match winner(s) this round decided
    note: dict | None  # the rule applied (a message object), when a tie or a cut had to be decided


@dataclass(frozen=True)
class MatchState:
    """A match: its settings and the rounds ended so far. Build it with ``new_match``."""

    ruleset: str
    players: tuple[str, ...]  # seat order, clockwise
    scoring: str
    target: int
    dealer: str  # dealer of round 1
    rounds: tuple[Round, ...] = ()


# ---- input ----------------------------------------------------------------------------------


def _table(ruleset: str) -> Mapping[str, int]:
    if ruleset not in POINTS:
        raise InvalidParams(f"unknown ruleset {ruleset!r}; rulesets: " + ", ".join(POINTS))
    return POINTS[ruleset]


def looks_like_total(text: str) -> bool:
    """A hand typed as a number ("37", "-3", "2.5"): a total to check, never a card's name."""
    return bool(_NUMBER.fullmatch(text.strip()))


def _total(points: object) -> Hand:
    """A hand entered as a total: a whole number, zero or more, in the digits 0-9."""
    if isinstance(points, str):
        if "." in points or not points.isascii():
            raise InvalidParams(message("hand_points_whole", points=repr(points)))
        points = int(points)
    if isinstance(points, bool) or not isinstance(points, int):
        raise InvalidParams(message("hand_points_whole", points=repr(points)))
    if points < 0:
        raise InvalidParams(message("hand_points_negative", points=points))
    return Hand(points=points)


def _cards(ruleset: str, names: Sequence[object], entered: object = None) -> Hand:
    """A hand entered card by card, counted with the ruleset's table (``entered``: as typed)."""
    if not names and new_action():  # not replayed from a log written when [] was taken as 0
        raise InvalidParams(message("empty_hand"))  # [] is no hand: 0 is typed as 0
    cards = []
    for name in names:
        if not isinstance(name, str):
            raise InvalidParams(message("hand_card_not_a_name", card=repr(name)))
        if not name.strip():
            shown = entered if isinstance(entered, str) else ",".join(map(str, names))
            raise InvalidParams(message("hand_card_missing", hand=shown))
        # Players type "Hit 2" as readily as "hit-2", or the French "Appuyer 2 fois": all are the
        # table's "hit-2" (the names the texts show, in either language, #40).
        typed = re.sub(r"[\s_]+", "-", name.strip().lower())
        if any(c.isalpha() for c in name):  # a name ("-3" is no card, not a 3)
            try:
                typed = card_id(name)
            except InvalidParams:
                pass  # refused below with the ruleset's cards
        cards.append(typed)
    table = _table(ruleset)
    unknown = next((card for card in cards if card not in table), None)
    if unknown is not None:
        raise InvalidParams(message("not_a_card_in_hand", card=unknown, ruleset=ruleset, cards=list(table)))
    return Hand(points=hand_points(ruleset, cards), cards=tuple(cards))


def _hand(ruleset: str, value: object) -> Hand:
    """A hand as entered: a text (total or comma-separated cards), a number or a list of cards."""
    if isinstance(value, str):
        text = value.strip()
        if not text:
            raise InvalidParams(message("empty_hand"))
        hand = _total(text) if _NUMBER.fullmatch(text) else _cards(ruleset, text.split(","), text)
    elif isinstance(value, (list, tuple)):
        hand = _cards(ruleset, value)
        value = tuple(value)
    else:
        hand = _total(value)
    return replace(hand, entered=value)


def parse_hand(ruleset: str, text: str) -> dict:
    """Read one hand: ``"37"`` -> ``{"points": 37}``; ``"7,hit-2,wild"`` -> cards and their total.

    Card names are the ruleset's (``controller.rules.points``), case and spaces forgiven. InvalidParams for an
    unknown ruleset, an empty text, a negative or fractional total, or a card the ruleset does not have.
    """
    _table(ruleset)
    if not isinstance(text, str):
        raise InvalidParams(f"a hand must be a text, not {text!r}")
    hand = _hand(ruleset, text)
    if hand.cards is None:
        return {"points": hand.points}
    return {"cards": list(hand.cards), "points": hand.points}


def _known(state: MatchState, name: object) -> str:
    if name not in state.players:
        raise NotFound(message("no_player_in_match", name=str(name), players=list(state.players)))
    return name


# ---- the match ------------------------------------------------------------------------------


def new_match(
    ruleset: str,
    players: list[str],
    scoring: str = "standard",
    target: int = DEFAULT_TARGET,
    dealer: str | None = None,
) -> MatchState:
    """A match with no round yet; ``players`` in seat order, the first deals unless ``dealer`` says."""
    _table(ruleset)
    seats = seating(players)
    if scoring not in SCORINGS:
        raise InvalidParams(f"unknown scoring {scoring!r}; scorings: " + ", ".join(SCORINGS))
    if scoring == "elimination" and len(seats) < 3:
        raise InvalidParams(message("elimination_three"))
    if isinstance(target, bool) or not isinstance(target, int) or target <= 0:
        raise InvalidParams(f"the target must be a positive whole number, not {target!r}")
    state = MatchState(ruleset=ruleset, players=seats, scoring=scoring, target=target, dealer=seats[0])
    return state if dealer is None else replace(state, dealer=_known(state, dealer))


def seated(state: MatchState) -> list[str]:
    """The players still at the table, in seat order."""
    if not state.rounds:
        return list(state.players)
    last = state.rounds[-1]
    return [name for name in last.seated if name not in last.left]


def _eliminated(state: MatchState) -> list[str]:
    return [name for played in state.rounds for name in played.left]


def _totals(state: MatchState) -> Mapping[str, int]:
    return state.rounds[-1].totals if state.rounds else {name: 0 for name in state.players}


def _result(state: MatchState) -> str | tuple[str, ...] | None:
    return state.rounds[-1].result if state.rounds else None


def match_over(state: MatchState) -> bool:
    """The match has a winner (``scores(state)["match_over"]``, without building the scores)."""
    return _result(state) is not None


def _refuse_if_over(state: MatchState) -> None:
    result = _result(state)
    if result is not None:
        raise Refused(message("match_over_edit", winners=[result] if isinstance(result, str) else list(result)))


def _dealer(state: MatchState) -> str:
    """The dealer of the next round: the seated player left of the last dealer (who may have left)."""
    if not state.rounds:
        return state.dealer
    still = seated(state)
    start = state.players.index(state.rounds[-1].dealer)
    around = state.players[start + 1 :] + state.players[: start + 1]
    return next(name for name in around if name in still)


def next_dealer(state: MatchState) -> str:
    """The dealer of the next round; Refused once the match is over."""
    _refuse_if_over(state)
    return _dealer(state)


# ---- deciding a round -----------------------------------------------------------------------


_Seats = tuple[str, ...]
_Totals = Mapping[str, int]


@dataclass(frozen=True)
class _Decision:
    """What a round's totals decide: who leaves the table, the match winner(s), the rule applied."""

    left: tuple[str, ...] = ()
    result: str | tuple[str, ...] | None = None
    note: dict | None = None


def _joined(notes: list[dict]) -> dict | None:
    """Several notes as one message ("a; b"), one as itself, none as None."""
    if len(notes) > 1:
        return message("joined", messages=notes)
    return notes[0] if notes else None


def _decide_standard(seats: _Seats, winner: str, totals: _Totals, target: int) -> _Decision:
    """Only the round winner scores, so only they can have reached the target."""
    return _Decision(result=winner if totals[winner] >= target else None)


def _decide_lowest(seats: _Seats, winner: str, totals: _Totals, target: int) -> _Decision:
    """Once anyone has reached the target, the fewest points win; equal fewest share the win."""
    reached = [name for name in seats if totals[name] >= target]
    if not reached:
        return _Decision()
    fewest = min(totals[name] for name in seats)
    best = tuple(name for name in seats if totals[name] == fewest)
    notes = []
    if len(reached) > 1:
        notes.append(message("reached_same_round", players=reached, target=target))
    if len(best) > 1:
        notes.append(message("tie_fewest", players=list(best), points=fewest))
    return _Decision(result=best[0] if len(best) == 1 else best, note=_joined(notes))


def _decide_elimination(seats: _Seats, winner: str, totals: _Totals, target: int) -> _Decision:
    """Two seated: this was the duel. Else whoever reached the target leaves, as long as two stay."""
    if len(seats) == 2:
        return _Decision(result=winner)
    # Most points first; sorted() keeps seat order among equals.
    reached = sorted((name for name in seats if totals[name] >= target), key=lambda name: -totals[name])
    room = len(seats) - 2
    if len(reached) <= room:
        return _Decision(left=tuple(reached))
    cut = totals[reached[room]]
    left = tuple(name for name in reached[:room] if totals[name] > cut)
    notes = [message("only_room_leave", players=reached, target=target, room=room)]
    if len(left) < room:
        tied = [name for name in reached if totals[name] == cut]
        notes.append(message("tie_stay", players=tied, points=cut))
    return _Decision(left=left, note=_joined(notes))


_DECIDE = MappingProxyType(
    {"standard": _decide_standard, "lowest": _decide_lowest, "elimination": _decide_elimination}
)


def _check_ejected(state: MatchState, seats: _Seats, winner: str, ejected: object) -> dict[str, int]:
    if ejected is None:
        return {}
    if not isinstance(ejected, Mapping):
        raise InvalidParams("ejected must map each victim to the number of cards the attack ejected")
    for name, count in ejected.items():
        if _known(state, name) not in seats or name == winner:
            raise InvalidParams(f"{name} cannot be the last-card attack's victim: not seated or the winner")
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise InvalidParams(f"ejected cards for {name}: a whole number, zero or more, not {count!r}")
    return dict(ejected)


def _play(state: MatchState, winner: object, hands: Mapping[str, Hand], ejected: object) -> Round:
    """The next round of ``state``, checked against who is seated, scored and decided."""
    seats = tuple(seated(state))
    if _known(state, winner) not in seats:
        raise InvalidParams(message("winner_not_seated", player=winner, seated=list(seats)))
    for name in hands:
        if _known(state, name) not in seats:
            raise InvalidParams(message("hand_not_seated", player=name, seated=list(seats)))
    missing = [name for name in seats if name not in hands and name != winner]
    if missing:
        raise InvalidParams(message("missing_hands", players=missing))
    won = hands.get(winner, Hand(points=0))
    if won.points or won.cards:
        raise InvalidParams(message("winner_hand_empty", player=winner, points=won.points))
    hands = {name: hands.get(name, won) for name in seats}
    if state.scoring == "standard":
        points = {name: 0 for name in seats} | {winner: sum(hand.points for hand in hands.values())}
    else:
        points = {name: hand.points for name, hand in hands.items()}
    before = _totals(state)
    totals = {name: before[name] + points.get(name, 0) for name in state.players}
    decision = _DECIDE[state.scoring](seats, winner, totals, state.target)
    return Round(
        number=len(state.rounds) + 1,
        dealer=_dealer(state),
        seated=seats,
        winner=winner,
        hands=MappingProxyType(hands),
        ejected=MappingProxyType(_check_ejected(state, seats, winner, ejected)),
        points=MappingProxyType(points),
        totals=MappingProxyType(totals),
        left=decision.left,
        result=decision.result,
        note=decision.note,
    )


def _entered(state: MatchState, hands: object) -> dict[str, Hand]:
    if not isinstance(hands, Mapping):
        raise InvalidParams("hands must map each player's name to their hand")
    parsed = {}
    for name, value in hands.items():
        _known(state, name)
        try:
            parsed[name] = _hand(state.ruleset, value)
        except InvalidParams as error:
            raise InvalidParams(message("hand_of", player=str(name),
                                        reason=error.message_object or error.message)) from None
    return parsed


def end_round(
    state: MatchState,
    winner: str,
    hands: dict[str, str | int | list[str]],
    ejected: dict[str, int] | None = None,
    *,
    number: int | None = None,
) -> MatchState:
    """The state after one more round won by ``winner``.

    ``hands``: standard needs the other seated players' hands, lowest and elimination every seated
    player's own; the winner's (0) may be omitted. ``ejected``: the cards a last-card attack ejected,
    per victim, kept for the reminder (they are part of the victim's hand as entered). ``number``, if
    given, is the round the caller means to end: Refused when that round has already ended, so a
    repeated request cannot record a round twice. Refused once the match is over.
    """
    _refuse_if_over(state)
    upcoming = len(state.rounds) + 1
    if number is not None:
        if isinstance(number, bool) or not isinstance(number, int):
            raise InvalidParams(f"a round number must be a whole number, not {number!r}")
        if number != upcoming:
            how = "round_already_ended" if number < upcoming else "round_not_started"
            raise Refused(message(how, round=number, current=upcoming))
    return replace(state, rounds=state.rounds + (_play(state, winner, _entered(state, hands), ejected),))


def edit_round(state: MatchState, number: int, hands: dict[str, str | int | list[str]]) -> MatchState:
    """The state with round ``number`` (1-based) corrected, every later round recomputed.

    ``hands`` replaces the hands it names and keeps the others. Totals, eliminations and the winner
    follow; a match may end or stop being over. Refused when the correction would change who played a
    later round or end the match before a round that was played: recorded rounds are facts.
    """
    if isinstance(number, bool) or not isinstance(number, int):
        raise InvalidParams(f"a round number must be a whole number, not {number!r}")
    if not 1 <= number <= len(state.rounds):
        raise NotFound(message("no_round", round=number, ended=len(state.rounds)))
    if not hands:
        raise InvalidParams("no hand to edit")
    edited = state.rounds[number - 1]
    before = replace(state, rounds=state.rounds[: number - 1])
    corrected = _play(before, edited.winner, {**edited.hands, **_entered(state, hands)}, edited.ejected)
    current = replace(before, rounds=before.rounds + (corrected,))
    for later in state.rounds[number:]:
        if _result(current) is not None:
            raise Refused(message("correction_ends_match", round=current.rounds[-1].number,
                                  later=later.number))
        try:
            played = _play(current, later.winner, later.hands, later.ejected)
        except InvalidParams as error:
            reason = error.message_object or error.message
            raise Refused(message("correction_changes_round", round=later.number, reason=reason)) from None
        current = replace(current, rounds=current.rounds + (played,))
    return current


# ---- output ---------------------------------------------------------------------------------


def _hand_json(hand: Hand) -> dict:
    entered = list(hand.entered) if isinstance(hand.entered, tuple) else hand.entered
    shown = {"entered": entered, "points": hand.points}
    return shown if hand.cards is None else shown | {"cards": list(hand.cards)}


def _round_json(played: Round) -> dict:
    return {
        "round": played.number,
        "dealer": played.dealer,
        "winner": played.winner,
        "seated": list(played.seated),
        "hands": {name: _hand_json(hand) for name, hand in played.hands.items()},
        "ejected": dict(played.ejected),
        "points": dict(played.points),
        "totals": dict(played.totals),
        "eliminated": list(played.left),
        "rule": None if played.note is None else text(played.note),
        "rule_object": played.note,
    }


def _reminder(played: Round) -> dict:
    """Why and how to check the victims' hands after a last-card attack (a message object)."""
    lines = [message("last_attack_reminder", round=played.number)]
    for name, count in played.ejected.items():
        cards = played.hands[name].cards
        if cards is not None and len(cards) < count:
            lines.append(message("ejected_cards_short", player=name, cards=count, listed=len(cards)))
        else:
            lines.append(message("ejected_cards", player=name, cards=count))
    return message("lines", lines=lines)


def scores(state: MatchState) -> dict:
    """Everything about the match as JSON-ready data (``game scores --json``)."""
    result = _result(state)
    over = result is not None
    notes = [message("rule_note", round=played.number, note=[played.note])
             for played in state.rounds if played.note]
    tie_rule = _joined(notes)
    shown = {
        "ruleset": state.ruleset,
        "players": list(state.players),
        "scoring": state.scoring,
        "target": state.target,
        "rounds": [_round_json(played) for played in state.rounds],
        "totals": dict(_totals(state)),
        "eliminated": _eliminated(state),
        "winner": list(result) if isinstance(result, tuple) else result,
        "match_over": over,
        "tie_rule": None if tie_rule is None else text(tie_rule),
        "tie_rule_object": tie_rule,
        "seated": seated(state),
        "dealer": None if over else _dealer(state),
        "round": None if over else len(state.rounds) + 1,
        "history": [
            {
                "round": played.number,
                "winner": played.winner,
                "points": {name: played.points.get(name) for name in state.players},
                "totals": dict(played.totals),
            }
            for played in state.rounds
        ],
    }
    if state.rounds and state.rounds[-1].ejected:
        reminder = _reminder(state.rounds[-1])
        shown["reminder"], shown["reminder_object"] = text(reminder), reminder
    return shown


# What a spreadsheet takes for the start of a formula (OWASP, "CSV injection"): a cell that begins
# with one of these is read as text only when it starts with a single quote.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: object) -> object:
    """``value`` as a CSV cell a spreadsheet shows as written: a text that a spreadsheet would take
    for a formula (a player named ``+Ann`` or ``@SUM(A1)``) gets a leading ``'``. Numbers stay
    numbers: ``-5`` points is no formula."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def scores_csv(state: MatchState) -> str:
    """Rounds x players: per player the round's points (empty when not seated) and the running total.
    Every text cell goes through :func:`csv_cell`: names are the table's to choose."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    columns = [f"{name} {column}" for name in state.players for column in ("points", "total")]
    writer.writerow([csv_cell(cell) for cell in ("round", "winner", "dealer", *columns)])
    for played in state.rounds:
        row = [played.number, played.winner, played.dealer]
        for name in state.players:
            row += [played.points.get(name, ""), played.totals[name]]
        writer.writerow([csv_cell(cell) for cell in row])
    return out.getvalue()
