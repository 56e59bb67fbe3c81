"""The game layer inside launcherd: ``game/...`` methods, presses attributed, the log kept.

Run by the game process (``launcher-game``, controller/layer/process.py), a client of launcherd's
socket, and given only the layer interface of ``docs/internals.md`` (controller/layer/remote.py's
``SocketHost``): it never touches a pin, it asks ``launcher/aim`` like any client. Every change of the table is one action: checked by the pure reducer
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
its text in the daemon's language; refusals carry theirs as ``message_object``. Cards and colors may
be named in English or French ("Double attaque", "rouge"): they are logged by their ids.

The service is one object made of parts, each in its own module beside this one: the log's health
and ``game/repair`` (``logkeeping``), the launcher's events taken in as moves (``intake``), dealer
mode and draws (``dealing``), the reading side: history, scores, refill count (``reading``); the
``game/...`` method table is ``methods``.

All of it runs on the game process's loop, never in launcherd: handlers are synchronous, so two requests never interleave between checking an action and
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
from typing import Any, Awaitable, Callable

from firmware.daemon.layer import LayerHost
from firmware.errors import ApiError, NotFound, Refused, Unavailable
from firmware.i18n import message

from controller.layer import methods
from controller.layer.dealing import Dealing, dealer_mode, owes_deal
from controller.layer.intake import OutcomeIntake
from controller.layer.logkeeping import LogKeeping
from controller.layer.reading import Reading
from controller.log.damage import Damage, GameUnavailable, unreplayable
from controller.log.joincode import JoinCode
from controller.log.store import Store
from controller.match import table
from controller.match.scores import scores
from controller.match.stats import OneReplay, register_stats
from controller.rules import classic
from controller.rules.state import GameState, turn
from controller.text import advice, wording

log = logging.getLogger("launcherd.game")

# Actions that are a move of whoever's turn it is: the log says who, filled in when not given.
TURN_ACTIONS = frozenset({"play", "first_attack", "press", "insert", "pass", "challenge", "accept"})


def press_meaning(current: table.Table | None, held: bool = False, deck: int | None = None) -> dict[str, Any]:
    """What a press of the button means at this table (``launcher/press-means``'s params).

    No dealer match at the table (none, or UNO Attack, Blast): the ejection policy's burst. A dealer
    match: the draw of exactly one card by the player whose move it is when the round lets them
    draw; else nothing, with what to settle first (a deal owed, a challenge, the Minions counts,
    the first card, a card just drawn, the round's hands, a new game once the match is over).
    ``held``: the deal owed waits for a person's press (an undo, a resumed match): the press the
    core takes as nothing lets it go on, and says so. ``deck``: the opening deal waits for the
    deck of that many cards to be loaded: a press once it is loaded deals."""
    if current is None or not dealer_mode(current.game):
        return {"means": "policy"}
    if not current.match_over and classic.draw_allowed(current.game):
        return {"means": "cards", "cards": 1, "player": turn(current.game)}
    if deck is not None and owes_deal(current.game):
        return {"means": "nothing", "reason": advice.press_deals_deck(deck)}
    if held and owes_deal(current.game):
        first = current.game.queue[0]
        return {"means": "nothing", "reason": advice.press_deals_held(current.game.players[first.seat],
                                                                      _owed_cards(current.game))}
    return {"means": "nothing", "reason": advice.press_settles_first(current)}


def _not_while_dealing(state: GameState) -> None:
    """The dealer games: a round does not end while the launcher deals it (the hands are not known
    yet, and the cards under way would come out for a round that is over). A new action only: a
    log written before this rule replays as it was accepted. A round won with a last-card draw
    still owed says so itself (``draw_still_owed``)."""
    if owes_deal(state) and not state.round_over:
        owed = state.queue[0]
        raise Refused(message("deal_still_owed", player=state.players[owed.seat], cards=owed.presses))


def _winner_text(current: table.Table) -> str | None:
    winner = scores(current.match)["winner"]
    return " and ".join(winner) if isinstance(winner, list) else winner


class GameService(LogKeeping, OutcomeIntake, Dealing, Reading):
    """The live table of one daemon: the current match, its log, and what the launcher reports."""

    def __init__(self, daemon: Any, sleep: Callable[[float], Awaitable[None]] = asyncio.sleep):
        self.daemon = daemon
        self._sleep = sleep  # the pauses of dealing: tests give their own clock
        self.store: Store | None = None  # the log, once open()
        self.damage: Damage | None = None  # why the game cannot be played as it stands
        self.match_id: int | None = None
        self.table: table.Table | None = None
        # The hopper as follow_hopper() last read it (at each launch outcome and state change, and at
        # game/status): status() runs after every request and event, and each live reading is a
        # round trip to the motor's loop (bench/loaded.py: the readers' count stops came later).
        self._hopper_read: int | None = None
        self._low = False  # the hopper was last seen under RELOAD_BELOW: warn once per crossing
        self._last_press: tuple[int, str] | None = None  # (press_id, presser) of the last logged press
        self._keeping_summaries = OneReplay()  # the one replay of missing history summaries
        self._shown: tuple[table.Table, dict[str, Any]] | None = None  # the table's status, cached
        self._tasks: set[asyncio.Future] = set()
        self._dealing: asyncio.Task | None = None  # dealer mode: the deal of what the round owes
        self._aiming: asyncio.Task | None = None  # the servo's one move under way
        self._aim_next: tuple[int, int] | None = None  # (seat, seats) to turn to once it is done
        self._aim_stale = False  # an undo changed whose move it is without turning the launcher
        # An undo leaves what it took back owed again: nothing is dealt until a person moves on.
        self._deal_held = False
        # The round's opening deal waits for the whole deck in the hopper (its size), loaded by a
        # person; a press once it is loaded deals it (#40). None: nothing waits for the deck.
        self._deck_wait: int | None = None
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
            self.table = table.replay(record.action for record in records)
        except ApiError as exc:
            # A log this version cannot replay: keep it untouched and refuse to build on it.
            self._broken(unreplayable(self.log_path, match.id, advice.reason(exc)))
            return
        log.info("game: match %d resumed, %d action(s)", match.id, len(records))
        # The table's last word was an undo: what it left owed waits, as it did before the restart.
        self._deal_held = _held_by_undo(self.store, match.id)
        self._aim_at_turn()
        # What the log does not show dealt is dealt, unless an undo holds it, once a person presses.
        self._orphaned = owes_deal(self.table.game)
        self._kept_deck_wait()
        self._follow_deals()
        if self._deck_wait is not None and self._orphaned:
            # A dispense of the previous layer may still be dealing this round's first pile: it is
            # ended and its cards taken in first; then the deal, begun, goes on (_recheck_deck).
            self._background(self._orphans_then_deck())
        self._wait_press = "restart" if self._dealing is not None or self._deck_wait is not None else False

    def _table(self) -> table.Table:
        if self.table is None:
            if self.damage is not None:
                raise GameUnavailable(self.damage)
            raise NotFound(advice.no_game(self.log_path))
        return self.table

    def _table_status(self) -> dict[str, Any]:
        """The table's status, rebuilt only when the table changed (the scores are not free)."""
        if self._shown is None or self._shown[0] is not self.table:
            shown = table.status(self.table)
            shown["match_id"] = self.match_id
            self._shown = (self.table, shown)
        return dict(self._shown[1])

    def status(self) -> dict[str, Any]:
        """The table's status with the match id, the reload advice, where the log is, and any damage."""
        if self.table is None and self.damage is None:
            raise NotFound(advice.no_game(self.log_path))
        shown = self._table_status() if self.table is not None else {"match_id": self.match_id}
        if self.table is not None:
            # Who moves now and what they may do, in words (the object beside it for any language).
            said = advice.what_now(self.table)
            shown["what_now"], shown["what_now_object"] = wording.text(said), said
            shown["press_means"] = press_meaning(self.table, self._deal_held, self._deck_wait)
            if self._deck_wait is not None:
                said = advice.load_deck(self._deck_wait, self._hopper_read)
                shown["what_now"], shown["what_now_object"] = wording.text(said), said
            # The deck the opening deal waits for: {"cards": its size, "hopper": the launcher's count}.
            shown["load_deck"] = (None if self._deck_wait is None
                                  else {"cards": self._deck_wait, "hopper": self._hopper_read})
        shown["reload_advice"] = advice.reload_advice(self._hopper_read)
        shown["state_dir"] = str(self.daemon.state_dir)
        if self.damage is not None:
            shown["damage"] = self.damage.to_json()
        return shown

    def fresh_status(self) -> dict[str, Any]:
        """``game/status``: a reload while the launcher is ready changes no state, so ask now."""
        self.retry_open()  # a log a full disk kept closed opens once there is room (logkeeping.py)
        self.follow_hopper()
        return self.status()

    def status_for_daemon(self) -> dict[str, Any] | None:
        """The ``game`` key of ``status/get``: None without a game, never an exception."""
        self.retry_open()
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
        current = self._table()
        if action["type"] in TURN_ACTIONS and "by" not in action:
            mover = turn(current.game)
            action = action if mover is None else {**action, "by": mover}  # the log says who acted
        if action["type"] == "end_round":
            _not_while_dealing(current.game)
        before = current
        held = self._deal_held and owes_deal(before.game)  # what an undo left owed, waiting for a press
        current, effects = table.apply(current, action)
        with self._writing() as store:
            seq = store.append(self.match_id, action, over=current.match_over,
                               winner=_winner_text(current) if current.match_over else None,
                               outcome_seq=outcome_seq)
        self.table = current
        if _owed_cards(current.game) > _owed_cards(before.game):
            # Only an action whose own effect is cards to deal lets a held deal go on with them;
            # an unrelated one (an Uno, a hint) does not: a press of the button deals them (#36).
            if held:
                # What the undo held stands first in the queue and is no effect of this action (a
                # catch's penalty): neither is dealt before a person's press, which deals both.
                first = before.game.queue[0]
                effects.append(wording.effect(advice.deal_held_first(
                    before.game.players[first.seat], _owed_cards(before.game))))
            else:
                self._deal_held = False
        if current.match_over:
            self._stop_dealing()  # a match that is over deals nothing more (it owes nothing)
        self.daemon.publish("game/action", {"seq": seq, "match_id": self.match_id, "action": action})
        if action["type"] == "end_round" and not current.match_over:
            effects.append(wording.effect(advice.dealing_advice(current.game.ruleset, len(current.game.players))))
            self._ask_deck()  # the next round's deal: from the whole deck, shuffled again
            if self._deck_wait is not None:
                effects.append(wording.effect(advice.load_deck(self._deck_wait, self._hopper_read)))
        if action["type"] == "turn_up" and not dealer_mode(current.game):  # the draw pile is one card less
            effects.append(wording.effect(advice.draw_pile(current.game.ruleset, len(current.game.players),
                                                         current.game.turned)))
        self._follow_deals()
        return self._reply(effects)

    def start(self, action: dict[str, Any], force: bool = False) -> dict[str, Any]:
        """A new match: checked, its first action logged, then live (the previous one stays in history)."""
        self._writable()
        if self.table is not None and not self.table.match_over and not force:
            raise Refused(advice.still_running(self.match_id, list(self.table.match.players),
                                             self.table.game.round_no))
        current, effects = table.new_table(action)
        previous = self.match_id if self.table is not None and not self.table.match_over else None
        with self._writing() as store:
            self.match_id = store.start_match(action)
        self._stop_dealing()  # the previous match's deal: its cards are not this match's
        self.table, self._last_press, self._deal_held = current, None, False
        self._ask_deck()
        self._follow_deals()
        if self.damage is not None:  # an unreplayable match no longer stands in the way
            self.damage = None
        self.daemon.publish("game/action", {"seq": None, "match_id": self.match_id, "action": action})
        effects.append(wording.effect(advice.dealing_advice(current.game.ruleset, len(action["players"]))))
        if self._deck_wait is not None:  # said on its own, after how the launcher deals
            effects.append(wording.effect(advice.load_deck(self._deck_wait, self._hopper_read)))
        if previous is not None:
            effects.insert(0, wording.effect(advice.set_aside(previous)))
        return self._reply(effects)

    def resume_match(self, match_id: int) -> dict[str, Any]:
        """``game/resume``: make an earlier match the table's again, as its log left it."""
        store = self._writable()
        if match_id == self.match_id and self.table is not None:
            raise Refused(advice.already_current(match_id))
        with self._reading():
            store.match(match_id)
            records = store.actions(match_id)
            held = _held_by_undo(store, match_id)
        try:
            current = table.replay(record.action for record in records)
        except ApiError as exc:
            raise Refused(advice.cannot_replay(match_id, advice.reason(exc))) from None
        previous = self.match_id if self.table is not None and not self.table.match_over else None
        with self._writing() as store:
            store.set_current(match_id)
        self._stop_dealing()
        self.table, self.match_id, self._last_press, self.damage = current, match_id, None, None
        # A resumed match deals nothing by itself: what it owes waits for a person's press (#36).
        self._deal_held = held or owes_deal(current.game)
        # Only a deal that waited for its deck when it was set aside waits for it: cards of a deal
        # under way may have come out uncounted, and the hopper says nothing of that.
        self._kept_deck_wait()
        self._aim_at_turn()
        self._follow_deals()
        said = [advice.resumed(match_id)]
        if self._deck_wait is not None:
            said.append(advice.load_deck(self._deck_wait, self._hopper_read))
        elif owes_deal(current.game):
            owed = current.game.queue[0]
            said.append(advice.deal_waits_resumed(current.game.players[owed.seat], owed.presses))
        if previous is not None:
            said.insert(0, advice.set_aside(previous))
        return self._reply([wording.effect(message) for message in said])

    def abandon(self) -> dict[str, Any]:
        """``game/abandon``: no match at the table; the one that was stays in history, resumable."""
        store = self._writable()
        self._table()
        with self._writing():
            store.set_current(None)
        self._stop_dealing()
        abandoned = self.match_id
        # (a deck it waited for stays noted in the log: resumed, it still waits for it)
        self.table, self.match_id, self._last_press, self._deck_wait = None, None, None, None
        said = advice.set_aside(abandoned)
        self.publish_message(said)
        self.tell_press_meaning()
        return {"abandoned": abandoned, **wording.reply_messages([said])}

    def undo(self) -> dict[str, Any]:
        """Take back the match's last live action (kept in the log, marked undone): a replay without it."""
        store = self._writable()
        self._table()
        with self._reading():
            records = store.actions(self.match_id)
        if len(records) < 2:
            raise Refused(advice.nothing_to_undo())
        last = records[-1]
        current = table.replay(record.action for record in records[:-1])
        with self._writing():
            store.undo(self.match_id, last.seq, over=current.match_over,
                       winner=_winner_text(current) if current.match_over else None)
        self._stop_dealing()  # never dealt again by an undo: the next undo may take back its cause
        self.table, self._last_press, self._deal_held = current, None, True
        # An undo never begins a round: a deal that waited for its deck still does, if it is owed.
        self._set_deck_wait(self._deck_missing() if self._deck_wait is not None else None)
        self.daemon.publish("game/action", {"seq": last.seq, "match_id": self.match_id, "undone": True})
        # Whose cards they are: the press's own record, or (older logs) whose move it is again.
        who = last.action.get("by") or turn(current.game)
        said = [advice.undone(last.action, who)]
        if owes_deal(current.game):
            said.append(advice.deal_held(current.game.players[current.game.queue[0].seat], current.game.queue[0].presses,
                                         last.action))
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
        return {**self.status(), **wording.reply_messages(said)}

    def tell_press_meaning(self) -> None:
        """Tell the launcher what a press means now, when it changed (``press_meaning``): the core
        applies it at the press, so the motor's loop never waits on the game. In the background, in
        order; a launcher that could not be told is told again at the next change."""
        meaning = press_meaning(self.table, self._deal_held, self._deck_wait)
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
            self._aim(*table.seat_of(self.table, player))

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
            except (Unavailable, Refused):
                # No aim servo fitted, or it may not turn now (halted, the lid open, a press
                # awaited): the launcher stays where it is, and nothing is broken.
                pass
            except ApiError as exc:
                log.warning("game: aiming at seat %d of %d failed: %s", seat, seats, exc.message)

    def _background(self, coroutine: Any) -> asyncio.Task:
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)  # a reference until it is done, or the loop may drop it
        task.add_done_callback(self._tasks.discard)
        return task

    def follow_hopper(self) -> None:
        """Say once when the launcher's hopper estimate falls low enough to reload."""
        self._hopper_read = self.daemon.hopper
        reload = advice.reload_advice(self._hopper_read)
        if reload["reload"] and not self._low and self.table is not None:
            self.publish_message(reload["text_object"])
        self._low = reload["reload"]


def _owed_cards(state: GameState) -> int:
    """The cards the round owes to be dealt (dealer mode's queue)."""
    return sum(owed.presses for owed in state.queue) if owes_deal(state) else 0


def _held_by_undo(store: Store, match_id: int) -> bool:
    """The match's latest action was undone: what the undo left owed waits for the table to move on."""
    latest = store.actions(match_id, include_undone=True)
    return bool(latest) and latest[-1].undone


def setup(host: LayerHost) -> GameService:
    """Open the log, resume, register, subscribe, and catch up on the launches made while no game
    was there (:func:`prepare`, then :func:`begin`)."""
    service = prepare(host)
    begin(service)
    return service


def prepare(host: LayerHost) -> GameService:
    """The game's first half: the log opened and resumed, its methods and status registered with
    ``host`` (the game process then registers them with launcherd, controller/layer/process.py)."""
    service = GameService(host)
    service.open()  # whatever the log's state, the launcher runs: the game methods say why not
    host.on_close(service.close)
    methods.register(host, service)
    methods.register_code(host, JoinCode(host.state_dir))
    register_stats(host, service)
    host.subscribe(service.on_event)  # before catching up: nothing falls between the two
    host.add_status("game", service.status_for_daemon)
    return service


def begin(service: GameService) -> None:
    """The second half, once registered: catch up on the outcomes, say what a press means."""
    service.follow_hopper()  # the core is built before the game: its estimate is there already
    service.catch_up()
    service._recheck_deck()  # a deal caught up on has begun: it waits for the deck no more
    service.tell_press_meaning()  # a dealer's press means nothing until this is told


