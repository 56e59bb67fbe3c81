"""What the daemon's own method tables and in-loop extras may use of it: the layer contract and more.

The game layer runs on its own thread and loop behind ``LayerHost`` (``firmware/daemon/layer.py``).
The extras here (the dealer, bring-up, the refill, the sim's methods) run on the motor's loop
instead: they feed the core in the order of its own events (the dealer's "never N+1" rests on
that) and some read the core or the pins as they are this instant, which a copy on another
thread could not give. Each is a module with ``setup(host)``, loaded by name (``Device.extras``),
as the game layers are by theirs (:func:`installed_layers`).
"""

from __future__ import annotations

import asyncio
import importlib
import logging
from importlib.metadata import EntryPoint, entry_points
from typing import TYPE_CHECKING, Any, Callable, Protocol

from firmware.config import Config
from firmware.daemon.layer import Listener
from firmware.events import Event

if TYPE_CHECKING:
    from firmware.daemon.api import Registry
    from firmware.daemon.device import Device, DeviceCore, DeviceHardware, Simulation

log = logging.getLogger("launcherd")


class DaemonHost(Protocol):
    """The daemon as its method tables and in-loop extras see it (on the motor's loop): the calls
    a layer has (``LayerHost``), with the core, the pins and the requests beside them."""

    config: Config
    loop: asyncio.AbstractEventLoop
    language: str  # the daemon's ([daemon] language), for events
    registry: Registry
    device: Device
    core: DeviceCore | None
    hardware: DeviceHardware | None
    sim: Simulation | None
    aim_angle: float | None

    def subscribe(self, listener: Listener) -> None:
        """``listener(name, params)`` for every event, in the loop."""

    def publish(self, name: str, params: dict[str, Any]) -> None:
        """Push an event of the extra's own to API subscribers."""

    async def call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        """Call any registered API method, the game layer's too."""

    def register(self, name: str, handler: Any, params: dict[str, Any] | None = None, doc: str = "") -> None:
        """Add an API method, run on the motor's loop."""

    def add_status(self, name: str, provider: Callable[[], Any]) -> None: ...

    def on_close(self, closer: Callable[[], Any]) -> None: ...

    @property
    def hopper(self) -> int | None: ...

    def launcher_status(self) -> dict[str, Any]: ...

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


__all__ = ["DaemonHost", "installed_layers", "load_extras"]
