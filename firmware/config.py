"""Configuration: a TOML file checked against a typed schema into frozen sections.

Every key has a built-in default, so an empty file (or none) is a valid configuration. Every
error names the file, the section, the key, the value and what is allowed, the way a careful
daemon should; nothing here raises anything but :class:`ConfigError` for bad input.
"""

from __future__ import annotations


import tomllib
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType, SimpleNamespace
from typing import Any

from firmware.blaster.policy import PROFILE_NAMES as BLAST_PROFILE_NAMES
from firmware.launcher.ejection import PROFILE_NAMES
from firmware.errors import ConfigError
from firmware.i18n import LANGUAGES

DEFAULT_PATH = Path("/etc/card-launcher/launcher.toml")
NOT_FITTED = None  # an optional pin written as `false` in the file

# GPIO 0-8 are pulled up at power-on: a motor input there spins the motor while the Pi boots.
BOOT_HIGH_PINS = range(0, 9)
# GPIO 2 and 3 (I2C) have 1.8 kOhm pull-ups on the board: an input there cannot be pulled down.
FIXED_PULL_UP_PINS = (2, 3)
# GPIO 14 and 15 are the UART's TX and RX: with enable_uart=1 (a serial console) TX idles high
# from boot, so a motor input or an actuator there runs from power-on until launcherd starts.
UART_PINS = (14, 15)
# Outputs that must stay quiet while the Pi boots: on GPIO 0-8 the buzzer would sound and the servo
# jump to an end stop from power-on until launcherd claims them.
QUIET_AT_BOOT_PIN_KEYS = ("chime", "servo")
# lgpio's software PWM (the backend on a Pi 5, and gpiozero's first choice elsewhere) refuses
# frequencies above this when the motor is first driven, long after the configuration was read.
LGPIO_MAX_PWM_HZ = 10_000
# Every pin of the motor driver: safe-off drives them low, config.txt holds them low from boot, and
# none may be on a pin that is high while the Pi boots.
MOTOR_PIN_KEYS = ("motor_forward", "motor_reverse", "motor_enable", "motor_heartbeat")
LEVELS = ("low", "high")
DEVICE_KINDS = ("launcher", "blaster")
# [daemon] language: a language of firmware.i18n, or "" to follow the locale.
DAEMON_LANGUAGES = ("", *LANGUAGES)
# [pins] keys a blaster uses besides its own section (the launcher's motor, button and beam are
# not built for a blaster, so their GPIOs are free).
BLASTER_SHARED_PIN_KEYS = ("led", "chime")


@dataclass(frozen=True)
class Field:
    """One key of the schema: its kind, default, limits and a line of documentation."""

    kind: str  # "int", "float", "bool", "str", "pin", "optional_pin", "int_list", "str_list"
    default: Any
    doc: str
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] | None = None


def _pin(default: int, doc: str) -> Field:
    return Field("pin", default, doc, 0, 27)


def _optional_pin(default: int | None, doc: str) -> Field:
    return Field("optional_pin", default, doc, 0, 27)


SCHEMA: dict[str, dict[str, Field]] = {
    "pins": {
        "motor_forward": _pin(12, "motor driver input 1 (AIN1/IN1), PWM: feeds cards out"),
        "motor_reverse": _pin(13, "motor driver input 2 (AIN2/IN2), PWM: the retraction pulse"),
        "motor_enable": _optional_pin(16, "driver standby/nSLEEP, high = enabled"),
        "motor_heartbeat": _optional_pin(
            None, "heartbeat to the driver's enable gate (a retriggerable monostable on STBY/nSLEEP,"
            " docs/build.md): toggled by the motor's loop only while the motor runs, so that a stalled"
            " daemon, a frozen kernel or a dead Pi disables the driver; false: no gate fitted"),
        "button": _pin(17, "launch button (to ground, internal pull-up)"),
        "beam": _pin(27, "break-beam receiver at the exit slot"),
        "lid": _optional_pin(None, "hopper lid switch"),
        "led": _pin(23, "button LED (PWM)"),
        "chime": _pin(24, "active buzzer"),
        "servo": _optional_pin(None, "aim servo signal"),
        "chip": Field(
            "int", 0,
            "GPIO chip the pins are on (lgpio): 0 on a Pi 5 with a current kernel and on older Pis;"
            " 4 on a Pi 5 with a kernel before 6.6.45", 0, 63),
    },
    "motor": {
        "duty": Field("float", 0.7, "running duty cycle", 0.05, 1.0),
        "kick_duty": Field("float", 1.0, "duty of the start-up kick", 0.05, 1.0),
        "kick_ms": Field("int", 80, "length of the start-up kick", 0, 1000),
        "kick_below": Field("float", 0.6, "a kick is given when duty is below this", 0.0, 1.0),
        "retract_duty": Field("float", 0.5, "duty of the reverse pulse after a burst", 0.05, 1.0),
        "retract_ms": Field("int", 60, "length of the reverse pulse; 0 disables it", 0, 1000),
        "dead_time_ms": Field(
            "int", 30, "the motor coasts this long before it reverses: no current spike through the"
            " driver, no shock on the gears", 0, 500),
        "pwm_frequency": Field("int", 1000, "PWM frequency in Hz", 50, 20000),
    },
    "sensor": {
        "button_active": Field("str", "low", "level of the button pin when pressed", choices=LEVELS),
        "beam_blocked": Field("str", "low", "level of the beam pin when a card blocks it", choices=LEVELS),
        "lid_open": Field("str", "high", "level of the lid pin when the lid is open", choices=LEVELS),
        "blind_runs": Field(
            "int", 4, "motor runs in a row that see no card while the hopper should hold some: the"
            " beam is taken for disconnected and the launcher halts", 1, 20),
    },
    "timing": {
        "button_debounce_ms": Field("int", 20, "the button must be stable this long", 1, 500),
        "beam_filter_ms": Field("int", 2, "shorter beam interruptions are glitches", 0, 100),
        "card_crossing_ms": Field("int", 40, "longest normal time a card blocks the beam", 1, 2000),
        "jam_ms": Field("int", 400, "a card blocking the beam this long is stuck", 1, 10000),
        "feed_timeout_ms": Field("int", 1500, "motor on and no card for this long: hopper empty", 50, 30000),
        "launch_timeout_ms": Field("int", 10000, "longest a single launch may run the motor", 100, 120000),
        "max_on_ms": Field(
            "int", 20000, "most motor on-time in one chain of runs (runs apart by less than"
            " motor_rest_ms are one chain; reverse pulses count)", 100, 120000),
        "motor_rest_ms": Field(
            "int", 3000, "motor off this long ends a chain of runs; a request after a chain has used"
            " max_on_ms is refused until then", 100, 600000),
        "duty_window_s": Field("int", 60, "the window of the duty limit", 1, 3600),
        "max_duty": Field(
            "float", 0.5, "most share of any duty_window_s the motor may be on; a request that"
            " could exceed it is refused with how long to wait", 0.05, 1.0),
        "stall_ms": Field(
            "int", 250, "a deadline missed by this much while the motor runs means the daemon was"
            " stalled: motor off, halted", 50, 10000),
        "sleep_after_s": Field("int", 300, "sleep after this long without activity; 0 never", 0, 86400),
        "refill_hold_ms": Field(
            "int", 2000, "holding the button this long while the hopper is empty says it has been"
            " refilled (closing the lid says so too); 0 turns the long press off", 0, 60000),
    },
    "button": {
        "reset_hold_ms": Field(
            "int", 5000, "holding the launch button this long while the launcher is halted resets it, as"
            " launcherctl reset does (the hold is no press)", 1000, 30000),
    },
    "ejection": {
        "profile": Field("str", "classic", "how presses turn into bursts", choices=PROFILE_NAMES),
        "sequence": Field("int_list", (), "card counts of successive presses (profile fixed)", 0, 200),
    },
    "feedback": {
        "led_brightness": Field("float", 1.0, "LED brightness when ready", 0.0, 1.0),
        "chime": Field("bool", True, "sound the chime on presses"),
        "chime_ms": Field("int", 120, "length of one chime", 10, 2000),
    },
    "aim": {
        "min_angle": Field("float", -90.0, "servo angle of the first seat", -90.0, 90.0),
        "max_angle": Field("float", 90.0, "servo angle of the last seat", -90.0, 90.0),
        "min_pulse_ms": Field("float", 1.0, "servo pulse width at -90 degrees", 0.3, 3.0),
        "max_pulse_ms": Field("float", 2.0, "servo pulse width at +90 degrees", 0.3, 3.0),
    },
    "sim": {
        "hopper": Field("int", 112, "cards in the simulated hopper at start", 0, 10000),
        "jam_chance": Field("float", 0.0, "chance that a card sticks in the slot", 0.0, 1.0),
        "misfeed_chance": Field("float", 0.0, "chance that the feed wheel slips instead of feeding", 0.0, 1.0),
        "cards_per_second": Field("float", 20.0, "feed rate at full duty", 0.1, 1000.0),
        "block_ms": Field("int", 8, "how long a card blocks the beam as it crosses", 1, 1000),
    },
    "daemon": {
        "socket": Field("str", "/run/card-launcher/launcher.sock", "path of the API socket"),
        "state_dir": Field("str", "/var/lib/card-launcher", "where game and score state is kept"),
        "extensions": Field("str_list", ("game",), "layers loaded into the daemon, by name"),
        "language": Field("str", "", "language of the texts the daemon sends (replies to a request"
                          " without its own \"lang\", events, the journal): \"en\", \"fr\", or \"\" for"
                          " the locale's (LC_ALL, LC_MESSAGES, LANG)", choices=DAEMON_LANGUAGES),
    },
    "device": {
        "kind": Field("str", "launcher", "the machine launcherd drives: the launcher (UNO Attack,"
                      " dealer mode) or the card blaster (UNO Blast)", choices=DEVICE_KINDS),
    },
    "blaster": {
        "slots": Field("int", 4, "slots of the blaster, each with a card-present sensor", 1, 8),
        # Off GPIO 18-21: they are the I2S sound interface of a Pi 5's or a Zero 2 W's speaker.
        "slot_pins": Field("int_list", (5, 6, 16, 26),
                           "card-present sensor of each slot, slot 1 first (BCM GPIOs)", 0, 27),
        "actuator": Field("pin", 22, "release solenoid or motor, through the one-shot and a MOSFET or"
                          " driver input (wiring/heartbeat.svg); high fires", 0, 27),
        "slot_full": Field("str", "low", "level of a slot's sensor pin while a card is in it",
                           choices=LEVELS),
        "debounce_ms": Field("int", 30, "a slot's sensor must be stable this long", 1, 500),
        "pulse_ms": Field("int", 150, "how long the release actuator is on for one blast", 10, 2000),
        "max_on_ms": Field("int", 500, "longest the daemon keeps the actuator on. Only the one-shot in"
                           " the wiring (wiring/heartbeat.svg) ends a pulse when the daemon stalls, is"
                           " killed or the Pi freezes: without it a pin left high keeps the release"
                           " energised until safe-off runs", 10, 5000),
        "rest_ms": Field("int", 1000, "the actuator stays off this long between pulses; a blast"
                         " decided sooner waits", 0, 60000),
        "settle_ms": Field("int", 400, "a slot still full this long after the release is jammed",
                           50, 5000),
        "profile": Field("str", "trigger", "when an insertion fires", choices=BLAST_PROFILE_NAMES),
    },
}

# The [pins] keys that name a GPIO (the others, like chip, say where the GPIOs are).
PIN_KEYS = tuple(key for key, field in SCHEMA["pins"].items() if field.kind in ("pin", "optional_pin"))


class Section:
    """The checked values of one section, read as attributes (``config.motor.duty``)."""

    def __init__(self, name: str, values: dict[str, Any]):
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "_values", MappingProxyType(dict(values)))

    def __getattr__(self, key: str) -> Any:
        try:
            return self._values[key]
        except KeyError:
            raise AttributeError(f"[{self._name}] has no key {key!r}") from None

    def __setattr__(self, key: str, value: Any) -> None:
        raise AttributeError("configuration sections are read-only")

    def as_dict(self) -> dict[str, Any]:
        return dict(self._values)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Section) and self.as_dict() == other.as_dict()

    def __repr__(self) -> str:
        return f"Section({self._name!r}, {dict(self._values)!r})"


@dataclass(frozen=True)
class Config:
    """A complete, checked configuration. ``source`` is the file it came from, if any."""

    pins: Section
    motor: Section
    sensor: Section
    timing: Section
    button: Section
    ejection: Section
    feedback: Section
    aim: Section
    sim: Section
    daemon: Section
    device: Section
    blaster: Section
    source: str = "<defaults>"

    def as_dict(self) -> dict[str, dict[str, Any]]:
        return {name: getattr(self, name).as_dict() for name in SCHEMA}

    def replace(self, section: str, **values: Any) -> "Config":
        """A copy with some keys of one section changed, checked like a file would be."""
        raw = {name: {k: _to_raw(v) for k, v in body.items()} for name, body in self.as_dict().items()}
        raw[section].update(values)
        return build_config(raw, self.source)


def _to_raw(value: Any) -> Any:
    """A checked value back in the form a TOML file would hold it."""
    if value is NOT_FITTED:
        return False
    return list(value) if isinstance(value, tuple) else value


def _describe(field: Field) -> str:
    if field.choices:
        return "one of " + ", ".join(repr(c) for c in field.choices)
    kind = {
        "int": "a whole number",
        "float": "a number",
        "bool": "true or false",
        "str": "a string",
        "pin": "a BCM GPIO number",
        "optional_pin": "a BCM GPIO number",
        "int_list": "a list of whole numbers",
        "str_list": "a list of strings",
    }[field.kind]
    if field.minimum is not None and field.maximum is not None:
        kind += f" from {_num(field.minimum)} to {_num(field.maximum)}"
    if field.kind == "optional_pin":
        kind += ", or false if not fitted"
    return kind


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def _check_value(source: str, section: str, key: str, field: Field, value: Any) -> Any:
    def bad(extra: str = "") -> ConfigError:
        return ConfigError(
            f"{source}: [{section}] {key} = {_toml_repr(value)}: must be {_describe(field)}{extra}"
        )

    def in_range(number: float) -> bool:
        return (field.minimum is None or number >= field.minimum) and (
            field.maximum is None or number <= field.maximum
        )

    kind = field.kind
    if kind == "optional_pin" and value is False:
        return NOT_FITTED
    if kind in ("int", "pin", "optional_pin"):
        if isinstance(value, bool) or not isinstance(value, int) or not in_range(value):
            raise bad()
        return value
    if kind == "float":
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not in_range(value):
            raise bad()
        return float(value)
    if kind == "bool":
        if not isinstance(value, bool):
            raise bad()
        return value
    if kind == "str":
        if not isinstance(value, str) or (field.choices and value not in field.choices):
            raise bad()
        return value
    if kind == "int_list":
        if not isinstance(value, list) or not all(
            isinstance(v, int) and not isinstance(v, bool) and in_range(v) for v in value
        ):
            raise bad(" (each)")
        return tuple(value)
    if kind == "str_list":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise bad()
        return tuple(value)
    raise AssertionError(f"unknown field kind {kind}")


def _toml_repr(value: Any) -> str:
    """The value as a user would have written it, cut short: a message must stay one line."""
    text = _toml_text(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _toml_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace('"', '\\"') + '"'
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_text(v) for v in value[:20]) + (", ..." if len(value) > 20 else "") + "]"
    if isinstance(value, dict):
        return "{...}"
    return str(value)


# A path in sockaddr_un.sun_path: 108 bytes on Linux, one of them the terminating NUL.
SOCKET_PATH_MAX = 107
EXTENSION_GROUP = "card_launcher.extensions"
SIM_SPARE_PINS = (22, 25, 5, 6, 26, 19, 20, 21)  # where simulation fits a lid switch and a servo


def installed_extensions() -> list[str]:
    """The layer names the daemon can load: entry points of group ``card_launcher.extensions``."""
    from importlib.metadata import entry_points

    return sorted({ep.name for ep in entry_points(group=EXTENSION_GROUP)})


def _cross_checks(source: str, sections: dict[str, dict[str, Any]], bad: set[tuple[str, str]]) -> list[str]:
    """Checks that need more than one key, or the system: the impossible and the unsafe.

    A rule about a key whose own value was wrong is skipped: its error is already reported.
    """
    errors: list[str] = []

    def check(keys: tuple[tuple[str, str], ...], ok: Any, key: tuple[str, str], rule: str) -> None:
        if any(k in bad for k in keys) or ok():
            return
        section, name = key
        value = sections[section][name]
        shown = _num(value) if isinstance(value, float) else _toml_repr(value)
        errors.append(f"{source}: [{section}] {name} = {shown}: {rule}")

    pins = sections["pins"]
    seen: dict[int, str] = {}
    for key in PIN_KEYS:
        pin = pins[key]
        if ("pins", key) in bad or pin is NOT_FITTED:
            continue
        if pin in seen:
            errors.append(
                f"{source}: [pins] {key} = {pin}: GPIO {pin} is already used by [pins] {seen[pin]};"
                " each pin may be used once"
            )
        else:
            seen[pin] = key
    for key in MOTOR_PIN_KEYS:
        pin = pins[key]
        if ("pins", key) in bad or pin is NOT_FITTED:
            continue
        if pin in BOOT_HIGH_PINS:
            errors.append(
                f"{source}: [pins] {key} = {pin}: motor pins must not be GPIO 0-8, which are pulled"
                " up at power-on and would run the motor while the Pi boots; use GPIO 9-27"
            )
        elif pin in UART_PINS:
            errors.append(f"{source}: [pins] {key} = {pin}: {_uart_rule('run the motor')}")
    for key in QUIET_AT_BOOT_PIN_KEYS:
        pin = pins[key]
        if ("pins", key) not in bad and pin is not NOT_FITTED and pin in BOOT_HIGH_PINS:
            what = "the buzzer would sound" if key == "chime" else "the servo would jump to an end stop"
            errors.append(
                f"{source}: [pins] {key} = {pin}: must not be GPIO 0-8, which are pulled up at"
                f" power-on: {what} while the Pi boots; use GPIO 9-27 (not 14 or 15)"
            )

    sensor = sections["sensor"]
    if not any(("sensor", key) in bad for key in sensor):
        # Lazy: firmware.board.pins builds on this module (the pull rule needs only [sensor]).
        from firmware.board.pins import INPUT_KEYS, input_pull

        levels = SimpleNamespace(sensor=SimpleNamespace(**sensor))
        for key in INPUT_KEYS:
            pin = pins[key]
            if ("pins", key) in bad or pin not in FIXED_PULL_UP_PINS or input_pull(levels, key) != "down":  # type: ignore[arg-type]
                continue
            errors.append(
                f"{source}: [pins] {key} = {pin}: GPIO {pin} has a fixed pull-up resistor on the board"
                f" (I2C), and this input needs a pull-down with the levels in [sensor]; use another GPIO"
            )

    timing, motor = sections["timing"], sections["motor"]

    def t(*names: str) -> tuple[tuple[str, str], ...]:
        return tuple(("timing", name) for name in names)

    check(t("jam_ms", "card_crossing_ms"), lambda: timing["jam_ms"] > timing["card_crossing_ms"],
          ("timing", "jam_ms"), f"must be longer than card_crossing_ms ({timing['card_crossing_ms']}),"
          " or every normal card would count as a jam")
    check(t("jam_ms", "launch_timeout_ms"), lambda: timing["jam_ms"] * 2 <= timing["launch_timeout_ms"],
          ("timing", "jam_ms"), f"must be at most half of launch_timeout_ms ({timing['launch_timeout_ms']}),"
          " or the motor would push against a stuck card for most of a launch")
    check(t("refill_hold_ms", "button_debounce_ms"),
          lambda: timing["refill_hold_ms"] == 0 or timing["refill_hold_ms"] > timing["button_debounce_ms"],
          ("timing", "refill_hold_ms"),
          f"must be 0 (off) or longer than button_debounce_ms ({timing['button_debounce_ms']}),"
          " or every press in empty would count as a refill")
    check(t("beam_filter_ms", "card_crossing_ms"),
          lambda: timing["beam_filter_ms"] < timing["card_crossing_ms"], ("timing", "beam_filter_ms"),
          f"must be shorter than card_crossing_ms ({timing['card_crossing_ms']}), or real cards"
          " would be filtered out as glitches")
    check(t("launch_timeout_ms", "max_on_ms"), lambda: timing["launch_timeout_ms"] < timing["max_on_ms"],
          ("timing", "launch_timeout_ms"),
          f"must be shorter than max_on_ms ({timing['max_on_ms']}), the motor's on-time limit")
    check(t("max_on_ms") + (("motor", "retract_ms"),), lambda: motor["retract_ms"] < timing["max_on_ms"],
          ("motor", "retract_ms"),
          f"must be shorter than [timing] max_on_ms ({timing['max_on_ms']}), the motor's on-time limit")
    check(t("feed_timeout_ms") + (("motor", "kick_ms"),),
          lambda: timing["feed_timeout_ms"] > motor["kick_ms"], ("timing", "feed_timeout_ms"),
          f"must be longer than [motor] kick_ms ({motor['kick_ms']})")
    check(t("feed_timeout_ms", "launch_timeout_ms"),
          lambda: timing["feed_timeout_ms"] < timing["launch_timeout_ms"], ("timing", "feed_timeout_ms"),
          f"must be shorter than launch_timeout_ms ({timing['launch_timeout_ms']})")
    check(t("max_duty", "duty_window_s", "launch_timeout_ms") + (("motor", "retract_ms"),),
          lambda: timing["launch_timeout_ms"] + motor["retract_ms"]
          <= timing["max_duty"] * timing["duty_window_s"] * 1000 + 1e-6,
          ("timing", "max_duty"),
          f"leaves {_num(round(timing['max_duty'] * timing['duty_window_s'], 3))} s of motor time per"
          f" duty_window_s ({timing['duty_window_s']}), less than one launch may need"
          f" (launch_timeout_ms + [motor] retract_ms = {timing['launch_timeout_ms'] + motor['retract_ms']}"
          " ms): no launch could ever start")

    ejection = sections["ejection"]
    check((("ejection", "profile"), ("ejection", "sequence")),
          lambda: ejection["profile"] != "fixed" or ejection["sequence"], ("ejection", "sequence"),
          'profile "fixed" needs a non-empty list of card counts, e.g. sequence = [0, 3, 0, 5]')

    aim = sections["aim"]
    check((("aim", "min_angle"), ("aim", "max_angle")), lambda: aim["min_angle"] < aim["max_angle"],
          ("aim", "min_angle"), f"must be smaller than max_angle ({_num(aim['max_angle'])})")
    check((("aim", "min_pulse_ms"), ("aim", "max_pulse_ms")),
          lambda: aim["min_pulse_ms"] < aim["max_pulse_ms"], ("aim", "min_pulse_ms"),
          f"must be smaller than max_pulse_ms ({_num(aim['max_pulse_ms'])})")

    sim = sections["sim"]
    check(t("beam_filter_ms", "card_crossing_ms") + (("sim", "block_ms"),),
          lambda: timing["beam_filter_ms"] < sim["block_ms"] <= timing["card_crossing_ms"],
          ("sim", "block_ms"),
          f"must be longer than [timing] beam_filter_ms ({timing['beam_filter_ms']}) and at most"
          f" [timing] card_crossing_ms ({timing['card_crossing_ms']}), or simulated cards could not"
          " be counted")

    daemon = sections["daemon"]
    socket = daemon["socket"]
    check((("daemon", "socket"),), lambda: socket != "", ("daemon", "socket"),
          "must be the path of the API socket, not empty")
    check((("daemon", "socket"),), lambda: "\0" not in socket, ("daemon", "socket"),
          "must not contain a NUL character")
    check((("daemon", "socket"),), lambda: len(socket.encode("utf-8", "surrogateescape")) <= SOCKET_PATH_MAX,
          ("daemon", "socket"),
          f"is {len(socket.encode('utf-8', 'surrogateescape'))} bytes long; a Unix socket path may have"
          f" at most {SOCKET_PATH_MAX}")
    state_dir = daemon["state_dir"]
    check((("daemon", "state_dir"),), lambda: state_dir != "", ("daemon", "state_dir"),
          "must be the directory for game and score state, not empty")
    check((("daemon", "state_dir"),), lambda: "\0" not in state_dir, ("daemon", "state_dir"),
          "must not contain a NUL character")
    check((("daemon", "state_dir"),), lambda: "\0" in state_dir or not _is_non_dir(state_dir),
          ("daemon", "state_dir"), "exists and is not a directory; give a directory (it is created"
          " if missing)")
    extensions = daemon["extensions"]
    if ("daemon", "extensions") not in bad:
        installed = installed_extensions()
        for name in dict.fromkeys(extensions):
            if extensions.count(name) > 1:
                errors.append(f"{source}: [daemon] extensions = {_toml_repr(list(extensions))}:"
                              f" {name!r} is listed {extensions.count(name)} times; list each layer once")
            if name not in installed:
                errors.append(f"{source}: [daemon] extensions = {_toml_repr(list(extensions))}:"
                              f" {name!r} is not an installed layer; installed: "
                              + (", ".join(repr(n) for n in installed) or "none"))
    errors += _blaster_checks(source, sections, bad)
    return errors


def _blaster_checks(source: str, sections: dict[str, dict[str, Any]], bad: set[tuple[str, str]]) -> list[str]:
    """The [blaster] rules that need more than one key; none unless ``[device] kind = "blaster"``."""
    if sections["device"]["kind"] != "blaster" or ("device", "kind") in bad:
        return []
    blaster, pins = sections["blaster"], sections["pins"]
    errors: list[str] = []

    def ok(*keys: str) -> bool:
        return not any(("blaster", key) in bad for key in keys)

    slot_pins = list(blaster["slot_pins"])
    if ok("slots", "slot_pins") and len(slot_pins) != blaster["slots"]:
        errors.append(f"{source}: [blaster] slot_pins = {slot_pins}: must list one GPIO per slot"
                      f" (slots = {blaster['slots']}), slot 1 first")
    if ok("actuator") and blaster["actuator"] in BOOT_HIGH_PINS:
        errors.append(f"{source}: [blaster] actuator = {blaster['actuator']}: must not be GPIO 0-8,"
                      " which are pulled up at power-on and would fire the blaster while the Pi"
                      " boots; use GPIO 9-27")
    elif ok("actuator") and blaster["actuator"] in UART_PINS:
        errors.append(f"{source}: [blaster] actuator = {blaster['actuator']}: {_uart_rule('fire the blaster')}")
    if ok("slot_pins", "actuator"):
        seen: dict[int, str] = {}
        for key in BLASTER_SHARED_PIN_KEYS:
            if pins[key] is not NOT_FITTED and ("pins", key) not in bad:
                seen[pins[key]] = f"[pins] {key}"
        named = [(f"[blaster] slot_pins (slot {i})", pin) for i, pin in enumerate(slot_pins, 1)]
        for name, pin in [("[blaster] actuator", blaster["actuator"])] + named:
            if pin in seen:
                errors.append(f"{source}: {name} = {pin}: GPIO {pin} is already used by"
                              f" {seen[pin]}; each pin may be used once")
            else:
                seen[pin] = name
    if ok("pulse_ms", "max_on_ms") and blaster["pulse_ms"] > blaster["max_on_ms"]:
        errors.append(f"{source}: [blaster] pulse_ms = {blaster['pulse_ms']}: must be at most"
                      f" max_on_ms ({blaster['max_on_ms']}), the actuator's on-time limit")
    if ok("settle_ms", "debounce_ms") and blaster["settle_ms"] <= blaster["debounce_ms"]:
        errors.append(f"{source}: [blaster] settle_ms = {blaster['settle_ms']}: must be longer than"
                      f" debounce_ms ({blaster['debounce_ms']}), or an emptied slot could not be"
                      " seen before the jam is judged")
    return errors


def _uart_rule(what: str) -> str:
    return (f"GPIO 14 and 15 are the serial port's TX and RX, high from boot with enable_uart=1,"
            f" and would {what} while the Pi boots; use GPIO 9-13 or 16-27")


def moving_pins(config: "Config") -> list[int]:
    """The pins that make something move, which safe-off drives low and config.txt holds low from
    boot: the blaster's release actuator, or the launcher's motor driver inputs (forward, reverse
    and, when fitted, enable)."""
    if config.device.kind == "blaster":
        return [config.blaster.actuator]
    return [pin for key in MOTOR_PIN_KEYS if (pin := getattr(config.pins, key)) is not NOT_FITTED]


def backend_errors(config: "Config", backend: str) -> list[str]:
    """What the GPIO backend that will drive the pins cannot do with this configuration.

    ``backend``: gpiozero's factory name as GPIOZERO_PIN_FACTORY spells it ("lgpio", "rpigpio",
    "pigpio", "mock", ...), or "" for gpiozero's own choice, which is lgpio wherever lgpio is
    installed (the only backend on a Pi 5)."""
    errors: list[str] = []
    if backend in ("", "lgpio") and config.motor.pwm_frequency > LGPIO_MAX_PWM_HZ:
        which = "lgpio (GPIOZERO_PIN_FACTORY=lgpio)" if backend else "lgpio, gpiozero's choice on a Pi"
        errors.append(
            f"{config.source}: [motor] pwm_frequency = {config.motor.pwm_frequency}: {which} makes"
            f" PWM in software and refuses more than {LGPIO_MAX_PWM_HZ} Hz; use at most"
            f" {LGPIO_MAX_PWM_HZ}")
    return errors


def check_backend(config: "Config", backend: str) -> None:
    """:raises ConfigError: :func:`backend_errors` found something, all of it at once."""
    errors = backend_errors(config, backend)
    if errors:
        raise _all_of(errors)


def _is_non_dir(path: str) -> bool:
    candidate = Path(path)
    return candidate.exists() and not candidate.is_dir()


def _sim_fits(pins: dict[str, Any]) -> tuple[dict[str, int], str | None]:
    """The pins simulation gives a missing lid switch and aim servo, and the first it cannot fit.

    The servo, like a real one, is kept off the pins that are pulled up at boot."""
    used = {pins[key] for key in PIN_KEYS} - {NOT_FITTED}
    extra: dict[str, int] = {}
    for key in ("lid", "servo"):
        if pins[key] is not NOT_FITTED:
            continue
        refused = BOOT_HIGH_PINS if key in QUIET_AT_BOOT_PIN_KEYS else ()
        free = [pin for pin in SIM_SPARE_PINS if pin not in used and pin not in refused]
        if not free:
            return extra, key
        extra[key] = free[0]
        used.add(free[0])
    return extra, None


def _sim_errors(source: str, sections: dict[str, dict[str, Any]]) -> list[str]:
    """What stops simulation from fitting its lid switch and aim servo."""
    _, unfitted = _sim_fits(sections["pins"])
    if unfitted is None:
        return []
    spares = [pin for pin in SIM_SPARE_PINS
              if not (unfitted in QUIET_AT_BOOT_PIN_KEYS and pin in BOOT_HIGH_PINS)]
    return [
        f"{source}: [pins] {unfitted} = false: simulation fits a {unfitted} on a free GPIO of "
        + ", ".join(map(str, spares)) + ", and the other [pins] use them all;"
        f" free one of them or give [pins] {unfitted} a GPIO"
    ]


def build_config(raw: dict[str, Any], source: str = "<defaults>", *, sim: bool = False) -> Config:
    """Check a parsed TOML document (or a dict shaped like one) and fill in defaults.

    Every error of the document is reported at once: one :class:`ConfigError` whose message has
    one line per error (and whose ``errors`` attribute holds the lines). ``sim``: also check that
    :func:`with_sim_devices` can place its devices.
    """
    if not isinstance(raw, dict):
        raise ConfigError(f"{source}: the document must be a table of sections")
    errors: list[str] = []
    for section, body in raw.items():
        if section not in SCHEMA:
            errors.append(f"{source}: [{section}]: unknown section; allowed: " + ", ".join(SCHEMA))
        elif not isinstance(body, dict):
            errors.append(f"{source}: {section} = {_toml_repr(body)}: must be a section [{section}]")
    sections: dict[str, dict[str, Any]] = {}
    bad: set[tuple[str, str]] = set()
    for section, fields in SCHEMA.items():
        body = raw.get(section, {})
        if not isinstance(body, dict):
            body = {}
        for key, value in body.items():
            if key not in fields:
                errors.append(
                    f"{source}: [{section}] {key} = {_toml_repr(value)}: unknown key; allowed in"
                    f" [{section}]: " + ", ".join(fields)
                )
        values: dict[str, Any] = {}
        for key, field in fields.items():
            values[key] = field.default
            if key in body:
                try:
                    values[key] = _check_value(source, section, key, field, body[key])
                except ConfigError as exc:
                    errors.append(str(exc))
                    bad.add((section, key))
        sections[section] = values
    errors += _cross_checks(source, sections, bad)
    if sim and not errors:
        errors += _sim_errors(source, sections)
    if errors:
        raise _all_of(errors)
    return Config(**{name: Section(name, values) for name, values in sections.items()}, source=source)


BOM = b"\xef\xbb\xbf"


def _all_of(errors: list[str]) -> ConfigError:
    error = ConfigError("\n".join(errors))
    error.errors = list(errors)  # one line each, for callers that show them one by one
    return error


def load_config(path: str | Path | None = None, *, sim: bool = False) -> Config:
    """Load and check a TOML file; with no path, the built-in defaults.

    ``sim``: the configuration is for ``launcherd --sim`` (see :func:`build_config`).
    """
    if path is None:
        return build_config({}, sim=sim)
    source = str(path)
    try:
        text = Path(path).read_bytes()
    except OSError as exc:
        raise ConfigError(f"{source}: cannot read the file: {exc.strerror}") from None
    if text.startswith(BOM):
        raise ConfigError(
            f"{source}: the file starts with a UTF-8 byte order mark (BOM), which TOML does not allow;"
            " save it as UTF-8 without BOM"
        )
    try:
        raw = tomllib.loads(text.decode("utf-8"))
    except UnicodeDecodeError:
        raise ConfigError(f"{source}: the file is not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source}: not valid TOML: {exc}") from None
    except RecursionError:
        raise ConfigError(f"{source}: not valid TOML: nested too deeply") from None
    return build_config(raw, source, sim=sim)


def with_sim_devices(config: Config) -> Config:
    """In simulation, fit a lid switch and an aim servo on free pins when the config has none.

    :raises ConfigError: no spare pin is left for one of them.
    """
    sections = config.as_dict()
    errors = _sim_errors(config.source, sections)
    if errors:
        raise _all_of(errors)
    extra, _ = _sim_fits(sections["pins"])
    return config.replace("pins", **extra) if extra else config


def default_toml() -> str:
    """The documented default configuration, as a TOML file a user can edit."""
    lines = [
        "# Card launcher configuration. Every key is optional; shown here with its default.",
        "# Checked at start-up: `launcherd --check-config FILE` tells what is wrong, if anything.",
    ]
    for section, fields in SCHEMA.items():
        lines += ["", f"[{section}]"]
        for key, field in fields.items():
            lines.append(f"# {field.doc}; {_describe(field)}")
            lines.append(f"{key} = {_toml_text(_to_raw(field.default))}")
    return "\n".join(lines) + "\n"


__all__ = [
    "Config",
    "ConfigError",
    "DEFAULT_PATH",
    "Field",
    "NOT_FITTED",
    "PIN_KEYS",
    "SCHEMA",
    "Section",
    "backend_errors",
    "build_config",
    "check_backend",
    "installed_extensions",
    "default_toml",
    "load_config",
    "moving_pins",
    "with_sim_devices",
]

