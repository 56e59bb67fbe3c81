"""Safe off: drive the motor driver's inputs low, whatever happened to the daemon.

systemd runs this as ``launcherd --safe-off`` (ExecStopPost=) after every kind of exit, SIGKILL
and watchdog kills included, when nothing of the daemon is left to clean up. Raspberry Pi kernels
keep a GPIO output at its last level after the process that drove it dies, and lgpio's software
PWM freezes at the level it was at: a daemon killed mid-launch can leave the motor running.

How the pins stay low after this short process exits: gpiozero's ``close()`` returns an lgpio
line to a floating input, so this module never closes the pins it drives and never registers
its pin factory as gpiozero's default (gpiozero's exit handler closes that one). The line is
released still driven low, and the kernel keeps it low. A floating line would be held low by
the hardware pull-down on the driver's inputs, and from power-on until the daemon starts by the
``gpio=<pins>=op,dl`` line that the installer writes to config.txt.
"""

from __future__ import annotations

import logging
from pathlib import Path

from gpiozero import Device

from .backend import hardware_pin_factory
from .config import Config, load_config, moving_pins
from .errors import ConfigError, HardwareError

log = logging.getLogger(__name__)


def safe_off(config: Config, pin_factory=None) -> list[int]:
    """Drive every configured motor pin low as an output and leave it so; return the pins.

    Every pin is tried even if one fails (another process holding the line, "GPIO busy"), then
    HardwareError names the failures. With ``pin_factory`` None, the daemon's own choice is made
    (``firmware.backend``: lgpio on ``[pins] chip``, or whatever GPIOZERO_PIN_FACTORY names, e.g.
    pigpio for remote pins), as a private factory.
    """
    if pin_factory is None:
        pin_factory = hardware_pin_factory(config.pins.chip)
    if pin_factory is None:
        # Device._default_pin_factory() is gpiozero's own choice of backend, made without
        # installing it as Device.pin_factory, which gpiozero's exit handler would close.
        try:
            pin_factory = Device._default_pin_factory()
        except Exception as exc:  # BadPinFactory, or the backend's own error opening the chip
            raise HardwareError(f"safe-off found no GPIO backend: {exc}") from exc
    driven: list[int] = []
    failed: list[str] = []
    for number in moving_pins(config):
        try:
            pin = pin_factory.pin(number)
            # Stops software PWM run by this process (a daemon calling this in-process); a fresh
            # process has none, and the new claim below replaces a dead process's frozen level.
            pin.frequency = None
            pin.output_with_state(False)
        except Exception as exc:  # every backend has its own errors; the other pins still matter
            failed.append(f"GPIO {number}: {exc}")
        else:
            driven.append(number)
    if failed:
        raise HardwareError("safe-off could not drive low " + "; ".join(failed))
    log.info("safe-off: motor pins driven low: %s", ", ".join(f"GPIO {pin}" for pin in driven))
    return driven


def run_safe_off(config_path: str | Path | None, pin_factory=None) -> int:
    """``launcherd --safe-off``: load the config, drive its motor pins low; the exit code.

    A config that does not load is not guessed around: driving the default pins could fight
    whatever is wired there. The boot-time config.txt line and the pull-downs still hold.
    """
    try:
        config = load_config(config_path)
        safe_off(config, pin_factory)
    except (ConfigError, HardwareError) as exc:
        log.error("safe-off failed: %s", exc)
        return 1
    return 0


__all__ = ["run_safe_off", "safe_off"]
