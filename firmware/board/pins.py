"""Every fact of the Raspberry Pi's board, in one place: the hardware layer, the configuration's
checks, safe-off and the wiring generator all ask here.

A leaf: it imports nothing of the project, and no gpiozero, so the documentation tools can import
it anywhere and the configuration can build on it.

Every input is wired so that its contact (the button, the beam receiver's open-collector
transistor, the lid switch) connects the pin to one rail and the internal pull holds the other.
A broken wire then reads as the pull's level: released, unblocked and, for the lid, open, which
stops the motor.
"""

from __future__ import annotations

from typing import Protocol

# GPIO 0-8 are pulled up at power-on: a motor input there spins the motor while the Pi boots.
BOOT_HIGH_PINS = range(0, 9)
# GPIO 2 and 3 (I2C) have 1.8 kOhm pull-ups on the board: an input there cannot be pulled down.
FIXED_PULL_UP_PINS = (2, 3)
# GPIO 14 and 15 are the UART's TX and RX: with enable_uart=1 (a serial console) TX idles high
# from boot, so a motor input or an actuator there runs from power-on until launcherd starts.
UART_PINS = (14, 15)
# lgpio's software PWM (the backend on a Pi 5, and gpiozero's first choice elsewhere) refuses
# frequencies above this when the motor is first driven, long after the configuration was read.
LGPIO_MAX_PWM_HZ = 10_000

# BCM GPIO number -> physical pin of the 40-pin header (every Pi since the B+). Bring-up names
# both, so a builder with a multimeter finds the pin without a chart.
HEADER_PINS = {
    0: 27, 1: 28, 2: 3, 3: 5, 4: 7, 5: 29, 6: 31, 7: 26, 8: 24, 9: 21,
    10: 19, 11: 23, 12: 32, 13: 33, 14: 8, 15: 10, 16: 36, 17: 11, 18: 12, 19: 35,
    20: 38, 21: 40, 22: 15, 23: 16, 24: 18, 25: 22, 26: 37, 27: 13,
}

INPUT_KEYS = ("button", "beam", "lid")


class _SensorLevels(Protocol):
    button_active: str
    beam_blocked: str
    lid_open: str


class _SlotLevel(Protocol):
    slot_full: str


class InputLevels(Protocol):
    """What the pull rule reads: a configuration's ``[sensor]`` levels and, for a blaster's
    ``slot`` sensors, ``[blaster] slot_full`` (a :class:`firmware.config.Config` is one)."""

    @property
    def sensor(self) -> _SensorLevels: ...

    @property
    def blaster(self) -> _SlotLevel: ...


def closed_level(config: InputLevels, key: str) -> str:
    """The level (``"low"``/``"high"``) the input's contact drives when it closes."""
    sensor = config.sensor
    if key == "button":
        return sensor.button_active  # pressing closes the contact
    if key == "beam":
        return sensor.beam_blocked  # the receiver's transistor conducts while the beam is blocked
    if key == "lid":
        # The lid switch is closed while the lid is shut, so "open" is the level the pull holds.
        return "high" if sensor.lid_open == "low" else "low"
    if key == "slot":
        return config.blaster.slot_full  # a card in a blaster's slot closes its sensor's contact
    raise ValueError(f"{key!r} is not an input; inputs: " + ", ".join(INPUT_KEYS))


def input_pull(config: InputLevels, key: str) -> str:
    """The internal pull of input ``key`` (``button``, ``beam``, ``lid``, or a blaster's ``slot``
    sensors): ``"up"`` or ``"down"``.

    The pull holds the level opposite to the one the closed contact drives.
    """
    return "up" if closed_level(config, key) == "low" else "down"


__all__ = [
    "BOOT_HIGH_PINS",
    "FIXED_PULL_UP_PINS",
    "HEADER_PINS",
    "INPUT_KEYS",
    "InputLevels",
    "LGPIO_MAX_PWM_HZ",
    "UART_PINS",
    "closed_level",
    "input_pull",
]
