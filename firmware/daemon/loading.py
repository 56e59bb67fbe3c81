"""What the daemon loads by name: the in-loop extras, each a module with ``setup(host)``.

The game runs in a process of its own (``launcher-game``, beside launcherd on its socket), never
in launcherd. The extras (the dealer, bring-up, the refill, the sim's methods) run on the motor's
loop instead: they feed the core in the order of its own events (the dealer's "never N+1" rests on
that) and some read the core or the pins as they are this instant, which a copy on another
thread could not give. Each is loaded by its module's name (``Device.extras``).
"""

from __future__ import annotations

import importlib
import logging
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from firmware.daemon.device import DaemonHost

log = logging.getLogger("launcherd")


def load_extras(host: DaemonHost, names: tuple[str, ...]) -> None:
    """``setup(host)`` of each module named, in order."""
    for name in names:
        importlib.import_module(name).setup(host)
        log.debug("extra %s loaded", name)


__all__ = ["load_extras"]
