"""The launcher core: a sans-IO state machine from input events to output actions.

The driver (``firmware/daemon/driver.py``) owns the clock and the devices. It feeds every pin edge and API
request to :meth:`Launcher.handle` with the time it happened, applies the actions that come back,
and feeds a :class:`~firmware.events.Tick` at (or after) :meth:`Launcher.next_deadline`. Nothing
here reads a clock, touches a pin or sleeps, so a test can drive years of operation in milliseconds
and every run with the same inputs gives the same outputs.

Rules the contract in ``docs/internals.md`` leaves open, as settled here:

- Timers run in deadline order *before* the event given to ``handle``, each at its own deadline.
  A late ``Tick`` therefore gives the same result as a punctual one, and an edge that arrives
  after a deadline without a ``Tick`` in between is judged after that deadline has done its work.
  Time never runs backwards: a ``now`` earlier than the last one seen is taken as the last one.
  An edge handed over late comes with ``at``, the pin backend's time of it: a beam block's length
  is measured between its two edges' ``at``, so a card whose edges both reach the driver late is
  still as long as it was at the slot. The beam's jam timer runs from ``at`` too, never earlier
  than ``now`` (a card stuck ``jam_ms`` stops the motor then). Everything else (the debounce, the
  other deadlines, the motor's phases, the stall check) runs on ``now``, when the driver got the
  event: a late edge must not cut a reverse pulse short or arm a deadline already past, and a
  debounce timed from the backend's edge let a bounced press count twice on the VM's real lines.
- Within one list of actions, device actions come before ``Emit`` events (each kind keeping its
  order), so a subscriber that hears of a state already finds the devices in it.
- Debounce: a ``ButtonLevel`` change counts once the raw level has stayed the same for
  ``button_debounce_ms`` after its *last* edge. A held button is one press; a release is nothing.
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
  that was under way must clear before the launcher leaves ``jammed``.
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
import math
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Protocol

from firmware.config import NOT_FITTED, Config
from firmware import i18n
from firmware.i18n import Message, message
from firmware.events import (
    Action, BeamLevel, Bench, ButtonLevel, Cancel, Chime, Dispense, DriverEnable, EStop, Emit, Event, Hold,
    Identify, InputLevels, Jog, Launch, Led, LidLevel, Motor, OnTimeRecord, Persist, PressMeaning, Refill, Reload,
    Reset, Restore, Resume, Retract, SleepNow, Tick, Wake,
)

log = logging.getLogger(__name__)

READY = "ready"
LAUNCHING = "launching"
JAMMED = "jammed"
EMPTY = "empty"
LID_OPEN = "lid_open"
SLEEPING = "sleeping"
HALTED = "halted"
STATES = (READY, LAUNCHING, JAMMED, EMPTY, LID_OPEN, SLEEPING, HALTED)

LAUNCH_FLASH_MS = 250  # launching: lively, slower than the alarms
FAST_FLASH_MS = 120  # jammed, empty: a hand is needed
ALERT_FLASH_MS = 1000  # halted: slow, unlike anything in normal play
DRY_FLASHES = 3
DRY_FLASH_SLOW_MS = 400  # a dry press at tension 0 ...
DRY_FLASH_FAST_MS = 80  # ... and at tension 1
DRY_CHIME_REPEATS = 4  # extra chimes after a dry press at tension 1 (0 at tension 0)
DRY_CHIME_GAP_SLOW_MS = 200
DRY_CHIME_GAP_FAST_MS = 40
# A refill is confirmed unlike any press: two long beeps and a quick flicker; one very long beep
# when the count is unknown (the hopper is full again, but the estimate is gone).
REFILL_CHIME = Chime(2, 300, 150)
REFILL_UNKNOWN_CHIME = Chime(1, 900, 0)
REFILL_FLASH = Led("flash", 1.0, 100, 6)
IDENTIFY_FLASH = Led("flash", 1.0, 500, 4)
IDENTIFY_CHIME_COUNT = 3
IDENTIFY_CHIME_GAP_MS = 250
JOG_DIRECTIONS = ("forward", "reverse")
PRESS_MEANINGS = ("policy", "cards", "nothing")
MAX_PRESS_CARDS = 500  # as launcher/dispense allows
MIN_DUTY = 0.05  # as [motor] duty allows

_KICK, _RUN, _RETRACT, _JOG, _COAST = "kick", "run", "retract", "jog", "coast"
_FEEDING = (_KICK, _RUN)
# The state each way of ending a launch leads to (a halt is entered by shutdown itself).
_AFTER = {"done": READY, "timeout": READY, "motor_limit": READY, "cancelled": READY, "jam": JAMMED, "empty": EMPTY,
          "lid": LID_OPEN}
_EPS = 1e-9  # float slack when comparing sums of on-time with a limit


class PolicyLike(Protocol):
    """What the core needs of an ejection policy (``firmware.launcher.ejection.EjectionPolicy``)."""

    name: str
    dry_streak: int
    tension: float

    def decide(self, hopper: int | None) -> Any:
        """An outcome with ``cards: int`` (0 = dry) and ``all_in: bool``."""

    def reset(self) -> None:
        """Forget the press history (reload, lid closed)."""


@dataclass
class _Press:
    """One counted press and what became of it; the record ``launched`` and ``last`` report."""

    press_id: int
    source: str
    request: int | str | None  # the caller's id, echoed in every Emit about this press
    outcome: str  # dry, burst, dispense, empty
    requested: int
    target: int | None  # cards to count before stopping; None: until the feed runs dry
    duty: float | None = None  # None: [motor] duty
    kick: bool = True
    cards: int = 0
    ended: str = ""  # set when resolved; for a burst already when the feeding ends, before the pulse

    def launched(self) -> Emit:
        return Emit("launched", {
            "press_id": self.press_id, "source": self.source, "request": self.request,
            "outcome": self.outcome, "cards": self.cards, "requested": self.requested,
            "ended": self.ended,
        })


@dataclass
class _OnTime:
    """The motor's on-time, for the two rules that bound it however runs are chained.

    - Rest: runs separated by less than ``rest`` seconds off form one chain, and a chain's on-time
      (every direction, reverse pulses included) is at most ``max_on`` seconds.
    - Duty: over any ``window`` seconds the motor is on at most ``share`` of it.
    """

    max_on: float
    rest: float
    window: float
    share: float
    on_since: float | None = None
    off_since: float | None = None  # None: never ran, so rested
    chain: float = 0.0  # on-time of the current chain's finished runs
    runs: deque[tuple[float, float]] = field(default_factory=deque)  # finished runs, for the window

    def start(self, now: float) -> None:
        if self.off_since is None or now - self.off_since >= self.rest:
            self.chain = 0.0
        self.on_since = now

    def stop(self, now: float) -> None:
        if self.on_since is None:
            return
        self.chain += now - self.on_since
        self.runs.append((self.on_since, now))
        self.on_since, self.off_since = None, now
        while self.runs and self.runs[0][1] <= now - self.window:
            self.runs.popleft()

    def record(self) -> OnTimeRecord:
        return OnTimeRecord(self.chain, self.off_since, self.on_since, tuple(self.runs))

    def restore(self, record: OnTimeRecord, now: float) -> None:
        """Take over the last run's record (the motor is off now: a run it left open has ended)."""
        self.chain, self.off_since, self.on_since = record.chain, record.off_since, None
        self.runs = deque(run for run in record.runs if run[1] > now - self.window)

    def chained(self, now: float) -> float:
        """The on-time of the chain the motor is in now (0 once it has rested)."""
        if self.on_since is not None:
            return self.chain + now - self.on_since
        if self.off_since is None or now - self.off_since >= self.rest:
            return 0.0
        return self.chain

    def limit_at(self) -> float | None:
        """When the running motor reaches the chain's limit; None while it is off."""
        return None if self.on_since is None else self.on_since + self.max_on - self.chain

    def _runs_until(self, now: float) -> list[tuple[float, float]]:
        runs = list(self.runs)
        if self.on_since is not None:
            runs.append((self.on_since, now))
        return runs

    def wait(self, now: float, need: float) -> tuple[float, Message] | None:
        """How long a request that may run the motor ``need`` seconds must wait, and why; None: now.

        The duty rule reserves the whole ``need`` (the motor may stop early, never run longer), so
        every window that ends during the run stays within the share. The rest rule holds up a
        request only once a chain has used all of ``max_on``; a run that reaches the limit is cut.
        """
        waits: list[tuple[float, Message]] = []
        if self.on_since is None and self.chained(now) >= self.max_on - _EPS:
            left = self.off_since + self.rest - now  # type: ignore[operator]
            waits.append((left, _rest_needed(left)))
        budget = self.share * self.window
        start = now + need - self.window
        excess = sum(max(0.0, b - max(a, start)) for a, b in self._runs_until(now)) + need - budget
        if excess > _EPS:
            # Slide the window forward until enough past on-time has left it.
            slide = 0.0
            for a, b in self._runs_until(now):
                a = max(a, start)
                if b <= a:
                    continue
                if b - a >= excess:
                    slide = a + excess - start
                    break
                excess -= b - a
            waits.append((slide, message("motor_duty_window", share=self.share,
                                         window=_shown_seconds(self.window), seconds=_shown_seconds(slide))))
        return max(waits, key=lambda wait: wait[0], default=None)


def _shown_seconds(value: float) -> float:
    """A duration as it is said: one decimal below 100 s, whole seconds above (the message's
    parameter carries the value shown, so that every language says the same number)."""
    return round(value, 1) if value < 100 else float(round(value))


def _rest_needed(seconds: float) -> Message:
    return message("motor_needs_rest", seconds=_shown_seconds(seconds))


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


def _retry_after(wait: float) -> float:
    """A wait rounded up to the millisecond: a caller who waits that long is admitted."""
    return math.ceil(max(wait, 0.0) * 1000) / 1000


def _hardware_first(actions: list[Action]) -> list[Action]:
    return [a for a in actions if not isinstance(a, Emit)] + [a for a in actions if isinstance(a, Emit)]


def _whole(value: Any, minimum: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= minimum


def _duty(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and MIN_DUTY <= value <= 1


class Launcher:
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
        self._on_time = _OnTime(timing.max_on_ms / 1000, timing.motor_rest_ms / 1000,
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
        self._state = READY
        self._awake_state = READY  # where waking up returns to
        self._reason: Message | str | None = None  # why halted: a message, or an e-stop's own words
        self._presses = 0  # presses of the button or from software; dispenses are not presses
        self._launch_ids = 0  # every launch has an id, dispenses included
        self._cards_ejected = 0
        self._hopper = None if hopper is None else max(0, hopper)
        self._last: _Press | None = None
        self._launch: _Press | None = None
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
        self._event_at = now if at is None else min(at, now)
        if self._stall_seen(now):
            return self._on_stall(event, now)
        actions = []
        if isinstance(event, Tick) and event.button is not None and not self._stalled:
            actions += self._on_button(ButtonLevel(event.button), now)
        actions += self._expire(now)
        self._now = now
        if self._stalled and isinstance(event, (ButtonLevel, BeamLevel)):
            return _hardware_first(actions + self._level_only(event, now))
        handler = self._handlers.get(type(event))
        if handler is None:
            return _hardware_first(actions + self._refuse(event, message("refused_unknown_event")))
        if not isinstance(event, Tick):
            self._last_activity = now
        return _hardware_first(actions + handler(event, now))

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

    def _meaning_params(self, prefix: str = "") -> dict[str, Any]:
        """What a press means now: ``means``, ``cards``, ``for`` (the player), ``reason``."""
        meaning = self._meaning
        return {f"{prefix}means": meaning.means, f"{prefix}cards": meaning.cards,
                f"{prefix}for": meaning.player, f"{prefix}reason": meaning.reason}

    def _pending(self) -> Any:
        return next(iter(self._holds.values()), None)

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

    def _expire(self, now: float) -> list[Action]:
        actions: list[Action] = []
        while True:
            due = [timer for timer in self._timers() if timer[0] <= now]
            if not due:
                return actions
            # min() keeps the first of equal deadlines, which _timers() lists safety first.
            at, fire = min(due, key=lambda timer: timer[0])
            self._now = at
            actions += fire(at)

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
        actions = self.shutdown(message("stalled", seconds=_shown_seconds(stalled)), now)
        self._stalled = True
        # A block under way was never judged: it is neither a card nor a jam, and it must clear
        # (jammed after Reset while it stays) before the motor runs again.
        if self._beam_blocked:
            self._jam_counted = True
        self._button_deadline = None
        if isinstance(event, (ButtonLevel, BeamLevel)):
            actions += self._level_only(event, now)
        elif isinstance(event, LidLevel):
            actions += self._on_lid(event, now)
        return _hardware_first(actions)

    def _level_only(self, event: ButtonLevel | BeamLevel, now: float) -> list[Action]:
        """After a stall, edges are levels: a backlog of them is no presses and no cards."""
        if isinstance(event, ButtonLevel):
            self._button_raw = self._button_stable = bool(event.pressed)
            self._button_deadline = self._button_request = None
            # Still the way out: holding the button resets (a backlog of edges is not a hold).
            self._reset_deadline = now + self._reset_hold_s if self._button_raw and self._state == HALTED else None
        elif bool(event.blocked) != self._beam_blocked:
            self._beam_blocked = bool(event.blocked)
            self._block_start, self._jam_counted = now, self._beam_blocked
        return []

    # ---- states, motor, feedback ---------------------------------------------------------

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

    def _state_led(self, state: str) -> Led:
        if state == READY:
            return Led("on", self._feedback.led_brightness)
        if state in (SLEEPING, LID_OPEN):
            return Led("off")
        period = {LAUNCHING: LAUNCH_FLASH_MS, HALTED: ALERT_FLASH_MS}.get(state, FAST_FLASH_MS)
        return Led("flash", 1.0, period)

    def _settled_state(self) -> str:
        """Where the launcher stands when it comes back from the lid or a halt."""
        if self._lid_open:
            return LID_OPEN
        return JAMMED if self._beam_blocked and self._jam_counted and not self._bench_block else READY

    def _drive(self, direction: str, duty: float, now: float) -> list[Action]:
        """Set the motor; never reverses a running motor without a stop in between."""
        if direction == self._motor_direction and (direction == "stop" or duty == self._motor_duty):
            return []
        actions: list[Action] = []
        if direction != self._motor_direction and "stop" not in (direction, self._motor_direction):
            actions += self._drive("stop", 0.0, now)
        if direction == "stop":
            duty = 0.0
            self._on_time.stop(now)
        elif self._motor_direction == "stop":
            self._on_time.start(now)
        if direction == "stop" and self._motor_direction != "stop":
            self._last_run = (self._motor_direction, now)
        self._motor_direction, self._motor_duty = direction, duty
        actions.append(Motor(direction, duty))  # type: ignore[arg-type]
        return actions + self._trace(now, "motor", direction=direction, duty=duty)

    def _clear_motion(self) -> None:
        self._phase = self._phase_end = self._after_coast = None
        self._launch_deadline = self._feed_deadline = self._feed_left = None

    def _coast_left(self, direction: str, now: float) -> float:
        """How long the motor must still coast before it may run ``direction``."""
        if self._last_run is None or self._last_run[0] == direction:
            return 0.0
        return max(0.0, self._last_run[1] + self._dead_time_s - now)

    def _run_phase(self, phase: str, direction: str, duty: float, seconds: float | None,
                   now: float) -> list[Action]:
        """Run the motor ``direction`` for ``seconds`` (None: until told) as ``phase``, after the
        coast a reversal needs."""
        coast = self._coast_left(direction, now) if self._motor_direction == "stop" else self._dead_time_s
        if direction != self._motor_direction and self._motor_direction != "stop" and coast > 0:
            actions = self._drive("stop", 0.0, now)
        else:
            actions = []
        if coast > 0 and direction != self._motor_direction:
            self._phase, self._phase_end = _COAST, now + coast
            self._after_coast = (phase, direction, duty, seconds)
            return actions
        self._phase, self._phase_end = phase, None if seconds is None else now + seconds
        return actions + self._drive(direction, duty, now)

    def _halt_motion(self, now: float) -> list[Action]:
        """Stop the motor at once and forget every motor timer (the launch stays open)."""
        self._clear_motion()
        return self._drive("stop", 0.0, now)

    def _tension(self) -> float:
        return min(1.0, max(0.0, float(self._policy.tension)))

    def _chime(self) -> list[Action]:
        return [Chime(1, self._feedback.chime_ms)] if self._feedback.chime else []

    def _dry_feedback(self, now: float) -> list[Action]:
        """Flash faster and chime more as tension rises, then back to steady on."""
        tension = self._tension()
        period = round(DRY_FLASH_SLOW_MS - (DRY_FLASH_SLOW_MS - DRY_FLASH_FAST_MS) * tension)
        self._cues = [(now + DRY_FLASHES * period / 1000, self._state_led(READY))]
        repeats = round(DRY_CHIME_REPEATS * tension)
        if self._feedback.chime and repeats:
            gap = round(DRY_CHIME_GAP_SLOW_MS - (DRY_CHIME_GAP_SLOW_MS - DRY_CHIME_GAP_FAST_MS) * tension)
            chime_ms = self._feedback.chime_ms
            self._cues.append((now + (chime_ms + gap) / 1000, Chime(repeats, chime_ms, gap)))
            self._cues.sort(key=lambda cue: cue[0])
        return [Led("flash", 1.0, period, DRY_FLASHES)]

    def _on_cue(self, at: float) -> list[Action]:
        return [self._cues.pop(0)[1]]

    def _flash_then_back(self, flash: Led, now: float) -> list[Action]:
        """A counted flash, then the state's own LED again."""
        self._cues = [(now + flash.period_ms * (flash.count or 1) / 1000, self._state_led(self._state))]
        return [flash]

    def _trace(self, now: float, what: str, **values: Any) -> list[Action]:
        if self._bench_until is None:
            return []
        return [Emit("trace", {"t": now, "what": what, **values})]

    def _refuse(self, event: object, reason: Message) -> list[Action]:
        """A request that makes no sense now: nothing changes, and the requester is told why."""
        log.info("refused %r in state %s: %s", event, self._state, Logged(reason))
        return [Emit("refused", {"event": type(event).__name__, "request": getattr(event, "request", None),
                                 "state": self._state, "reason": reason})]

    # ---- presses and launches ------------------------------------------------------------

    def _on_button(self, event: ButtonLevel, now: float) -> list[Action]:
        pressed = bool(event.pressed)
        if pressed == self._button_raw:
            return []
        self._button_raw = pressed
        if pressed:
            self._button_request = event.request
        # Every edge restarts the wait; an edge back to the debounced level cancels it.
        self._button_deadline = now + self._debounce_s if pressed != self._button_stable else None
        return self._trace(now, "button", level=pressed)

    def _since_edge(self, wait_s: float, now: float) -> float:
        """A deadline ``wait_s`` after the edge being handled happened, and not before ``now``."""
        return max(self._event_at + wait_s, now)

    def _on_button_stable(self, at: float) -> list[Action]:
        self._button_deadline = None
        self._button_stable = self._button_raw
        if not self._button_stable:
            self._refill_deadline = self._reset_deadline = None
            return []
        request, self._button_request = self._button_request, None
        if self._state == HALTED:
            # Held on, it is the reset (timed from the first edge); never a press.
            self._reset_deadline = at + max(0.0, self._reset_hold_s - self._debounce_s)
        if self._bench_until is not None:
            return self._trace(at, "press") + [self._ignored("button", request, "bench")]
        if self._holds and self._state in (READY, EMPTY):
            return self._resume("button", request, at)
        actions = self._press("ButtonLevel", "button", request, at)
        if self._state == EMPTY and self._refill_hold_s > 0:
            # The press in empty is answered at once as always; holding on is the refill gesture,
            # timed from the first edge like the hold a person counts.
            self._refill_deadline = at + max(0.0, self._refill_hold_s - self._debounce_s)
        return actions

    def _on_refill_hold(self, at: float) -> list[Action]:
        self._refill_deadline = None
        # Raw too: a finger lifted just before the hold time is not a hold, debounced or not.
        if self._state != EMPTY or not self._button_stable or not self._button_raw:
            return []
        return [Emit("refill_wanted", {"source": "button", "last_reload": self._last_reload})]

    def _on_reset_hold(self, at: float) -> list[Action]:
        self._reset_deadline = None
        # Raw too: a finger lifted just before the hold time is not a hold, debounced or not.
        if self._state != HALTED or not self._button_stable or not self._button_raw:
            return []
        return self._on_reset(Reset("button"), at)

    def _on_levels(self, event: InputLevels, now: float) -> list[Action]:
        # A level is not an edge: a button already down is taken as held, so only a release and
        # a new press count; the beam and the lid are judged as if their edge came now.
        pressed = bool(event.button)
        if pressed != self._button_raw or pressed != self._button_stable:
            self._button_raw = self._button_stable = pressed
            self._button_deadline = self._button_request = None
        actions = self._on_beam(BeamLevel(bool(event.beam)), now)
        if event.lid is not None:
            actions += self._on_lid(LidLevel(bool(event.lid)), now)
        return actions

    def _on_launch(self, event: Launch, now: float) -> list[Action]:
        return self._press("Launch", str(event.source), event.request, now)

    def _on_dispense(self, event: Dispense, now: float) -> list[Action]:
        if not _whole(event.count, 1):
            return self._refuse(event, message("refused_count"))
        if event.duty is not None and not _duty(event.duty):
            return self._refuse(event, message("refused_duty", minimum=MIN_DUTY))
        return self._press("Dispense", str(event.source), event.request, now, dispense=event.count,
                           duty=event.duty, kick=bool(event.kick))

    def _press(self, kind: str, source: str, request: int | str | None, now: float,
               dispense: int | None = None, duty: float | None = None, kick: bool = True) -> list[Action]:
        """A press from the button, ``Launch`` (``dispense`` None) or ``Dispense`` (``kind``)."""
        actions: list[Action] = []
        if self._state == SLEEPING:
            actions += self._enter(self._awake_state, now)
            if dispense is None:
                return actions + [self._ignored(source, request, SLEEPING)]
        if self._state in (LAUNCHING, JAMMED, LID_OPEN, HALTED):
            return actions + [self._ignored(source, request, self._state)]
        if self._jog is not None:
            return actions + [self._ignored(source, request, "jogging")]
        meaning = self._meaning if dispense is None else None
        if meaning is not None and meaning.means == "nothing" and self._state != EMPTY:
            # A decision is pending: no motion, nothing counted; the table is told what to settle.
            return actions + [Emit("ignored", {"source": source, "request": request, "reason": "decision_pending",
                                               "message": meaning.reason})]
        if self._state != EMPTY:
            # Asked before the policy decides: a refused press is not counted and moves no history.
            # Before the beam: the motor's rest is the longer wait, and it says when to try again.
            wait = self._on_time.wait(now, self._launch_need_s)
            if wait is not None:
                return actions + [self._refused_wait(kind, source, request, *wait)]
            if self._beam_blocked:
                # A hand or a card in the slot: the motor would pull it in, or push against it.
                return actions + [self._ignored(source, request, "beam_blocked")]

        if self._state == EMPTY:
            outcome, requested, target = "empty", dispense or 0, None
        elif dispense is not None:
            outcome, requested, target = "dispense", dispense, dispense
        elif meaning is not None and meaning.means == "cards":
            outcome, requested, target = "draw", int(meaning.cards), int(meaning.cards)
        else:
            decision = self._policy.decide(self._hopper)
            cards = max(0, int(decision.cards))
            if decision.all_in:
                outcome, target = "burst", None
                requested = cards if self._hopper is None else self._hopper
            else:
                outcome, requested, target = ("burst" if cards else "dry"), cards, cards
        self._launch_ids += 1
        if dispense is None:
            self._presses += 1
        record = _Press(self._launch_ids, source, request, outcome, requested, target, duty, kick)
        self._last = record
        actions += [Emit("press", {"press_id": record.press_id, "source": source, "request": request,
                                   "dispense": dispense is not None})] + self._chime()
        if outcome == "empty":
            record.ended = "empty"
            return actions + [self._state_led(EMPTY), record.launched()]
        if outcome == "dry":
            record.ended = "done"
            return actions + self._dry_feedback(now) + [record.launched()]
        return actions + self._start_launch(record, now)

    def _refused_wait(self, kind: str, source: str | None, request: int | str | None, wait: float,
                      reason: Message) -> Emit:
        """A request the motor's rest or duty rule holds up: nothing changes, retry after ``wait``."""
        log.info("refused %s from %s: %s", kind, source, Logged(reason))
        return Emit("refused", {"event": kind, "request": request, "source": source,
                                "state": self._state, "reason": reason,
                                "retry_after_s": _retry_after(wait)})

    @staticmethod
    def _ignored(source: str, request: int | str | None, reason: str) -> Emit:
        return Emit("ignored", {"source": source, "request": request, "reason": reason})

    def _start_launch(self, record: _Press, now: float) -> list[Action]:
        self._launch = record
        self._launch_deadline = now + self._launch_timeout_s
        if self._beam_blocked:
            self._feed_deadline, self._feed_left = None, self._feed_timeout_s
        else:
            self._feed_deadline, self._feed_left = now + self._feed_timeout_s, None
        motor = self._motor_cfg
        if record.kick and self._launch_duty() < motor.kick_below and motor.kick_ms > 0:
            # Below kick_below the motor may not overcome the cards' friction from standstill.
            actions = self._run_phase(_KICK, "forward", motor.kick_duty, motor.kick_ms / 1000, now)
        else:
            actions = self._run_phase(_RUN, "forward", self._launch_duty(), None, now)
        return actions + self._enter(LAUNCHING, now)

    def _launch_duty(self) -> float:
        launch = self._launch
        return self._motor_cfg.duty if launch is None or launch.duty is None else launch.duty

    def _on_phase_end(self, at: float) -> list[Action]:
        if self._phase == _COAST:
            assert self._after_coast is not None
            phase, direction, duty, seconds = self._after_coast
            self._after_coast = None
            if self._launch is None and self._beam_blocked:
                # A jog or a lone reverse pulse waited for its coast, and something came into the
                # slot meanwhile: the motor does not start on it (Jog, Retract are refused so).
                log.info("the beam was blocked during the coast: the %s does not start", phase)
                self._phase = self._phase_end = None
                return self._end_jog("cancelled")
            return self._run_phase(phase, direction, duty, seconds, at)
        if self._phase == _KICK:
            self._phase, self._phase_end = _RUN, None
            return self._drive("forward", self._launch_duty(), at)
        if self._phase == _JOG:
            return self._halt_motion(at) + self._end_jog("done")
        # The reverse pulse is over (after a launch, or a lone Retract).
        actions = self._halt_motion(at)
        if self._launch is not None:
            actions += self._finish(self._launch.ended, at)
        return actions

    def _on_motor_limit(self, at: float) -> list[Action]:
        """The chain of runs has used max_on_ms: stop at once, no pulse; not a fault."""
        log.warning("motor stopped: %.1f s on without %.1f s of rest", self._on_time.max_on,
                    self._on_time.rest)
        actions = self._halt_motion(at) + self._end_jog("motor_limit")
        if self._launch is not None:
            # A launch cut in its reverse pulse keeps how its feeding ended.
            actions += self._finish(self._launch.ended or "motor_limit", at)
        return actions

    def _end_feeding(self, ended: str, now: float) -> list[Action]:
        """Target reached or launch timed out: stop, reverse pulse, stop, then resolve."""
        assert self._launch is not None
        self._launch.ended = ended
        self._clear_motion()
        retract_ms = self._motor_cfg.retract_ms
        if retract_ms == 0:
            return self._drive("stop", 0.0, now) + self._finish(ended, now)
        return self._run_phase(_RETRACT, "reverse", self._motor_cfg.retract_duty, retract_ms / 1000, now)

    def _on_feed_timeout(self, at: float) -> list[Action]:
        assert self._launch is not None
        actions = self._halt_motion(at)
        self._blind_runs = self._blind_runs + 1 if self._hopper else 0
        if self._blind_runs >= self._blind_runs_limit:
            # The hopper estimate stands: it is the sensor that is not believed.
            runs, self._blind_runs = self._blind_runs, 0
            return actions + self.shutdown(message("halted_beam_sees_no_cards", runs=runs), at)
        self._hopper = 0
        # How near the wiring halt the blind runs in a row are: the dealer's retries stop short of it.
        actions.append(Emit("empty", {"press_id": self._launch.press_id, "message": message("no_card_hopper_empty"),
                                      "blind_runs": self._blind_runs, "blind_runs_limit": self._blind_runs_limit}))
        return actions + self._finish("empty", at)

    def _resolve(self, ended: str) -> list[Action]:
        """Close the running launch with one ``launched``."""
        assert self._launch is not None
        record, self._launch = self._launch, None
        record.ended = ended
        return [record.launched()]

    def _finish(self, ended: str, now: float) -> list[Action]:
        return self._resolve(ended) + self._enter(_AFTER[ended], now)

    # ---- the beam ------------------------------------------------------------------------

    def _on_beam(self, event: BeamLevel, now: float) -> list[Action]:
        blocked = bool(event.blocked)
        if blocked == self._beam_blocked:
            return []
        self._beam_blocked = blocked
        return self._trace(now, "beam", level=blocked) + self._beam_edge(blocked, now)

    def _beam_edge(self, blocked: bool, now: float) -> list[Action]:
        if blocked:
            # The jam deadline (block start + jam_ms) from the edge's own time, but not in the past.
            self._block_start, self._jam_counted = self._since_edge(self._jam_s, now) - self._jam_s, False
            self._block_edge_at = self._event_at
            if self._bench_until is not None and self._launch is None and self._phase is None:
                # Bring-up: a hand in the slot with the motor still is neither a card nor a jam.
                self._jam_counted = self._bench_block = True
            if self._feed_deadline is not None:
                self._feed_left, self._feed_deadline = self._feed_deadline - now, None
            return []
        if self._bench_block:
            self._bench_block = False
            return []
        if self._jam_counted:
            return self._enter(READY, now) if self._state == JAMMED else []
        card = self._event_at - self._block_edge_at >= self._filter_s
        if self._feed_left is not None:
            self._feed_deadline = now + (self._feed_timeout_s if card else self._feed_left)
            self._feed_left = None
        if not card:
            return []
        actions = self._count_card()
        launch = self._launch
        if (launch is not None and self._phase in _FEEDING and launch.target is not None
                and launch.cards >= launch.target):
            actions += self._end_feeding("done", now)
        return actions

    def _count_card(self) -> list[Action]:
        """Give one card to the running launch, else to the last press."""
        record = self._launch or self._last
        if record is None:
            log.info("beam: a card before the first press is not counted")
            return []
        record.cards += 1
        self._cards_ejected += 1
        self._blind_runs = 0
        if self._hopper:
            self._hopper -= 1
        return [Emit("card", {"press_id": record.press_id, "count": record.cards})]

    def _on_jam(self, at: float) -> list[Action]:
        self._jam_counted = True
        actions = self._halt_motion(at) + self._end_jog("jam") + self._count_card()
        record = self._launch or self._last
        actions.append(Emit("jammed", {"press_id": None if record is None else record.press_id}))
        if self._launch is not None:
            actions += self._resolve("jam")
        if self._state in (READY, LAUNCHING, EMPTY, SLEEPING):
            actions += self._enter(JAMMED, at)
        return actions

    # ---- lid, sleep, reload, retract, reset ------------------------------------------------

    def _on_lid(self, event: LidLevel, now: float) -> list[Action]:
        is_open = bool(event.open)
        if is_open == self._lid_open:
            return []
        self._lid_open = is_open
        trace = self._trace(now, "lid", level=is_open)
        if self._state == HALTED:
            return trace
        if is_open:
            self._refill_deadline = None
            actions = trace + self._halt_motion(now) + self._end_jog("lid")
            if self._launch is not None:
                actions += self._resolve("lid")
            return actions + self._enter(LID_OPEN, now)
        # The original forgets its press count when the hopper is opened.
        self._policy.reset()
        actions = trace + self._enter(self._settled_state(), now)
        if self._bench_until is None:
            # The lid is opened to refill the hopper: closing it is the refill gesture (not while
            # a builder tests the switch in bench mode).
            actions.append(Emit("refill_wanted", {"source": "lid", "last_reload": self._last_reload}))
        return actions

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

    def _on_reload(self, event: Reload, now: float) -> list[Action]:
        if not _whole(event.cards, 0):
            return self._refuse(event, message("refused_cards"))
        self._hopper = self._last_reload = event.cards
        if self._state in (READY, EMPTY, SLEEPING):
            self._policy.reset()
            self._awake_state = READY
            return self._enter(READY, now)
        return []

    def _on_refill(self, event: Refill, now: float) -> list[Action]:
        cards = event.cards
        if cards is not None and not _whole(cards, 0):
            return self._refuse(event, message("refused_cards_or_unknown"))
        previous, self._hopper = self._hopper, cards
        if cards is not None:
            self._last_reload = cards
        actions: list[Action] = []
        if self._state in (READY, EMPTY, SLEEPING):
            self._policy.reset()
            self._awake_state = READY
            actions += self._enter(READY, now)
        actions += self._flash_then_back(REFILL_FLASH, now)
        if self._feedback.chime:
            actions.append(REFILL_CHIME if cards is not None else REFILL_UNKNOWN_CHIME)
        return actions + [Emit("refilled", {"source": str(event.source), "cards": cards, "previous": previous})]

    def _on_cancel(self, event: Cancel, now: float) -> list[Action]:
        """The running dispense of ``event.request`` ends now, as after its count; a dispense
        already ending (its reverse pulse), or none, is left as it is."""
        launch = self._launch
        if launch is None or launch.request != event.request or self._phase not in _FEEDING + (_COAST,):
            return []
        if self._phase == _COAST:
            if self._after_coast is not None and self._after_coast[0] not in _FEEDING:
                return []  # the coast before its reverse pulse: it is ending already
            self._clear_motion()  # it had not fed yet: nothing to pull back
            launch.ended = "cancelled"
            return self._finish("cancelled", now)
        return self._end_feeding("cancelled", now)

    # ---- holds: what waits for a person's press ---------------------------------------------

    def _on_hold(self, event: Hold, now: float) -> list[Action]:
        before = self._pending()
        if event.what is None:
            self._holds.pop(str(event.owner), None)
        else:
            self._holds[str(event.owner)] = event.what
        after = self._pending()
        return [] if after == before else [Emit("pending", {"pending": after})]

    def _on_resume(self, event: Resume, now: float) -> list[Action]:
        if not self._holds:
            return self._refuse(event, message("refused_nothing_pending"))
        if self._state not in (READY, EMPTY, SLEEPING):
            return self._refuse(event, message("refused_resume_state"))
        actions = self._enter(self._awake_state, now) if self._state == SLEEPING else []
        return actions + self._resume(str(event.source), event.request, now)

    def _resume(self, source: str, request: int | str | None, now: float) -> list[Action]:
        """A person said "go on": every hold is released, and nothing else happens."""
        released = list(self._holds.values())
        self._holds.clear()
        return self._trace(now, "resume") + self._chime() + [
            Emit("resume", {"source": source, "request": request, "pending": released}),
            Emit("pending", {"pending": None})]

    # ---- what a press means (the game's) -------------------------------------------------------

    def _on_press_meaning(self, event: PressMeaning, now: float) -> list[Action]:
        if event.means not in PRESS_MEANINGS:
            return self._refuse(event, message("refused_press_means"))
        if event.means == "cards" and not (_whole(event.cards, 1) and event.cards <= MAX_PRESS_CARDS):
            return self._refuse(event, message("refused_count"))
        if event.means != "cards" and event.cards is not None:
            return self._refuse(event, message("refused_count"))
        if event.player is not None and not isinstance(event.player, str):
            return self._refuse(event, message("refused_press_means"))
        if event.reason is not None and not i18n.is_message(event.reason):
            return self._refuse(event, message("refused_press_means"))
        meaning = PressMeaning(event.means, event.cards, event.player,
                               None if event.reason is None else dict(event.reason))
        if meaning == self._meaning:
            return []
        self._meaning = meaning
        return [Emit("press_means", self._meaning_params())]

    # ---- bring-up: jog, bench mode, identify ------------------------------------------------

    def _on_jog(self, event: Jog, now: float) -> list[Action]:
        if event.direction not in JOG_DIRECTIONS:
            return self._refuse(event, message("refused_direction"))
        if not _whole(event.ms, 1):
            return self._refuse(event, message("refused_ms"))
        if not _duty(event.duty):
            return self._refuse(event, message("refused_duty", minimum=MIN_DUTY))
        # The lid open is the state lid_open (or halted): refused as such, and checked again here.
        if self._state not in (READY, EMPTY) or self._phase is not None or self._lid_open:
            return self._refuse(event, message("refused_jog_state"))
        if self._beam_blocked:
            # In every mode, not only bench: a finger or a card in the slot, and the motor would
            # pull it in or push against it until jam_ms.
            return self._refuse(event, message("refused_beam_blocked"))
        if event.standby and not self._has_standby:
            return self._refuse(event, message("refused_no_standby"))
        seconds = event.ms / 1000
        if seconds > self._on_time.max_on + _EPS:
            return self._refuse(event, message("refused_jog_too_long", ms=round(self._on_time.max_on * 1000)))
        wait = self._on_time.wait(now, seconds)
        left = self._on_time.max_on - self._on_time.chained(now)
        if wait is None and seconds > left + _EPS:
            # A jog is never cut short by the chain's limit: it waits for the rest instead.
            rest = self._on_time.off_since + self._on_time.rest - now  # type: ignore[operator]
            wait = (rest, _rest_needed(rest))
        if wait is not None:
            return [self._refused_wait("Jog", "jog", event.request, *wait)]
        self._jog = event
        actions: list[Action] = []
        if event.standby:
            self._driver_enabled = False
            actions.append(DriverEnable(False))
        return actions + self._run_phase(_JOG, event.direction, float(event.duty), seconds, now)

    def _end_jog(self, ended: str) -> list[Action]:
        """The jog is over (``done``, or what cut it): driver back on, ``jogged``."""
        jog, self._jog = self._jog, None
        if jog is None:
            return []
        actions: list[Action] = []
        if jog.standby and not self._driver_enabled and self._state not in (SLEEPING, HALTED):
            self._driver_enabled = True
            actions.append(DriverEnable(True))
        return actions + [Emit("jogged", {"request": jog.request, "direction": jog.direction, "ms": jog.ms,
                                          "duty": jog.duty, "standby": jog.standby, "ended": ended})]

    def _on_bench(self, event: Bench, now: float) -> list[Action]:
        seconds = event.seconds
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not 0 <= seconds <= 3600:
            return self._refuse(event, message("refused_seconds"))
        was_on = self._bench_until is not None
        if seconds == 0:
            return self._end_bench(now) if was_on else []
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

    def _on_retract(self, event: Retract, now: float) -> list[Action]:
        if self._state != READY or self._phase is not None or self._lid_open:
            return self._refuse(event, message("refused_retract"))
        if self._beam_blocked:
            # A finger or a card in the slot (a block not yet a jam, or a hand in bench mode).
            return self._refuse(event, message("refused_beam_blocked"))
        if self._motor_cfg.retract_ms == 0:
            return self._refuse(event, message("refused_no_retract"))
        wait = self._on_time.wait(now, self._motor_cfg.retract_ms / 1000)
        if wait is not None:
            return [self._refused_wait("Retract", None, None, *wait)]
        return self._run_phase(_RETRACT, "reverse", self._motor_cfg.retract_duty,
                               self._motor_cfg.retract_ms / 1000, now)

    def _on_reset(self, event: Reset, now: float) -> list[Action]:
        if self._state != HALTED:
            return self._refuse(event, message("refused_not_halted"))
        self._reason = None
        self._stalled = False
        self._reset_deadline = None
        return self._enter(self._settled_state(), now) + [Emit("reset", {"source": str(event.source)})]

    def _on_restore(self, event: Restore, now: float) -> list[Action]:
        """What the last run left: its motor record, and the halt it must come up in."""
        if event.on_time is not None:
            self._on_time.restore(event.on_time, now)
        return [] if event.halt is None else self.shutdown(event.halt, now)
