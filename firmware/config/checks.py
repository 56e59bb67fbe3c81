"""The rules that need more than one key, or the system: the impossible and the unsafe.

One function per idea, each adding its errors to a :class:`_Report`. A rule about a key whose own
value was wrong is skipped: that error is already reported. The order of the rules is the order
of the messages.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable

from firmware.board.pins import BOOT_HIGH_PINS, FIXED_PULL_UP_PINS, INPUT_KEYS, UART_PINS, input_pull
from firmware.config.fields import NOT_FITTED, number_text, toml_repr
from firmware.config.schema import BLASTER_SHARED_PIN_KEYS, MOTOR_PIN_KEYS, PIN_KEYS, QUIET_AT_BOOT_PIN_KEYS, SCHEMA

# A path in sockaddr_un.sun_path: 108 bytes on Linux, one of them the terminating NUL.
SOCKET_PATH_MAX = 107
EXTENSION_GROUP = "card_launcher.extensions"

Key = tuple[str, str]


def installed_extensions() -> list[str]:
    """The layer names the daemon can load: entry points of group ``card_launcher.extensions``."""
    from importlib.metadata import entry_points

    return sorted({ep.name for ep in entry_points(group=EXTENSION_GROUP)})


class _Report:
    """The checked sections, the keys whose own value was refused, and the errors found so far."""

    def __init__(self, source: str, sections: dict[str, dict[str, Any]], bad: set[Key]):
        self.source = source
        self.sections = sections
        self.bad = bad
        self.errors: list[str] = []

    def usable(self, *keys: Key) -> bool:
        """True when none of ``keys`` was refused on its own."""
        return not any(key in self.bad for key in keys)

    def add(self, error: str) -> None:
        self.errors.append(f"{self.source}: {error}")

    def check(self, keys: tuple[Key, ...], ok: Callable[[], Any], key: Key, rule: str) -> None:
        """Unless one of ``keys`` was refused, report ``key``'s value with ``rule`` when ``ok()`` is false."""
        if not self.usable(*keys) or ok():
            return
        section, name = key
        value = self.sections[section][name]
        shown = number_text(value) if isinstance(value, float) else toml_repr(value)
        self.add(f"[{section}] {name} = {shown}: {rule}")


def cross_check(source: str, sections: dict[str, dict[str, Any]], bad: set[Key]) -> list[str]:
    """Every error of the rules that need more than one key, in the order of the rules."""
    report = _Report(source, sections, bad)
    for rule in (_each_pin_once, _motor_pins_low_at_boot, _quiet_at_boot, _pulls_the_board_allows,
                 _timing_rules, _ejection_rules, _aim_rules, _sim_rules, _socket_rules, _state_dir_rules,
                 _extension_rules, _blaster_rules):
        rule(report)
    return report.errors


def _each_pin_once(report: _Report) -> None:
    pins = report.sections["pins"]
    seen: dict[int, str] = {}
    for key in PIN_KEYS:
        pin = pins[key]
        if not report.usable(("pins", key)) or pin is NOT_FITTED:
            continue
        if pin in seen:
            report.add(f"[pins] {key} = {pin}: GPIO {pin} is already used by [pins] {seen[pin]};"
                       " each pin may be used once" + _heartbeat_hint(key, seen[pin], pin))
        else:
            seen[pin] = key


def _heartbeat_hint(key: str, other: str, pin: int) -> str:
    """What a clash with the enable gate's heartbeat on its default GPIO means: a config written
    before the gate was part of the build may use that pin for something else without naming
    motor_heartbeat at all."""
    if "motor_heartbeat" not in (key, other) or pin != SCHEMA["pins"]["motor_heartbeat"].default:
        return ""
    return (f" (motor_heartbeat, the driver's enable gate, is GPIO {pin} unless [pins] says otherwise:"
            " give it another GPIO, or false for a build without the gate)")


def _motor_pins_low_at_boot(report: _Report) -> None:
    pins = report.sections["pins"]
    for key in MOTOR_PIN_KEYS:
        pin = pins[key]
        if not report.usable(("pins", key)) or pin is NOT_FITTED:
            continue
        if pin in BOOT_HIGH_PINS:
            report.add(f"[pins] {key} = {pin}: motor pins must not be GPIO 0-8, which are pulled"
                       " up at power-on and would run the motor while the Pi boots; use GPIO 9-27")
        elif pin in UART_PINS:
            report.add(f"[pins] {key} = {pin}: {_uart_rule('run the motor')}")


def _quiet_at_boot(report: _Report) -> None:
    pins = report.sections["pins"]
    for key in QUIET_AT_BOOT_PIN_KEYS:
        pin = pins[key]
        if report.usable(("pins", key)) and pin is not NOT_FITTED and pin in BOOT_HIGH_PINS:
            what = "the buzzer would sound" if key == "chime" else "the servo would jump to an end stop"
            report.add(f"[pins] {key} = {pin}: must not be GPIO 0-8, which are pulled up at"
                       f" power-on: {what} while the Pi boots; use GPIO 9-27 (not 14 or 15)")


def _pulls_the_board_allows(report: _Report) -> None:
    """An input needing a pull-down cannot be on a pin the board pulls up."""
    sensor, pins = report.sections["sensor"], report.sections["pins"]
    if not report.usable(*(("sensor", key) for key in sensor)):
        return
    levels = SimpleNamespace(sensor=SimpleNamespace(**sensor))  # the pull rule reads only [sensor] here
    for key in INPUT_KEYS:
        pin = pins[key]
        if not report.usable(("pins", key)) or pin not in FIXED_PULL_UP_PINS:
            continue
        if input_pull(levels, key) != "down":  # type: ignore[arg-type]
            continue
        report.add(f"[pins] {key} = {pin}: GPIO {pin} has a fixed pull-up resistor on the board"
                   f" (I2C), and this input needs a pull-down with the levels in [sensor]; use another GPIO")


def _timing_rules(report: _Report) -> None:
    timing, motor = report.sections["timing"], report.sections["motor"]
    check = report.check

    def t(*names: str) -> tuple[Key, ...]:
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
          f"leaves {number_text(round(timing['max_duty'] * timing['duty_window_s'], 3))} s of motor time per"
          f" duty_window_s ({timing['duty_window_s']}), less than one launch may need"
          f" (launch_timeout_ms + [motor] retract_ms = {timing['launch_timeout_ms'] + motor['retract_ms']}"
          " ms): no launch could ever start")


def _ejection_rules(report: _Report) -> None:
    ejection = report.sections["ejection"]
    report.check((("ejection", "profile"), ("ejection", "sequence")),
                 lambda: ejection["profile"] != "fixed" or ejection["sequence"], ("ejection", "sequence"),
                 'profile "fixed" needs a non-empty list of card counts, e.g. sequence = [0, 3, 0, 5]')


def _aim_rules(report: _Report) -> None:
    aim = report.sections["aim"]
    report.check((("aim", "min_angle"), ("aim", "max_angle")), lambda: aim["min_angle"] < aim["max_angle"],
                 ("aim", "min_angle"), f"must be smaller than max_angle ({number_text(aim['max_angle'])})")
    report.check((("aim", "min_pulse_ms"), ("aim", "max_pulse_ms")),
                 lambda: aim["min_pulse_ms"] < aim["max_pulse_ms"], ("aim", "min_pulse_ms"),
                 f"must be smaller than max_pulse_ms ({number_text(aim['max_pulse_ms'])})")


def _sim_rules(report: _Report) -> None:
    timing, sim = report.sections["timing"], report.sections["sim"]
    report.check((("timing", "beam_filter_ms"), ("timing", "card_crossing_ms"), ("sim", "block_ms")),
                 lambda: timing["beam_filter_ms"] < sim["block_ms"] <= timing["card_crossing_ms"],
                 ("sim", "block_ms"),
                 f"must be longer than [timing] beam_filter_ms ({timing['beam_filter_ms']}) and at most"
                 f" [timing] card_crossing_ms ({timing['card_crossing_ms']}), or simulated cards could not"
                 " be counted")


def _socket_rules(report: _Report) -> None:
    socket = report.sections["daemon"]["socket"]
    key = ("daemon", "socket")
    report.check((key,), lambda: socket != "", key, "must be the path of the API socket, not empty")
    report.check((key,), lambda: "\0" not in socket, key, "must not contain a NUL character")
    length = len(socket.encode("utf-8", "surrogateescape"))
    report.check((key,), lambda: length <= SOCKET_PATH_MAX, key,
                 f"is {length} bytes long; a Unix socket path may have at most {SOCKET_PATH_MAX}")


def _state_dir_rules(report: _Report) -> None:
    state_dir = report.sections["daemon"]["state_dir"]
    key = ("daemon", "state_dir")
    report.check((key,), lambda: state_dir != "", key, "must be the directory for game and score state, not empty")
    report.check((key,), lambda: "\0" not in state_dir, key, "must not contain a NUL character")
    report.check((key,), lambda: "\0" in state_dir or not _is_non_dir(state_dir), key,
                 "exists and is not a directory; give a directory (it is created if missing)")


def _is_non_dir(path: str) -> bool:
    candidate = Path(path)
    return candidate.exists() and not candidate.is_dir()


def _extension_rules(report: _Report) -> None:
    """Each layer listed once, and installed."""
    if not report.usable(("daemon", "extensions")):
        return
    extensions = report.sections["daemon"]["extensions"]
    listed = toml_repr(list(extensions))
    installed = installed_extensions()
    for name in dict.fromkeys(extensions):
        if extensions.count(name) > 1:
            report.add(f"[daemon] extensions = {listed}:"
                       f" {name!r} is listed {extensions.count(name)} times; list each layer once")
        if name not in installed:
            report.add(f"[daemon] extensions = {listed}:"
                       f" {name!r} is not an installed layer; installed: "
                       + (", ".join(repr(n) for n in installed) or "none"))


def _blaster_rules(report: _Report) -> None:
    """The [blaster] rules that need more than one key; none unless ``[device] kind = "blaster"``."""
    if report.sections["device"]["kind"] != "blaster" or not report.usable(("device", "kind")):
        return
    blaster, pins = report.sections["blaster"], report.sections["pins"]

    def ok(*keys: str) -> bool:
        return report.usable(*(("blaster", key) for key in keys))

    slot_pins = list(blaster["slot_pins"])
    if ok("slots", "slot_pins") and len(slot_pins) != blaster["slots"]:
        report.add(f"[blaster] slot_pins = {slot_pins}: must list one GPIO per slot"
                   f" (slots = {blaster['slots']}), slot 1 first")
    if ok("actuator") and blaster["actuator"] in BOOT_HIGH_PINS:
        report.add(f"[blaster] actuator = {blaster['actuator']}: must not be GPIO 0-8,"
                   " which are pulled up at power-on and would fire the blaster while the Pi"
                   " boots; use GPIO 9-27")
    elif ok("actuator") and blaster["actuator"] in UART_PINS:
        report.add(f"[blaster] actuator = {blaster['actuator']}: {_uart_rule('fire the blaster')}")
    if ok("slot_pins", "actuator"):
        seen: dict[int, str] = {}
        for key in BLASTER_SHARED_PIN_KEYS:
            if pins[key] is not NOT_FITTED and report.usable(("pins", key)):
                seen[pins[key]] = f"[pins] {key}"
        named = [(f"[blaster] slot_pins (slot {i})", pin) for i, pin in enumerate(slot_pins, 1)]
        for name, pin in [("[blaster] actuator", blaster["actuator"])] + named:
            if pin in seen:
                report.add(f"{name} = {pin}: GPIO {pin} is already used by"
                           f" {seen[pin]}; each pin may be used once")
            else:
                seen[pin] = name
    if ok("pulse_ms", "max_on_ms") and blaster["pulse_ms"] > blaster["max_on_ms"]:
        report.add(f"[blaster] pulse_ms = {blaster['pulse_ms']}: must be at most"
                   f" max_on_ms ({blaster['max_on_ms']}), the actuator's on-time limit")
    if ok("settle_ms", "debounce_ms") and blaster["settle_ms"] <= blaster["debounce_ms"]:
        report.add(f"[blaster] settle_ms = {blaster['settle_ms']}: must be longer than"
                   f" debounce_ms ({blaster['debounce_ms']}), or an emptied slot could not be"
                   " seen before the jam is judged")


def _uart_rule(what: str) -> str:
    return (f"GPIO 14 and 15 are the serial port's TX and RX, high from boot with enable_uart=1,"
            f" and would {what} while the Pi boots; use GPIO 9-13 or 16-27")


__all__ = ["EXTENSION_GROUP", "SOCKET_PATH_MAX", "cross_check", "installed_extensions"]
