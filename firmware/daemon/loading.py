"""What the daemon loads by name: the in-loop extras (``setup(host)``), and the game layers' names.

The game runs in a process of its own (``launcher-game``, beside launcherd on its socket), never
in launcherd: :func:`installed_layers` only finds which are installed. The extras here (the dealer, bring-up, the refill, the sim's methods) run on the motor's loop
instead: they feed the core in the order of its own events (the dealer's "never N+1" rests on
that) and some read the core or the pins as they are this instant, which a copy on another
thread could not give. Each is a module with ``setup(host)``, loaded by name (``Device.extras``),
as the game layers are by theirs (:func:`installed_layers`).
"""

from __future__ import annotations

import importlib
import logging
from importlib.metadata import EntryPoint, entry_points
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from firmware.daemon.device import DaemonHost

log = logging.getLogger("launcherd")


def load_extras(host: DaemonHost, names: tuple[str, ...]) -> None:
    """``setup(host)`` of each module named, in order."""
    for name in names:
        importlib.import_module(name).setup(host)
        log.debug("extra %s loaded", name)


def installed_layers(names: tuple[str, ...] | list[str]) -> list[EntryPoint]:
    """The game layers ``[daemon] extensions`` names that are installed (entry points of the group
    ``card_launcher.extensions``), in order; one that is not is logged and left out."""
    found = {ep.name: ep for ep in entry_points(group="card_launcher.extensions")}
    wanted = []
    for name in names:
        if name not in found:
            log.error("layer %r is not installed; known: %s", name, ", ".join(found) or "none")
            continue
        wanted.append(found[name])
    return wanted


__all__ = ["installed_layers", "load_extras"]
