"""The card launcher as a device kind (``[device] kind = "launcher"``, firmware/daemon/device.py).

Its motor (with the driver's gate and, where wired, its heartbeat), button, beam and lid, the
ejection policy, and under ``--sim`` the simulated mechanism.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from firmware import i18n
from firmware.board.heartbeat import Heartbeat
from firmware.config import Config
from firmware.daemon.device import Post
from firmware.daemon.trace import PressTrace
from firmware.errors import Unavailable
from firmware.events import (
    Action, BeamLevel, ButtonLevel, DriverEnable, LidLevel, Led, Motor, OnTimeRecord, Restore, Tick,
)
from firmware.launcher.core import Launcher
from firmware.launcher.ejection import policy_for
from firmware.launcher.hardware import Hardware

if TYPE_CHECKING:
    from firmware.daemon.device import DaemonHost
    from firmware.daemon.latch import Restored
    from firmware.launcher.sim import SimulatedMechanism

log = logging.getLogger("launcherd")

STOP = Motor("stop", 0.0)


class LauncherDevice:
    """The launcher, built: motor stopped, inputs not yet watched."""

    outcome_events = ("launched",)
    stop_action: Action = STOP
    actuator_actions = (Motor, DriverEnable)
    press_means_from_game = True
    extras = ("firmware.extras.dispense", "firmware.extras.bringup", "firmware.extras.refill")

    def __init__(self, config: Config, factory: Any, loop: asyncio.AbstractEventLoop, rng_seed: int, *,
                 sim: bool, state_dir: Path):
        self.config = config
        self.sim: SimulatedMechanism | None = None
        self.hardware = Hardware(config, factory)
        try:
            self.hardware.motor("stop", 0.0)
            # The driver's enable gate, toggled while the motor runs.
            self.heartbeat = Heartbeat(loop, self.hardware.heartbeat) if self.hardware.has_heartbeat else None
            hopper = None
            if sim:
                from firmware.launcher.sim import SimulatedMechanism
                # The mechanism gets its own stream so that a seed repeats both it and the policy.
                self.sim = SimulatedMechanism(config, factory, loop, random.Random(rng_seed + 1),
                                              state_dir=state_dir)
                hopper = self.sim.hopper  # as the last run left it (firmware/launcher/sim.py keeps it)
                self.extras = (*self.extras, "firmware.launcher.sim")
            policy = policy_for(config.ejection.profile, config.ejection.sequence, random.Random(rng_seed))
            self.core = Launcher(config, policy, loop.time(), hopper=hopper)
        except BaseException:
            self.close()  # the daemon never gets a device it could close: the pins are released here
            raise
        # The debounced edge's time is when the level had held: no debounce after it to take out.
        self.press_trace = PressTrace(
            0.0 if self.hardware.button_debounced else config.timing.button_debounce_ms / 1000)

    def start_actions(self) -> list[Action]:
        return [DriverEnable(True), Led("on", self.config.feedback.led_brightness)]

    def restore(self, restored: Restored, now: float) -> Restore:
        on_time = None if restored.on_time is None else OnTimeRecord.from_ages(
            restored.on_time, now, self.config.timing.max_on_ms / 1000)
        return Restore(restored.halt, on_time)

    def watch(self, post: Post) -> None:
        self.hardware.watch(
            on_button=lambda level, at: post(
                ButtonLevel(level, self._button_request(level), self.hardware.button_debounced), at),
            on_beam=lambda level, at: post(BeamLevel(level), at),
            on_lid=lambda level, at: post(LidLevel(level), at),
        )

    def _button_request(self, pressed: bool) -> int | None:
        """The API request behind a press edge: only the simulated button has one."""
        return self.sim.held_for if pressed and self.sim is not None else None

    def tick(self) -> Tick:
        # The button's line is read as the deadline comes: an edge still on its way from the
        # backend's thread must not let a bounce pass for a press (events.Tick). A button the
        # backend debounces is not read: its line's live level may be a bounce.
        return Tick(None if self.hardware.button_debounced else self.hardware.button_pressed)

    def stop(self) -> None:
        self.hardware.motor("stop", 0.0)
        if self.heartbeat is not None:
            # A pin that cannot be written low stops toggling all the same, and the gate's
            # monostable runs out: no reason to end the process.
            try:
                self.heartbeat.still()
            except Exception:
                log.exception(
                    "the heartbeat pin could not be set low; it no longer toggles")

    def drive(self, action: Action) -> None:
        if isinstance(action, Motor):
            self.hardware.motor(action.direction, action.duty)
            if action.direction == "forward":
                self.press_trace.motor_started(time.monotonic())
            if self.heartbeat is not None:
                self.heartbeat.run()
        elif isinstance(action, DriverEnable):
            self.hardware.set_driver_enabled(action.on)

    def stopping(self, now: float) -> list[Action]:
        return self.core.stopping(now)  # the run's on-time into the latch

    def status(self) -> dict[str, Any]:
        return {"merged_edges": self.hardware.merged_edges()}

    def status_line(self, core: dict[str, Any]) -> str:
        hopper = core.get("hopper")
        return f"{core['state']}, hopper {'unknown' if hopper is None else hopper}"

    def check_aim(self) -> None:
        if not self.hardware.has_servo:
            raise Unavailable(i18n.message("no_aim_servo"))

    def aim(self, angle: float) -> float:
        return self.hardware.aim(angle)  # clamped to the configured range

    def close(self) -> None:
        if self.sim is not None:
            self.sim.close()
        self.hardware.close()  # the actuator off first, then every pin released

    def register_methods(self, host: DaemonHost) -> None:
        from firmware.launcher import methods

        methods.register(host)


def build(config: Config, factory: Any, loop: asyncio.AbstractEventLoop, rng_seed: int, *,
          sim: bool, state_dir: Path) -> LauncherDevice:
    return LauncherDevice(config, factory, loop, rng_seed, sim=sim, state_dir=state_dir)


__all__ = ["LauncherDevice", "build"]
