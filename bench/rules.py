"""The motor's rest and duty rules (firmware/launcher/motor_limits.py): what they cost, measured
on their own, since every other section sets them out of the way (bench/common.py,
RULES_FOR_MEASUREMENT).

    .venv/bin/python bench/rules.py [--rounds N] [--presses N] [--cycles N]

bench/latency.py's in-process launcherd, its mock pins driven by this script.

- **Their cost on a press**: press to motor (debounce subtracted) on a daemon with the rules as
  shipped (SHIPPED_RULES: a chain of at most 20 s of on-time, a 3 s rest, at most half of any
  60 s), the runs of every press before it in the duty window, beside the same presses on a
  daemon with the rules out of the way (SETTINGS), rounds alternating. As shipped they refuse
  nothing here: the presses are too few to reach a limit, so this is the bookkeeping each press
  pays (the duty window walked, the chain summed).
- **The rules at work**, in a scaled-down time (as shipped, using up a chain takes 20 s of motor
  on-time and its rest 3 s more): a chain of at most 200 ms, a 300 ms rest, at most half of any
  2 s. Each cycle presses (a burst of 50 cards; one card passes, then none, so the motor runs
  on until the chain's limit cuts it), presses again at once (refused: the chain is used up),
  waits the refusal's ``retry_after_s`` and presses (admitted, the next cycle's cut). Figures:
  how late the cut stops the motor after the chain's limit (``cut_late``), how soon a refused
  press is told (press to the ``refused`` event, debounce subtracted), and whether a press after
  ``retry_after_s`` is admitted (it must be: the refusal's promise).

Prints one JSON line; bench/run.py puts it in its table and bench/results.json.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import percentile  # noqa: E402
from firmware.client import Client  # noqa: E402
from bench.latency import DEBOUNCE_MS, SETTINGS, SHIPPED_RULES, InProcessDaemon, _ns  # noqa: E402

CHAIN_MS = 150
SCALED_RULES = {
    **SHIPPED_RULES,
    # launch_timeout_ms (under max_on_ms, over feed_timeout_ms) is what a launch reserves in the
    # duty window, with retract_ms: 130 ms of a 1 s budget.
    "timing": {**SHIPPED_RULES["timing"], "max_on_ms": CHAIN_MS, "motor_rest_ms": 300,
               "duty_window_s": 2, "max_duty": 0.5, "launch_timeout_ms": 120, "feed_timeout_ms": 100},
}
RESTED_S = SCALED_RULES["timing"]["motor_rest_ms"] / 1000 + 0.05
WAIT_S = 2.0


def _us(samples: list[float]) -> dict:
    return {"n": len(samples), "p50_us": percentile(samples, 50), "p99_us": percentile(samples, 99),
            "max_us": max(samples)}


def press_cost(rounds: int, presses: int) -> dict:
    """Press to motor with the rules as shipped and out of the way, rounds alternating."""
    samples: dict[str, list[float]] = {"shipped": [], "out_of_the_way": []}
    with tempfile.TemporaryDirectory(prefix="bench-rules-") as tmp:
        for name in samples:
            (Path(tmp) / name).mkdir()
        daemons = {name: InProcessDaemon(Path(tmp) / name, settings).start()
                   for name, settings in (("shipped", SHIPPED_RULES), ("out_of_the_way", SETTINGS))}
        try:
            for daemon in daemons.values():
                for _ in range(10):  # warm-up, not counted
                    daemon.press()
            for _ in range(rounds):
                for name, daemon in daemons.items():
                    samples[name] += [daemon.press() for _ in range(presses)]
        finally:
            for daemon in daemons.values():
                daemon.stop()
    refused = sum(daemon.rested_s > 0 for daemon in daemons.values())
    return {**{name: _us(values) for name, values in samples.items()}, "refused_any": bool(refused)}


class OnTimeMeter:
    """The motor's on-time as its pins show it: forward or reverse on (a reverse pulse counts in
    a chain, as the rule counts it), stamped by ReportingPin listeners."""

    def __init__(self, daemon: InProcessDaemon):
        self.runs: list[list[int]] = []  # [on, off] ns stamps; off 0 while on
        self._on: set[str] = set()
        for name in ("motor_forward", "motor_reverse"):
            daemon.factory.pin(getattr(daemon.config.pins, name)).add_listener(
                lambda pin, name=name: self._changed(name, pin))

    def _changed(self, name: str, pin) -> None:
        now = _ns()
        was_on = bool(self._on)
        (self._on.add if pin.state else self._on.discard)(name)
        if self._on and not was_on:
            self.runs.append([now, 0])
        elif was_on and not self._on:
            self.runs[-1][1] = now

    def chain_us(self, until: int) -> float:
        """On-time of the runs since the last clear(), up to the ns stamp ``until``."""
        return sum(min(off or until, until) - on for on, off in self.runs if on < until) / 1000

    def clear(self) -> None:
        self.runs = [run for run in self.runs if not run[1]]


class Cycle:
    """Presses on the scaled-down rules: the chain's cut, the refusal, the press after
    retry_after_s."""

    def __init__(self, daemon: InProcessDaemon):
        self.daemon = daemon
        self.meter = OnTimeMeter(daemon)
        self.cut_late_us: list[float] = []
        self.refusal_us: list[float] = []
        self.reasons: dict[str, int] = {}
        self.admitted = self.retried = 0

    def _press(self) -> tuple[str, int]:
        """Press and release; ("motor" or "refused", the press's ns stamp)."""
        daemon = self.daemon
        daemon.motor.arm()
        daemon.refused.clear()
        daemon.launched.clear()
        t0 = _ns()
        daemon.button.drive_low()
        deadline = time.monotonic() + WAIT_S
        while not daemon.motor.on.is_set() and not daemon.refused.is_set() and time.monotonic() < deadline:
            daemon.motor.on.wait(0.001)
        daemon.button.drive_high()
        if daemon.motor.on.is_set():
            return "motor", t0
        if daemon.refused.is_set():
            self.refusal_us.append((daemon.refused_at - t0) / 1000 - DEBOUNCE_MS * 1000)
            reason = daemon.last_refused.get("reason")  # the message, rendered or not
            reason = reason.get("id", "?") if isinstance(reason, dict) else str(reason)
            self.reasons[reason] = self.reasons.get(reason, 0) + 1
            return "refused", t0
        raise RuntimeError(f"a press neither ran the motor nor was refused: {daemon.daemon.get_status()}")

    def _launch(self) -> str:
        """The motor runs: one card through the beam; how the launch ended."""
        daemon = self.daemon
        daemon._card()
        if not daemon.launched.wait(WAIT_S):
            raise RuntimeError(f"the launch did not end: {daemon.daemon.get_status()}")
        ended = daemon.last_launched.get("ended")
        if ended == "motor_limit":
            self.cut_late_us.append(self.meter.chain_us(daemon.motor.off_at) - CHAIN_MS * 1000)
        elif ended == "halt":  # the stall rule on a busy machine: reset, rest, and go on
            daemon._reset_after_a_halt()
            self.meter.clear()
            return ended
        elif ended in ("empty", "jam"):
            # This thread was late with its card (a busy machine): no card within feed_timeout_ms
            # (the launcher is then empty until reloaded), or the card's 3 ms in the beam lasted
            # past jam_ms. The daemon was right; the run's on-time still counts in the chain.
            daemon.overslept += 1
            if ended == "empty":
                with Client(daemon.daemon.socket_path, timeout=30) as client:
                    client.call("launcher/reload", {"cards": 100})
        elif ended != "done":
            raise RuntimeError(f"unexpected launch: {daemon.last_launched}")
        daemon._settle()
        return ended

    def once(self) -> None:
        """From a rested motor: presses until the chain's limit cuts one, a press refused, a press
        after the refusal's retry_after_s, then the rest."""
        self.meter.clear()
        ended = None
        while ended != "motor_limit":
            if self._press()[0] == "refused":  # a run that ended done used the chain up, or the duty rule
                self._retry()
                self.meter.clear()
                continue
            ended = self._launch()
        if self._press()[0] != "refused":
            raise RuntimeError("a press right after the chain's limit ran the motor")
        self._retry()
        time.sleep(RESTED_S)

    def _retry(self) -> None:
        """The refusal's promise: a press after retry_after_s (the debounce adds its 5 ms) runs."""
        time.sleep(float(self.daemon.last_refused["retry_after_s"]))
        self.retried += 1
        if self._press()[0] == "motor":
            self.admitted += 1
            self._launch()


def at_work(cycles: int) -> dict:
    with tempfile.TemporaryDirectory(prefix="bench-rules-") as tmp:
        daemon = InProcessDaemon(Path(tmp), SCALED_RULES).start()
        cycle = Cycle(daemon)
        try:
            time.sleep(RESTED_S)
            for _ in range(cycles):
                cycle.once()
        finally:
            daemon.stop()
    return {"cut_late": _us(cycle.cut_late_us), "refusal": _us(cycle.refusal_us), "reasons": cycle.reasons,
            "retried": cycle.retried, "admitted": cycle.admitted, "overslept": daemon.overslept, "halts": daemon.halts}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--presses", type=int, default=100, help="presses per round and daemon")
    parser.add_argument("--cycles", type=int, default=30)
    args = parser.parse_args()
    result = {"press": press_cost(args.rounds, args.presses), "at_work": at_work(args.cycles),
              "config": {"shipped": SHIPPED_RULES["timing"], "out_of_the_way": SETTINGS["timing"],
                         "scaled": SCALED_RULES["timing"]}}
    print(json.dumps(result))


if __name__ == "__main__":
    main()
