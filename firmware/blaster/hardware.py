"""The blaster's devices: one card-present sensor per slot, the release actuator, LED and chime.

Built like :class:`firmware.launcher.hardware.Hardware`: an injected pin factory, never at import time,
every output constructed off, a failed build closes what it built and raises ``HardwareError``
naming the GPIO. Slot sensors are ``DigitalInputDevice`` objects debounced by the core.

Each slot's contact (a microswitch the card closes, or an optical sensor's open collector) drives
``[blaster] slot_full`` while a card is in; the internal pull holds the other level, so a broken
wire reads as an empty slot. Slot edges carry the pin backend's time, as the launcher's inputs
do (:class:`firmware.launcher.hardware.StampedInput`). The actuator (a solenoid or motor through a MOSFET
or driver input) is on while its pin is high. A pulse is timed by gpiozero's own thread and never
longer than ``max_on_ms``: the actuator goes off even if the daemon's loop stalls.

That thread dies with the process, and a frozen kernel runs none: a kill or a freeze mid-pulse
would leave the pin high, and a Pi keeps it high. lgpio's counted pulses (``tx_pulse``) run in
lgpio's thread, in the same process, and would not change that. What ends the pulse without the
process is the one-shot in the wiring (wiring/heartbeat.svg, docs/build.md): a 74HC123 between the
pin and the MOSFET's gate turns the gate off a fixed time after the pin rose, however long the pin
stays high; then safe-off (``ExecStopPost=``) drives the pin low for good.
"""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable
from functools import partial
from typing import Any

from gpiozero import PWMLED, Buzzer, CallbackSetToNone, DigitalOutputDevice

from firmware.blaster.core import SlotLevels
from firmware.config import Config
from firmware.errors import HardwareError
from firmware.events import Chime, Led
from firmware.launcher.hardware import StampedInput, release_all, with_edge_time
from firmware.board.indicator import Indicator
from firmware.board.pins import input_pull

SlotCallback = Callable[[int, bool, float], Any]  # slot, full, the edge's time (time.monotonic())


def describe_pins(config: Config) -> list[dict]:
    """The blaster's pins for the wiring table: ``bcm``, ``function``, ``direction``, ``pull``."""
    blaster, pins = config.blaster, config.pins
    pull = input_pull(config, "slot")
    rows = [{"bcm": pin, "function": f"slot {n}", "direction": "in", "pull": pull}
            for n, pin in enumerate(blaster.slot_pins, 1)]
    rows.append({"bcm": blaster.actuator, "function": "actuator", "direction": "out", "pull": "-"})
    rows += [{"bcm": getattr(pins, key), "function": key, "direction": "out", "pull": "-"}
             for key in ("led", "chime")]
    return rows


class BlasterHardware:
    """Slot sensors, release actuator, button LED and chime of one blaster.

    :param config: the checked configuration: ``[blaster]``, and ``[pins] led`` and ``chime`` as on
        the launcher.
    :param pin_factory: gpiozero's pin factory; None for its default.
    """

    def __init__(self, config: Config, pin_factory=None):
        blaster, pins = config.blaster, config.pins
        self._factory = pin_factory
        self._devices: list[Any] = []
        self._lock = threading.Lock()
        self._closed = False
        self._max_on_s = blaster.max_on_ms / 1000
        self._actuator = None
        self._indicators: list[Indicator] = []
        try:
            # The actuator first: it is the output that must be held off as early as possible.
            self._actuator = self._build(blaster.actuator, "[blaster] actuator", DigitalOutputDevice,
                                         initial_value=False)
            pull_up = input_pull(config, "slot") == "up"
            self._slots = [
                self._build(pin, f"[blaster] slot_pins (slot {n})", StampedInput,
                            pull_up=pull_up, bounce_time=None)
                for n, pin in enumerate(blaster.slot_pins, 1)
            ]
            # Played from threads of their own (firmware/board/indicator.py), as the launcher's.
            self._led = self._indicator(pins.led, "[pins] led", PWMLED, initial_value=0)
            self._chime = self._indicator(pins.chime, "[pins] chime", Buzzer, initial_value=False)
        except HardwareError:
            self.close()
            raise

    def _indicator(self, bcm: int, name: str, device_class: type, **kwargs: Any) -> Indicator:
        indicator = Indicator(self._build(bcm, name, device_class, **kwargs), name)
        self._indicators.append(indicator)
        return indicator

    def _build(self, bcm: int, name: str, device_class: type, **kwargs: Any) -> Any:
        try:
            device = device_class(bcm, pin_factory=self._factory, **kwargs)
        except Exception as exc:  # backends raise their own types; report them all alike
            raise HardwareError(
                f"cannot set up GPIO {bcm} as {name} ({device_class.__name__}): {exc or type(exc).__name__}"
            ) from exc
        self._devices.append(device)
        return device

    def _check_open(self) -> None:
        if self._closed:
            raise HardwareError("the blaster hardware has been closed")

    # ---- inputs ---------------------------------------------------------------------------

    def watch(self, on_slot: SlotCallback | None) -> None:
        """Call ``on_slot(slot, full, at)`` (slot from 1, ``at`` the backend's time of the edge on
        ``time.monotonic()``'s clock) on every edge, in the backend's thread."""
        self._check_open()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", CallbackSetToNone)
            for n, device in enumerate(self._slots, 1):
                # The pull is opposite the full level, so "active" is always "a card is in".
                edge = None if on_slot is None else partial(with_edge_time, device, on_slot, n)
                device.when_activated = None if edge is None else partial(edge, True)
                device.when_deactivated = None if edge is None else partial(edge, False)

    def levels(self) -> SlotLevels:
        """Every slot's level now, slot 1 first, for the core at start."""
        self._check_open()
        return SlotLevels(tuple(bool(device.is_active) for device in self._slots))

    # ---- outputs --------------------------------------------------------------------------

    def release(self, ms: int) -> None:
        """Pulse the actuator for ``ms`` (at most ``max_on_ms``), timed here; 0 turns it off now.

        Turning off a closed blaster is allowed and does nothing: the actuator is off.
        """
        if ms < 0:
            raise ValueError(f"a release pulse is 0 ms or more, not {ms}")
        with self._lock:
            if self._closed and ms == 0:
                return
            self._check_open()
            if ms == 0:
                self._actuator.off()
            else:
                on_s = min(ms / 1000, self._max_on_s)
                # On in the caller's thread (listeners of simulated pins run in the loop), then
                # gpiozero's thread holds it and turns it off at the end.
                self._actuator.on()
                self._actuator.blink(on_time=on_s, off_time=0, n=1, background=True)

    @property
    def actuator_on(self) -> bool:
        return bool(self._actuator is not None and self._actuator.value)

    def led(self, action: Led) -> None:
        """The button LED, as on the launcher."""
        self._check_open()
        if action.mode == "off":
            self._led.steady(0)
        elif action.mode == "on":
            self._led.steady(action.brightness)
        elif action.mode == "flash" and action.period_ms > 0:
            half = action.period_ms / 2000
            self._led.play(1, half, half, action.count)
        else:
            raise ValueError(f"not an LED action this LED can show: {action}")

    def chime(self, action: Chime) -> None:
        self._check_open()
        if action.count < 0 or action.ms < 0 or action.gap_ms < 0:
            raise ValueError(f"a chime needs count, ms and gap_ms >= 0, not {action}")
        self._chime.play(1, action.ms / 1000, action.gap_ms / 1000, action.count)

    # ---- lifetime -------------------------------------------------------------------------

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        """Actuator off, then release every pin. Idempotent."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            if self._actuator is not None:
                self._actuator.off()
            for indicator in self._indicators:
                indicator.close()
            release_all(self._devices)

    def __enter__(self) -> BlasterHardware:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


__all__ = ["BlasterHardware", "describe_pins"]
