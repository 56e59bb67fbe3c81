"""A simulated card feed on mock pins, for ``launcherd --sim``, the demo and the tests.

The simulation sits on the far side of the pins: it watches the motor pins that
:class:`~firmware.launcher.hardware.Hardware` drives and drives the input pins (beam, button, lid) that
Hardware reads, so the daemon runs exactly the code it runs on a Pi. Instead of polling the motor
pin, it uses pins that report their output changes (:func:`sim_pin_factory`).

It only needs ``loop.call_later(delay, fn)`` (returning a handle with ``cancel()``; a negative delay is a
timer whose time has passed, run in its order among the others, as asyncio does) and
``loop.time()``, so tests can drive it with a fake loop and a manual clock. Every method, and every
listener it registers, runs in the loop's thread: mock pins call listeners synchronously in the
thread that writes the pin, which in the daemon is the loop thread.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import random
import threading
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gpiozero.pins.mock import MockFactory, MockPWMPin

from firmware.daemon.registry import Param
from firmware.daemon.device import DaemonHost
from firmware.config import NOT_FITTED, Config
from firmware.errors import InvalidParams, Unavailable

# How much longer than the debounce time a simulated press is held, so it always counts. The core
# judges debounce on the edges' own times, so a late loop does not eat into it: a little is enough.
PRESS_MARGIN_MS = 5
# MockPin keeps every change it ever made in ``states``: a simulation that runs for days keeps
# only the recent ones (enough for any test that reads them).
STATE_HISTORY = 256

PinListener = Callable[["ReportingPin"], object]
# Where ``launcherd --sim`` keeps the simulated mechanism's state, in its state dir: a restarted
# demo's hopper (and blaster's slots) match the table's cards.
STATE_FILE = "sim.json"

log = logging.getLogger(__name__)


class KeptState:
    """A small JSON file of the simulation's state, written atomically by a thread of its own.

    :meth:`keep` is called in the loop on every change (every card that leaves the hopper): it only
    swaps the latest snapshot in, and the writer thread writes whatever is latest, so changes
    coalesce and the loop never waits for the disk. :meth:`close` writes the last one before it
    returns. ``kind`` tells the launcher's state from the blaster's, which share the file name.
    """

    def __init__(self, state_dir: Path, kind: str):
        self.path = Path(state_dir) / STATE_FILE
        self._kind = kind
        self._latest: dict[str, Any] | None = None
        self._lock = threading.Lock()
        self._changed = threading.Event()
        self._closing = False
        self._writer = threading.Thread(target=self._write_changes, name="sim-state", daemon=True)
        self._writer.start()

    def load(self) -> dict[str, Any]:
        """The state last kept by this kind of device; empty when none was (or it cannot be read)."""
        try:
            data = json.loads(self.path.read_text())
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            log.warning("sim: %s cannot be read (%s): starting from the configuration", self.path, exc)
            return {}
        return data if isinstance(data, dict) and data.get("kind") == self._kind else {}

    def keep(self, state: dict[str, Any]) -> None:
        with self._lock:
            self._latest = {"kind": self._kind, **state}
        self._changed.set()

    def _write_changes(self) -> None:
        while True:
            self._changed.wait()
            self._changed.clear()
            # Read before the write: a change kept while an older one was being written, just
            # before close(), is written by the next round instead of being left behind.
            closing = self._closing
            self._write_latest()
            if closing:
                return

    def _write_latest(self) -> None:
        with self._lock:
            latest, self._latest = self._latest, None
        if latest is None:
            return
        temporary = self.path.with_suffix(".tmp")
        try:
            temporary.write_text(json.dumps(latest))
            os.replace(temporary, self.path)
        except OSError as exc:  # a demo's convenience: the simulation goes on without it
            log.warning("sim: cannot keep the simulation's state in %s: %s", self.path, exc)

    def close(self) -> None:
        """Write the last change and stop the writer. Idempotent."""
        if self._closing:
            return
        self._closing = True
        self._changed.set()
        self._writer.join(5)


class ReportingPin(MockPWMPin):
    """A PWM-capable mock pin that calls its listeners after each change of its output state.

    Its ``states`` history is bounded (:data:`STATE_HISTORY`), unlike a plain MockPin's.

    Changes of an input (``drive_high``/``drive_low``) are not reported: gpiozero already calls
    the device's own callback for those.
    """

    def __init__(self, factory, info):
        super().__init__(factory, info)
        self._listeners: list[PinListener] = []
        self.fail_next_off = False  # sim/fault: the next write of 0 raises, and the pin stays as it is
        self._stamp: float | None = None  # while drive() runs: when the change happened

    def drive(self, high: bool, at: float | None = None) -> None:
        """Change this input as ``drive_high``/``drive_low`` do, the edge stamped ``at`` (on
        ``time.monotonic()``, the mock pins' clock; never later than now): the change was due
        then, and whoever ran it (a timer of a paused loop) came late. A time, not a lateness:
        a thread switch between reckoning a lateness and the change would shift the stamp."""
        self._stamp = at
        try:
            if high:
                self.drive_high()
            else:
                self.drive_low()
        finally:
            self._stamp = None

    def add_listener(self, listener: PinListener) -> None:
        """Call ``listener(pin)`` after every change of this pin's output state."""
        self._listeners.append(listener)

    def remove_listener(self, listener: PinListener) -> None:
        """Stop calling ``listener``; nothing happens if it was not registered."""
        if listener in self._listeners:
            self._listeners.remove(listener)

    def _change_state(self, value):
        if self.fail_next_off and not value:
            self.fail_next_off = False
            raise OSError(f"simulated fault: GPIO {self.info.name} could not be driven low")
        changed = super()._change_state(value)
        if changed and self._stamp is not None:
            self._last_change = min(self._last_change, self._stamp)  # the edge's time, for the callback
        if len(self.states) > 2 * STATE_HISTORY:
            del self.states[:-STATE_HISTORY]
        if changed and self._function == "output":
            # A copy: a listener may remove itself while being called.
            for listener in list(self._listeners):
                listener(self)
        return changed


def sim_pin_factory() -> MockFactory:
    """A mock pin factory whose pins can do PWM and report output changes to listeners."""
    return MockFactory(pin_class=ReportingPin)


class SimulatedMechanism:
    """A hopper, a feed wheel and an exit beam, driven by the mock motor pins.

    While the forward motor input has a duty above 0, the reverse input is off and the driver is
    enabled (if it has a standby pin), cards cross the beam one every
    ``1 / (sim.cards_per_second * duty)`` seconds, the first one interval after the motor starts.
    A duty change while running keeps the progress already made towards the next card. Each card
    leaves the hopper and holds the beam at its blocked level for ``sim.block_ms``.

    The mechanism lives on the loop's timeline: each card enters the beam, and leaves it, at the
    moment its timer was due, and its edges are stamped then, however late a busy machine ran the
    timer. The core places a stamped edge among its own deadlines by that time, so a paused loop
    changes when the daemon learns of a card, never which came first: the card before the stop
    its count called, the last card before a feed timeout. A test's verdict is then the same
    on a busy machine as on a quiet one.

    Per card, with ``sim.misfeed_chance`` the wheel slips instead (no card, and none until the
    motor stops and starts again) and with ``sim.jam_chance`` (or after :meth:`jam_next`) the card
    sticks in the slot, keeping the beam blocked until :meth:`clear`. A card due while the slot is
    still occupied waits and enters as soon as the slot is free. Stopping (or reversing) the motor
    cancels the card on its way; a card already in the beam still completes its crossing.

    :param config: the configuration (pins, sensor levels, ``[sim]``, button debounce).
    :param factory: the pin factory from :func:`sim_pin_factory` that Hardware uses too.
    :param loop: provides ``call_later`` and ``time``; an asyncio loop or a test's fake.
    :param rng: decides jams and misfeeds, so a seeded run repeats.
    """

    def __init__(self, config: Config, factory: MockFactory, loop, rng: random.Random,
                 state_dir: Path | None = None):
        self._config = config
        self._loop = loop
        self._rng = rng
        self._sim = config.sim
        self._cards_per_second = config.sim.cards_per_second  # until set_feed_rate
        pins, sensor = config.pins, config.sensor
        self._forward = self._watched(factory, pins.motor_forward)
        self._reverse = self._watched(factory, pins.motor_reverse)
        self._enable = None if pins.motor_enable is NOT_FITTED else self._watched(factory, pins.motor_enable)
        self._button = factory.pin(pins.button)
        self._beam = factory.pin(pins.beam)
        self._lid = None if pins.lid is NOT_FITTED else factory.pin(pins.lid)
        self._beam_blocked_high = sensor.beam_blocked == "high"
        self._button_pressed_high = sensor.button_active == "high"
        self._lid_open_high = sensor.lid_open == "high"

        # ``state_dir``: the hopper is kept there and a restart finds it as it was.
        self._kept = None if state_dir is None else KeptState(state_dir, "launcher")
        kept = {} if self._kept is None else self._kept.load()
        self._hopper = _count(kept.get("hopper"), config.sim.hopper)
        self._cards_out = 0
        self._stuck = False
        self._jam_next = False
        self._slot_busy = False  # a card is crossing or stuck in the beam
        self._waiting = False  # the next card is due but the slot is occupied
        self._slipped = False  # the feed wheel slipped: no card until the motor restarts
        self._rate = 0.0  # cards per second now; 0 while not feeding
        self._progress = 0.0  # fraction of the way to the next card, at _progress_at
        self._progress_at = loop.time()
        self._feed_timer = None
        self._feed_due = 0.0  # when the feed timer's card reaches the beam
        self._crossing_timer = None
        self._release_timer = None
        self._press_timer = None
        self._presses: deque[int | None] = deque()  # requests of presses still to come
        self._held_for: int | None = None
        self._closed = False

        self._drive(self._beam, not self._beam_blocked_high)
        if self._lid is not None:
            # Hardware pulls the lid input to "open" (a broken wire stops the motor): shut it.
            self._drive(self._lid, not self._lid_open_high)
        for pin in self._watched_pins():
            pin.add_listener(self._motor_changed)
        self._motor_changed()

    @staticmethod
    def _watched(factory: MockFactory, bcm: int) -> ReportingPin:
        pin = factory.pin(bcm)
        if not isinstance(pin, ReportingPin):
            raise TypeError(
                f"GPIO {bcm} is a {type(pin).__name__}: the simulation needs the factory from"
                " sim_pin_factory(), whose pins report motor changes"
            )
        return pin

    def _watched_pins(self) -> list[ReportingPin]:
        return [pin for pin in (self._forward, self._reverse, self._enable) if pin is not None]

    def _pin_time(self, at: float) -> float:
        """``at`` on the loop's clock as a time on the mock pins' (``time.monotonic()``)."""
        if isinstance(self._loop, asyncio.AbstractEventLoop):
            return at  # asyncio's loop.time() is time.monotonic()
        return time.monotonic() - (self._loop.time() - at)  # a test's fake clock, as of now

    def _drive(self, pin, high: bool, at: float | None = None) -> None:
        """Drive an input pin; ``at``: when the change happened, on the loop's clock."""
        if isinstance(pin, ReportingPin):
            pin.drive(high, None if at is None else self._pin_time(at))
        elif high:
            pin.drive_high()
        else:
            pin.drive_low()

    # ---- the feed -------------------------------------------------------------------------

    def _feeding_rate(self) -> float:
        duty = self._forward.state
        enabled = self._enable is None or self._enable.state
        if duty > 0 and not self._reverse.state and enabled:
            return self._cards_per_second * duty
        return 0.0

    def set_feed_rate(self, cards_per_second: float) -> None:
        """Feed at ``cards_per_second`` (at full duty) from now on, keeping the progress already
        made towards the next card: one part of a run slow (a card long under way), the rest quick."""
        self._cards_per_second = cards_per_second
        self._motor_changed()

    def _motor_changed(self, pin: ReportingPin | None = None) -> None:
        now = self._loop.time()
        # A card due before this change whose timer the loop has not run yet: while the wheel
        # still turns it keeps its time; a stop takes it back, since the core's stop came first.
        overdue = self._feed_due if self._feed_timer is not None and self._feed_due <= now else None
        self._progress += (now - self._progress_at) * self._rate
        self._progress_at = now
        self._rate = self._feeding_rate()
        self._cancel_feed()
        if self._rate and overdue is not None:
            self._feed_at(overdue)
        elif self._rate:
            self._schedule_feed()
        else:
            # Stopped: the card on its way falls back, and a slipped wheel grips again on restart.
            self._progress = 0.0
            self._waiting = False
            self._slipped = False

    def _cancel_feed(self) -> None:
        if self._feed_timer is not None:
            self._feed_timer.cancel()
            self._feed_timer = None

    def _schedule_feed(self) -> None:
        """The next card's timer, due where the wheel's progress since ``_progress_at`` brings it."""
        if self._rate and self._hopper and not (self._slipped or self._waiting or self._feed_timer):
            self._feed_at(self._progress_at + max(0.0, 1.0 - self._progress) / self._rate)

    def _feed_at(self, due: float) -> None:
        self._feed_due = due
        self._feed_timer = self._call_at(due, self._card_due)

    def _call_at(self, due: float, fn: Callable[[], object]):
        """A timer at ``due``, which may have passed: the loop runs timers in the order of their
        times, so a card due before a deadline of the core's still comes before it, and one due
        behind another card's crossing still waits for it."""
        return self._loop.call_later(due - self._loop.time(), fn)

    def _card_due(self, at: float | None = None) -> None:
        """The next card reaches the slot at ``at`` (by default when its timer was due)."""
        self._feed_timer = None
        at = self._feed_due if at is None else at
        self._progress, self._progress_at = 0.0, at
        if self._slot_busy:
            self._waiting = True
            return
        self._feed_card(at)
        self._schedule_feed()

    def _feed_card(self, at: float) -> None:
        if not self._hopper:
            return
        # Both rolls every card, so the random stream does not depend on which outcome happened.
        slips = self._rng.random() < self._sim.misfeed_chance
        sticks = self._rng.random() < self._sim.jam_chance
        if slips:
            self._slipped = True
            return
        self._hopper -= 1
        self._keep()
        self._cards_out += 1
        self._slot_busy = True
        self._drive(self._beam, self._beam_blocked_high, at)
        if sticks or self._jam_next:
            self._jam_next = False
            self._stuck = True
        else:
            leaves = at + self._sim.block_ms / 1000
            self._crossing_timer = self._call_at(leaves, lambda: self._slot_freed(leaves))

    def _slot_freed(self, due: float | None = None) -> None:
        """The card leaves the beam: at ``due`` (its crossing's end) or now (a hand pulls it out)."""
        self._crossing_timer = None
        self._stuck = False
        self._slot_busy = False
        # A paused loop runs this timer late; the card left the slot on time all the same, as a
        # real beam's edge keeps the kernel's time of it.
        freed = self._loop.time() if due is None else due
        self._drive(self._beam, not self._beam_blocked_high, freed)
        if self._waiting:
            # The card that was due behind it enters as the slot frees.
            self._waiting = False
            self._card_due(freed)

    # ---- the player's and the operator's hands --------------------------------------------

    def press(self, request: int | None = None) -> None:
        """Press the launch button and release it after the debounce time and a margin.

        ``request`` is the id of the API request behind the press (see :attr:`held_for`).
        Presses that come while the button is down, or while its release has not yet had time
        to debounce, are queued and made one after another, as a finger would: otherwise the
        next press would be no edge at all and get lost.
        """
        self._presses.append(request)
        if self._release_timer is None and self._press_timer is None:
            self._push()

    @property
    def held_for(self) -> int | None:
        """The request of the press whose button is down now; None between presses."""
        return self._held_for

    def _hold_s(self) -> float:
        return (self._config.timing.button_debounce_ms + PRESS_MARGIN_MS) / 1000

    def _push(self) -> None:
        self._held_for = self._presses.popleft()
        self._drive(self._button, self._button_pressed_high)
        self._release_timer = self._loop.call_later(self._hold_s(), self._release)

    def _release(self) -> None:
        self._release_timer = None
        self._held_for = None
        self._drive(self._button, not self._button_pressed_high)
        # The release must debounce before the next press, or that press would be no edge at all.
        self._press_timer = self._loop.call_later(self._hold_s(), self._released)

    def _released(self) -> None:
        self._press_timer = None
        if self._presses:
            self._push()

    def jam_next(self) -> None:
        """Make the next card that reaches the beam stick in the slot."""
        self._jam_next = True

    def clear(self) -> None:
        """Pull the stuck card out, so the beam clears; nothing happens if none is stuck."""
        if self._stuck:
            self._slot_freed()

    def fail_motor_stop(self) -> None:
        """``sim/fault motor_stop``: the next stop of the motor fails, its forward input left as it is."""
        self._forward.fail_next_off = True

    def set_lid(self, open: bool) -> None:
        """Open or close the hopper lid. :raises Unavailable: no lid switch is configured."""
        if self._lid is None:
            raise Unavailable("no lid switch is configured ([pins] lid = false)")
        self._drive(self._lid, bool(open) == self._lid_open_high)

    def reload(self, cards: int) -> None:
        """Put ``cards`` cards in the hopper; a running motor starts feeding them."""
        if isinstance(cards, bool) or not isinstance(cards, int) or cards < 0:
            raise InvalidParams(f"cards must be a whole number >= 0, not {cards!r}")
        self._hopper = cards
        self._keep()
        if self._rate and self._feed_timer is None and not self._waiting:
            # The wheel turned over an empty hopper: the first card comes one interval from now.
            self._progress, self._progress_at = 0.0, self._loop.time()
        self._schedule_feed()

    @property
    def hopper(self) -> int:
        """The cards in the hopper now (as a restart found them, with a state dir)."""
        return self._hopper

    def _keep(self) -> None:
        if self._kept is not None:
            self._kept.keep({"hopper": self._hopper})

    def get_status(self) -> dict:
        """``hopper`` (cards left), ``cards_out`` (cards that left it), ``stuck`` (a card jammed)."""
        return {"hopper": self._hopper, "cards_out": self._cards_out, "stuck": self._stuck}

    def close(self) -> None:
        """Cancel every timer and stop watching the motor pins. Idempotent."""
        if self._closed:
            return
        self._closed = True
        for pin in self._watched_pins():
            pin.remove_listener(self._motor_changed)
        for timer in (self._feed_timer, self._crossing_timer, self._release_timer, self._press_timer):
            if timer is not None:
                timer.cancel()
        self._feed_timer = self._crossing_timer = self._release_timer = self._press_timer = None
        self._presses.clear()
        if self._kept is not None:
            self._kept.close()


def _count(kept: object, default: int) -> int:
    """A count read back from the kept state, or ``default`` if it is none."""
    return kept if isinstance(kept, int) and not isinstance(kept, bool) and kept >= 0 else default


def setup(host: DaemonHost) -> None:
    """The ``sim/*`` API methods of ``host.sim``, loaded by ``launcherd --sim`` only. Each answers
    with the daemon's status, which already shows the change: the pin callbacks of the mock pins
    run in the loop thread and feed the core at once."""
    sim = host.sim

    def then_status(act: Callable[[dict], object]) -> Callable[[dict], dict]:
        def handler(params: dict) -> dict:
            act(params)
            return host.get_status()
        return handler

    r = host.registry.register
    r("sim/jam", then_status(lambda p: sim.jam_next()), doc="sim: the next card sticks in the slot")
    r("sim/clear", then_status(lambda p: sim.clear()), doc="sim: pull the stuck card out")
    r("sim/lid", then_status(lambda p: sim.set_lid(p["open"])), {"open": bool},
      doc="sim: open or close the lid")
    r("sim/fault", then_status(lambda p: sim.fail_motor_stop()),
      {"fault": Param(str, choices=("motor_stop",))},
      doc="sim: motor_stop makes the next stop of the motor fail (launcherd then ends, for safe-off)")


__all__ = ["PRESS_MARGIN_MS", "STATE_FILE", "KeptState", "ReportingPin", "SimulatedMechanism", "setup",
           "sim_pin_factory"]
