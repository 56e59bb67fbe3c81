"""The GPIO backend on a Pi: one choice, made the same way by the daemon and by safe-off.

gpiozero picks lgpio, RPi.GPIO, pigpio or native by itself, on a chip it guesses from the model;
this project opens lgpio on the chip that carries the header, found by its label (a Pi 5 has it
as gpiochip4 before kernel 6.6.45 and gpiochip0 since: firmware.board.chips), and leaves any other
backend that GPIOZERO_PIN_FACTORY names to gpiozero.

On lgpio every PWM duty cycle is sent as lgpio takes it, a fraction of a percent: gpiozero's own
lgpio pin rounds it down to a whole percent (``int(value * 100)``), 101 steps. For the aim servo at
50 Hz one step is 200 µs of a 1-2 ms pulse: six positions, the seats landing at -90/-54/-18/18/54/90°
and the middle seat at -18°. lgpio times its pulses in microseconds.

The servo stays on lgpio's PWM (``tx_pwm``), not its servo pulses (``tx_servo``): in lgpio both end
in the same ``lgTxPulse`` (a high and a low time in whole microseconds, timed by the same thread),
so the pulses and their jitter are the same; ``tx_servo`` only adds a 500-2500 µs range that is
narrower than ``[aim] min_pulse_ms``/``max_pulse_ms`` allow. Jitter, and why it is acceptable for
the aim servo: docs/raspberry-pi.md, "What jitter to expect".
"""

from __future__ import annotations

import os
import sys
from typing import Any

from firmware.board import chips
from firmware.errors import HardwareError


def requested_backend() -> str:
    """GPIOZERO_PIN_FACTORY as gpiozero reads it ("lgpio", "pigpio", ...), or "" when unset."""
    return os.environ.get("GPIOZERO_PIN_FACTORY", "").strip().lower()


def hardware_pin_factory(chip: int | str) -> Any:
    """The pin factory on a Pi: lgpio on ``[pins] chip`` ("auto": the chip labelled as this Pi's
    pin controller; a number: that chip, if its label agrees: firmware.board.chips) when lgpio is
    asked for or available; None leaves the choice to gpiozero (GPIOZERO_PIN_FACTORY=pigpio, ...).

    :raises HardwareError: lgpio is asked for but missing, the chip is not the header's (the
        message names the one that is), or it cannot be opened.
    """
    asked = requested_backend()
    if asked not in ("", "lgpio"):
        return None
    try:
        from gpiozero.pins.lgpio import LGPIOFactory
    except ImportError as exc:
        if asked:
            raise HardwareError(f"GPIOZERO_PIN_FACTORY=lgpio but lgpio cannot be imported: {exc}") from exc
        return None
    lgpio = getattr(sys.modules.get("gpiozero.pins.lgpio"), "lgpio", None)
    labels = chips.chip_labels(lgpio, chips.chip_numbers()) if lgpio is not None else {}
    number = chips.resolve_chip(chip, labels, chips.board_revision())
    try:
        factory = LGPIOFactory(chip=number)
    except Exception as exc:  # lgpio.error and friends: no common base
        raise HardwareError(f"cannot open GPIO chip {number} ([pins] chip = {chip}) with lgpio: {exc};"
                            f" chips here: {chips.listing(labels)}") from exc
    return _with_fine_pwm(factory)


def _with_fine_pwm(factory: Any) -> Any:
    """The factory, its lgpio pins sending the duty cycle unrounded (see the module's docstring).
    A factory whose pins are not gpiozero's lgpio pins is left as it is."""
    from gpiozero.exc import PinInvalidState
    from gpiozero.pins import lgpio as gpiozero_lgpio

    base = getattr(gpiozero_lgpio, "LGPIOPin", None)
    if base is None or not issubclass(getattr(factory, "pin_class", object), base):
        return factory
    lgpio = gpiozero_lgpio.lgpio

    class FinePWMPin(base):
        def _set_state(self, value: float) -> None:
            if not self._pwm:
                super()._set_state(value)
                return
            frequency, _ = self._pwm
            self._pwm = (frequency, float(value) * 100)
            try:
                lgpio.tx_pwm(self.factory._handle, self._number, *self._pwm)
            except lgpio.error:
                raise PinInvalidState(f'invalid state "{value}" for pin {self!r}') from None

    factory.pin_class = FinePWMPin
    return factory


__all__ = ["hardware_pin_factory", "requested_backend"]
