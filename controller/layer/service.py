"""The game layer inside launcherd: ``game/...`` methods, presses attributed, the log kept.

Loaded by the daemon through the entry point ``card_launcher.extensions: game`` and given only the
layer interface of ``docs/internals.md``: it never touches a pin, it asks ``launcher/aim`` like any
client. Every change of the table is one action: checked by the pure reducer
(``controller.match.table``), appended to the SQLite log (``controller.log.store``) and committed, and only
then made the live state and answered. At start-up the table's match is replayed from the log, so
a daemon killed at any moment comes back with every action it acknowledged.

Presses: a ``launched`` event from the button or from ``launcher/launch`` is the move of the player
whose turn it is, logged as ``{"type": "press", "cards", "press_id", "by"}``. ``launcher/dispense``
is exact dealing and not a move; a press answered "empty" gave nothing because the hopper was empty
and is not a move either (the player presses again after the reload).

Dealer mode (``classic``, ``despicable-me-4``, ``controller/rules/classic.py``): what the round owes (the
opening 7 to every seat, Draw Two, Wild Draw Four, penalties, Minions) is dealt by one background
task that reads the owed deals from the state, aims at each seat (or pauses between the opening
piles where no aim servo is fitted) and asks ``launcher/dispense``; each run of the dispense is
logged as a ``press`` of the player it was for, from its launch outcome (with its seq) as it is
taken in, through ``act`` like any move (a card counted late is added from the reply). A game layer
that starts with a deal owed counts for it the dispense outcomes it catches up on, and the runs of a
dispense its predecessor left running, which its first deal cancels before asking for the rest. The log is the reference:
``game undo`` and ``game new`` stop the task and it starts again from the state they leave, and a
daemon restarted mid-deal deals what the log does not show dealt. A press with nothing owed is a
draw of exactly one card: a dry press is made good with a dispense of one.

The blaster (``blast``): its ``insert`` events are the insertions of whose move it is; a safe one is
logged at once, a firing one when its ``blast`` event (same ``insert_id``) gives the card count.

The log on disk may be damaged, unwritable or deleted under the daemon (``controller.log.damage``):
the launcher goes on working, game actions are refused with what happened and what to do, and
``game/repair`` fixes what the table asks it to fix. The table's join code is kept apart
(``controller.log.joincode``).

What the table is told is message objects (``controller.text.messages``, built in ``controller.text.advice``
and by the flows): a reply's ``messages`` are their texts in the request's language and its
``message_objects`` the objects, in the same order; a ``game/message`` event carries the object and
its text in the daemon's language; refusals carry theirs as ``message_object``. Cards and colours may
be named in English or French ("Double attaque", "rouge"): they are logged by their ids.

All of it runs on the game layer's own thread and loop (firmware/daemon/gamehost.py), never on the
motor's: handlers are synchronous, so two requests never interleave between checking an action and
logging it. Every ``launched`` event carries the ``seq`` of the outcome record
(firmware/daemon/outcomes.py); the last one taken in is kept in the log, in the same commit as the press it
logged, and at start-up the service catches up on the outcomes recorded after it, each exactly once.
An outcome whose commit fails (a full disk) is not marked logged: the record keeps it, and it is
taken in, in order, before the next outcome or action once the log takes writes again, after a
repair, or at the next start.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import sqlite3
from contextlib import contextmanager
from datetime import datetime, timezone
from typing import Any, Awaitable, Callable, Iterator

from firmware.daemon.api import Param
from firmware.errors import ApiError, InvalidParams, NotFound, Refused, Unavailable
from firmware.i18n import message
from firmware.daemon.layer import LayerHost

from controller.text import advice as says
from controller.rules import classic
from controller.log import damage as damages
from controller.rules import game
from controller.rules.state import GameState, turn
from controller.match import table as tables
from controller.text import wording
from controller.log.damage import Damage, GameUnavailable
from controller.log.joincode import JoinCode
from controller.text.messages import card_id, color_id
from controller.rules.game import RULESET_IDS
from controller.rules.ruledoc import rules_data
from controller.rules.rulesets import deck_size
from controller.rules.state import HAND
from controller.match.scores import SCORINGS, looks_like_total, scores, scores_csv
from controller.match.stats import log_version, register_stats
from controller.log.store import FILENAME, Store

log = logging.getLogger("launcherd.game")

# Presses that are moves of the game; "dispense" deals exact counts outside the flow.
GAME_PRESS_SOURCES = frozenset({"button", "api"})
# Actions that are a move of whoever's turn it is: the log says who, filled in when not given.
TURN_ACTIONS = frozenset({"play", "first_attack", "press", "insert", "pass", "challenge", "accept"})
# A dispense that gave fewer cards than asked is tried again after this at the least: a launcher that
# reports ready but gives nothing must not be asked in a tight loop.
DEAL_RETRY_S = 0.5
LAUNCHER_READY = frozenset({"ready", "sleeping"})  # a dispense may be asked (it wakes a sleeping one)


def _dealer_mode(state: GameState) -> bool:
    """The launcher deals every card of this round (classic, despicable-me-4)."""
    return game.ruleset(state.ruleset).dealer


def _owes_deal(state: GameState) -> bool:
    return _dealer_mode(state) and bool(state.queue)


def press_meaning(table: tables.Table | None) -> dict[str, Any]:
    """What a press of the button means at this table (``launcher/press-means``'s params).

    No dealer match at the table (none, or UNO Attack, Blast): the ejection policy's burst. A dealer
    match: the draw of exactly one card by the player whose move it is when the round lets them
    draw; else nothing, with what to settle first (a deal owed, a challenge, the Minions counts,
    the first card, a card just drawn, the round's hands, a new game once the match is over)."""
    if table is None or not _dealer_mode(table.game):
        return {"means": "policy"}
    if not table.match_over and classic.draw_allowed(table.game):
        return {"means": "cards", "cards": 1, "player": turn(table.game)}
    return {"means": "nothing", "reason": says.press_settles_first(table)}


def _not_while_dealing(game: GameState) -> None:
    """The dealer games: a round does not end while the launcher deals it (the hands are not known
    yet, and the cards under way would come out for a round that is over). A new action only: a
    log written before this rule replays as it was accepted. A round won with a last-card draw
    still owed says so itself (``draw_still_owed``)."""
    if _owes_deal(game) and not game.round_over:
        owed = game.queue[0]
        raise Refused(message("deal_still_owed", player=game.players[owed.seat], cards=owed.presses))


def _winner_text(table: tables.Table) -> str | None:
    winner = scores(table.match)["winner"]
    return " and ".join(winner) if isinstance(winner, list) else winner


class GameService:
    """The live table of one daemon: the current match, its log, and what the launcher reports."""

    def __init__(self, daemon: Any, sleep: Callable[[float], Awaitable[None]] = asyncio.sleep):
        self.daemon = daemon
        self._sleep = sleep  # the pauses of dealing: tests give their own clock
        self.store: Store | None = None  # the log, once open()
        self.damage: Damage | None = None  # why the game cannot be played as it stands
        self.match_id: int | None = None
        self.table: tables.Table | None = None
        self.hopper: int | None = None
        self._low = False  # the hopper was last seen under RELOAD_BELOW: warn once per crossing
        self._last_press: tuple[int, str] | None = None  # (press_id, presser) of the last logged press
        self._keeping_summaries: asyncio.Future | None = None  # the one replay of missing history summaries
        self._shown: tuple[tables.Table, dict[str, Any]] | None = None  # the table's status, cached
        self._tasks: set[asyncio.Future] = set()
        self._dealing: asyncio.Task | None = None  # dealer mode: the deal of what the round owes
        self._aiming: asyncio.Task | None = None  # the servo's one move under way
        self._aim_next: tuple[int, int] | None = None  # (seat, seats) to turn to once it is done
        self._aim_stale = False  # an undo changed whose move it is without turning the launcher
        # An undo leaves what it took back owed again: nothing is dealt until a person moves on.
        self._deal_held = False
        # The next deal's dispense waits for a person's press (the dealer's wait_press): launcherd
        # (or the game layer) has just started, or the last one was cut short by a halt or refused;
        # nobody may be at the launcher, and a reset is no press. False, or what it waits after
        # (``wait_press`` of launcher/dispense): "restart", "reset" (after a halt), True (a refusal).
        self._wait_press: bool | str = False
        self._dispensing: asyncio.Future | None = None  # the launcher/dispense under way, whoever asked
        self._drawing = False  # dealer mode: a draw's dispense is under way
        # The deal's dispense under way: whose cards, and how many of them are logged already (each
        # run's outcome is logged as it is taken in, with its seq; the reply adds late cards).
        self._deal_for: dict[str, Any] | None = None
        # The game layer has just started with a deal owed: a dispense asked by the layer before it
        # (dead or hung) may still be giving cards, which are the owed deal's. Until the first deal
        # has cancelled it and heard its end, a dispense's outcome counts for what is owed.
        self._orphaned = False
        self._launcher_changed = asyncio.Event()  # a launcher state event came
        self._pressed = asyncio.Event()  # the button was pressed (deal_pause=press)
        self._blasts: dict[Any, str | None] = {}  # insert_id of a firing insertion -> who inserted
        self._outcome_seq = 0  # the last launch outcome taken in (its seq), as the log says
        # The first launch outcome whose commit failed (the log could not be written): it and every
        # later one stay in the outcome record, and are taken in, in order, once the log takes them.
        self._unlogged: int | None = None
        self._catching_up = False
        self._told: dict[str, Any] | None = None  # what a press means, as last told to the launcher
        self._telling: asyncio.Task | None = None  # the telling under way

    @property
    def log_path(self) -> Any:
        return self.daemon.state_dir / FILENAME

    # ---- the log's health ----------------------------------------------------------------

    def _broken(self, found: Damage) -> GameUnavailable:
        """Record the damage (the launcher goes on) and the error that refuses the request."""
        if found != self.damage:
            log.error("game: %s", wording.daemon_text(found.message))
            self.publish_message(found.message)
        self.damage = found
        return GameUnavailable(found)

    def _readable(self) -> Store:
        """The store, for reading: refused only when the file itself cannot be trusted."""
        if self.store is None or (self.damage is not None and self.damage.kind == damages.DAMAGED):
            raise GameUnavailable(self.damage or damages.damaged(self.log_path, "not open"))
        return self.store

    def _writable(self) -> Store:
        """The store, for an action: refused while damaged, unwritable, or deleted under the daemon."""
        store = self._readable()
        if self.damage is not None and self.damage.kind not in (damages.UNREPLAYABLE, damages.UNWRITABLE):
            raise GameUnavailable(self.damage)
        # Checked before every write: a log deleted with its directory still takes writes (the open
        # file lives on), and an action acknowledged there would be lost at the next start.
        if not store.in_place():
            raise self._broken(damages.gone(store.path))
        return store

    @contextmanager
    def _reading(self) -> Iterator[Store]:
        store = self._readable()
        try:
            yield store
        except sqlite3.DatabaseError as exc:
            raise self._broken(damages.damaged(store.path, str(exc))) from None

    @contextmanager
    def _writing(self) -> Iterator[Store]:
        """A failed write is refused like any action: the live state is unchanged."""
        store = self._writable()
        try:
            yield store
        except sqlite3.Error as exc:
            found = damages.on_write(store.path, exc)
            if found is None:  # a passing trouble (a full disk): said at once, logged once, retried
                found = self.damage if self._unwritable() else damages.unwritable(
                    store.path, str(exc), datetime.now(timezone.utc))
            raise self._broken(found) from None
        if self._unwritable():
            log.warning("game: the log is written again")
            self.damage = None

    def _unwritable(self) -> bool:
        return self.damage is not None and self.damage.kind == damages.UNWRITABLE

    def repair(self) -> dict[str, Any]:
        """``game/repair``: what the damage calls for, done now that the table asks."""
        found = self.damage
        if found is None:
            raise Refused(says.nothing_to_repair(self.log_path))
        if found.kind == damages.GONE:
            return self._write_back()
        moved = None
        if found.kind in (damages.DAMAGED, damages.UNREPLAYABLE):
            if self.store is not None:
                self.store.close()
            moved = damages.move_aside(self.log_path)
        elif self.store is not None:  # read-only: the log is sound, only reopened
            self.store.close()
        self.store, self.table, self.match_id, self.damage = None, None, None, None
        self.open()
        if self.damage is not None:
            raise GameUnavailable(self.damage)
        if self._unlogged is not None:
            self.catch_up()  # the launches the log could not take, now that it can
        self.tell_press_meaning()
        said = [says.moved_aside(moved) if moved else says.writable_again()]
        if self.table is not None:
            said.append(says.goes_on(self.match_id))
        log.warning("game: repaired: %s", "; ".join(map(wording.daemon_text, said)))
        return {"repaired": found.kind, "moved_to": None if moved is None else str(moved), **_messages(said)}

    def _write_back(self) -> dict[str, Any]:
        path = self.store.path
        moved = None
        if path.exists():  # something new was put there: keep it, under another name
            moved = damages.move_aside(path)
        try:
            self.store.write_back()
        except (OSError, sqlite3.Error) as exc:
            raise self._broken(damages.on_open(path, exc)) from None
        self.damage = None
        said = [says.written_back(path)]
        if moved is not None:
            said.append(says.found_moved_aside(moved))
        log.warning("game: repaired: %s", "; ".join(map(wording.daemon_text, said)))
        return {"repaired": damages.GONE, "moved_to": None if moved is None else str(moved),
                **_messages(said)}

    def open(self) -> None:
        """Open the log and resume its match; a failure is recorded, never raised: the launcher runs."""
        try:
            self.store = Store.in_dir(self.daemon.state_dir, self.daemon.commit_fence)
            self._outcome_seq = self.store.outcome_seq()
        except (sqlite3.Error, OSError) as exc:
            self.store = None
            self._broken(damages.on_open(self.log_path, exc))
            return
        self.resume()

    def catch_up(self) -> None:
        """Take in the launch outcomes recorded while the service was not there to hear them (or
        could not log them), in order; one whose commit fails again stops it there."""
        missed = self.daemon.outcomes_after(self._outcome_seq)
        if missed:
            log.info("game: catching up on %d launch outcome(s) from %d", len(missed), missed[0]["seq"])
        self._unlogged, self._catching_up = None, True
        try:
            for outcome in missed:
                name = outcome.pop("event", "launched")  # a record written before blasts were kept
                self.on_event(name, outcome)
                if self._unlogged is not None:
                    break
        finally:
            self._catching_up = False

    def _behind(self) -> bool:
        """An earlier launch outcome is not in the log yet: what comes now is taken in after it."""
        return self._unlogged is not None and not self._catching_up

    def close(self) -> None:
        self._stop_dealing()  # the log stays the reference: a restart deals what it does not show
        if self.store is not None:
            self.store.close()

    # ---- state ---------------------------------------------------------------------------

    def resume(self) -> None:
        """Rebuild the table's match from its log (no effects are replayed, the aim excepted)."""
        match = self.store.current_match()
        if match is None:
            return
        self.match_id = match.id
        records = self.store.actions(match.id)
        try:
            self.table = tables.replay(record.action for record in records)
        except ApiError as exc:
            # A log this version cannot replay: keep it untouched and refuse to build on it.
            self._broken(damages.unreplayable(self.log_path, match.id, says.reason(exc)))
            return
        log.info("game: match %d resumed, %d action(s)", match.id, len(records))
        # The table's last word was an undo: what it left owed waits, as it did before the restart.
        self._deal_held = _held_by_undo(self.store, match.id)
        self._aim_at_turn()
        # What the log does not show dealt is dealt, unless an undo holds it, once a person presses.
        self._orphaned = _owes_deal(self.table.game)
        self._follow_deals()
        self._wait_press = "restart" if self._dealing is not None else False

    def _table(self) -> tables.Table:
        if self.table is None:
            if self.damage is not None:
                raise GameUnavailable(self.damage)
            raise NotFound(says.no_game(self.log_path))
        return self.table

    def _table_status(self) -> dict[str, Any]:
        """The table's status, rebuilt only when the table changed (the scores are not free)."""
        if self._shown is None or self._shown[0] is not self.table:
            shown = tables.status(self.table)
            shown["match_id"] = self.match_id
            self._shown = (self.table, shown)
        return dict(self._shown[1])

    def status(self) -> dict[str, Any]:
        """The table's status with the match id, the reload advice, where the log is, and any damage."""
        if self.table is None and self.damage is None:
            raise NotFound(says.no_game(self.log_path))
        shown = self._table_status() if self.table is not None else {"match_id": self.match_id}
        if self.table is not None:
            # Who moves now and what they may do, in words (the object beside it for any language).
            said = says.what_now(self.table)
            shown["what_now"], shown["what_now_object"] = wording.text(said), said
            shown["press_means"] = press_meaning(self.table)
        shown["reload_advice"] = says.reload_advice(self.hopper)
        shown["state_dir"] = str(self.daemon.state_dir)
        if self.damage is not None:
            shown["damage"] = self.damage.to_json()
        return shown

    def fresh_status(self) -> dict[str, Any]:
        """``game/status``: a reload while the launcher is ready changes no state, so ask now."""
        self.follow_hopper()
        return self.status()

    def status_for_daemon(self) -> dict[str, Any] | None:
        """The ``game`` key of ``status/get``: None without a game, never an exception."""
        if self.table is None:
            if self.damage is None:
                return None
            return {"error": wording.text(self.damage.message), "error_object": self.damage.message,
                    "damage": self.damage.to_json()}
        return self.status()

    # ---- acting --------------------------------------------------------------------------

    def act(self, action: dict[str, Any], outcome_seq: int | None = None) -> dict[str, Any]:
        """Check one action, log it, make it live, carry out its effects; the reply to send.

        ``outcome_seq``: the launch outcome the action takes in, logged in the same commit."""
        self._writable()
        if self._behind():
            self.catch_up()  # the presses the log could not take come before this action
        table = self._table()
        if action["type"] in TURN_ACTIONS and "by" not in action:
            mover = turn(table.game)
            action = action if mover is None else {**action, "by": mover}  # the log says who acted
        if action["type"] == "end_round":
            _not_while_dealing(table.game)
        table, effects = tables.apply(table, action)
        with self._writing() as store:
            seq = store.append(self.match_id, action, over=table.match_over,
                               winner=_winner_text(table) if table.match_over else None,
                               outcome_seq=outcome_seq)
        self.table = table
        self._deal_held = False  # the table moved on: what the round owes is dealt
        if table.match_over:
            self._stop_dealing()  # a match that is over deals nothing more (it owes nothing)
        self.daemon.publish("game/action", {"seq": seq, "match_id": self.match_id, "action": action})
        if action["type"] == "end_round" and not table.match_over:
            effects.append(wording.effect(says.dealing_advice(table.game.ruleset, len(table.game.players))))
        if action["type"] == "turn_up" and not _dealer_mode(table.game):  # the draw pile is one card less
            effects.append(wording.effect(says.draw_pile(table.game.ruleset, len(table.game.players),
                                                         table.game.turned)))
        self._follow_deals()
        return self._reply(effects)

    def start(self, action: dict[str, Any], force: bool = False) -> dict[str, Any]:
        """A new match: checked, its first action logged, then live (the previous one stays in history)."""
        self._writable()
        if self.table is not None and not self.table.match_over and not force:
            raise Refused(says.still_running(self.match_id, list(self.table.match.players),
                                             self.table.game.round_no))
        table, effects = tables.new_table(action)
        previous = self.match_id if self.table is not None and not self.table.match_over else None
        with self._writing() as store:
            self.match_id = store.start_match(action)
        self._stop_dealing()  # the previous match's deal: its cards are not this match's
        self.table, self._last_press, self._deal_held = table, None, False
        self._follow_deals()
        if self.damage is not None:  # an unreplayable match no longer stands in the way
            self.damage = None
        self.daemon.publish("game/action", {"seq": None, "match_id": self.match_id, "action": action})
        effects.append(wording.effect(says.dealing_advice(table.game.ruleset, len(action["players"]))))
        if previous is not None:
            effects.insert(0, wording.effect(says.set_aside(previous)))
        return self._reply(effects)

    def resume_match(self, match_id: int) -> dict[str, Any]:
        """``game/resume``: make an earlier match the table's again, as its log left it."""
        store = self._writable()
        if match_id == self.match_id and self.table is not None:
            raise Refused(says.already_current(match_id))
        with self._reading():
            store.match(match_id)
            records = store.actions(match_id)
            held = _held_by_undo(store, match_id)
        try:
            table = tables.replay(record.action for record in records)
        except ApiError as exc:
            raise Refused(says.cannot_replay(match_id, says.reason(exc))) from None
        previous = self.match_id if self.table is not None and not self.table.match_over else None
        with self._writing() as store:
            store.set_current(match_id)
        self._stop_dealing()
        self.table, self.match_id, self._last_press, self.damage = table, match_id, None, None
        self._deal_held = held
        self._aim_at_turn()
        self._follow_deals()
        said = [says.resumed(match_id)]
        if previous is not None:
            said.insert(0, says.set_aside(previous))
        return self._reply([wording.effect(message) for message in said])

    def abandon(self) -> dict[str, Any]:
        """``game/abandon``: no match at the table; the one that was stays in history, resumable."""
        store = self._writable()
        self._table()
        with self._writing():
            store.set_current(None)
        self._stop_dealing()
        abandoned = self.match_id
        self.table, self.match_id, self._last_press = None, None, None
        said = says.set_aside(abandoned)
        self.publish_message(said)
        self.tell_press_meaning()
        return {"abandoned": abandoned, **_messages([said])}

    def undo(self) -> dict[str, Any]:
        """Take back the match's last live action (kept in the log, marked undone): a replay without it."""
        store = self._writable()
        self._table()
        with self._reading():
            records = store.actions(self.match_id)
        if len(records) < 2:
            raise Refused(says.nothing_to_undo())
        last = records[-1]
        table = tables.replay(record.action for record in records[:-1])
        with self._writing():
            store.undo(self.match_id, last.seq, over=table.match_over,
                       winner=_winner_text(table) if table.match_over else None)
        self._stop_dealing()  # never dealt again by an undo: the next undo may take back its cause
        self.table, self._last_press, self._deal_held = table, None, True
        self.daemon.publish("game/action", {"seq": last.seq, "match_id": self.match_id, "undone": True})
        # Whose cards they are: the press's own record, or (older logs) whose move it is again.
        who = last.action.get("by") or turn(table.game)
        said = [says.undone(last.action, who)]
        if _owes_deal(table.game):
            said.append(says.deal_held(table.game.players[table.game.queue[0].seat], table.game.queue[0].presses))
        # An undo never makes the launcher move, the aim servo included: it turns at the next move.
        self._aim_stale = False  # (not even a turn left over from an undo before this one)
        reply = self._reply([wording.effect(message) for message in said])
        self._aim_stale = True
        reply["undone"] = last.action
        return reply

    def _reply(self, effects: list[dict[str, Any]]) -> dict[str, Any]:
        """Carry out effects (messages published, one aim) and build the reply: status + messages.

        ``messages``: the texts, in the language of the request; ``message_objects``: the same
        messages as objects, in the same order.
        """
        said = []
        aim = None
        for effect in effects:
            if effect["type"] == "message":
                said.append(effect["message"])
                self.publish_message(effect["message"])
            elif effect["type"] == "aim":
                aim = effect  # only where the launcher ends up matters: one servo move
            elif effect["type"] == "round_over":
                self.daemon.publish("game/round_over", {"winner": effect["winner"],
                                                        "round": self.table.game.round_no})
        if aim is not None:
            self._aim(aim["seat"], aim["seats"])
        elif self._aim_stale and self.table is not None:
            self._aim_at_turn()  # the first move after an undo: the launcher faces whose move it is
        self.follow_hopper()  # a reload since the last launcher event is no event: the advice must see it
        self.tell_press_meaning()
        return {**self.status(), **_messages(said)}

    def tell_press_meaning(self) -> None:
        """Tell the launcher what a press means now, when it changed (``press_meaning``): the core
        applies it at the press, so the motor's loop never waits on the game. In the background, in
        order; a launcher that could not be told is told again at the next change."""
        meaning = press_meaning(self.table)
        if meaning == self._told:
            return
        self._told = meaning
        self._telling = self._background(self._send_press_meaning(meaning))

    def told_first(self, handler: Callable[[dict[str, Any]], Any]) -> Callable[[dict[str, Any]], Any]:
        """``handler``, answered once the launcher has what a press means after it: a press that
        follows a reply has the meaning of the table the reply shows (not the one before it)."""
        async def answered(params: dict[str, Any]) -> Any:
            result = handler(params)
            if inspect.isawaitable(result):
                result = await result
            telling = self._telling
            if telling is not None and not telling.done():
                await asyncio.shield(telling)
            return result
        return answered

    async def _send_press_meaning(self, meaning: dict[str, Any]) -> None:
        try:
            await self.daemon.call("launcher/press-means", meaning)
        except ApiError as exc:
            if exc.code == ApiError.METHOD_NOT_FOUND:
                return  # a card blaster: it has no press, the insertions are its moves
            log.warning("game: the launcher was not told what a press means: %s", exc.message)
            if self._told == meaning:
                self._told = None

    def publish_message(self, message: dict[str, Any]) -> None:
        """A ``game/message`` event for whoever is watching the table: the message object, and its
        text in the daemon's language for subscribers that show texts as they come."""
        self.daemon.publish("game/message", {"message": message, "text": wording.daemon_text(message),
                                             "match_id": self.match_id})

    def _aim_at_turn(self) -> None:
        """Face whoever's move it is (after a resume or an undo, which carry no aim effect)."""
        player = turn(self.table.game)
        if player is not None:
            self._aim(*tables.seat_of(self.table, player))

    def _aim(self, seat: int, seats: int) -> None:
        """Turn the launcher to a chair, in the background: a servo must never hold up the game.

        One move at a time, to the latest chair asked for: turns that come faster than the servo
        moves (a burst of presses) are not queued behind each other, only where it ends up matters."""
        self._aim_next, self._aim_stale = (seat, seats), False
        if self._aiming is None or self._aiming.done():
            self._aiming = self._background(self._turn())

    async def _turn(self) -> None:
        while self._aim_next is not None:
            (seat, seats), self._aim_next = self._aim_next, None
            try:
                await self.daemon.call("launcher/aim", {"seat": seat, "seats": seats})
            except Unavailable:
                pass  # no aim servo fitted: the launcher stays where it is
            except ApiError as exc:
                log.warning("game: aiming at seat %d of %d failed: %s", seat, seats, exc.message)

    # ---- launcher events -----------------------------------------------------------------

    def on_event(self, name: str, params: dict[str, Any]) -> None:
        """Every launcher event, in the loop: presses and insertions become moves; the hopper is followed."""
        if name == "launched":
            if not self._take_outcome(params):
                return
        elif name == "card":
            self._late_card(params)
        elif name in ("insert", "blast"):
            self._take_blaster_outcome(name, params)
        elif name == "ignored":
            self._press_ignored(params)
        elif name == "state":
            self._launcher_changed.set()
        if name in ("launched", "state"):
            self.follow_hopper()

    def _take_outcome(self, params: dict[str, Any]) -> bool:
        """A launch outcome, taken in once: False for one taken in already (caught up on)."""
        seq = params.get("seq")
        if isinstance(seq, int) and seq <= self._outcome_seq:
            return False
        if params.get("source") == "button":
            self._pressed.set()
        if isinstance(seq, int) and self._behind():
            # An earlier outcome's commit failed: it is taken in first, then this one (the record
            # holds both), never this one before it.
            self.catch_up()
            if self._unlogged is not None:
                if self._unlogged != seq:
                    self._say_held(params)
                return True
            if seq <= self._outcome_seq:
                return True
            # Not in the record (it could not be written either): taken in as it comes.
        logged = self._launched(params, seq)
        if isinstance(seq, int):
            # A game press or a dispense that logged nothing is noted as taken in: a restart's
            # catching up must not count it for a deal owed by then.
            self._taken(seq, logged, note=params.get("source") in GAME_PRESS_SOURCES | {"dispense"})
        return True

    def _taken(self, seq: int, logged: bool | None, note: bool) -> None:
        """Outcome ``seq`` is in the log (``logged``), or needs no more than a note: the record may
        let it go. ``logged`` None: its commit failed, so it stays in the record, and the log's
        outcome seq stays before it, to be taken in once the log can be written (#19)."""
        if logged is None or (not logged and note and not self._note_outcome(seq)):
            if self._unlogged is None:
                self._unlogged = seq
            return
        self._outcome_seq = max(self._outcome_seq, seq)
        self.daemon.outcomes_logged(seq)

    def _say_held(self, params: dict[str, Any]) -> None:
        """A press taken in after one the log could not take: it waits with it."""
        if params.get("source") in GAME_PRESS_SOURCES and self.table is not None and self.damage is not None:
            self.publish_message(says.uncounted_press(params.get("press_id"), params.get("cards", 0),
                                                      self.damage.message))

    def _note_outcome(self, seq: int) -> bool:
        """False when the note could not be written (it is taken in again later)."""
        try:
            with self._writing() as store:
                store.note_outcome(seq)
            return True
        except GameUnavailable:
            return False  # the log's damage is said once where it was found
        except ApiError as exc:
            log.warning("game: launch outcome %d not noted: %s", seq, exc)
            return False

    def _launched(self, params: dict[str, Any], seq: int | None = None) -> bool | None:
        """A resolved press: the move of whose turn it is, unless it was no game press.
        True when it was logged (with ``seq``); None when its commit failed (the log's damage)."""
        if self.table is not None and params.get("source") == "dispense" and params.get("cards"):
            self._maybe_turned_up()
        if params.get("source") == "dispense":
            return self._dealt(params, seq)
        if params.get("source") not in GAME_PRESS_SOURCES or self.table is None:
            return False
        press_id, cards = params.get("press_id"), params.get("cards", 0)
        if params.get("outcome") == "empty" or (params.get("ended") == "empty" and not cards):
            self.publish_message(says.empty_press(press_id))
            return False
        presser = turn(self.table.game)
        game = self.table.game
        if params.get("outcome") == "draw" and not cards:
            # The draw the press meant gave no card (a misfeed, the lid, a jam before the card):
            # nobody drew; the player presses again once the launcher is ready.
            self.publish_message(says.draw_failed(presser, says.no_card_came_out(params.get("ended"))))
            return False
        if not cards and _owes_deal(game):
            # A dry press while cards are owed: nobody moved, the deal goes on (or, held by an
            # undo, starts again: a person pressed for it).
            self._deal_held = False
            self._follow_deals()
            return False
        if not cards and _dealer_mode(game):
            # A draw is exactly one card: the launcher deals the one this press did not give, if the
            # round lets this player draw now (never a card nobody may take).
            try:
                tables.apply(self.table, {"type": "press", "cards": 1, "by": presser})
            except ApiError as exc:
                self.publish_message(says.uncounted_press(press_id, cards, says.reason(exc)))
                return False
            self._background(self._draw_for(presser))
            return False
        press = {"type": "press", "cards": cards, "press_id": press_id}
        try:
            self.act(press if presser is None else {**press, "by": presser}, outcome_seq=seq)
        except ApiError as exc:
            self.publish_message(says.uncounted_press(press_id, cards, says.reason(exc)))
            return None if isinstance(exc, GameUnavailable) else False
        self._last_press = (press_id, presser)
        return True

    def _dealt(self, params: dict[str, Any], seq: int | None) -> bool | None:
        """A run of a dispense: the cards of the deal under way, logged with the outcome's seq, so
        that a game layer that hangs or dies mid-deal loses none of them. A dispense nobody here
        asked for counts for the deal owed while catching up on the record, or while a previous
        game layer's dispense may still run (``_orphaned``); else it is no move (a turn-up, a
        draw's card, logged by its caller)."""
        cards = int(params.get("cards") or 0)
        ours = self._deal_for
        if not cards or self.table is None:
            return False
        if ours is not None:
            player, take = ours["player"], cards
        elif ((self._catching_up or self._orphaned) and _owes_deal(self.table.game)
              and (self._dispensing is None or self._dispensing.done())):  # not a draw's, logged by it
            owed = self.table.game.queue[0]
            player, take = self.table.game.players[owed.seat], min(cards, owed.presses)
            if cards > take:
                self.publish_message(says.dealt_too_many(player, cards, take))
        else:
            return False
        try:
            self.act({"type": "press", "cards": take, "press_id": params.get("press_id"), "by": player},
                     outcome_seq=seq)
        except ApiError as exc:
            self.publish_message(says.uncounted_deal(take, player, says.reason(exc)))
            return None if isinstance(exc, GameUnavailable) else False
        if ours is not None:
            ours["logged"] += take
        return True

    def _press_ignored(self, params: dict[str, Any]) -> None:
        """The launcher ignored a press: a decision is pending (the table is told what to settle, a
        deal held by an undo is dealt now that a person pressed, a pause between piles ends), or it
        deals for the game (a second press after a draw)."""
        if params.get("reason") == "decision_pending" and params.get("source") in GAME_PRESS_SOURCES:
            self._decision_press(params.get("message_object"))
            return
        if params.get("source") != "button" or self.table is None or not _dealer_mode(self.table.game):
            return
        if (self._dispensing is not None and not self._dispensing.done()) or params.get("reason") == "launching":
            # A second press while a deal or a draw's card comes out: one card per draw.
            self.publish_message(says.press_while_dealing(turn(self.table.game)))

    def _decision_press(self, reason: dict[str, Any] | None) -> None:
        """A press that meant nothing: ``reason`` (what to settle first, as the core had it) is said."""
        self._pressed.set()  # the press a pause between piles waits for (deal_pause=press)
        if self.table is None or not _dealer_mode(self.table.game):
            return
        if _owes_deal(self.table.game) and self._deal_held:
            self._deal_held = False  # held by an undo: a person pressed for it
            self._follow_deals()
            return
        if reason is not None:
            self.publish_message(reason)

    def _maybe_turned_up(self) -> None:
        """A dispense nobody in the game asked for, while the pile has no card: the one turned up."""
        game = self.table.game
        ours = self._dispensing is not None and not self._dispensing.done()
        if _dealer_mode(game) and not ours and not game.queue and game.top_card is None and not game.round_over:
            self.publish_message(says.tell_turned_up())

    def _late_card(self, params: dict[str, Any]) -> None:
        """A card counted after its press was resolved (it fell out late): it is the presser's too."""
        if self._last_press is not None and params.get("press_id") == self._last_press[0]:
            try:
                self.act({"type": "cards", "cards": 1, "press_id": params.get("press_id"),
                          "by": self._last_press[1]})
            except ApiError as exc:
                self.publish_message(says.uncounted_late_card(says.reason(exc)))

    # ---- the blaster (blast) ----------------------------------------------------------------

    def _take_blaster_outcome(self, name: str, params: dict[str, Any]) -> None:
        """An insertion or a blast, taken in once, as a launch outcome is (``_take_outcome``)."""
        seq = params.get("seq")
        if isinstance(seq, int) and seq <= self._outcome_seq:
            return
        if isinstance(seq, int) and self._behind():
            self.catch_up()  # an earlier outcome the log could not take goes first
            if self._unlogged is not None or seq <= self._outcome_seq:
                return
        logged = self._inserted(params, seq) if name == "insert" else self._blasted(params, seq)
        if isinstance(seq, int):
            self._taken(seq, logged, note=True)

    def _inserted(self, params: dict[str, Any], seq: int | None) -> bool | None:
        """A card went into a slot: safe, logged now; firing, logged when its blast is counted.
        True when it was logged (with ``seq``)."""
        if self.table is None or self.table.game.ruleset != "blast":
            return False
        who = turn(self.table.game)
        if params.get("outcome") == "blast":
            self._blasts[params.get("insert_id")] = who
            return False
        return self._log_insert({"type": "insert", "blast": False, "cards": 0,
                                 "insert_id": params.get("insert_id")}, who, seq)

    def _blasted(self, params: dict[str, Any], seq: int | None) -> bool | None:
        if self.table is None or self.table.game.ruleset != "blast":
            return False
        insert_id = params.get("insert_id")
        who = self._blasts.pop(insert_id) if insert_id in self._blasts else turn(self.table.game)
        return self._log_insert({"type": "insert", "blast": True, "cards": params.get("cards", 0),
                                 "insert_id": insert_id}, who, seq)

    def _log_insert(self, action: dict[str, Any], who: str | None, seq: int | None) -> bool | None:
        try:
            self.act(action if who is None else {**action, "by": who}, outcome_seq=seq)
            return True
        except ApiError as exc:
            self.publish_message(says.uncounted_insert(action["insert_id"], action["cards"], says.reason(exc)))
            return None if isinstance(exc, GameUnavailable) else False

    # ---- dealer mode (classic, despicable-me-4) ------------------------------------------------

    def _background(self, coroutine: Any) -> asyncio.Task:
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)  # a reference until it is done, or the loop may drop it
        task.add_done_callback(self._tasks.discard)
        return task

    def _follow_deals(self) -> None:
        """Deal what the round owes, in the background, unless it is being dealt already or an undo
        holds it."""
        if self.table is None or self._deal_held or not _owes_deal(self.table.game):
            return
        if self._dealing is not None and not self._dealing.done():
            return
        self._dealing = self._background(self._deal(self.match_id))

    def _stop_dealing(self) -> None:
        """The deal the table owed is over (an undo, a match replaced, abandoned or ended): the
        task stops, and so does a dispense of it under way (``launcher/cancel``: the cards that
        are out by then are said as not counted)."""
        if self._dealing is not None:
            self._dealing.cancel()
            self._dealing = None
        self._deal_for = None  # what its dispense still gives is not counted
        if self._dispensing is not None and not self._dispensing.done():
            self._background(self._cancel_dispense())

    async def _cancel_dispense(self) -> None:
        try:
            await self.daemon.call("launcher/cancel")
        except ApiError as exc:
            log.warning("game: the deal's dispense could not be cancelled: %s", exc.message)

    async def _deal(self, match_id: int | None) -> None:
        """Dispense every deal the round owes, front of the queue first, until it owes none."""
        aimed: bool | None = None  # whether an aim servo answers; asked at the first seat
        pause = False  # a pile of the opening deal was just finished: hand it over first
        if self._orphaned:
            await self._end_orphans()
        while self.match_id == match_id and self.table is not None and _owes_deal(self.table.game):
            game = self.table.game
            owed = game.queue[0]
            player = game.players[owed.seat]
            seat, seats = tables.seat_of(self.table, player)
            if aimed is None or aimed:
                aimed = await self._aim_now(seat, seats)
            if pause and owed.reason == "deal" and not aimed:
                await self._deal_pause(game, player)
                pause = False
                continue  # a press during the pause may have dealt some of it
            cards = await self._dispense(owed.presses, player)
            if cards is None:
                return
            pause = owed.reason == "deal" and cards == owed.presses

    async def _end_orphans(self) -> None:
        """The first deal after the game layer started: a dispense its predecessor asked is
        cancelled, and its last run's outcome heard (counted for the deal owed), before this
        layer asks for what is still owed, so that no card is dealt twice."""
        try:
            await self.daemon.call("launcher/cancel")
        except ApiError as exc:
            log.warning("game: a previous dispense could not be cancelled: %s", exc.message)
        while self.daemon.launcher_status().get("state") == "launching":
            self._launcher_changed.clear()
            await self._launcher_changed.wait()
        await asyncio.sleep(0)  # an outcome posted before the state this loop saw is taken in
        self._orphaned = False

    async def _aim_now(self, seat: int, seats: int) -> bool:
        """Turn to the seat before its cards come out; False when no aim servo is fitted."""
        try:
            await self.daemon.call("launcher/aim", {"seat": seat, "seats": seats})
        except Unavailable:
            return False
        except ApiError as exc:
            log.warning("game: aiming at seat %d of %d failed: %s", seat, seats, exc.message)
        return True

    async def _deal_pause(self, game: GameState, player: str) -> None:
        """Between two piles of the opening deal without a servo: time for the dealer to hand one over."""
        options = dict(game.options)
        if options["deal_pause"] == "press":
            self.publish_message(says.deal_pause_press(player))
            self._pressed.clear()
            await self._pressed.wait()
        else:
            await self._sleep(float(options["deal_pause_s"]))

    async def _dispense(self, count: int, player: str) -> int | None:
        """Ask the launcher for ``count`` cards for ``player``, log what came; None: stop dealing.

        The request is shielded: a deal stopped (undo, new game) while cards come out lets the
        dispense finish, and says that those cards are not counted.
        """
        call = await self._dispense_after_others(count)
        dealt = self._deal_for = {"player": player, "logged": 0}
        try:
            try:
                outcome = await asyncio.shield(call)
            except asyncio.CancelledError:
                call.add_done_callback(lambda done: self._dealt_after_stop(done, dealt["logged"]))
                raise
            except ApiError as exc:  # refused: the motor rests, the lid is open, halted...
                self.publish_message(says.deal_waits(player, says.reason(exc)))
                self._wait_press = True  # what is left goes on at a person's press, not by itself
                await self._launcher_ready(exc.data.get("retry_after_s"))
                return 0
            if self._behind():
                self.catch_up()  # a run whose commit failed is this deal's: taken in first
            if self._unlogged is not None:
                return None  # the log takes no write: what came out is caught up on later
        finally:
            if self._deal_for is dealt:
                self._deal_for = None
        cards = min(outcome.get("cards", 0), count)  # never above what is owed
        if outcome.get("cards", 0) > count:
            self.publish_message(says.dealt_too_many(player, outcome["cards"], count))
        rest = cards - dealt["logged"]  # a card counted after its run's outcome (it fell out late)
        if rest > 0:
            try:
                self.act({"type": "press", "cards": rest, "press_id": outcome.get("press_id"), "by": player})
            except ApiError as exc:
                self.publish_message(says.uncounted_deal(rest, player, says.reason(exc)))
                return None
        if cards < count:
            self.publish_message(says.deal_short(player, cards, count, outcome.get("ended")))
            if outcome.get("state") != "done":
                # Abandoned by a halt (an e-stop, a fault) or failed: after the reset, the rest
                # waits for a person's press (status pending says the launcher was reset) (#20).
                self._wait_press = "reset" if outcome.get("state") == "abandoned" else True
            await self._launcher_ready(DEAL_RETRY_S)
        return cards

    async def _dispense_after_others(self, count: int) -> asyncio.Future:
        """Ask ``launcher/dispense`` once the one under way is over: a deal stopped by an undo or a
        replaced match lets its dispense finish, and nothing may queue behind it meanwhile."""
        while self._dispensing is not None and not self._dispensing.done():
            await asyncio.wait([self._dispensing])
        params = {"count": count, "wait_press": self._wait_press}
        self._wait_press = False
        call = asyncio.ensure_future(self.daemon.call("launcher/dispense", params))
        self._dispensing = call
        return call

    def _dealt_after_stop(self, call: asyncio.Future, logged: int = 0) -> None:
        if call.cancelled() or call.exception() is not None:
            return
        cards = call.result().get("cards", 0) - logged
        if cards > 0:
            self.publish_message(says.dealt_after_stop(cards))

    async def _launcher_ready(self, after_s: float | None) -> None:
        """Wait ``after_s`` (a motor rest), then until the launcher is ready (a jam cleared, a reload)."""
        if after_s:
            await self._sleep(after_s)
        while self.daemon.launcher_status().get("state") not in LAUNCHER_READY:
            self._launcher_changed.clear()
            await self._launcher_changed.wait()

    async def _draw_for(self, player: str | None) -> None:
        """A press gave no card where a draw is due: the launcher deals the one card."""
        if self._drawing or (self._dealing is not None and not self._dealing.done()):
            self.publish_message(says.press_while_dealing(player))  # a second press: one card per draw
            return
        self._drawing = True
        try:
            call = await (await self._dispense_after_others(1))
        except ApiError as exc:
            self.publish_message(says.draw_failed(player, says.reason(exc)))
            return
        finally:
            self._drawing = False
        cards = call.get("cards", 0)
        if not cards:
            self.publish_message(says.draw_failed(player, says.no_card_came_out(call.get("ended"))))
            return
        try:
            self.act({"type": "press", "cards": cards, "press_id": call.get("press_id"), "by": player})
        except ApiError as exc:
            self.publish_message(says.uncounted_deal(cards, player, says.reason(exc)))

    def insert_typed(self, params: dict[str, Any]) -> dict[str, Any]:
        """``game/insert``: an insertion typed at the table, refused where a blaster reports its own."""
        if "slots" in self.daemon.launcher_status():  # the blaster's core: each insertion is an event
            raise Refused(says.blaster_counts_inserts())
        return self.act({"type": "insert", **_present(params), "blast": params["blast"], "cards": params["cards"]})

    async def draw(self, by: str | None) -> dict[str, Any]:
        """``game/draw``: whose move it is draws exactly one card; the reply once it is counted."""
        table = self._table()
        if game.ruleset(table.game.ruleset).blaster:
            raise Refused(says.no_draw_blast())
        if not _dealer_mode(table.game):
            raise Refused(says.no_draw(table.game.ruleset))
        player = turn(table.game)
        tables.apply(table, {"type": "press", "cards": 1, "by": by or player})  # refused here if not due
        if self._drawing or (self._dealing is not None and not self._dealing.done()):
            raise Refused(says.busy_dealing())
        self._writable()
        self._drawing = True
        try:
            outcome = await (await self._dispense_after_others(1))
        finally:
            self._drawing = False
        if not outcome.get("cards"):
            raise Refused(says.draw_failed(player, says.no_card_came_out(outcome.get("ended"))))
        return self.act({"type": "press", "cards": 1, "press_id": outcome.get("press_id"), "by": player})

    def follow_hopper(self) -> None:
        """Read the launcher's hopper estimate; say once when it falls low enough to reload."""
        self.hopper = self._launcher_hopper()
        advice = says.reload_advice(self.hopper)
        low = advice["reload"]
        if low and not self._low and self.table is not None:
            self.publish_message(advice["text_object"])
        self._low = low

    def _launcher_hopper(self) -> int | None:
        return self.daemon.hopper

    def refill_count(self) -> dict[str, int | None]:
        """``game/refill-count``: the cards a refill puts in the hopper, as far as the game knows.

        The whole deck but the players' hands and the card on the discard pile. A hand is the 7
        dealt, plus every card its player received this round, less one card per play: a Discard
        All lays more than one, so hands are over-counted and the refill under-counted, and the
        reload advice comes early rather than late. None without a running round or a known deck.
        """
        table = self.table
        if self.match_id is None or table is None or table.match_over:
            return {"cards": None}
        ruleset = table.game.ruleset
        size = deck_size(game.ruleset(ruleset))
        if size is None:
            return {"cards": None}
        hands = dict.fromkeys(table.game.players, HAND)
        with self._reading() as store:
            for row in store.actions(self.match_id):
                action = row.action
                if action["type"] == "end_round":
                    hands = dict.fromkeys(hands, HAND)
                elif action.get("by") in hands and action["type"] in ("press", "cards"):
                    hands[action["by"]] += int(action.get("cards") or 0)
                elif action.get("by") in hands and action["type"] == "play":
                    hands[action["by"]] = max(0, hands[action["by"]] - 1)
        return {"cards": max(0, size - sum(hands.values()) - 1)}

    # ---- method handlers -----------------------------------------------------------------

    def log_of_match(self) -> dict[str, Any]:
        """``game/log``: the current match and all its actions, undone ones included."""
        if self.match_id is None:
            raise NotFound(says.no_game(self.log_path))
        with self._reading() as store:
            return {"match": store.match(self.match_id).to_json(),
                    "actions": [r.to_json() for r in store.actions(self.match_id, include_undone=True)]}

    def scores(self, csv: bool) -> dict[str, Any]:
        """``game/scores``: the counter's view of the match, or its CSV table."""
        match = self._table().match
        return {"csv": scores_csv(match)} if csv else scores(match)

    def history(self, limit: int | None = None, before: int | None = None) -> list[dict[str, Any]]:
        """Every match, oldest first, with its rounds and totals; the table's own is ``current``.

        ``limit``: only the last so many (of those before match ``before``), for a page at a time.
        A match's rounds and totals are kept in the log until its actions change
        (``Store.keep_figures``), so a reading replays only the matches changed since the last.
        """
        shown = []
        with self._reading() as store:
            records = store.matches(limit=limit, before=before)
            kept = store.figures("summary", [record.id for record in records])
            for record in records:
                entry = record.to_json()
                entry["current"] = record.id == self.match_id
                if record.id == self.match_id and self.table is not None:
                    entry.update(_summary(self.table))
                elif record.id in kept:
                    entry.update(kept[record.id])
                else:
                    entry.update(_replayed_summary(store, record.id))
                shown.append(entry)
        return shown

    async def history_in_turns(self, limit: int | None = None, before: int | None = None) -> list[dict[str, Any]]:
        """``game/history`` for the API: the matches whose summary is not kept yet (a log written
        by an older version) are replayed one at a time, the game loop answering between them
        (a 100,000-action log took longer than the host waits for a heartbeat). One replay of
        every missing summary at a time: the readings that come meanwhile (the start's, a page's,
        another client's) wait for it instead of replaying the same matches beside it."""
        if self._keeping_summaries is None or self._keeping_summaries.done():
            self._keeping_summaries = asyncio.ensure_future(self._keep_missing_summaries())
        await asyncio.shield(self._keeping_summaries)
        return self.history(limit, before)

    async def _keep_missing_summaries(self) -> None:
        with self._reading() as store:
            records = store.matches()
            missing = set(record.id for record in records) - set(store.figures("summary", [r.id for r in records]))
        for match_id in sorted(missing - {self.match_id}):
            with self._reading() as store:
                _replayed_summary(store, match_id)
            await asyncio.sleep(0)


def _replayed_summary(store: Store, match_id: int) -> dict[str, Any]:
    """A match's summary from its actions, kept in the log; an error's words when it cannot be
    replayed (not kept: the reason is said in the language of each request)."""
    try:
        summary = _summary(tables.replay(r.action for r in store.actions(match_id)))
    except ApiError as exc:
        return {"rounds": None, "totals": None, "error": exc.message}
    store.keep_figures(match_id, "summary", summary)
    return summary


def _summary(table: Any) -> dict[str, Any]:
    """A match's line in game/history: how many rounds, and the totals."""
    return {"rounds": len(table.match.rounds), "totals": scores(table.match)["totals"]}


def _held_by_undo(store: Store, match_id: int) -> bool:
    """The match's latest action was undone: what the undo left owed waits for the table to move on."""
    latest = store.actions(match_id, include_undone=True)
    return bool(latest) and latest[-1].undone


def _messages(said: list[dict[str, Any]]) -> dict[str, Any]:
    """The ``messages`` of a reply (texts in the request's language) and their ``message_objects``."""
    return {"messages": [wording.text(message) for message in said], "message_objects": said}


def _named(params: dict[str, Any]) -> dict[str, Any]:
    """Cards and colours given by their names in any language ("Double attaque", "rouge") as ids.

    A name that is none is left as typed: the ruleset (or the score counter) then says what it
    has, which is more help than a list of every card of every box.
    """
    named = dict(params)
    for key, to_id in (("card", card_id), ("first_card", card_id), ("color", color_id)):
        if named.get(key) is not None:
            named[key] = _id_or_typed(to_id, named[key])
    if isinstance(named.get("hands"), dict):
        named["hands"] = {name: _hand_named(hand) for name, hand in named["hands"].items()}
    return named


def _id_or_typed(to_id: Callable[[str], str], name: str) -> str:
    try:
        return to_id(name)
    except InvalidParams:
        return name


def _hand_named(hand: Any) -> Any:
    """A hand typed as cards ("7,Appuyer 2 fois,wild") with each card's id; a total as it is.

    A signed or decimal number ("-3") is no card's name (the name of "3" forgives the dash): it
    is left for the counter to refuse, with what a hand may be.
    """
    if not isinstance(hand, str):
        return hand
    return ",".join(name if looks_like_total(name) else _id_or_typed(card_id, name) for name in hand.split(","))


def _present(params: dict[str, Any]) -> dict[str, Any]:
    """Parameters given (absent optional ones are None): the action is logged without the gaps."""
    return {key: value for key, value in params.items() if value is not None and value is not False}


def setup(host: LayerHost) -> GameService:
    """The ``card_launcher.extensions`` entry point, on the game layer's loop: open the log, resume,
    register, subscribe, and catch up on the launches made while no game layer was there."""
    service = GameService(host)
    service.open()  # whatever the log's state, the launcher runs: the game methods say why not
    host.on_close(service.close)
    _register(host, service)
    _register_code(host, JoinCode(host.state_dir))
    register_stats(host, service)
    host.subscribe(service.on_event)  # before catching up: nothing falls between the two
    host.add_status("game", service.status_for_daemon)
    service.follow_hopper()  # the core is built before the layers: its estimate is there already
    service.catch_up()
    service.tell_press_meaning()  # the daemon serves once the core has it (firmware/daemon/driver.py)
    return service


def _new(service: GameService, params: dict[str, Any]) -> dict[str, Any]:
    force = params.pop("force")
    return service.start({"type": "new", **_present(_named(params))}, force=force)


def _register(daemon: Any, service: GameService) -> None:
    def r(name: str, handler: Callable[[dict[str, Any]], Any], *args: Any, **kwargs: Any) -> None:
        daemon.register(name, service.told_first(handler), *args, **kwargs)
    # Any language's name of a colour or a card (_named); each ruleset then checks its own.
    color = (str, None)
    act = service.act

    r("game/new", lambda p: _new(service, dict(p)), {
        "rules": Param(str, choices=RULESET_IDS), "players": list, "dealer": (str, None),
        "first_card": (str, None), "color": color, "options": (dict, None),
        "scoring": Param(str, "standard", choices=SCORINGS), "target": Param(int, 500, minimum=1),
        "force": (bool, False),
    }, doc="start a match: players in seat order; its first round is dealt (force: even while"
           " another match is being played, which stays resumable)")
    r("game/resume", lambda p: service.resume_match(p["match"]), {"match": Param(int, minimum=1)},
      doc="make an earlier match (game/history) the table's again")
    r("game/abandon", lambda p: service.abandon(), doc="set the match aside (game/resume brings it back)")
    r("game/refill-count", lambda p: service.refill_count(),
      doc="cards a refill of the hopper holds: the deck less the hands and the discard pile's top card")
    r("game/repair", lambda p: service.repair(),
      doc="fix what game/status reports about the log (moves a damaged log aside)")
    r("game/rules", lambda p: rules_data(p["rules"]), {"rules": (str, None)},
      doc="the cards of a ruleset (or of every ruleset), their points, and the scoring variants")
    r("game/play", lambda p: act({"type": "play", **_present(_named(p))}), {
        "card": str, "color": color, "target": (str, None), "last": (bool, False), "by": (str, None),
    }, doc="the player whose move it is plays a card")
    r("game/first-attack", lambda p: act({"type": "first_attack", **_present(_named(p))}), {
        "color": str, "target": str, "by": (str, None),
    }, doc="the colour and victim of a turned-up wild-attack")
    for kind, doc in (("uno", "a player calls Uno"), ("catch", "a player is caught without Uno"),
                      ("hint", "a player gave advice (2005, 2010)")):
        r(f"game/{kind}", lambda p, kind=kind: act({"type": kind, "player": p["player"]}),
          {"player": str}, doc=doc)
    r("game/turn-up", lambda p: act({"type": "turn_up", **_present(_named(p))}), {"card": str, "color": color},
      doc="classic, despicable-me-4, blast: the card turned up after an ignored first card (or one not told)")
    r("game/insert", lambda p: service.insert_typed(p), {
        "blast": (bool, False), "cards": Param(int, 0, minimum=0), "by": (str, None),
    }, doc="blast: the player whose move it is inserted a card (blast: it fired and gave cards)")
    r("game/draw", lambda p: service.draw(p["by"]), {"by": (str, None)},
      doc="classic: the player whose move it is draws exactly one card (the launcher deals it)")
    for kind, doc in (("pass", "classic: the player who drew keeps the card; turn over"),
                      ("challenge", "classic: the next player challenges the Wild Draw Four"),
                      ("accept", "classic: the next player accepts the Wild Draw Four (dealt 4)")):
        r(f"game/{kind}", lambda p, kind=kind: act({"type": kind, **_present(p)}), {"by": (str, None)}, doc=doc)
    r("game/challenge-result", lambda p: act({"type": "challenge-result", "result": p["result"]}),
      {"result": Param(str, choices=("legal", "illegal"))},
      doc="classic: what the shown hand proved: legal (the challenger is dealt 6) or illegal (4 back)")
    r("game/minions", lambda p: act({"type": "minions", "counts": p["counts"]}), {"counts": dict},
      doc="despicable-me-4: how many cards each other player discarded for Wild Mega Minions Power")
    r("game/undo", lambda p: service.undo(), doc="take back the last action of the match")
    r("game/status", lambda p: service.fresh_status(),
      doc="the round, whose move it is, the match, where the log is and what is wrong with it")
    r("game/log", lambda p: service.log_of_match(), doc="the match's actions, undone ones included")
    r("game/end-round", lambda p: act({"type": "end_round", **_present(_named(p))}), {
        "winner": str, "hands": dict, "first_card": (str, None), "color": color,
    }, doc="score the round (hands: name -> points or cards) and deal the next")
    r("game/edit-round", lambda p: act({"type": "edit_round", **_present(_named(p))}), {
        "round": Param(int, minimum=1), "hands": dict,
    }, doc="correct the hands of an ended round")
    r("game/scores", lambda p: service.scores(p["csv"]), {"csv": (bool, False)},
      doc="the score table (csv: as CSV text)")
    r("game/history", lambda p: service.history_in_turns(p["limit"], p["before"]), {
        "limit": Param(int, None, minimum=1), "before": Param(int, None, minimum=1),
    }, doc="every match played, oldest first (limit: only the last so many, before: of those before"
           " that match, a page at a time)", version=lambda: log_version(service))


def _register_code(daemon: Any, codes: JoinCode) -> None:
    """``game/code`` and ``game/code/check``: the table's join code, for launcher-web (#12)."""
    def code(params: dict[str, Any]) -> dict[str, str]:
        if not params["new"]:
            return {"code": codes.code}
        rotated = codes.rotate()
        # Without the code itself: events reach every subscriber, and the page relays them.
        daemon.publish("game/code_changed", {})
        return {"code": rotated}

    daemon.register("game/code", code, {"new": (bool, False)},
                        doc="the table's join code (new: rotate it, the old one stops working)")
    daemon.register("game/code/check", lambda p: {"valid": codes.check(p["code"])},
                        {"code": str}, doc="whether a join code is the table's")
