"""How every input is wired, in one place: the hardware layer and the wiring generator both ask here.

Pure: no gpiozero, so the documentation tools can import it anywhere.

Every input is wired so that its contact (the button, the beam receiver's open-collector
transistor, the lid switch) connects the pin to one rail and the internal pull holds the other.
A broken wire then reads as the pull's level: released, unblocked and, for the lid, open, which
stops the motor.
"""

from __future__ import annotations

from firmware.config import Config

INPUT_KEYS = ("button", "beam", "lid")


def closed_level(config: Config, key: str) -> str:
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


def input_pull(config: Config, key: str) -> str:
    """The internal pull of input ``key`` (``button``, ``beam``, ``lid``, or a blaster's ``slot``
    sensors): ``"up"`` or ``"down"``.

    The pull holds the level opposite to the one the closed contact drives.
    """
    return "up" if closed_level(config, key) == "low" else "down"




# BCM GPIO number -> physical pin of the 40-pin header (every Pi since the B+). Bring-up names
# both, so a builder with a multimeter finds the pin without a chart.
HEADER_PINS = {
    0: 27, 1: 28, 2: 3, 3: 5, 4: 7, 5: 29, 6: 31, 7: 26, 8: 24, 9: 21,
    10: 19, 11: 23, 12: 32, 13: 33, 14: 8, 15: 10, 16: 36, 17: 11, 18: 12, 19: 35,
    20: 38, 21: 40, 22: 15, 23: 16, 24: 18, 25: 22, 26: 37, 27: 13,
}

__all__ = ["HEADER_PINS", "INPUT_KEYS", "closed_level", "input_pull"]
