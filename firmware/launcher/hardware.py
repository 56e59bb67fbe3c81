"""The launcher's devices: gpiozero objects built from the configuration.

:class:`Hardware` is the only place that touches GPIO. It is built with an injected pin factory
(a ``MockFactory`` in tests and in simulation, the platform default on a Pi) and never at import
time, so importing this module is free of side effects.

Every output is constructed off. The motor is driven through two PWM inputs of an H-bridge
driver (DRV8833/TB6612 style) and is never driven both ways at once. Inputs are plain
:class:`~gpiozero.DigitalInputDevice` objects: :class:`~gpiozero.Button` would start a hold thread
that wakes every 100 ms, and the button is debounced by the core (``bounce_time`` is implemented
differently by every backend and ignored by the mock), except on lgpio, whose own debounce is the
core's rule on the kernel's times (:func:`debounces_on_edge_times`). Each input's pull comes from
:func:`firmware.board.pins.input_pull`, the rule the wiring documentation is generated from.

Every edge is handed over with the time the pin backend gives it (:class:`StampedInput`), not the
moment Python got to run the callback: lgpio stamps each edge in the kernel, so an interpreter
busy elsewhere cannot make a card's crossing look shorter or longer than it was.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
import warnings
from collections.abc import Callable
from functools import partial
from typing import Any

from gpiozero import (
    AngularServo,
    Buzzer,
    CallbackSetToNone,
    DigitalInputDevice,
    DigitalOutputDevice,
    GPIOPinInUse,
    PinPWMUnsupported,
    PWMLED,
    PWMOutputDevice,
)

from firmware.config import NOT_FITTED, PIN_KEYS, Config
from firmware.errors import HardwareError, Unavailable
from firmware.events import Chime, InputLevels, Led
from firmware.board.indicator import Indicator
from firmware.board.pins import input_pull

log = logging.getLogger(__name__)

MOTOR_DIRECTIONS = ("forward", "reverse", "stop")

# How often an input's merged edges are logged at most (StampedInput._merged).
MERGED_LOG_INTERVAL_S = 60.0

# A test hook, read when the hardware is built (as controller/log/store.py's commit delay): "1" makes the
# stop of a running motor raise before any pin is written, as a driver whose lines can no longer be
# written would. `make systemtest` uses it to show, on real lines under systemd, that a stop that
# fails ends launcherd and safe-off follows (--sim has sim/fault for the same).
STOP_FAILS_VARIABLE = "LAUNCHER_TEST_MOTOR_STOP_FAILS"

# Each input pin and the [sensor] key giving the level the pin has when the input is active.
INPUT_LEVELS = {"button": "button_active", "beam": "beam_blocked", "lid": "lid_open"}

# Called with the logical level and the edge's time on time.monotonic()'s clock (the loop's).
LevelCallback = Callable[[bool, float], Any]


class StampedInput(DigitalInputDevice):
    """A :class:`~gpiozero.DigitalInputDevice` that keeps the backend's time of its last edge.

    gpiozero passes each edge's ``ticks`` from the pin backend down to ``_fire_events`` but calls
    ``when_activated``/``when_deactivated`` without them; this keeps them for :meth:`edge_time`,
    which those callbacks read in the same thread, before the next edge of the pin.
    """

    _edge_ticks = None
    merged_edges = 0
    _merged_logged_at: float | None = None

    def _fire_events(self, ticks, new_active):
        self._edge_ticks = ticks
        if self._last_active is not None and new_active == self._last_active:
            self._merged(ticks)
            # gpiozero would drop it as no change from its own last level, but the daemon's core
            # may have moved on since: each deadline's Tick gives it the button's live level. A
            # bounce read live mid-way, then the kernel's last edge dropped here, left the core
            # with a level the line no longer had (a release never seen, and later a press of
            # its own). The level the kernel read is handed over; the core drops what it has.
            if new_active:
                self._fire_activated()
            else:
                self._fire_deactivated()
            return
        super()._fire_events(ticks, new_active)

    def _merged(self, ticks) -> None:
        """An edge reported at the level the line already had: two edges merged.

        On a line watched for both edges, Linux stamps each edge in its hard interrupt but reads
        the line's level later, in the line's interrupt thread; when the line has gone back
        before that thread runs, the two edges reach user space as one event at the level the
        line went back to (traced in the system test's VM: a 16 ms beam block under a 22 ms
        late interrupt thread). gpiozero drops such an event, so a pulse shorter than the
        kernel's latency is never seen: on a Pi (tens of microseconds) a glitch, which the beam
        filter would drop anyway. Counted for status and logged at most once a minute, since a
        card may be missing from a count when it happens to a longer pulse.
        """
        self.merged_edges += 1
        now = time.monotonic()
        if self._merged_logged_at is None or now - self._merged_logged_at >= MERGED_LOG_INTERVAL_S:
            self._merged_logged_at = now
            log.warning("%s: %d edge(s) so far came in pairs the kernel merged (the line changed"
                        " and changed back before its interrupt thread read it): a pulse that"
                        " short is not seen", self.pin.info.name if self.pin else "an input", self.merged_edges)

    def edge_time(self) -> float:
        """The last edge's time on ``time.monotonic()``'s clock, never in the future.

        lgpio's ticks are the kernel's CLOCK_MONOTONIC nanoseconds (its line requests leave the
        realtime flag off), as seconds from gpiozero, and a mock pin's are ``time.monotonic()``;
        going through the factory's ``ticks_diff`` rather than taking them as they are keeps
        any backend right, whatever its clock. An edge stamped later than now (another clock
        than it claims) is taken as now.
        """
        now = time.monotonic()
        if self._edge_ticks is None:
            return now
        factory = self.pin_factory
        return now - max(0.0, factory.ticks_diff(factory.ticks(), self._edge_ticks))



def debounces_on_edge_times(factory: Any) -> bool:
    """Whether ``factory``'s pins debounce as the core does, on the edges' own times.

    lgpio (gpiozero's default on a Pi 5, and on any Pi where it is installed) reports a level only
    once it has held for the debounce time, judged in C on the kernel's timestamps of the edges,
    and only when it differs from the level it reported last; the report carries the moment the
    level had held. That is the core's rule ("stable for ``button_debounce_ms`` after the last
    edge") without a timer in the daemon after the edge: bare gpiozero's ``bounce_time`` on the
    same chip started the motor 9 ms after the press had held, the core's own debounce about
    25 ms under the system test's emulator (its timers fire late). The core's debounce, timed from
    each edge's arrival, cannot use the kernel's times itself: reading the line live at a
    deadline mixed a late edge with a later bounce and counted a press twice (docs/systemtest.md).
    Other backends keep the core's: RPi.GPIO's ``bouncetime`` ignores edges after the first one
    (a glitch would start the motor) and a mock pin ignores it.
    """
    # gpiozero imports it only where lgpio is installed (and the daemon where [pins] chip asks).
    lgpio_factory = getattr(sys.modules.get("gpiozero.pins.lgpio"), "LGPIOFactory", None)
    return isinstance(lgpio_factory, type) and isinstance(factory, lgpio_factory)


def describe_pins(config: Config) -> list[dict]:
    """Every fitted pin of ``config``, in schema order, for the wiring table.

    Each entry: ``bcm`` (GPIO number), ``function`` (the ``[pins]`` key), ``direction``
    (``in``/``out``) and ``pull`` (``up``/``down`` for inputs, ``-`` for outputs).
    """
    rows = []
    for key in PIN_KEYS:
        bcm = getattr(config.pins, key)
        if bcm is NOT_FITTED:
            continue
        if key in INPUT_LEVELS:
            direction, pull = "in", input_pull(config, key)
        else:
            direction, pull = "out", "-"
        rows.append({"bcm": bcm, "function": key, "direction": direction, "pull": pull})
    return rows


def with_edge_time(device: StampedInput, callback: Callable[..., Any], *args: Any) -> Any:
    """``callback(*args, at)`` with the time of ``device``'s edge: a ``when_activated`` body."""
    return callback(*args, device.edge_time())


def _explain(exc: Exception) -> str:
    if isinstance(exc, PinPWMUnsupported):
        return "the pin factory cannot do PWM on this pin"
    if isinstance(exc, GPIOPinInUse):
        return f"the pin is already in use ({exc})"
    return str(exc) or type(exc).__name__


class Hardware:
    """The motor, driver standby and heartbeat, button, beam, lid, LED, chime and aim servo of one launcher.

    :param config: the checked configuration; optional pins (``motor_enable``, ``motor_heartbeat``,
        ``lid``, ``servo``)
        that are not fitted get no device.
    :param pin_factory: the gpiozero pin factory; :data:`None` means gpiozero's default.
    :raises HardwareError: a device could not be built; the message names the GPIO and its
        function, and every device built so far has been closed again.

    Use it as a context manager, or call :meth:`close`.
    """

    def __init__(self, config: Config, pin_factory=None):
        self._config = config
        self._factory = pin_factory
        self._devices: list[Any] = []
        self._motor_lock = threading.Lock()
        self._closed = False
        self._stop_fails = os.environ.get(STOP_FAILS_VARIABLE) == "1"
        # Set before building so that close() can run after a failure half-way through.
        self._forward = self._reverse = self._enable = self._heartbeat = None
        self._indicators: list[Indicator] = []
        # Inputs whose device is active at the opposite of their logical level (see _build_input).
        self._inverted: dict[Any, bool] = {}
        pins = config.pins
        try:
            # Motor pins first: they are the ones that must be forced low as early as possible.
            # Two PWMOutputDevices rather than gpiozero.Motor: Motor drives its enable (standby) pin
            # high the moment it is built and for its whole life, while the core wakes the driver
            # only when ready and puts it to sleep with the launcher.
            frequency = config.motor.pwm_frequency
            self._forward = self._build("motor_forward", PWMOutputDevice, frequency=frequency)
            self._reverse = self._build("motor_reverse", PWMOutputDevice, frequency=frequency)
            self._enable = (
                None
                if pins.motor_enable is NOT_FITTED
                else self._build("motor_enable", DigitalOutputDevice, initial_value=False)
            )
            self._heartbeat = (
                None
                if pins.motor_heartbeat is NOT_FITTED
                else self._build("motor_heartbeat", DigitalOutputDevice, initial_value=False)
            )
            self._button = self._build_input("button")
            # The button's edges come already debounced where the backend can (ButtonLevel.debounced).
            self.button_debounced = debounces_on_edge_times(self._button.pin_factory)
            if self.button_debounced:
                self._button.pin.bounce = config.timing.button_debounce_ms / 1000
            self._beam = self._build_input("beam")
            self._lid = None if pins.lid is NOT_FITTED else self._build_input("lid")
            # Played from threads of their own, started once: never a thread started or joined
            # on the motor's loop for a flash or a beep (firmware/board/indicator.py).
            self._led = self._indicator("led", PWMLED, initial_value=0)
            self._chime = self._indicator("chime", Buzzer, initial_value=False)
            self._servo = (
                None
                if pins.servo is NOT_FITTED
                else self._build(
                    "servo",
                    AngularServo,
                    # None sends no pulses: the servo stays where it is until the first aim.
                    initial_angle=None,
                    min_angle=-90,
                    max_angle=90,
                    min_pulse_width=config.aim.min_pulse_ms / 1000,
                    max_pulse_width=config.aim.max_pulse_ms / 1000,
                )
            )
        except HardwareError:
            self.close()
            raise

    def _indicator(self, key: str, device_class: type, **kwargs: Any) -> Indicator:
        indicator = Indicator(self._build(key, device_class, **kwargs), key)
        self._indicators.append(indicator)
        return indicator

    def _build(self, key: str, device_class: type, **kwargs: Any) -> Any:
        bcm = getattr(self._config.pins, key)
        try:
            device = device_class(bcm, pin_factory=self._factory, **kwargs)
        # Backends raise their own types (lgpio.error "GPIO busy", RuntimeError from RPi.GPIO),
        # so anything raised while building a device is reported as a HardwareError.
        except Exception as exc:
            raise HardwareError(
                f"cannot set up GPIO {bcm} as [pins] {key} ({device_class.__name__}): {_explain(exc)}"
            ) from exc
        self._devices.append(device)
        return device

    def _build_input(self, key: str) -> StampedInput:
        # gpiozero takes the level opposite to the pull as active and allows no other choice
        # with a pull. The lid's pull holds "open" (a broken wire must stop the motor), so its
        # device is active while the lid is shut and its level is read inverted.
        pull_up = input_pull(self._config, key) == "up"
        device = self._build(key, StampedInput, pull_up=pull_up, bounce_time=None)
        active_low = getattr(self._config.sensor, INPUT_LEVELS[key]) == "low"
        self._inverted[device] = pull_up != active_low
        return device

    def _level(self, device: DigitalInputDevice) -> bool:
        return bool(device.is_active) != self._inverted[device]

    # ---- inputs ---------------------------------------------------------------------------

    def watch(
        self,
        on_button: LevelCallback | None,
        on_beam: LevelCallback | None,
        on_lid: LevelCallback | None = None,
    ) -> None:
        """Call ``on_button(pressed, at)``, ``on_beam(blocked, at)``, ``on_lid(open, at)`` on each edge.

        The callbacks receive the logical level as a bool and the edge's time from the pin
        backend on ``time.monotonic()``'s clock (:meth:`StampedInput.edge_time`). They run in the
        backend's thread
        (synchronously in the caller's thread with mock pins), so they should only hand the
        level over to the event loop. :data:`None` removes a callback; ``on_lid`` is ignored
        without a lid switch.
        """
        self._check_open()
        with warnings.catch_warnings():
            # gpiozero warns on None, guessing `when_x = f()` was meant; here it is deliberate.
            warnings.simplefilter("ignore", CallbackSetToNone)
            for device, callback in ((self._button, on_button), (self._beam, on_beam), (self._lid, on_lid)):
                if device is None:
                    continue
                inverted = self._inverted[device]
                edge = None if callback is None else partial(with_edge_time, device, callback)
                device.when_activated = None if edge is None else partial(edge, not inverted)
                device.when_deactivated = None if edge is None else partial(edge, inverted)

    def merged_edges(self) -> dict[str, int]:
        """Per input, how many edges the kernel handed over merged with the next
        (:meth:`StampedInput._merged`): a pulse shorter than its interrupt thread's latency."""
        inputs = (("button", self._button), ("beam", self._beam), ("lid", self._lid))
        return {name: device.merged_edges for name, device in inputs if device is not None}

    @property
    def button_pressed(self) -> bool:
        """True while the launch button is down (raw, not debounced)."""
        return self._level(self._button)

    @property
    def beam_blocked(self) -> bool:
        """True while something interrupts the exit beam."""
        return self._level(self._beam)

    @property
    def lid_open(self) -> bool | None:
        """True while the hopper lid is open; :data:`None` without a lid switch."""
        return None if self._lid is None else self._level(self._lid)

    def levels(self) -> InputLevels:
        """Every input's logical level now (pressed, blocked, open), for the core at start."""
        self._check_open()
        return InputLevels(button=self.button_pressed, beam=self.beam_blocked, lid=self.lid_open)

    # ---- outputs --------------------------------------------------------------------------

    def motor(self, direction: str, duty: float = 0.0) -> None:
        """Drive the motor ``forward`` or ``reverse`` at ``duty`` (0-1), or ``stop`` it.

        The input that is switched off is always written first, so the two driver inputs are
        never on together (which would brake the H-bridge or, on some drivers, short it).
        Stopping a closed :class:`Hardware` is allowed and does nothing: the motor is off.
        """
        if direction not in MOTOR_DIRECTIONS:
            raise ValueError(
                f"motor direction must be one of {', '.join(MOTOR_DIRECTIONS)}, not {direction!r}"
            )
        if not 0.0 <= duty <= 1.0:
            raise ValueError(f"motor duty must be from 0 to 1, not {duty!r}")
        # The lock keeps the off-first order when close() runs in another thread (signal, atexit).
        with self._motor_lock:
            if self._closed and direction == "stop":
                return
            self._check_open()
            if direction == "forward":
                self._reverse.value = 0
                self._forward.value = duty
            elif direction == "reverse":
                self._forward.value = 0
                self._reverse.value = duty
            else:
                if self._stop_fails and (self._forward.value or self._reverse.value):
                    raise HardwareError(f"the motor's stop failed ({STOP_FAILS_VARIABLE} is set)")
                self._forward.value = 0
                self._reverse.value = 0

    def set_driver_enabled(self, on: bool) -> None:
        """Take the motor driver out of standby (``on``) or put it in; nothing without the pin."""
        self._check_open()
        if self._enable is not None:
            self._enable.value = bool(on)

    @property
    def has_heartbeat(self) -> bool:
        """True when the driver's enable gate is fitted (``[pins] motor_heartbeat``)."""
        return self._heartbeat is not None

    def heartbeat(self, level: bool) -> None:
        """Set the heartbeat pin (firmware/board/heartbeat.py toggles it); nothing without the pin."""
        self._check_open()
        if self._heartbeat is not None:
            self._heartbeat.value = bool(level)

    def led(self, action: Led) -> None:
        """Show a :class:`~firmware.events.Led` action on the button LED.

        ``flash`` blinks at full brightness, half the period on and half off, ``count`` times or
        (``count`` None) until the next action, from the LED's own thread.
        """
        self._check_open()
        if action.mode == "off":
            self._led.steady(0)
        elif action.mode == "on":
            self._led.steady(action.brightness)
        elif action.mode == "flash":
            if action.period_ms <= 0:
                # A zero period would make the pattern's thread spin without sleeping.
                raise ValueError(f"an LED flash needs period_ms > 0, not {action.period_ms}")
            half = action.period_ms / 2000
            self._led.play(1, half, half, action.count)
        else:
            raise ValueError(f"LED mode must be off, on or flash, not {action.mode!r}")

    def chime(self, action: Chime) -> None:
        """Sound a :class:`~firmware.events.Chime` action in the background.

        Always a finite number of beeps; a new chime replaces one still sounding.
        """
        self._check_open()
        if action.count < 0 or action.ms < 0 or action.gap_ms < 0:
            raise ValueError(f"a chime needs count, ms and gap_ms >= 0, not {action}")
        self._chime.play(1, action.ms / 1000, action.gap_ms / 1000, action.count)

    @property
    def has_servo(self) -> bool:
        """True when an aim servo is fitted."""
        return self._servo is not None

    def aim(self, angle: float) -> float:
        """Turn the aim servo to ``angle`` degrees, clamped to ``[aim] min_angle..max_angle``.

        Returns the angle actually set. :raises Unavailable: no servo is fitted.
        """
        self._check_open()
        if self._servo is None:
            raise Unavailable("no aim servo is fitted ([pins] servo = false)")
        aim = self._config.aim
        angle = min(max(float(angle), aim.min_angle), aim.max_angle)
        self._servo.angle = angle
        return angle

    # ---- lifetime -------------------------------------------------------------------------

    @property
    def closed(self) -> bool:
        """True once :meth:`close` has run."""
        return self._closed

    def _check_open(self) -> None:
        if self._closed:
            raise HardwareError("the hardware has been closed")

    def close(self) -> None:
        """Stop the motor, put the driver in standby, then release every pin. Idempotent."""
        with self._motor_lock:
            if self._closed:
                return
            self._closed = True
            # Off first, while the devices still exist: closing a pin may leave it floating
            # (lgpio) and the order of the remaining closes must not matter for safety.
            for device in (self._forward, self._reverse):
                if device is not None:
                    device.value = 0
            for device in (self._enable, self._heartbeat):
                if device is not None:
                    device.off()
            for indicator in self._indicators:
                indicator.close()
            release_all(self._devices)

    def __enter__(self) -> Hardware:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def release_all(devices: list[Any]) -> None:
    """Close every device, once the moving outputs are off: one that fails to release its line is
    logged and the others are still released. lgpio's close claims the line back as an input, and
    it answered "GPIO busy" once in the VM while the motor was already off (scenario 7): the way
    down ended in a traceback, exit status 1 instead of 0. The process ends next, and the kernel
    frees every line it held."""
    for device in devices:
        # Named before it closes: a device half-closed by a failure cannot say what it is (its
        # repr reads the line's value, and raised inside the warning below).
        name = f"{type(device).__name__} on {getattr(device, 'pin', None)}"
        try:
            device.close()
        except Exception as exc:  # lgpio.error and gpiozero's errors alike
            log.warning("releasing %s failed (%s: %s); the line is freed as the process ends",
                        name, type(exc).__name__, exc)
    devices.clear()


__all__ = ["Hardware", "INPUT_LEVELS", "MOTOR_DIRECTIONS", "StampedInput", "describe_pins",
           "release_all", "with_edge_time"]
