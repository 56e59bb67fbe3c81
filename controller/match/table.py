"""The whole table as a pure reducer over logged actions: the round in play and the match's scores.

A :class:`Table` pairs the round being played (``controller.rules.game``) with the match's score counter
(``controller.match.scores``). :func:`new_table` builds it from a logged ``new`` action and :func:`apply`
folds one more logged action into it; neither reads a clock, a file or a pin, so :func:`replay` of
the log always rebuilds the state the daemon had (undo is a replay without the last action).

Actions (JSON objects, logged verbatim by ``controller.log.store``):

- ``new``: ``rules``, ``players`` (seat order, clockwise), ``dealer``, ``first_card``, ``color``,
  ``options``, ``scoring``, ``target``; only ``rules`` and ``players`` are required.
- the round's own (``controller.rules.game.ACTION_TYPES``): ``play``, ``press``, ``uno``, ``catch``, ``hint``,
  ``first_attack`` (``controller.rules.attack.ACTIONS``); with ``blast`` also ``insert``
  (``controller.rules.blast.ACTIONS``), with ``classic`` and ``despicable-me-4`` ``pass``, ``challenge``,
  ``challenge-result``, ``accept``, ``minions`` (``controller.rules.classic.ACTIONS``).
- ``end_round``: ``winner``, ``hands`` and, for the next round, the card turned up (``first_card``,
  ``color``). When the match goes on, the next round starts at once with the players still
  seated and the next dealer.
- ``edit_round``: ``round``, ``hands``: a correction of an ended round.

Seats in effects are the table's chairs (the ``players`` of ``new``), not the indexes of the
players still in the round: when someone leaves an elimination match, nobody changes chairs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from firmware.errors import InvalidParams, Refused
from firmware.i18n import message

from controller.match import scores
from controller.rules import game, hands
from controller.rules.points import POINTS
from controller.rules.state import GameState, new_action, replace, replaying
from controller.text import wording

Effects = list[dict[str, Any]]

_KEYS = {
    "new": {"rules", "players", "dealer", "first_card", "color", "options", "scoring", "target"},
    "end_round": {"winner", "hands", "first_card", "color"},
    "edit_round": {"round", "hands"},
}
_REQUIRED = {"new": {"rules", "players"}, "end_round": {"winner", "hands"}, "edit_round": {"round", "hands"}}


@dataclass(frozen=True)
class Table:
    """The round in play and the match it belongs to. Immutable: every action gives a new one."""

    options: tuple[tuple[str, str], ...]  # the table's rule options, carried into every round
    game: GameState  # the current round; after the match, its last round
    match: scores.MatchState
    # The last state of each ended round, in order: what the hands of a correction (edit_round)
    # must be possible against, as those of its end_round were (controller/rules/hands.py).
    ended: tuple[GameState, ...] = ()

    @property
    def match_over(self) -> bool:
        """The match has a winner: no more moves, no more rounds (until an edit reopens it)."""
        return scores.match_over(self.match)  # asked at every action: not the whole scores


def _checked(action: object, kind: str) -> dict[str, Any]:
    """The action's parameters (absent optional ones as None); InvalidParams when malformed."""
    if not isinstance(action, dict) or action.get("type") != kind:
        raise InvalidParams(f"expected a {kind!r} action, got {action!r}")
    unknown = sorted(set(action) - _KEYS[kind] - {"type"})
    if unknown:
        raise InvalidParams(message("action_unknown_key", move=kind, key=repr(unknown[0])))
    missing = sorted(key for key in _REQUIRED[kind] if action.get(key) is None)
    if missing:
        raise InvalidParams(message("action_key_missing", move=kind, key=missing[0]))
    return {key: action.get(key) for key in _KEYS[kind]}


def _seat_effects(match: scores.MatchState, effects: Effects) -> Effects:
    """Aim and deal effects in the table's chairs: ``seat`` among all players, ``seats`` around the table."""
    return [
        {**effect, "seat": match.players.index(effect["player"]), "seats": len(match.players)}
        if effect["type"] in ("aim", "deal") else effect
        for effect in effects
    ]



def new_table(action: dict[str, Any]) -> tuple[Table, Effects]:
    """A table from a logged ``new`` action: the match and its first round."""
    p = _checked(action, "new")
    players = p["players"]
    if not isinstance(players, list):
        raise InvalidParams("players must be a list of names in seat order")
    # The game's default: the last name deals, so that the first name plays first. The counter
    # defaults to the first name, so the dealer is always passed to both explicitly.
    dealer = p["dealer"] if p["dealer"] is not None else (players[-1] if players else None)
    round_one, effects = game.new_game(
        p["rules"], players, dealer=dealer, first_card=p["first_card"], color=p["color"],
        options=p["options"], round_no=1)
    match = scores.new_match(
        p["rules"], players,
        scoring="standard" if p["scoring"] is None else p["scoring"],
        target=500 if p["target"] is None else p["target"],
        dealer=round_one.players[round_one.dealer])  # the game's spelling of the name
    table = Table(options=round_one.options, game=round_one, match=match)
    return table, _seat_effects(match, effects)


def apply(table: Table, action: dict[str, Any]) -> tuple[Table, Effects]:
    """The table after one logged action, and its effects; raises with ``table`` unchanged if refused."""
    kind = action.get("type") if isinstance(action, dict) else None
    if kind in game.ACTION_TYPES:  # game.apply refuses those its ruleset does not know
        if table.match_over:
            raise Refused(message("match_is_over", winners=_match_winners(table.match)))
        state, effects = game.apply(table.game, action)
        return replace(table, game=state), _seat_effects(table.match, effects)
    if kind == "end_round":
        return _end_round(table, _checked(action, "end_round"))
    if kind == "edit_round":
        return _edit_round(table, _checked(action, "edit_round"))
    known = sorted(game.ACTION_TYPES | {"end_round", "edit_round"})
    raise InvalidParams(message("action_unknown", move=repr(kind), moves=known))


def replay(actions: Iterable[dict[str, Any]]) -> Table:
    """The table a log of actions builds: its ``new`` action, then every other in order."""
    actions = iter(actions)
    try:
        first = next(actions)
    except StopIteration:
        raise InvalidParams("an empty log: a table starts with a 'new' action") from None
    with replaying():  # each was accepted when it was logged (controller.rules.state.replaying)
        table, _ = new_table(first)
        for action in actions:
            table, _ = apply(table, action)
    return table


def status(table: Table) -> dict[str, Any]:
    """The round's status (``controller.rules.game.status``) with the match's standing under ``match``."""
    shown = game.status(table.game)
    counter = scores.scores(table.match)
    if counter["match_over"]:
        shown["choices"] = []  # a new game is the table's choice, nobody's move
    shown["match"] = {
        key: counter[key]
        for key in ("scoring", "target", "totals", "seated", "eliminated", "match_over", "winner")
    }
    shown["match"]["players"] = list(table.match.players)
    shown["match"]["rounds_played"] = len(table.match.rounds)
    return shown


def seat_of(table: Table, player: str) -> tuple[int, int]:
    """The chair of a player and the number of chairs (for ``launcher/aim``)."""
    return table.match.players.index(player), len(table.match.players)


# ---- the score counter ----------------------------------------------------------------------------


def _name(table: Table, name: object) -> object:
    """A player's name as seated, case aside (the game accepts any case; the counter wants exact)."""
    if isinstance(name, str):
        for player in table.match.players:
            if player.casefold() == name.casefold():
                return player
    return name


def _hands(table: Table, hands: object) -> object:
    if not isinstance(hands, Mapping):
        return hands  # the counter says what is wrong with it
    return {_name(table, name): hand for name, hand in hands.items()}


def _match_winners(match: scores.MatchState) -> list[str]:
    winner = scores.scores(match)["winner"]
    return winner if isinstance(winner, list) else [str(winner)]


def _ejected(table: Table, winner: object) -> dict[str, int] | None:
    """The cards a last-card Wild Attack-Attack ejected, for the counter's reminder; refuses early ends."""
    round_now = game.status(table.game)
    if round_now["round_over"] and round_now["winner"] != winner:
        raise Refused(message("last_card_was", winner=round_now["winner"], round=table.game.round_no,
                              player=str(winner)))
    if winner in table.game.players:  # (the counter refuses a winner who is not seated)
        hands.refuse(hands.winner_refusal(table.game, table.game.players.index(winner)))
    draw = round_now.get("last_card_draw")  # classic's last_card_draws option (§7)
    if draw is not None:
        if round_now["owed"]:
            raise Refused(message("draw_still_owed", player=draw["victim"], cards=round_now["owed"]["cards"]))
        return {draw["victim"]: draw["cards"]}
    attack = round_now.get("last_card_attack")
    if attack is None:
        return None
    if attack["presses_owed"]:
        raise Refused(message("attack_still_owed", player=attack["victim"], presses=attack["presses_owed"]))
    return {attack["victim"]: attack["cards"]}


def _round_messages(before: scores.MatchState, after: scores.MatchState) -> Effects:
    """What the table should hear about the rounds that ``after`` ended or changed."""
    counter = scores.scores(after)
    played = counter["rounds"][-1]
    if counter["scoring"] == "standard":
        winner = played["winner"]
        effects = [wording.said("round_scores", round=played["round"], winner=winner,
                                points=played["points"][winner], total=played["totals"][winner])]
    else:
        points = [message("player_points", player=name, points=points, total=played["totals"][name])
                  for name, points in played["points"].items()]
        effects = [wording.said("round_points", round=played["round"], points=points)]
    left = [name for name in counter["eliminated"] if name not in scores.scores(before)["eliminated"]]
    if left:
        effects.append(wording.said("leave_table", players=left))
    for key in ("reminder_object", "tie_rule_object"):
        if counter.get(key):
            effects.append(wording.effect(counter[key]))
    if counter["match_over"]:
        effects.append(wording.said("match_winner", winners=_match_winners(after)))
    return effects


def _next_round(table: Table, match: scores.MatchState, first_card: Any = None,
                color: Any = None) -> tuple[Table, Effects]:
    """The table with the match's next round dealt, seated players only."""
    state, effects = game.new_game(
        table.game.ruleset, scores.seated(match), dealer=scores.next_dealer(match),
        first_card=first_card, color=color, options=dict(table.options),
        round_no=len(match.rounds) + 1)
    return replace(table, game=state, match=match), _seat_effects(match, effects)


def _over(table: Table) -> Table:
    """A match that is over owes nothing: its last round's deals and presses are dropped, and
    nothing is left to catch or to answer."""
    return replace(table, game=replace(table.game, queue=(), catchable=None, awaiting=None))


def _end_round(table: Table, p: dict[str, Any]) -> tuple[Table, Effects]:
    winner = _name(table, p["winner"])
    ejected = _ejected(table, winner)
    match = scores.end_round(table.match, winner, _hands(table, p["hands"]), ejected,
                             number=table.game.round_no)
    _refuse_impossible_hands(table.game, match.rounds[-1])
    effects = _round_messages(table.match, match)
    table = replace(table, ended=table.ended + (table.game,))
    if scores.scores(match)["match_over"]:
        if p["first_card"] is not None or p["color"] is not None:
            raise InvalidParams(message("no_next_round"))
        return _over(replace(table, match=match)), effects
    table, dealt = _next_round(table, match, p["first_card"], p["color"])
    return table, effects + dealt


def _refuse_impossible_hands(last: GameState, played: scores.Round) -> None:
    """Refuse the hands of ``played`` that cannot be by ``last``, its round's last state
    (controller/rules/hands.py): as bad input, since the table corrects what it typed."""
    if new_action():
        entered = {name: (hand.points, hand.cards) for name, hand in played.hands.items()}
        deck = game.ruleset(last.ruleset).deck
        hands.refuse(hands.hands_refusal(last, deck, POINTS[last.ruleset], played.winner, entered),
                     invalid=True)


def _edit_round(table: Table, p: dict[str, Any]) -> tuple[Table, Effects]:
    match = scores.edit_round(table.match, p["round"], _hands(table, p["hands"]))
    number = p["round"]
    if number <= len(table.ended):  # (edit_round refused a round that did not end)
        _refuse_impossible_hands(table.ended[number - 1], match.rounds[number - 1])
    effects = [wording.said("round_corrected", round=p["round"])] + _round_messages(table.match, match)[1:]
    if scores.scores(match)["match_over"]:
        return _over(replace(table, match=match)), effects
    current = table.game
    same_round = (current.round_no == len(match.rounds) + 1
                  and list(current.players) == scores.seated(match)
                  and current.players[current.dealer] == scores.next_dealer(match))
    if same_round:
        return replace(table, match=match), effects
    # The correction reopened a finished match, or changed who sits at the round in play: that
    # round was dealt to the wrong table, so it is dealt again.
    reopened = table.match_over
    table, dealt = _next_round(table, match)
    said = wording.said("match_goes_on" if reopened else "round_dealt_again", round=table.game.round_no)
    return table, effects + [said] + dealt
