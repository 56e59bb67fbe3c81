"""The launcher core: a sans-IO state machine from input events to output actions.

The driver (``firmware/daemon/driver.py``) owns the clock and the devices. It feeds every pin edge and API
request to :meth:`Launcher.handle` with the time it happened, applies the actions that come back,
and feeds a :class:`~firmware.events.Tick` at (or after) :meth:`Launcher.next_deadline`. Nothing
here reads a clock, touches a pin or sleeps, so a test can drive years of operation in milliseconds
and every run with the same inputs gives the same outputs.

:class:`Launcher` is the state machine; it owns all the state and composes the parts that handle
one idea each: the button (:mod:`.button`), the beam (:mod:`.beam`), presses and what they mean
(:mod:`.presses`), the motor's motion (:mod:`.motion`) within its on-time rules
(:mod:`.motor_limits`), the hopper and its lid (:mod:`.hopper`), and the LED and chime
(:mod:`.feedback`); :mod:`.states` holds what they share. Here: the driver's interface, the
timers, the input levels at start, a stalled driver, states and refusals, sleep, bring-up and reset.

Rules the contract in ``docs/internals.md`` leaves open, as settled here:

- Timers run in deadline order *before* the event given to ``handle``, each at its own deadline.
  A late ``Tick`` therefore gives the same result as a punctual one, and an edge that arrives
  after a deadline without a ``Tick`` in between is judged after that deadline has done its work;
  but a beam edge with ``at`` takes its place among the timers at that time (those due before it
  run first, the rest after it): a card that cleared in time is no jam because the loop paused.
  Time never runs backwards: a ``now`` earlier than the last one seen is taken as the last one.
  An edge handed over late comes with ``at``, the pin backend's time of it: a beam block's length
  is measured between its two edges' ``at``, so a card whose edges both reach the driver late is
  still as long as it was at the slot. The beam's jam timer runs from ``at`` too, never earlier
  than ``now`` (a card stuck ``jam_ms`` stops the motor then); a block handed over after its jam
  time is judged at the next ``Tick``, not within its own ``handle``, so that the clearing edge
  of a card that crossed in time, queued behind it, comes first. Everything else (the debounce, the
  other deadlines, the motor's phases, the stall check) runs on ``now``, when the driver got the
  event: a late edge must not cut a reverse pulse short or arm a deadline already past, and a
  debounce timed from the backend's edge let a bounced press count twice on the VM's real lines.
- Within one list of actions, device actions come before ``Emit`` events (each kind keeping its
  order), so a subscriber that hears of a state already finds the devices in it.
- Debounce: a ``ButtonLevel`` change counts once the raw level has stayed the same for
  ``button_debounce_ms`` after its *last* edge, or at once when the backend has waited for that
  already (``debounced``: lgpio). A held button is one press; a release is nothing.
- Beam: a block of at least ``beam_filter_ms`` is a card, counted when the beam clears. A block
  reaching ``jam_ms`` is a jam, counted then and never again for that block, however long it stays.
  A card with no launch running goes to the last press; before the first press there is nobody to
  give it to, so it is not counted (a hand at the slot, not a card from the motor).
- Feed timeout: armed when the motor starts; paused while the beam is blocked (the jam timer rules
  then); resumed in full when a card clears, with what was left after a glitch. When it runs out
  the hopper estimate becomes 0: the launcher has just seen that it is empty.
- A burst ends with stop, reverse pulse, stop. The launch is resolved (``launched``) when the
  motor is fully stopped after the pulse, so a card that clears during the pulse is in ``cards``.
  The motor never goes from one direction straight into the other: it coasts ``motor.dead_time_ms``
  first (a plugged reversal is a current spike that trips a DRV8833 and browns out a shared
  supply), after a burst and for a jog or ``Retract`` that follows a run the other way.
  A launch timeout ends the same way. An empty feed, a jam, the lid or a halt stop the motor at
  once with no pulse; they also override ``done`` if they happen during the pulse.
- A press in ``empty`` does not ask the policy; a ``Dispense`` there is such a press too
  (``outcome="empty"``, ``requested`` = its count). ``Reload`` from ``ready``, ``empty`` or
  ``sleeping`` resets the policy and leads to ``ready``; elsewhere (even ``halted``) it only sets
  the estimate.
- ``all_in`` runs the motor until the feed runs dry (``ended="empty"``) or the launch times out;
  ``requested`` is the hopper estimate, or the policy's count when the estimate is unknown.
- A jam stops everything and enters ``jammed`` from ``ready``, ``launching``, ``empty`` and
  ``sleeping``; under ``lid_open`` or ``halted`` the card is counted and the state kept, and
  closing the lid or ``Reset`` then leads to ``jammed`` while the card is still stuck.
- ``InputLevels`` (fed once by the driver at start) are levels, not edges: a button already held
  is taken as the debounced level, so it must be released and pressed again; a blocked beam is a
  block that began then (jam after ``jam_ms``, as for an edge); an open lid is handled as an opening.
- Requests carry the caller's ``request`` id (``Launch``, ``Dispense``, the ``ButtonLevel`` edge of
  the simulated button); every ``press``, ``launched``, ``ignored`` and ``refused`` about it
  carries ``"request"``. ``refused`` names the refused event's type as ``"event"``.
- On-time: motor runs apart by less than ``motor_rest_ms`` form a chain whose on-time (reverse
  pulses included) is at most ``max_on_ms``; a run that reaches it is stopped at once with no
  pulse and its launch ends ``motor_limit`` (state ``ready``: the limit is a rule, not a fault).
  Over any ``duty_window_s`` the motor is on at most ``max_duty`` of it. A press, ``Launch``,
  ``Dispense`` or ``Retract`` that a spent chain or the duty share holds up is ``refused`` with
  ``retry_after_s``; the duty share is judged with the longest run the request may make
  (``launch_timeout_ms + retract_ms``, or the pulse), so it is never cut by it.
- Stall: an event or ``Tick`` that comes more than ``stall_ms`` after a deadline while the motor
  runs means the driver did not run. No timer is judged (the feed timeout and the jam timer ran
  out only because nobody looked); the core shuts down with the stall's length as the reason.
  Until ``Reset``, button and beam edges are levels only (no press, no card, no jam), and a block
  that was under way must clear before the launcher leaves ``jammed``. A debounce under way is
  dropped with the button taken at its last known level, and ``Reset`` takes the button as it
  stands too: held, only a release and a new press count; up, the next press is a press.
- A run that ends by the feed timeout while the hopper estimate said it held cards is a blind
  run; ``sensor.blind_runs`` of them in a row (no card counted in between) halt with "the exit
  sensor sees no cards": a disconnected beam reads "clear", and each press would otherwise run
  the feed timeout with cards flying uncounted, a dispense feeding again and again. The ``empty``
  event of a feed timeout says ``blind_runs`` (in a row so far, 0 if the estimate was 0) and
  ``blind_runs_limit``, so that the dealer's misfeed retries stop before the halt.
- Holds: what an owner (the dealer, the game) has pending waits for a person's press before it
  moves (``Hold(owner, what)``; ``what`` None withdraws it), and ``pending`` in the status shows
  the oldest. While anything is held, a debounced press of the button in ``ready`` or ``empty``
  is no press: it emits ``resume`` (with every ``what``), clears the holds and runs no motor;
  ``Resume`` (the API's ``launcher/resume``) does the same, and is refused when nothing waits.
  ``pending`` events say each change. No press, launch or dispense starts the motor while the
  beam is blocked (``ignored``, ``beam_blocked``): a hand or a card is in the slot. ``Jog`` and
  ``Retract`` are refused then too (``refused_beam_blocked``), in every mode, and a jog or lone
  pulse whose coast sees the beam blocked does not start (the jog ends ``cancelled``); with the lid
  open they are refused by the state (``lid_open``).
- What a press means (``PressMeaning``, set ahead by the game through ``launcher/press-means``):
  ``policy`` (the default) asks the ejection policy; ``cards`` launches exactly that many
  (``outcome="draw"``, the policy not asked, its history untouched); ``nothing`` is ``ignored``
  with the reason ``decision_pending`` and the game's ``message``, no chime, nothing counted. It
  applies to the button's press and to ``Launch``, never to ``Dispense``; a press that wakes the
  launcher, resumes what is held, or finds it empty, busy or refusing (the motor's rest, the beam,
  the lid) is answered as before, whatever the meaning. The meaning stays until it is set again.
- Activity (for sleep) is every event but ``Tick``, and every state change.
- LED: ``ready`` on at ``feedback.led_brightness``; flashes at full brightness (launching, jammed,
  empty, halted, after a dry press); ``sleeping`` and ``lid_open`` off.
- Requests that make no sense now (``Retract`` unless ready and still, ``Wake`` while awake, bad
  counts, unknown events, ...) change nothing, return no actions and are logged with the reason.
  Only presses (button, ``Launch``, ``Dispense``) emit ``ignored``.
- What the core says to people (a refusal's ``reason``, the halt ``reason``, the ``empty`` event's
  ``message``) is a message object, ``{"id": "motor_needs_rest", "seconds": 1.9}``
  (``firmware/i18n.py``); nothing here renders text: the driver does, in its reader's language.
  An ``EStop`` keeps the words it was given. The log (the journal) reads a refusal's reason as
  its text in the daemon's language, rendered only when the line is written (:class:`Logged`).
"""

from __future__ import annotations

import logging
from typing import Any, Callable, Mapping

from firmware import i18n
from firmware.config import NOT_FITTED, Config
from firmware.events import (
    Action, BeamLevel, Bench, ButtonLevel, Cancel, Chime, Dispense, DriverEnable, EStop, Emit, Event, Hold,
    Identify, InputLevels, Jog, Launch, Led, LidLevel, Motor, OnTimeRecord, Persist, PressMeaning, Refill, Reload,
    Reset, Restore, Resume, Retract, SleepNow, Tick, Wake,
)
from firmware.i18n import Message, message
from firmware.launcher.beam import LauncherBeam
from firmware.launcher.button import LauncherButton
from firmware.launcher.feedback import LauncherFeedback
from firmware.launcher.hopper import LauncherHopper
from firmware.launcher.motion import LauncherMotion
from firmware.launcher.motor_limits import OnTime, retry_after, shown_seconds
from firmware.launcher.presses import LauncherPresses
from firmware.launcher.states import EMPTY, HALTED, JAMMED, LID_OPEN, READY, SLEEPING, PolicyLike, PressRecord

log = logging.getLogger(__name__)

IDENTIFY_FLASH = Led("flash", 1.0, 500, 4)
IDENTIFY_CHIME_COUNT = 3
IDENTIFY_CHIME_GAP_MS = 250


class Logged:
    """A reason as a log line shows it: a message object's text in the daemon's language (the
    journal reads sentences, not ``{'id': ...}``), rendered only when the line is written; words
    are shown as they are. A message the renderer cannot show is shown as it is: a log line must
    never fail."""

    def __init__(self, reason: Message | str):
        self.reason = reason

    def __str__(self) -> str:
        if not i18n.is_message(self.reason):
            return str(self.reason)
        try:
            return i18n.render(self.reason, i18n.daemon_language())
        except Exception:
            return repr(dict(self.reason))


def _hardware_first(actions: list[Action]) -> list[Action]:
    return [a for a in actions if not isinstance(a, Emit)] + [a for a in actions if isinstance(a, Emit)]


class Launcher(LauncherButton, LauncherBeam, LauncherPresses, LauncherMotion, LauncherHopper, LauncherFeedback):
    """The launcher's state machine. See the module docstring and ``docs/internals.md``.

    ``now`` is the driver's clock in seconds; ``hopper`` the number of cards loaded, if known.
    The constructor returns nothing to apply: the driver starts with the motor stopped, the driver
    enabled and the LED on, which is ``ready``.
    """

    def __init__(self, config: Config, policy: PolicyLike, now: float, hopper: int | None = None):
        timing = config.timing
        self._motor_cfg = config.motor
        self._feedback = config.feedback
        self._policy = policy
        self._debounce_s = timing.button_debounce_ms / 1000
        self._filter_s = timing.beam_filter_ms / 1000
        self._jam_s = timing.jam_ms / 1000
        self._feed_timeout_s = timing.feed_timeout_ms / 1000
        self._launch_timeout_s = timing.launch_timeout_ms / 1000
        self._on_time = OnTime(timing.max_on_ms / 1000, timing.motor_rest_ms / 1000,
                                float(timing.duty_window_s), timing.max_duty)
        # Longest a launch may run the motor: to its timeout, then the reverse pulse.
        self._launch_need_s = (timing.launch_timeout_ms + config.motor.retract_ms) / 1000
        self._stall_s = timing.stall_ms / 1000
        self._stalled = False  # halted by a stall: inputs are levels only until Reset
        self._sleep_after_s = float(timing.sleep_after_s)
        self._refill_hold_s = timing.refill_hold_ms / 1000
        # Holding the button this long while halted is a reset, as launcherctl reset is.
        self._reset_hold_s = config.button.reset_hold_ms / 1000
        self._reset_deadline: float | None = None
        self._persisted: tuple = (None, OnTimeRecord())  # what the last Persist said (a first start's)
        # A beam that is not connected reads "clear": every run then ends by the feed timeout with
        # cards flying uncounted. So many of those in a row, with cards in the hopper, halt.
        self._blind_runs_limit = config.sensor.blind_runs
        self._blind_runs = 0
        self._has_standby = config.pins.motor_enable is not NOT_FITTED

        self._now = now
        # When the actions being returned reach the pins: the now of the handle() call. A timer
        # run late runs at its own deadline (the order of what was due is kept), but the motor
        # moves only now: each run and each coast is timed from here, not from the deadline.
        self._pins_at = now
        self._state = READY
        self._awake_state = READY  # where waking up returns to
        self._reason: Message | str | None = None  # why halted: a message, or an e-stop's own words
        self._presses = 0  # presses of the button or from software; dispenses are not presses
        self._launch_ids = 0  # every launch has an id, dispenses included
        self._cards_ejected = 0
        self._hopper = None if hopper is None else max(0, hopper)
        self._last: PressRecord | None = None
        self._launch: PressRecord | None = None
        self._last_activity = now
        self._cues: list[tuple[float, Action]] = []  # feedback that follows a dry press

        self._button_raw = False
        self._button_stable = False
        self._button_deadline: float | None = None
        self._button_request: int | None = None  # the request behind the pending press edge
        self._beam_blocked = False
        self._block_start = now
        # The block's ``at`` (handle()): the card's length is measured from it.
        self._block_edge_at = now
        self._event_at = now  # when the event being handled happened
        self._jam_counted = False  # the current block has been counted as a jam
        self._lid_open = False

        self._motor_direction = "stop"
        self._motor_duty = 0.0
        self._driver_enabled = True
        self._phase: str | None = None  # kick, run, retract, jog, coast; None while the motor is still
        self._phase_end: float | None = None
        self._dead_time_s = config.motor.dead_time_ms / 1000
        # The run a coast leads to: (phase, direction, duty, seconds or None: until told).
        self._after_coast: tuple[str, str, float, float | None] | None = None
        # The last direction the motor ran and when it stopped: a reversal coasts first.
        self._last_run: tuple[str, float] | None = None
        self._launch_deadline: float | None = None
        self._feed_deadline: float | None = None  # running feed timer
        self._feed_left: float | None = None  # paused feed timer: seconds left
        self._jog: Jog | None = None  # the jog the motor is running, if any

        self._last_reload = self._hopper  # what a refill gesture sets when nobody knows better
        self._refill_deadline: float | None = None  # the button held in empty reaches refill_hold_ms
        self._bench_until: float | None = None
        self._bench_block = False  # the beam is blocked by a hand in bench mode, not by a card
        self._holds: dict[str, Any] = {}  # owner -> what waits for a press, oldest first
        self._meaning = PressMeaning()  # what a press means now: the policy's until the game says

        self._handlers: dict[type, Callable[[Any, float], list[Action]]] = {
            ButtonLevel: self._on_button, BeamLevel: self._on_beam, LidLevel: self._on_lid,
            InputLevels: self._on_levels,
            Tick: lambda event, now: [], Launch: self._on_launch, Dispense: self._on_dispense,
            Retract: self._on_retract, SleepNow: self._on_sleep_now, Wake: self._on_wake,
            Reload: self._on_reload, EStop: lambda event, now: self.shutdown(str(event.reason), now),
            Reset: self._on_reset, Refill: self._on_refill, Jog: self._on_jog, Bench: self._on_bench,
            Identify: self._on_identify, Hold: self._on_hold, Resume: self._on_resume,
            Cancel: self._on_cancel, Restore: self._on_restore, PressMeaning: self._on_press_meaning,
        }

    # ---- the driver's interface ----------------------------------------------------------

    def handle(self, event: Event, now: float, at: float | None = None) -> list[Action]:
        """Run the timers due by ``now``, then ``event``; return the actions to apply, in order.

        ``at``: when the event happened, where that was before ``now`` (a pin edge: the backend's
        time); a beam block's length is measured on it, nothing else.
        """
        return self._persisting(self._handle(event, now, at))

    def _handle(self, event: Event, now: float, at: float | None) -> list[Action]:
        now = max(now, self._now)
        self._pins_at = now
        self._event_at = now if at is None else min(at, now)
        if self._stall_seen(now):
            return self._on_stall(event, now)
        actions = []
        if isinstance(event, Tick) and event.button is not None and not self._stalled:
            actions += self._on_button(ButtonLevel(event.button), now)
        # A beam edge takes its place among the timers at its own time: a card that cleared
        # before its jam deadline is no jam because the loop paused and learned it later.
        in_order = isinstance(event, BeamLevel) and not self._stalled
        actions += self._expire(self._event_at if in_order else now)
        self._now = now
        if self._stalled and isinstance(event, (ButtonLevel, BeamLevel)):
            return _hardware_first(actions + self._level_only(event, now))
        handler = self._handlers.get(type(event))
        if handler is None:
            return _hardware_first(actions + self._refuse(event, message("refused_unknown_event")))
        if not isinstance(event, Tick):
            self._last_activity = now
        actions += handler(event, now)
        if in_order:
            # The rest due by now, but a block's jam: learned after its jam time, the block's
            # deadline is now, and it is judged at the loop's next turn (a Tick), after the edges
            # already queued behind this one (the clearing edge of a card that crossed in time).
            actions += self._expire(now, keep=self._on_jam if event.blocked else None)
            self._now = now
        return _hardware_first(actions)

    def next_deadline(self) -> float | None:
        """When the core next needs a ``Tick``, or None if only an event can change anything."""
        return min((deadline for deadline, _ in self._timers()), default=None)

    def shutdown(self, reason: Message | str, now: float) -> list[Action]:
        """The one way down: motor stop first, driver off, alert, ``halted`` until ``Reset``.

        ``reason`` is a message object (``{"id": "stalled", ...}``), or the words given with an
        ``EStop``; it is kept as it is, for the driver to render.

        The stop and the driver disable are sent whatever the bookkeeping says. A second call
        while halted returns nothing and keeps the first reason.
        """
        if self._state == HALTED:
            return []
        now = max(now, self._now)
        self._now = now
        self._reason = reason if isinstance(reason, Mapping) else str(reason)
        self._reset_deadline = None
        actions: list[Action] = [Motor("stop")]
        if self._motor_direction != "stop":
            self._last_run = (self._motor_direction, now)
        self._motor_direction, self._motor_duty = "stop", 0.0
        self._on_time.stop(now)
        self._clear_motion()
        actions.append(DriverEnable(False))
        self._driver_enabled = False
        if self._launch is not None:
            actions += self._resolve("halt")
        actions += self._enter(HALTED, now) + self._end_jog("halt")
        actions.append(Emit("halted", {"reason": self._reason}))
        return self._persisting(_hardware_first(actions))

    def stopping(self, now: float) -> list[Action]:
        """The process is ending: the motor stops, and the run it was in goes into the on-time
        record kept across the restart (a SIGTERM mid-run must not hand the next start a motor
        that looks rested). The state is left as it is: nothing follows in this process."""
        now = max(now, self._now)
        self._now = now
        actions = self._drive("stop", 0.0, now)
        self._clear_motion()
        return self._persisting(actions)

    def _persisting(self, actions: list[Action]) -> list[Action]:
        """``actions``, with a ``Persist`` after the devices' ones when the halt or the motor's
        on-time record changed: the next start must know both (firmware/daemon/latch.py)."""
        # Written as each run starts and as it ends: a run the process does not live to end
        # (SIGKILL, a crash, a watchdog kill) is in the record with its start and the chain it
        # continues, and the next start counts it as run until the core would have cut it
        # (max_on_ms) or until that start, whichever is sooner (OnTimeRecord.from_ages). A store
        # into the latch's mapping: no system call on the loop (firmware/daemon/latch.py).
        record = self._on_time.record()
        kept = (self._reason if self._state == HALTED else None, record)
        if kept == self._persisted:
            return actions
        self._persisted = kept
        devices = [a for a in actions if not isinstance(a, Emit)]
        return devices + [Persist(kept[0], record, self._now)] + actions[len(devices):]

    def get_status(self) -> dict[str, Any]:
        """The status keys of ``docs/internals.md``; plain JSON values only."""
        last = self._last
        return {
            "state": self._state,
            "presses": self._presses,
            "dry_streak": int(self._policy.dry_streak),
            "cards_ejected": self._cards_ejected,
            "last": None if last is None else {
                "press_id": last.press_id, "outcome": last.outcome, "cards": last.cards},
            "profile": str(self._policy.name),
            "motor": {"on": self._motor_direction != "stop", "direction": self._motor_direction,
                      "duty": self._motor_duty},
            "hopper": self._hopper,
            "reason": self._reason,
            "tension": self._tension(),
            "beam_blocked": self._beam_blocked,
            "lid_open": self._lid_open,
            "driver_enabled": self._driver_enabled,
            "pending": self._pending(),
            "reset_hold_ms": round(self._reset_hold_s * 1000),
            **self._meaning_params("press_"),
        }

    @property
    def bench(self) -> bool:
        """True while bring-up mode (``Bench``) lasts."""
        return self._bench_until is not None

    @property
    def last_reload(self) -> int | None:
        """The count of the last ``Reload`` or ``Refill`` (at first, the hopper given at start)."""
        return self._last_reload

    # ---- timers --------------------------------------------------------------------------

    def _timers(self) -> list[tuple[float, Callable[[float], list[Action]]]]:
        """Every armed deadline with what to do then; safety first among equal deadlines."""
        timers: list[tuple[float, Callable[[float], list[Action]]]] = []

        def arm(deadline: float | None, fire: Callable[[float], list[Action]]) -> None:
            if deadline is not None:
                timers.append((deadline, fire))

        arm(self._on_time.limit_at(), self._on_motor_limit)
        if self._beam_blocked and not self._jam_counted:
            arm(self._block_start + self._jam_s, self._on_jam)
        arm(self._launch_deadline, lambda at: self._end_feeding("timeout", at))
        arm(self._feed_deadline, self._on_feed_timeout)
        arm(self._phase_end, self._on_phase_end)
        arm(self._button_deadline, self._on_button_stable)
        arm(self._refill_deadline, self._on_refill_hold)
        arm(self._reset_deadline, self._on_reset_hold)
        arm(self._bench_until, self._end_bench)
        if self._cues:
            arm(self._cues[0][0], self._on_cue)
        if self._state in (READY, EMPTY) and self._sleep_after_s > 0 and self._phase is None:
            arm(self._last_activity + self._sleep_after_s, self._go_to_sleep)
        return timers

    def _expire(self, now: float, keep: Callable[[float], list[Action]] | None = None) -> list[Action]:
        """Run the timers due by ``now`` in deadline order, each at its own deadline (``keep``'s, if
        given, is left for the next call)."""
        actions: list[Action] = []
        while True:
            due = [timer for timer in self._timers() if timer[0] <= now and timer[1] != keep]
            if not due:
                return actions
            # min() keeps the first of equal deadlines, which _timers() lists safety first.
            at, fire = min(due, key=lambda timer: timer[0])
            self._now = at
            actions += fire(at)

    # ---- the levels at start ----------------------------------------------------------------

    def _on_levels(self, event: InputLevels, now: float) -> list[Action]:
        # A level is not an edge: a button already down is taken as held, so only a release and
        # a new press count; the beam and the lid are judged as if their edge came now.
        self._button_settled(bool(event.button))
        actions = self._on_beam(BeamLevel(bool(event.beam)), now)
        if event.lid is not None:
            actions += self._on_lid(LidLevel(bool(event.lid)), now)
        return actions

    # ---- a stalled driver -------------------------------------------------------------------

    def _stall_seen(self, now: float) -> bool:
        """The motor is on and ``now`` is far past a deadline: the driver was not running.

        Whatever the timers would say now (a feed timeout, a jam) is an artefact of the stall, so
        none of them runs; the stall itself is the fault.
        """
        deadline = self.next_deadline()
        return (self._motor_direction != "stop" and deadline is not None
                and now - deadline > self._stall_s)

    def _on_stall(self, event: Event, now: float) -> list[Action]:
        stalled = now - self._now
        actions = self.shutdown(message("stalled", seconds=shown_seconds(stalled)), now)
        self._stalled = True
        # A block under way was never judged: it is neither a card nor a jam, and it must clear
        # (jammed after Reset while it stays) before the motor runs again.
        if self._beam_blocked:
            self._jam_counted = True
        # A debounce under way is not judged either: the button is at its last known level (the
        # Tick's read of the line, if it has one), with nothing pending.
        self._button_settled(self._button_raw if not isinstance(event, Tick) or event.button is None
                             else bool(event.button))
        if isinstance(event, (ButtonLevel, BeamLevel)):
            actions += self._level_only(event, now)
        elif isinstance(event, LidLevel):
            actions += self._on_lid(event, now)
        return _hardware_first(actions)

    def _level_only(self, event: ButtonLevel | BeamLevel, now: float) -> list[Action]:
        """After a stall, edges are levels: a backlog of them is no presses and no cards."""
        if isinstance(event, ButtonLevel):
            self._button_settled(bool(event.pressed))
            # Still the way out: holding the button resets (a backlog of edges is not a hold).
            self._reset_deadline = now + self._reset_hold_s if self._button_raw and self._state == HALTED else None
        elif bool(event.blocked) != self._beam_blocked:
            self._beam_blocked = bool(event.blocked)
            self._block_start, self._jam_counted = now, self._beam_blocked
        return []

    # ---- states and refusals ---------------------------------------------------------------

    def _enter(self, state: str, now: float) -> list[Action]:
        """Change state: driver enable, the state's LED, the ``state`` event."""
        if state == self._state:
            return []
        previous, self._state = self._state, state
        self._cues.clear()
        self._last_activity = now
        actions: list[Action] = []
        enabled = state not in (SLEEPING, HALTED)
        if enabled != self._driver_enabled:
            self._driver_enabled = enabled
            actions.append(DriverEnable(enabled))
        actions.append(self._state_led(state))
        actions.append(Emit("state", {"state": state, "previous": previous}))
        return actions

    def _settled_state(self) -> str:
        """Where the launcher stands when it comes back from the lid or a halt."""
        if self._lid_open:
            return LID_OPEN
        return JAMMED if self._beam_blocked and self._jam_counted and not self._bench_block else READY

    def _trace(self, now: float, what: str, **values: Any) -> list[Action]:
        """Bench mode's record of ``what`` at ``now``: an input's edge at its own time (the pin
        backend's), however late the loop learned of it; the motor's change when it was written."""
        if self._bench_until is None:
            return []
        return [Emit("trace", {"t": now, "what": what, **values})]

    def _refuse(self, event: object, reason: Message) -> list[Action]:
        """A request that makes no sense now: nothing changes, and the requester is told why."""
        log.info("refused %r in state %s: %s", event, self._state, Logged(reason))
        return [Emit("refused", {"event": type(event).__name__, "request": getattr(event, "request", None),
                                 "state": self._state, "reason": reason})]

    def _refused_wait(self, kind: str, source: str | None, request: int | str | None, wait: float,
                      reason: Message) -> Emit:
        """A request the motor's rest or duty rule holds up: nothing changes, retry after ``wait``."""
        log.info("refused %s from %s: %s", kind, source, Logged(reason))
        return Emit("refused", {"event": kind, "request": request, "source": source,
                                "state": self._state, "reason": reason,
                                "retry_after_s": retry_after(wait)})

    # ---- sleep --------------------------------------------------------------------------------

    def _go_to_sleep(self, now: float) -> list[Action]:
        self._awake_state = self._state
        return self._halt_motion(now) + self._end_jog("sleep") + self._enter(SLEEPING, now)

    def _on_sleep_now(self, event: SleepNow, now: float) -> list[Action]:
        if self._state not in (READY, EMPTY):
            return self._refuse(event, message("refused_sleep"))
        return self._go_to_sleep(now)

    def _on_wake(self, event: Wake, now: float) -> list[Action]:
        if self._state != SLEEPING:
            return self._refuse(event, message("refused_not_sleeping"))
        return self._enter(self._awake_state, now)

    # ---- bring-up: bench mode, identify -------------------------------------------------------

    def _on_bench(self, event: Bench, now: float) -> list[Action]:
        seconds = event.seconds
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not 0 <= seconds <= 3600:
            return self._refuse(event, message("refused_seconds"))
        was_on = self._bench_until is not None
        if seconds == 0:
            return self._end_bench(now) if was_on else []
        if not was_on and not event.on_purpose and self._holds:
            # Bench mode lets the motor run while something waits for a press: only on purpose.
            return self._refuse(event, self._refused_pending())
        self._bench_until = now + seconds
        return [] if was_on else [Emit("bench", {"on": True})]

    def _end_bench(self, at: float) -> list[Action]:
        self._bench_until = None
        return [Emit("bench", {"on": False})]

    def _on_identify(self, event: Identify, now: float) -> list[Action]:
        actions: list[Action] = []
        if event.led:
            actions += self._flash_then_back(IDENTIFY_FLASH, now)
        if event.chime:
            # Whatever [feedback] chime says: this is the check that the buzzer is wired.
            actions.append(Chime(IDENTIFY_CHIME_COUNT, self._feedback.chime_ms, IDENTIFY_CHIME_GAP_MS))
        return actions

    def _on_reset(self, event: Reset, now: float) -> list[Action]:
        if self._state != HALTED:
            return self._refuse(event, message("refused_not_halted"))
        self._reason = None
        self._stalled = False
        self._reset_deadline = None
        # The button starts afresh from the level it is at: held (the reset's own hold), only a
        # release and a new press count; up, the next press is a press.
        self._button_settled(self._button_raw)
        return self._enter(self._settled_state(), now) + [Emit("reset", {"source": str(event.source)})]

    def _on_restore(self, event: Restore, now: float) -> list[Action]:
        """What the last run left: its motor record, and the halt it must come up in."""
        if event.on_time is not None:
            self._on_time.restore(event.on_time, now)
        return [] if event.halt is None else self.shutdown(event.halt, now)
