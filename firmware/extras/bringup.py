"""Bring-up inside launcherd: the API behind ``launcherctl selftest``, ``jog``, ``inputs`` and
``calibrate``.

Everything that moves the motor goes through the core (``Jog``, ``Dispense`` at a duty), so a jog
obeys every limit a launch does. While a bring-up client works, the core is in bench mode
(``Bench``): it traces every input edge and motor change with its time, a button press launches
nothing and a hand in the slot is no card. Bench mode lapses by itself if the client goes away.

:func:`setup` is the door the daemon loads it through (``firmware/daemon/loading.py``), on the motor's
loop: a jog and a calibration feed are core events, and ``bringup/inputs`` reads the pins now.
The refill gesture's answer is ``firmware/extras/refill.py``.
"""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

from firmware import i18n
from firmware.daemon.registry import Param
from firmware.config import NOT_FITTED, PIN_KEYS
from firmware.daemon.device import DaemonHost
from firmware.daemon.waiting import Waiters
from firmware.errors import Refused, Unavailable
from firmware.events import Bench, Dispense, Identify, Jog
from firmware.board.pins import HEADER_PINS
from firmware.launcher.hardware import INPUT_LEVELS
from firmware.board.pins import input_pull

# Bench mode lasts this long after the last bring-up request: long enough for a person to read a
# prompt and act, short enough that a killed client does not leave the button dead for long.
BENCH_S = 120.0
# A calibration feed that the motor's rest or duty rule holds up waits this long at most.
MAX_WAIT_S = 120.0
SERVO_SETTLE_S = 0.6
INPUTS = tuple(INPUT_LEVELS)


class Bringup:
    """The bring-up methods of one daemon; built and registered by :func:`setup`."""

    def __init__(self, daemon: DaemonHost):
        self.daemon = daemon
        self._ids = itertools.count(1)
        self._waiters = Waiters()
        self._recording: list[dict] | None = None
        # Edges into and out of the active level per input, counted from the core's traces.
        self._edges = {name: {"active": 0, "inactive": 0} for name in INPUTS}
        self._edge_waiters: list[tuple[str, str, int, asyncio.Future]] = []

    # ---- wiring into the daemon -----------------------------------------------------------

    def register(self) -> None:
        r = self.daemon.registry.register
        r("bringup/bench", self._bench, {"seconds": Param(float, BENCH_S, 0, 3600)},
          doc="bring-up mode for seconds (0 ends it): traces, presses launch nothing")
        r("bringup/inputs", self._inputs, doc="the level of button, beam and lid, with their pins")
        r("bringup/pins", self._pins, doc="the GPIO of every [pins] key the daemon runs with (null: not fitted)")
        r("bringup/wait-input", self._wait_input, {
            "input": Param(str, choices=INPUTS), "active": bool,
            "since": Param(int, minimum=0), "timeout_s": Param(float, 15.0, 0.1, 600)},
          doc="wait until the input has gone active (or inactive) more than `since` times")
        r("bringup/jog", self._jog, {
            "direction": Param(str, choices=("forward", "reverse")),
            "ms": Param(int, minimum=1, maximum=120000), "duty": Param(float, minimum=0.05, maximum=1.0),
            "standby": Param(bool, False)},
          doc="run the motor for ms at duty, within the motor's limits")
        r("bringup/identify", self._identify, {"led": Param(bool, True), "chime": Param(bool, True)},
          doc="flash the LED and/or sound the chime")
        r("bringup/servo", self._servo, doc="sweep the aim servo to both ends and back to the middle")
        r("bringup/feed", self._feed, {
            "count": Param(int, minimum=1, maximum=200), "duty": Param(float, minimum=0.05, maximum=1.0),
            "kick": Param(bool, False)},
          doc="calibration: feed count cards at duty; the beam's and the motor's edges, timed")
        self.daemon.subscribe(self._on_event)
        self.daemon.add_status("bringup", self._status)

    def _status(self) -> dict:
        core = self.daemon.core
        return {"bench": bool(core and core.bench), "last_reload": core.last_reload if core else None,
                "refill_hold_ms": self.daemon.config.timing.refill_hold_ms}

    def _on_event(self, name: str, params: dict[str, Any]) -> None:
        if name == "trace":
            self._on_trace(params)
        elif name in ("jogged", "launched", "refused", "ignored"):
            self._waiters.answer(params.get("request"), (name, params))

    def _on_trace(self, params: dict[str, Any]) -> None:
        if self._recording is not None:
            self._recording.append(params)
        what = params.get("what")
        if what in self._edges and "level" in params:
            direction = "active" if params["level"] else "inactive"
            self._edges[what][direction] += 1
            for waiter in list(self._edge_waiters):
                name, wanted, since, future = waiter
                if name == what and wanted == direction and self._edges[what][direction] > since:
                    self._edge_waiters.remove(waiter)
                    if not future.done():
                        future.set_result(None)

    # ---- helpers --------------------------------------------------------------------------

    def _core(self):
        if self.daemon.core is None:
            raise Unavailable(i18n.message("still_starting"))
        return self.daemon.core

    def _renew_bench(self, seconds: float = BENCH_S, on_purpose: bool = False) -> None:
        """Bench mode for ``seconds``. A method that enters it by itself (``on_purpose`` False) is
        refused while something waits for a press and bench mode is off: bench mode would let it
        run the motor then (#36); the core refuses that entry too, whatever came in between."""
        core = self._core()
        if not on_purpose and not core.bench:
            pending = core.get_status().get("pending")
            if pending is not None:
                raise Refused(i18n.message("refused_pending", what=pending))
        self.daemon.feed(Bench(seconds, on_purpose))

    async def _request(self, make: Any, timeout: float) -> tuple[str, dict]:
        """Feed the event ``make(request)`` makes and wait for what the core says about it."""
        request = f"bringup-{next(self._ids)}"
        with self._waiters.waiting(request) as future:
            try:
                self.daemon.feed(make(request))
                return await asyncio.wait_for(future, timeout)
            except asyncio.TimeoutError:
                raise Refused(i18n.message("no_answer_in_time")) from None

    # ---- methods ----------------------------------------------------------------------------

    def _bench(self, params: dict) -> dict:
        self._renew_bench(params["seconds"], on_purpose=True)
        return self._status()

    def _pins(self, params: dict) -> dict:
        pins = self.daemon.config.pins
        return {key: (None if getattr(pins, key) is NOT_FITTED else getattr(pins, key)) for key in PIN_KEYS}

    def _inputs(self, params: dict) -> dict:
        self._core()
        hardware = self.daemon.hardware
        levels = {"button": hardware.button_pressed, "beam": hardware.beam_blocked, "lid": hardware.lid_open}
        return {"inputs": {name: self._describe_input(name, levels[name]) for name in INPUTS},
                "bench": self._core().bench, "sim": self.daemon.sim is not None}

    def _describe_input(self, name: str, active: bool | None) -> dict:
        config = self.daemon.config
        gpio = getattr(config.pins, name)
        if gpio is NOT_FITTED:
            return {"fitted": False, "active": None}
        active_level = getattr(config.sensor, INPUT_LEVELS[name])
        idle_level = "high" if active_level == "low" else "low"
        return {"fitted": True, "active": active, "gpio": gpio, "header": HEADER_PINS[gpio],
                "level": active_level if active else idle_level, "active_level": active_level,
                "pull": input_pull(config, name), "edges": dict(self._edges[name])}

    async def _wait_input(self, params: dict) -> dict:
        name, wanted = params["input"], "active" if params["active"] else "inactive"
        if getattr(self.daemon.config.pins, name) is NOT_FITTED:
            raise Unavailable(i18n.message("not_fitted", name=name))
        self._renew_bench(max(BENCH_S, params["timeout_s"] + 5))
        future = asyncio.get_running_loop().create_future()
        waiter = (name, wanted, params["since"], future)
        if self._edges[name][wanted] > params["since"]:
            future.set_result(None)
        else:
            self._edge_waiters.append(waiter)
        loop = asyncio.get_running_loop()
        started = loop.time()
        try:
            await asyncio.wait_for(future, params["timeout_s"])
            seen = True
        except asyncio.TimeoutError:
            seen = False
        finally:
            if waiter in self._edge_waiters:
                self._edge_waiters.remove(waiter)
        result = self._inputs({})
        return {"seen": seen, "waited_s": round(loop.time() - started, 3), "input": result["inputs"][name]}

    async def _jog(self, params: dict) -> dict:
        self._core()
        jog_s = params["ms"] / 1000
        name, event = await self._request(
            lambda request: Jog(params["direction"], params["ms"], params["duty"], params["standby"], request),
            jog_s + 5.0)
        if name == "refused":
            raise Refused.from_event(event)
        return {"jogged": event, "status": self._core().get_status()}

    def _identify(self, params: dict) -> dict:
        self._core()
        self.daemon.feed(Identify(params["led"], params["chime"]))
        return {"led": params["led"], "chime": params["chime"]}

    async def _servo(self, params: dict) -> dict:
        hardware = self.daemon.hardware
        if hardware is None or not hardware.has_servo:
            raise Unavailable(i18n.message("no_aim_servo_fitted"))
        aim = self.daemon.config.aim
        angles = []
        for angle in (aim.min_angle, aim.max_angle, (aim.min_angle + aim.max_angle) / 2):
            angles.append((await self.daemon.call("launcher/aim", {"angle": angle}))["angle"])
            await asyncio.sleep(SERVO_SETTLE_S)
        return {"angles": angles}

    async def _feed(self, params: dict) -> dict:
        """One calibration run: ``count`` cards at ``duty``, with every edge the core traced."""
        timing = self.daemon.config.timing
        limit = (timing.launch_timeout_ms + self.daemon.config.motor.retract_ms) / 1000 + 5.0
        loop = asyncio.get_running_loop()
        deadline = loop.time() + MAX_WAIT_S
        while True:
            self._renew_bench()
            self._recording = record = []
            try:
                name, event = await self._request(
                    lambda request: Dispense(params["count"], "calibrate", request, params["duty"], params["kick"]),
                    limit)
            finally:
                self._recording = None
            wait = event.get("retry_after_s") if name == "refused" else None
            if wait is None or loop.time() + wait > deadline:
                break
            # The motor's rest or duty rule: calibration waits as a person would.
            await asyncio.sleep(wait)
        if name != "launched":
            # A refusal's reason (an object) and the state it was refused in; an ignored press's
            # reason is a state's name, and the press has no state of its own to add.
            reason = event.get("reason_object") or event.get("reason", name)
            if event.get("state") is not None:
                reason = i18n.message("refused_in_state", reason=reason, state=event["state"])
            raise Refused(i18n.message("calibration_not_started", reason=reason), event.get("retry_after_s"))
        motor = [[t["t"], t["direction"], t["duty"]] for t in record if t.get("what") == "motor"]
        start = motor[0][0] if motor else 0.0
        return {
            "duty": params["duty"], "requested": event["requested"], "cards": event["cards"],
            "ended": event["ended"],
            "motor": [[round(t - start, 6), direction, duty] for t, direction, duty in motor],
            "beam": [[round(t["t"] - start, 6), t["level"]] for t in record if t.get("what") == "beam"],
        }


def setup(host: DaemonHost) -> Bringup:
    """Add the bring-up methods to ``host`` (before it serves)."""
    bringup = Bringup(host)
    bringup.register()
    return bringup


__all__ = ["BENCH_S", "Bringup", "setup"]
