"""What the launcher reports, taken in by the game layer's service: presses and dispenses become
moves (``press`` actions), the blaster's insertions and blasts become ``insert`` actions, each
launch outcome exactly once, in order, even across a log that could not be written for a while.
"""

from __future__ import annotations

import logging
from typing import Any

from firmware.errors import ApiError, Refused

from controller.layer.dealing import dealer_mode, owes_deal
from controller.log.damage import GameUnavailable
from controller.match import table
from controller.rules import game
from controller.rules.state import turn
from controller.text import advice

log = logging.getLogger("launcherd.game")

# Presses that are moves of the game; "dispense" deals exact counts outside the flow.
GAME_PRESS_SOURCES = frozenset({"button", "api"})
# How a burst is cut short before the launcher meant it to end: the press's log says so (#40).
CUT_SHORT = frozenset({"jam", "empty", "lid"})
# Why the launcher ignores a press in a game of bursts, said to the table (#40): not a press.
IGNORED_SAID = {"jammed": "press_ignored_jammed", "lid_open": "press_ignored_lid", "halted": "press_ignored_halted",
                "beam_blocked": "press_ignored_beam"}


class OutcomeIntake:
    """Part of :class:`~controller.layer.service.GameService`: the launcher's events, as moves."""

    # The identity of the outcome record the log's outcome seq is of (firmware/daemon/outcomes.py),
    # as the log keeps it (controller/log/store.py); None: a log that has not taken one in yet.
    _outcome_record: str | None = None

    def catch_up(self) -> None:
        """Take in the launch outcomes recorded while the service was not there to hear them (or
        could not log them), in order; one whose commit fails again stops it there."""
        missed = self.daemon.outcomes_after(self._outcome_seq, self._outcome_record)
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

    def _known(self, params: dict[str, Any]) -> bool | None:
        """Whether launch outcome ``params`` is in the log already; None when the record it is of
        could not be brought into the log (it waits there, as an outcome whose commit failed)."""
        seq, record = params.get("seq"), params.get("record")
        if not isinstance(seq, int):
            return False
        if isinstance(record, str) and record != self._outcome_record:
            # Another record than the one the log's seq is of: one started afresh (the file was
            # lost or damaged), whose numbers say nothing of the log's. What it holds before this
            # outcome is taken in first, in order, by the catching up, which brings it in.
            if not self._catching_up:
                self.catch_up()
                if self._unlogged is not None:
                    return None
            if record != self._outcome_record and not self._adopt(record, seq - 1):
                return None
        return seq <= self._outcome_seq

    def _adopt(self, record: str, seq: int) -> bool:
        """From now on the log takes in outcomes of ``record``, up to ``seq`` taken in already."""
        try:
            with self._writing() as store:
                store.adopt_outcome_record(record, seq)
        except ApiError as exc:
            if not isinstance(exc, GameUnavailable):  # the log's damage is said once where it was found
                log.warning("game: outcome record %s not taken up: %s", record, exc)
            if self._unlogged is None:
                self._unlogged = seq + 1
            return False
        if self._outcome_record is not None:  # not a log's first: the record was started afresh
            log.warning("game: launch outcomes now come from outcome record %s (this log took in up to %d"
                        " of record %s)", record, self._outcome_seq, self._outcome_record)
        self._outcome_record, self._outcome_seq = record, seq
        return True

    def _take_outcome(self, params: dict[str, Any]) -> bool:
        """A launch outcome, taken in once: False for one taken in already (caught up on)."""
        seq = params.get("seq")
        known = self._known(params)
        if known:
            return False
        if params.get("source") == "button":
            self._pressed.set()
        if known is None:
            self._say_held(params)
            return True
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
            self.publish_message(advice.uncounted_press(params.get("press_id"), params.get("cards", 0),
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
            self.publish_message(advice.empty_press(press_id))
            return False
        presser = turn(self.table.game)
        state = self.table.game
        if params.get("outcome") == "draw" and not cards:
            # The draw the press meant gave no card (a misfeed, the lid, a jam before the card):
            # nobody drew; the player presses again once the launcher is ready.
            self.publish_message(advice.draw_failed(presser, advice.no_card_came_out(params.get("ended"))))
            return False
        if not cards and owes_deal(state):
            # A dry press while cards are owed: nobody moved, the deal goes on (or, held by an
            # undo, starts again: a person pressed for it), once the deck it waits for is loaded.
            if self._deck_loaded_press():
                return False
            self._deal_held = False
            self._follow_deals()
            self.tell_press_meaning()
            return False
        if not cards and dealer_mode(state):
            # A draw is exactly one card: the launcher deals the one this press did not give, if the
            # round lets this player draw now (never a card nobody may take).
            try:
                table.apply(self.table, {"type": "press", "cards": 1, "by": presser})
            except ApiError as exc:
                self.publish_message(advice.uncounted_press(press_id, cards, advice.reason(exc)))
                return False
            self._background(self._draw_for(presser))
            return False
        press = {"type": "press", "cards": cards, "press_id": press_id}
        ended = params.get("ended")
        cut = ended if ended in CUT_SHORT and params.get("outcome") == "burst" else None
        if cut is not None:
            press["ended"] = cut  # the log (what happened) says the burst was cut short, and how
        try:
            self.act(press if presser is None else {**press, "by": presser}, outcome_seq=seq)
        except ApiError as exc:
            self.publish_message(advice.uncounted_press(press_id, cards, advice.reason(exc)))
            return None if isinstance(exc, GameUnavailable) else False
        self._last_press = (press_id, presser)
        if cut is not None and presser is not None:
            self.publish_message(advice.burst_cut(presser, cards, cut, self._still_owed(presser)))
        return True

    def _still_owed(self, player: str) -> int | None:
        """The presses ``player`` still owes now (0: none; None: until cards come out)."""
        state = self.table.game
        owed = state.queue[0] if state.queue else None
        if owed is None or state.players[owed.seat] != player:
            return 0
        return owed.presses

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
        elif ((self._catching_up or self._orphaned) and owes_deal(self.table.game)
              and (self._dispensing is None or self._dispensing.done())):  # not a draw's, logged by it
            owed = self.table.game.queue[0]
            player, take = self.table.game.players[owed.seat], min(cards, owed.presses)
            if cards > take:
                self.publish_message(advice.dealt_too_many(player, cards, take))
        else:
            return False
        logged = self._log_dealt(player, take, params.get("press_id"), seq)
        if logged and ours is not None:
            ours["logged"] += take
        return logged

    def _press_ignored(self, params: dict[str, Any]) -> None:
        """The launcher ignored a press: a decision is pending (the table is told what to settle, a
        deal held by an undo is dealt now that a person pressed, a pause between piles ends), or it
        deals for the game (a second press after a draw)."""
        if params.get("reason") == "decision_pending" and params.get("source") in GAME_PRESS_SOURCES:
            self._decision_press(params.get("message_object"))
            return
        said = IGNORED_SAID.get(str(params.get("reason")))
        if (said is not None and params.get("source") in GAME_PRESS_SOURCES and self.table is not None
                and not dealer_mode(self.table.game) and not game.ruleset(self.table.game.ruleset).blaster):
            # A press the launcher did not take (a card stuck, the lid open, halted): no move of
            # the game, and the table hears why, and whose a stuck card is (#40).
            owner = self._last_press[1] if self._last_press is not None and said == "press_ignored_jammed" else None
            self.publish_message(advice.press_ignored(said, turn(self.table.game), owner))
            return
        if params.get("source") != "button" or self.table is None or not dealer_mode(self.table.game):
            return
        if (self._dispensing is not None and not self._dispensing.done()) or params.get("reason") == "launching":
            # A second press while a deal or a draw's card comes out: one card per draw.
            self.publish_message(advice.press_while_dealing(turn(self.table.game)))

    def _decision_press(self, reason: dict[str, Any] | None) -> None:
        """A press that meant nothing: ``reason`` (what to settle first, as the core had it) is said."""
        self._pressed.set()  # the press a pause between piles waits for (deal_pause=press)
        if self.table is None or not dealer_mode(self.table.game):
            return
        if owes_deal(self.table.game) and self._deck_loaded_press():
            return  # the opening deal waited for the deck: dealt now if it is loaded, else asked again
        if owes_deal(self.table.game) and self._deal_held:
            self._deal_held = False  # held by an undo: a person pressed for it
            self._follow_deals()
            self.tell_press_meaning()
            return
        if reason is not None:
            self.publish_message(reason)

    def _maybe_turned_up(self) -> None:
        """A dispense nobody in the game asked for, while the pile has no card: the one turned up."""
        state = self.table.game
        ours = self._dispensing is not None and not self._dispensing.done()
        if dealer_mode(state) and not ours and not state.queue and state.top_card is None and not state.round_over:
            self.publish_message(advice.tell_turned_up())

    def _late_card(self, params: dict[str, Any]) -> None:
        """A card counted after its press was resolved (it fell out late): it is the presser's too."""
        if self._last_press is not None and params.get("press_id") == self._last_press[0]:
            try:
                self.act({"type": "cards", "cards": 1, "press_id": params.get("press_id"),
                          "by": self._last_press[1]})
            except ApiError as exc:
                self.publish_message(advice.uncounted_late_card(advice.reason(exc)))

    # ---- the blaster (blast) ----------------------------------------------------------------

    def _take_blaster_outcome(self, name: str, params: dict[str, Any]) -> None:
        """An insertion or a blast, taken in once, as a launch outcome is (``_take_outcome``)."""
        seq = params.get("seq")
        if self._known(params) is not False:
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
        if self.table is None or not game.ruleset(self.table.game.ruleset).blaster:
            return False
        who = turn(self.table.game)
        if params.get("outcome") == "blast":
            self._blasts[params.get("insert_id")] = who
            return False
        return self._log_insert({"type": "insert", "blast": False, "cards": 0,
                                 "insert_id": params.get("insert_id")}, who, seq)

    def _blasted(self, params: dict[str, Any], seq: int | None) -> bool | None:
        if self.table is None or not game.ruleset(self.table.game.ruleset).blaster:
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
            self.publish_message(advice.uncounted_insert(action["insert_id"], action["cards"], advice.reason(exc)))
            return None if isinstance(exc, GameUnavailable) else False

    def insert_typed(self, params: dict[str, Any]) -> dict[str, Any]:
        """``game/insert``: an insertion typed at the table, refused where a blaster reports its own."""
        if "slots" in self.daemon.launcher_status():  # the blaster's core: each insertion is an event
            raise Refused(advice.blaster_counts_inserts())
        return self.act({"type": "insert", **params})
