"""The card blaster as a device kind (``[device] kind = "blaster"``, firmware/daemon/device.py).

Its slots' sensors and its actuator, the blast policy, and under ``--sim`` the simulated blaster.
Its slot edges are posted into the loop like the launcher's inputs, and ``Release`` actions pulse
its actuator. It keeps no on-time, has no button whose press the game sets, and never aims.
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import TYPE_CHECKING, Any

from firmware import i18n
from firmware.blaster import core as blaster
from firmware.blaster.core import Release, SlotLevel
from firmware.blaster.hardware import BlasterHardware
from firmware.config import Config
from firmware.daemon.device import Post
from firmware.errors import Unavailable
from firmware.events import Action, Led, Restore, Tick

if TYPE_CHECKING:
    from firmware.blaster.sim import SimulatedBlaster
    from firmware.daemon.device import DaemonHost
    from firmware.daemon.latch import Restored


class BlasterDevice:
    """The blaster, built: actuator released, slots not yet watched."""

    outcome_events = ("insert", "blast")
    stop_action: Action = Release(0)
    actuator_actions = (Release,)
    press_means_from_game = False
    press_trace = None  # no button
    extras: tuple[str, ...] = ()

    def __init__(self, config: Config, factory: Any, loop: asyncio.AbstractEventLoop, rng_seed: int, *,
                 sim: bool, state_dir: Path):
        self.config = config
        self.sim: SimulatedBlaster | None = None
        self.hardware = BlasterHardware(config, factory)
        try:
            self.hardware.release(0)
            if sim:
                from firmware.blaster.sim import SimulatedBlaster
                # Its own stream, as for the launcher's mechanism: a seed repeats jams and the policy.
                self.sim = SimulatedBlaster(config.blaster, factory, loop, random.Random(rng_seed + 1),
                                            config.sim.jam_chance, state_dir=state_dir)
                self.extras = ("firmware.blaster.sim",)
            self.core = blaster.build(config.blaster, config.feedback, config.timing, random.Random(rng_seed),
                                      loop.time())
        except BaseException:
            self.close()  # the daemon never gets a device it could close: the pins are released here
            raise

    def start_actions(self) -> list[Action]:
        return [Led("on", self.config.feedback.led_brightness)]

    def restore(self, restored: Restored, now: float) -> Restore:
        return Restore(restored.halt)

    def watch(self, post: Post) -> None:
        # The blaster judges no length between two edges (its debounce runs from each edge's
        # arrival), so the backend's time of a slot edge is not passed on.
        self.hardware.watch(lambda slot, full, _at: post(SlotLevel(slot, full, self._slot_request(full)), None))

    def _slot_request(self, full: bool) -> int | None:
        """The API request behind a card going in: only the simulated blaster has one."""
        return self.sim.inserting_for if full and self.sim is not None else None

    def tick(self) -> Tick:
        return Tick(None)

    def stop(self) -> None:
        self.hardware.release(0)

    def drive(self, action: Action) -> None:
        if isinstance(action, Release):
            self.hardware.release(action.ms)

    def stopping(self, now: float) -> list[Action]:
        return []  # the blaster keeps no on-time

    def status(self) -> dict[str, Any]:
        return {}

    def status_line(self, core: dict[str, Any]) -> str:
        return f"{core['state']}, {sum(core['slots'])} of {len(core['slots'])} slots full"

    def check_aim(self) -> None:
        raise Unavailable(i18n.message("blaster_no_aim"))

    def aim(self, angle: float) -> float:
        raise Unavailable(i18n.message("blaster_no_aim"))

    def close(self) -> None:
        if self.sim is not None:
            self.sim.close()
        self.hardware.close()  # the actuator off first, then every pin released

    def register_methods(self, host: DaemonHost) -> None:
        """None beyond the daemon's own: it is fed by its slots, so it has no press, feed or dispense."""


def build(config: Config, factory: Any, loop: asyncio.AbstractEventLoop, rng_seed: int, *,
          sim: bool, state_dir: Path) -> BlasterDevice:
    return BlasterDevice(config, factory, loop, rng_seed, sim=sim, state_dir=state_dir)


__all__ = ["BlasterDevice", "build"]
