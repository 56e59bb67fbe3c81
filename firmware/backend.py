"""The GPIO backend on a Pi: one choice, made the same way by the daemon and by safe-off.

gpiozero picks lgpio, RPi.GPIO, pigpio or native by itself, always on chip 0; this project opens
lgpio on ``[pins] chip`` (a Pi 5 with a kernel before 6.6.45 has its header on chip 4) and leaves
any other backend that GPIOZERO_PIN_FACTORY names to gpiozero.
"""

from __future__ import annotations

import os
from typing import Any

from .errors import HardwareError


def requested_backend() -> str:
    """GPIOZERO_PIN_FACTORY as gpiozero reads it ("lgpio", "pigpio", ...), or "" when unset."""
    return os.environ.get("GPIOZERO_PIN_FACTORY", "").strip().lower()


def hardware_pin_factory(chip: int) -> Any:
    """The pin factory on a Pi: lgpio on ``chip`` when lgpio is asked for or available; None
    leaves the choice to gpiozero (GPIOZERO_PIN_FACTORY=pigpio, rpigpio, ...).

    :raises HardwareError: lgpio is asked for but missing, or the chip cannot be opened.
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
    try:
        return LGPIOFactory(chip=chip)
    except Exception as exc:  # lgpio.error and friends: no common base
        raise HardwareError(f"cannot open GPIO chip {chip} ([pins] chip) with lgpio: {exc}") from exc


__all__ = ["hardware_pin_factory", "requested_backend"]
