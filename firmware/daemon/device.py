"""The device kinds behind ``[device] kind``: what the driver needs of a launcher or a card blaster.

Each kind is a package (``core``, ``hardware``, ``sim``, ``methods``) with a ``device`` module whose
``build(...)`` returns a :class:`Device`. The driver picks the module by the kind's name, as Klipper
picks its kinematics, and never asks which kind it runs: what differs (the safe stop, the ``Tick``
input, the outcome events, an on-time to keep, the API methods, the extras) is the device's answer.

:class:`DaemonHost` is the daemon as a device's method table and the in-loop extras see it; the two
contracts name each other, so they live together here.
"""

from __future__ import annotations

import asyncio
import importlib
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Protocol

from firmware.config import Config
from firmware.daemon.layer import Listener
from firmware.events import Action, Chime, Event, Led, Restore, Tick

if TYPE_CHECKING:
    from firmware.daemon.registry import Registry
    from firmware.daemon.latch import Restored
    from firmware.daemon.trace import PressTrace

# ``[device] kind`` -> the module that builds it.
KINDS = {"launcher": "firmware.launcher.device", "blaster": "firmware.blaster.device"}

# An input edge into the motor's loop: the event and the pin backend's time of it (None: unknown).
Post = Callable[[Event, "float | None"], None]


class DeviceCore(Protocol):
    """The sans-IO core: events in, actions out, one deadline."""

    def handle(self, event: Event, now: float) -> list[Action]: ...

    def next_deadline(self) -> float | None: ...

    def shutdown(self, reason: Any, now: float) -> list[Action]: ...

    def get_status(self) -> dict[str, Any]: ...


class DeviceHardware(Protocol):
    """The pins every kind has: the feedback and the inputs' levels."""

    def levels(self) -> Any: ...

    def led(self, action: Led) -> None: ...

    def chime(self, action: Chime) -> None: ...

    def close(self) -> None: ...


class Simulation(Protocol):
    """A simulated mechanism on the far side of the mock pins (``launcherd --sim``)."""

    def get_status(self) -> dict[str, Any]: ...

    def close(self) -> None: ...


class Device(Protocol):
    """One built device kind, its actuator off and its inputs not yet watched."""

    core: DeviceCore
    hardware: DeviceHardware
    sim: Simulation | None
    press_trace: PressTrace | None  # where each press's time goes (a device with a button)
    # The events that are a launch's outcome for the game: numbered and on disk before announced.
    outcome_events: tuple[str, ...]
    # The stop the driver applies whatever happens (``_stop_or_die``): the actuator off.
    stop_action: Action
    # The actions that move something (``drive``): applied first, and no more once stopping but to stop.
    actuator_actions: tuple[type, ...]
    # Its button's press means what the game says (``launcher/press-means``), asked as layers start.
    press_means_from_game: bool
    # What it loads through ``setup(host)``, by module name (the sim's methods under ``--sim``).
    extras: tuple[str, ...]

    def start_actions(self) -> list[Action]:
        """Applied at start unless it comes up halted: the driver's gate, the LED."""

    def restore(self, restored: Restored, now: float) -> Restore:
        """What the last run left (its halt, an on-time) for the core."""

    def watch(self, post: Post) -> None:
        """Post every input edge with ``post`` from the backend's thread."""

    def tick(self) -> Tick:
        """The deadline's event, with the inputs read now."""

    def stop(self) -> None:
        """Apply ``stop_action`` now. :raises Exception: it could not be applied."""

    def drive(self, action: Action) -> None:
        """Apply one of the actuator's actions (``Motor``, ``DriverEnable``, ``Release``)."""

    def stopping(self, now: float) -> list[Action]:
        """The core's last actions on the way down (the run's on-time into the latch)."""

    def status(self) -> dict[str, Any]:
        """The device's own keys in ``status/get`` beside the core's."""

    def status_line(self, core: dict[str, Any]) -> str:
        """systemd's status line for the core's status (without its reason)."""

    def check_aim(self) -> None:
        """:raises Unavailable: it cannot aim (no servo fitted, or a kind that never aims)."""

    def aim(self, angle: float) -> float:
        """Turn to ``angle`` (after ``check_aim``); the angle it turned to."""

    def close(self) -> None:
        """The simulation stopped, then the actuator off and every pin released."""

    def register_methods(self, host: DaemonHost) -> None:
        """The kind's API methods beside the daemon's own."""


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


def build_device(config: Config, factory: Any, loop: asyncio.AbstractEventLoop, rng_seed: int, *,
                 sim: bool, state_dir: Path) -> Device:
    """The device ``[device] kind`` names, built on ``factory``'s pins (its simulation with ``sim``)."""
    module = importlib.import_module(KINDS[config.device.kind])
    return module.build(config, factory, loop, rng_seed, sim=sim, state_dir=state_dir)


__all__ = ["KINDS", "DaemonHost", "Device", "DeviceCore", "DeviceHardware", "Post", "Simulation", "build_device"]
