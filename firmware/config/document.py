"""A configuration document: a TOML file (or a dict shaped like one) checked against the schema
into a frozen :class:`Config` of read-only :class:`Section`\\ s.

Every error of a document is reported at once, each naming the file, the section, the key, the
value and what is allowed; nothing here raises anything but :class:`ConfigError` for bad input.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import Any

from firmware.board.pins import LGPIO_MAX_PWM_HZ
from firmware.config.checks import cross_check
from firmware.config.fields import NOT_FITTED, all_of, check_value, describe, to_raw, toml_repr, toml_text
from firmware.config.schema import MOTOR_PIN_KEYS, SCHEMA
from firmware.config.sim_devices import sim_errors, sim_fits
from firmware.errors import ConfigError

BOM = b"\xef\xbb\xbf"


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
        raw = {name: {k: to_raw(v) for k, v in body.items()} for name, body in self.as_dict().items()}
        raw[section].update(values)
        return build_config(raw, self.source)


def build_config(raw: dict[str, Any], source: str = "<defaults>", *, sim: bool = False) -> Config:
    """Check a parsed TOML document (or a dict shaped like one) and fill in defaults.

    Every error of the document is reported at once: one :class:`ConfigError` whose message has
    one line per error (and whose ``errors`` attribute holds the lines). ``sim``: also check that
    :func:`with_sim_devices` can place its devices.
    """
    if not isinstance(raw, dict):
        raise ConfigError(f"{source}: the document must be a table of sections")
    errors = _unknown_sections(raw, source)
    sections: dict[str, dict[str, Any]] = {}
    bad: set[tuple[str, str]] = set()
    for section in SCHEMA:
        sections[section] = _section_values(raw, section, source, errors, bad)
    errors += cross_check(source, sections, bad)
    if sim and not errors:
        errors += sim_errors(source, sections)
    if errors:
        raise all_of(errors)
    return Config(**{name: Section(name, values) for name, values in sections.items()}, source=source)


def _unknown_sections(raw: dict[str, Any], source: str) -> list[str]:
    errors: list[str] = []
    for section, body in raw.items():
        if section not in SCHEMA:
            errors.append(f"{source}: [{section}]: unknown section; allowed: " + ", ".join(SCHEMA))
        elif not isinstance(body, dict):
            errors.append(f"{source}: {section} = {toml_repr(body)}: must be a section [{section}]")
    return errors


def _section_values(raw: dict[str, Any], section: str, source: str, errors: list[str],
                    bad: set[tuple[str, str]]) -> dict[str, Any]:
    """The values of one section, defaults filled in; its errors are added to ``errors`` and its
    refused keys to ``bad`` (they keep their default, so that the cross-checks can skip them)."""
    fields = SCHEMA[section]
    body = raw.get(section, {})
    if not isinstance(body, dict):
        body = {}
    for key, value in body.items():
        if key not in fields:
            errors.append(
                f"{source}: [{section}] {key} = {toml_repr(value)}: unknown key; allowed in"
                f" [{section}]: " + ", ".join(fields)
            )
    values: dict[str, Any] = {}
    for key, field in fields.items():
        values[key] = field.default
        if key in body:
            try:
                values[key] = check_value(source, section, key, field, body[key])
            except ConfigError as exc:
                errors.append(str(exc))
                bad.add((section, key))
    return values


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
    errors = sim_errors(config.source, sections)
    if errors:
        raise all_of(errors)
    extra, _ = sim_fits(sections["pins"])
    return config.replace("pins", **extra) if extra else config


def moving_pins(config: Config) -> list[int]:
    """The pins that make something move, which safe-off drives low and config.txt holds low from
    boot: the blaster's release actuator, or the launcher's motor driver inputs (forward, reverse
    and, when fitted, enable)."""
    if config.device.kind == "blaster":
        return [config.blaster.actuator]
    return [pin for key in MOTOR_PIN_KEYS if (pin := getattr(config.pins, key)) is not NOT_FITTED]


def backend_errors(config: Config, backend: str) -> list[str]:
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


def check_backend(config: Config, backend: str) -> None:
    """:raises ConfigError: :func:`backend_errors` found something, all of it at once."""
    errors = backend_errors(config, backend)
    if errors:
        raise all_of(errors)


def default_toml() -> str:
    """The documented default configuration, as a TOML file a user can edit."""
    lines = [
        "# Card launcher configuration. Every key is optional; shown here with its default.",
        "# Checked at start-up: `launcherd --check-config FILE` tells what is wrong, if anything.",
    ]
    for section, fields in SCHEMA.items():
        lines += ["", f"[{section}]"]
        for key, field in fields.items():
            lines.append(f"# {field.doc}; {describe(field)}")
            lines.append(f"{key} = {toml_text(to_raw(field.default))}")
    return "\n".join(lines) + "\n"


__all__ = ["BOM", "Config", "Section", "backend_errors", "build_config", "check_backend", "default_toml",
           "load_config", "moving_pins", "with_sim_devices"]
