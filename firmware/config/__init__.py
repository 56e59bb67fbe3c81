"""Configuration: a TOML file checked against a typed schema into frozen sections.

Every key has a built-in default, so an empty file (or none) is a valid configuration. Every
error names the file, the section, the key, the value and what is allowed, the way a careful
daemon should; nothing here raises anything but :class:`ConfigError` for bad input.

The package, by idea: :mod:`.fields` (the typed key and its check), :mod:`.schema` (every
section and key), :mod:`.checks` (the rules across keys), :mod:`.sim_devices` (the lid and servo
simulation fits) and :mod:`.document` (a file or dict into a :class:`Config`). The board's facts
(which GPIOs are high at boot, pulled up, the UART's) are :mod:`firmware.board.pins`'.
"""

from firmware.config.checks import installed_extensions
from firmware.config.document import (
    BOM,
    Config,
    Section,
    backend_errors,
    build_config,
    check_backend,
    default_toml,
    load_config,
    moving_pins,
    with_sim_devices,
)
from firmware.config.fields import NOT_FITTED, Field
from firmware.config.schema import DEFAULT_PATH, MOTOR_PIN_KEYS, PIN_KEYS, SCHEMA
from firmware.errors import ConfigError

__all__ = [
    "BOM",
    "Config",
    "ConfigError",
    "DEFAULT_PATH",
    "Field",
    "MOTOR_PIN_KEYS",
    "NOT_FITTED",
    "PIN_KEYS",
    "SCHEMA",
    "Section",
    "backend_errors",
    "build_config",
    "check_backend",
    "default_toml",
    "installed_extensions",
    "load_config",
    "moving_pins",
    "with_sim_devices",
]
