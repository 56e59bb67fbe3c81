"""The typed key machinery, as Klipper's typed getters: one :class:`Field` per key, checked into
its value with a precise message (the file, the section, the key, the value, what is allowed)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from firmware.errors import ConfigError

NOT_FITTED = None  # an optional pin written as `false` in the file


@dataclass(frozen=True)
class Field:
    """One key of the schema: its kind, default, limits and a line of documentation."""

    kind: str  # "int", "float", "bool", "str", "pin", "optional_pin", "int_list", "str_list", "chip"
    default: Any
    doc: str
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] | None = None


def pin_field(default: int, doc: str) -> Field:
    return Field("pin", default, doc, 0, 27)


def optional_pin_field(default: int | None, doc: str) -> Field:
    return Field("optional_pin", default, doc, 0, 27)


def to_raw(value: Any) -> Any:
    """A checked value back in the form a TOML file would hold it."""
    if value is NOT_FITTED:
        return False
    return list(value) if isinstance(value, tuple) else value


def describe(field: Field) -> str:
    """What the key allows, as the end of "must be ..."."""
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
        "chip": '"auto" or a whole number',
    }[field.kind]
    if field.minimum is not None and field.maximum is not None:
        kind += f" from {number_text(field.minimum)} to {number_text(field.maximum)}"
    if field.kind == "optional_pin":
        kind += ", or false if not fitted"
    return kind


def number_text(value: float) -> str:
    """A number as a user writes it: no ``.0`` on a whole one."""
    return str(int(value)) if float(value).is_integer() else str(value)


def check_value(source: str, section: str, key: str, field: Field, value: Any) -> Any:
    """The value of ``[section] key`` as the program uses it (a tuple for a list, None for a pin
    that is not fitted).

    :raises ConfigError: the value is not what ``field`` allows.
    """
    def bad(extra: str = "") -> ConfigError:
        return ConfigError(
            f"{source}: [{section}] {key} = {toml_repr(value)}: must be {describe(field)}{extra}"
        )

    def in_range(number: float) -> bool:
        return (field.minimum is None or number >= field.minimum) and (
            field.maximum is None or number <= field.maximum
        )

    kind = field.kind
    if kind == "optional_pin" and value is False:
        return NOT_FITTED
    if kind == "chip":  # "auto", or a chip's number (firmware.board.chips checks it on the Pi)
        if value == "auto":
            return value
        kind = "int"
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


def toml_repr(value: Any) -> str:
    """The value as a user would have written it, cut short: a message must stay one line."""
    text = toml_text(value)
    return text if len(text) <= 80 else text[:77] + "..."


def toml_text(value: Any) -> str:
    """The value as TOML writes it (a list cut after 20 items)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace('"', '\\"') + '"'
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_text(v) for v in value[:20]) + (", ..." if len(value) > 20 else "") + "]"
    if isinstance(value, dict):
        return "{...}"
    return str(value)


def all_of(errors: list[str]) -> ConfigError:
    """One ConfigError reporting every error at once, one line each."""
    error = ConfigError("\n".join(errors))
    error.errors = list(errors)  # one line each, for callers that show them one by one
    return error


__all__ = ["Field", "NOT_FITTED", "all_of", "check_value", "describe", "number_text", "optional_pin_field",
           "pin_field", "to_raw", "toml_repr", "toml_text"]
