"""Dealer mode (``classic``, ``despicable-me-4``) in the game layer's service: what the round owes
(the opening 7 to every seat, Draw Two, Wild Draw Four, penalties, Minions) is dealt by one
background task that reads the owed deals from the state, aims at each seat (or pauses between
the opening piles where no aim servo is fitted) and asks ``launcher/dispense``; and a draw, the one
card dealt for a press (or ``game/draw``). What the launcher dealt is logged as a ``press`` of the
player it was for.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from firmware.errors import ApiError, Refused, Unavailable

from controller.log.damage import GameUnavailable
from controller.match import table
from controller.rules import game
from controller.rules.rulesets import deck_size
from controller.rules.state import HAND, GameState, turn
from controller.text import advice

log = logging.getLogger("launcherd.game")

# A dispense that gave fewer cards than asked is tried again after this at the least: a launcher that
# reports ready but gives nothing must not be asked in a tight loop.
DEAL_RETRY_S = 0.5
LAUNCHER_READY = frozenset({"ready", "sleeping"})  # a dispense may be asked (it wakes a sleeping one)


def dealer_mode(state: GameState) -> bool:
    """The launcher deals every card of this round (classic, despicable-me-4)."""
    return game.ruleset(state.ruleset).dealer


def owes_deal(state: GameState) -> bool:
    return dealer_mode(state) and bool(state.queue)


def deck_wanted(state: GameState, hopper: int | None) -> int | None:
    """The deck a round's opening deal needs in the hopper, when it is not there: its size while
    the opening deal has not begun (7 owed to every seat, none dealt) and the launcher's count is
    not the deck's (or is unknown); else None. A deal from whatever else is loaded (the 90 cards
    left by an UNO Attack game) would deal the wrong cards (#40)."""
    if not owes_deal(state) or state.round_over:
        return None
    if any(owed.reason != "deal" for owed in state.queue):
        return None
    if sum(owed.presses or 0 for owed in state.queue) != HAND * len(state.players):
        return None
    size = deck_size(game.ruleset(state.ruleset))
    return None if size is None or hopper == size else size



class Dealing:
    """Part of :class:`~controller.layer.service.GameService`: the deal of what the round owes, and draws."""

    def _follow_deals(self) -> None:
        """Deal what the round owes, in the background, unless it is being dealt already or an undo
        holds it."""
        if self.table is None or self._deal_held or not owes_deal(self.table.game):
            return
        if self._dealing is not None and not self._dealing.done():
            return
        if self._deck_wait is not None:
            return  # the deck is loaded first; then a person's press deals (never the reload itself)
        self._dealing = self._background(self._deal(self.match_id))

    def _deck_missing(self) -> int | None:
        """The deck's size when the round's opening deal waits for it to be loaded (asked of the
        launcher now: a reload while it is ready is no event)."""
        if self.table is None:
            return None
        self._hopper_read = self.daemon.hopper
        return deck_wanted(self.table.game, self._hopper_read)

    def _ask_deck(self) -> None:
        """A round begins (a new game, the next round, a match resumed): its opening deal waits
        for the whole deck when the hopper does not hold it."""
        self._set_deck_wait(self._deck_missing())

    def _set_deck_wait(self, deck: int | None) -> None:
        """The deck the opening deal waits for (None: none), kept in the log's meta for a restart."""
        self._deck_wait = deck
        if self.store is None or self.damage is not None:
            return
        kept = "" if deck is None or self.table is None else f"{self.match_id}:{self.table.game.round_no}"
        try:
            if self.store.deck_wait() != kept:
                with self._writing() as store:
                    store.set_deck_wait(kept)
        except ApiError as exc:
            log.warning("game: the deck awaited could not be noted in the log: %s", exc)

    def _kept_deck_wait(self) -> None:
        """After a restart: the deck the round's opening deal waited for before it, if it still has
        not begun (the hopper is not asked: cards of a deal under way may have come out unlogged)."""
        deck = deck_wanted(self.table.game, None) if self.table is not None else None
        try:
            kept = self.store.deck_wait()
        except Exception:  # an unreadable meta: as if nothing waited (the keeper still holds the deal)
            kept = ""
        self._deck_wait = deck if kept == f"{self.match_id}:{self.table.game.round_no}" else None

    def _recheck_deck(self) -> None:
        """Cards of this round's opening deal were taken in after the deck was asked for (a restart
        caught up on a deal under way): the deal has begun, and goes on as any deal does."""
        if self._deck_wait is not None and self._deck_missing() is None:
            self._set_deck_wait(None)
            self._follow_deals()
            self.tell_press_meaning()

    async def _orphans_then_deck(self) -> None:
        await self._end_orphans()
        self._recheck_deck()

    def _deck_loaded_press(self) -> bool:
        """A person's press while the opening deal waits for the deck: the deal starts when the
        deck is in the hopper now (the press is its cause), else the table hears again what to
        load. True when the press was for the deck."""
        if self._deck_wait is None or self.table is None:
            return False
        self._ask_deck()
        if self._deck_wait is None:
            # This press is the person's, at the launcher: it deals (a wait after a restart, for
            # somebody to be there, is over with it; the keeper judges the press all the same).
            self._deal_held, self._wait_press = False, False
            self._follow_deals()
        else:
            self.publish_message(advice.load_deck(self._deck_wait, self._hopper_read))
        self.tell_press_meaning()
        return True

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
        while self.match_id == match_id and self.table is not None and owes_deal(self.table.game):
            state = self.table.game
            owed = state.queue[0]
            player = state.players[owed.seat]
            seat, seats = table.seat_of(self.table, player)
            if aimed is None or aimed:
                aimed = await self._aim_now(seat, seats)
            if pause and owed.reason == "deal" and not aimed:
                await self._deal_pause(state, player)
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
        except Refused:
            pass  # it may not turn now (halted, the lid open, a press awaited): nothing is broken
        except ApiError as exc:
            log.warning("game: aiming at seat %d of %d failed: %s", seat, seats, exc.message)
        return True

    async def _deal_pause(self, state: GameState, player: str) -> None:
        """Between two piles of the opening deal without a servo: time for the dealer to hand one over."""
        options = dict(state.options)
        if options["deal_pause"] == "press":
            self.publish_message(advice.deal_pause_press(player))
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
                self.publish_message(advice.deal_waits(player, advice.reason(exc)))
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
            self.publish_message(advice.dealt_too_many(player, outcome["cards"], count))
        rest = cards - dealt["logged"]  # a card counted after its run's outcome (it fell out late)
        if rest > 0 and not self._log_dealt(player, rest, outcome.get("press_id")):
            return None
        if cards < count:
            self.publish_message(advice.deal_short(player, cards, count, outcome.get("ended")))
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
            self.publish_message(advice.dealt_after_stop(cards))

    async def _launcher_ready(self, after_s: float | None) -> None:
        """Wait ``after_s`` (a motor rest), then until the launcher is ready (a jam cleared, a reload)."""
        if after_s:
            await self._sleep(after_s)
        while self.daemon.launcher_status().get("state") not in LAUNCHER_READY:
            self._launcher_changed.clear()
            await self._launcher_changed.wait()

    def _log_dealt(self, player: str, cards: int, press_id: Any, outcome_seq: int | None = None) -> bool | None:
        """Cards the launcher dealt for ``player``, logged as their press (with the launch outcome
        ``outcome_seq`` it takes in). True when logged; else the table hears that they are not
        counted, and None says the log's commit failed (its damage)."""
        try:
            self.act({"type": "press", "cards": cards, "press_id": press_id, "by": player},
                     outcome_seq=outcome_seq)
        except ApiError as exc:
            self.publish_message(advice.uncounted_deal(cards, player, advice.reason(exc)))
            return None if isinstance(exc, GameUnavailable) else False
        self._recheck_deck()
        return True

    def _busy_dealing(self) -> bool:
        """A deal or a draw's card is being dispensed: a second draw waits for none (one card per draw)."""
        return self._drawing or (self._dealing is not None and not self._dealing.done())

    async def _dispense_draw(self) -> dict[str, Any]:
        """The one card of a draw, once any dispense under way is over: the launcher's reply."""
        self._drawing = True
        try:
            return await (await self._dispense_after_others(1))
        finally:
            self._drawing = False

    async def _draw_for(self, player: str | None) -> None:
        """A press gave no card where a draw is due: the launcher deals the one card."""
        if self._busy_dealing():
            self.publish_message(advice.press_while_dealing(player))  # a second press: one card per draw
            return
        try:
            call = await self._dispense_draw()
        except ApiError as exc:
            self.publish_message(advice.draw_failed(player, advice.reason(exc)))
            return
        cards = call.get("cards", 0)
        if not cards:
            self.publish_message(advice.draw_failed(player, advice.no_card_came_out(call.get("ended"))))
            return
        self._log_dealt(player, cards, call.get("press_id"))

    async def draw(self, by: str | None) -> dict[str, Any]:
        """``game/draw``: whose move it is draws exactly one card; the reply once it is counted."""
        current = self._table()
        if game.ruleset(current.game.ruleset).blaster:
            raise Refused(advice.no_draw_blast())
        if not dealer_mode(current.game):
            raise Refused(advice.no_draw(current.game.ruleset))
        if self._deck_wait is not None:  # the opening deal waits for its deck: no card before it
            raise Refused(advice.load_deck(self._deck_wait, self._hopper_read))
        player = turn(current.game)
        table.apply(current, {"type": "press", "cards": 1, "by": by or player})  # refused here if not due
        if self._busy_dealing():
            raise Refused(advice.busy_dealing())
        self._writable()
        outcome = await self._dispense_draw()
        if not outcome.get("cards"):
            raise Refused(advice.draw_failed(player, advice.no_card_came_out(outcome.get("ended"))))
        return self.act({"type": "press", "cards": 1, "press_id": outcome.get("press_id"), "by": player})

