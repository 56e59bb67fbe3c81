"""What the daemon's own method tables and in-loop extras may use of it: the layer contract and more.

The game layer runs on its own thread and loop behind ``LayerHost`` (``firmware/daemon/layer.py``).
The extras here (the dealer, bring-up, the refill, the sim's methods) run on the motor's loop
instead: they feed the core in the order of its own events (the dealer's "never N+1" rests on
that) and some read the core or the pins as they are this instant, which a copy on another
thread could not give. Each is a module with ``setup(host)``, loaded by name (``Device.extras``).
"""

from __future__ import annotations

import asyncio
import importlib
import logging
from typing import TYPE_CHECKING, Any, Callable, Protocol

from firmware.config import Config
from firmware.daemon.layer import LayerHost
from firmware.events import Event

if TYPE_CHECKING:
    from firmware.daemon.api import Registry
    from firmware.daemon.device import Device, DeviceCore, DeviceHardware, Simulation

log = logging.getLogger("launcherd")


class DaemonHost(LayerHost, Protocol):
    """The daemon as its method tables and in-loop extras see it (on the motor's loop)."""

    config: Config
    loop: asyncio.AbstractEventLoop
    language: str  # the daemon's ([daemon] language), for events
    registry: Registry
    device: Device
    core: DeviceCore | None
    hardware: DeviceHardware | None
    sim: Simulation | None

    def feed(self, event: Event, now: float | None = None) -> None:
        """Give one event to the core and apply what it returns."""

    def request(self, event: Event) -> dict:
        """Feed a request; its status, or the core's refusal raised (``Refused``)."""

    async def await_outcome(self, trigger: Callable[[int], None]) -> dict:
        """Start a press with a fresh request id (``trigger(id)``) and return its outcome."""

    def get_status(self) -> dict[str, Any]: ...

    async def settled_status(self) -> dict[str, Any]: ...

    def press_meaning_told(self) -> None:
        """A client said what a press means."""


def load_extras(host: DaemonHost, names: tuple[str, ...]) -> None:
    """``setup(host)`` of each module named, in order."""
    for name in names:
        importlib.import_module(name).setup(host)
        log.debug("extra %s loaded", name)


__all__ = ["DaemonHost", "load_extras"]
