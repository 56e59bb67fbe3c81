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
import sys
import tomllib
from pathlib import Path
from typing import Any

from firmware.board.backend import hardware_pin_factory
from firmware.config import BOM, Config, build_config, load_config, moving_pins
from firmware.errors import ConfigError, HardwareError

# What says which pins move: the device, its [pins] (all of them, so that a pin two keys claim is
# still refused) and the blaster's pin keys. Nothing else of a config keeps safe-off from them.
_PIN_SECTIONS = ("device", "pins")
_BLASTER_PIN_KEYS = ("slots", "slot_pins", "actuator", "slot_full")

log = logging.getLogger(__name__)

# What ExecStopPost='s first step (systemd/motor-pins-low, gpioset, no Python) drives low: written by
# install.sh from the config into the service's environment, beside this interpreter's bin/.
NATIVE_PINS = Path(sys.prefix) / "libexec" / "motor-pins"


def native_step_lag(config: Config, path: Path = NATIVE_PINS) -> str | None:
    """Why the no-Python step's pins are not the config's moving pins (a pin moved or the heartbeat
    fitted without running install.sh again), or None: they agree, or there is no such step."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return None
    written = next((line.partition("=")[2].split() for line in text.splitlines() if line.startswith("pins=")), [])
    wanted = [str(pin) for pin in moving_pins(config)]
    if sorted(written, key=int) == sorted(wanted, key=int):
        return None
    return (f"the no-Python step before safe-off ({path}) drives GPIO {', '.join(written) or 'none'}, the config"
            f" names GPIO {', '.join(wanted)}: run sudo systemd/install.sh again")


def safe_off(config: Config, pin_factory=None) -> list[int]:
    """Drive every configured motor pin low as an output and leave it so; return the pins.

    Every pin is tried even if one fails (another process holding the line, "GPIO busy"), then
    HardwareError names the failures. With ``pin_factory`` None, the daemon's own choice is made
    (``firmware.board.backend``: lgpio on ``[pins] chip``, or whatever GPIOZERO_PIN_FACTORY names, e.g.
    pigpio for remote pins), as a private factory.
    """
    if pin_factory is None:
        pin_factory = hardware_pin_factory(config.pins.chip)
    if pin_factory is None:
        # Device._default_pin_factory() is gpiozero's own choice of backend, made without
        # installing it as Device.pin_factory, which gpiozero's exit handler would close.
        try:
            from gpiozero import Device  # only here: the usual lgpio path needs no more of gpiozero

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


def load_pins(config_path: str | Path | None) -> Config:
    """The config whose moving pins safe-off drives: the whole file when it is valid, else its
    pins alone when they are (device kind, every [pins] key, the blaster's pin keys).

    Safe-off must not be kept from the motor by a key that has nothing to do with its pins: a
    ``pwm_frequency`` the backend refuses, a timing out of range, an unknown key, edited in while
    the daemon ran. Pins that are themselves refused, or a file that is not TOML, are not guessed
    around: driving the default pins could fight whatever is wired there; the boot-time
    config.txt line and the pull-downs still hold.

    :raises ConfigError: the pins cannot be read (the whole file's errors).
    """
    try:
        return load_config(config_path)
    except ConfigError as whole:
        if config_path is None:
            raise
        pins = _pins_only(config_path)
        if pins is None:
            raise
        try:
            config = build_config(pins, str(config_path))
        except ConfigError:
            raise whole from None
        log.warning("safe-off: the config is refused, its pins are not; driving them all the same:"
                    " %s", whole)
        return config


def _pins_only(config_path: str | Path) -> dict[str, Any] | None:
    """The sections of the file that name the moving pins; None: it is not a TOML document."""
    try:
        text = Path(config_path).read_bytes()
        if text.startswith(BOM):
            text = text[len(BOM):]
        raw = tomllib.loads(text.decode("utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError):
        return None
    pins = {section: raw[section] for section in _PIN_SECTIONS if section in raw}
    blaster = raw.get("blaster")
    if isinstance(blaster, dict):
        pins["blaster"] = {key: blaster[key] for key in _BLASTER_PIN_KEYS if key in blaster}
    return pins


def run_safe_off(config_path: str | Path | None, pin_factory=None) -> int:
    """``launcherd --safe-off``: read the config's pins (:func:`load_pins`), drive the moving
    ones low; the exit code. What the backend refuses of the rest (a PWM frequency over lgpio's
    limit) is no concern of a process that drives them low and exits."""
    try:
        config = load_pins(config_path)
        pins = safe_off(config, pin_factory)
    except (ConfigError, HardwareError) as exc:
        log.error("safe-off failed: %s", exc)
        return 1
    lag = native_step_lag(config)
    if lag:
        log.warning("safe-off: %s", lag)
    print("motor pins driven low: " + ", ".join(f"GPIO {pin}" for pin in pins))
    return 0


__all__ = ["load_pins", "run_safe_off", "safe_off"]
