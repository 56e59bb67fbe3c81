"""Press-to-motor and jam-to-stop in a running launcherd, and the bare gpiozero queue baseline.

Runs in one process (started by bench/run.py): the Daemon runs in its own thread with its own
asyncio loop, as in tests/conftest.py ThreadDaemon, on mock pins from ``sim_pin_factory()``, and the
game beside it in a process of its own (``launcher-game`` on the daemon's socket, as systemd runs it
on a Pi: :class:`GameProcess`)
(no SimulatedMechanism: this script is the mechanism, so nothing else listens on the motor pin
before the stopwatch does). This thread plays the backend's callback thread: it drives the
button and beam MockPins, whose gpiozero callbacks run here and post into the loop.

Times are ``time.perf_counter_ns()`` (CLOCK_MONOTONIC): the edge is stamped just before the pin
is driven, the motor just as the forward pin's output changes (a ReportingPin listener). The
configured debounce (press) or jam threshold (jam) is subtracted from every sample.

The daemon's loop comes from ``precise_event_loop``, as in ``launcherd``
(firmware/daemon/launcherd.py). Rounds alternate: baseline, then launcherd, so that every figure
sees the same machine as its baseline. Prints one JSON line.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gpiozero import Button, DigitalOutputDevice  # noqa: E402

from bench.common import for_measurement, percentile, unit_nice  # noqa: E402
from firmware.client import Client  # noqa: E402
from firmware.config import build_config  # noqa: E402
from firmware.daemon.driver import Daemon  # noqa: E402
from firmware.daemon.motorloop import precise_event_loop  # noqa: E402
from firmware.launcher.sim import sim_pin_factory  # noqa: E402

# The game's process beside the in-process daemon: the console script of this interpreter's venv.
GAME_BIN = Path(sys.executable).parent / "launcher-game"
GAME_NICE = unit_nice("launcher-game.service")  # as systemd runs it (and launcherd --sim starts it)
GAME_READY_S = 120.0  # its start, its log, its catch-up: "it never came" only
# What the game process logs once the start's replay of what an older log lacks is over
# (controller/match/stats.py): the readers' figures are then the kept ones.
FIGURES_READY = "statistics and history are ready"

# The bench's configuration: the shipped defaults except for these. Debounce and jam threshold
# are subtracted from the figures; the short chime lets each chime end before the next press
# (presses are seconds apart in play); retract_ms only shortens the cycle.
DEBOUNCE_MS = 5
JAM_MS = 60
SHIPPED_RULES = {
    "ejection": {"profile": "fixed", "sequence": [1]},
    "timing": {"button_debounce_ms": DEBOUNCE_MS, "jam_ms": JAM_MS},
    "motor": {"retract_ms": 10},
    "feedback": {"chime_ms": 10},
}
# What this script and bench/loaded.py measure is the press, the jam and the count stop, not the
# motor's rest and duty rules: hundreds of presses and jams back to back are one long chain of
# runs, which the rules as shipped cut and then refuse for seconds at a time (16 minutes of this
# section's run were waits, 2026-12-04). They are set out of the way here; bench/rules.py measures
# the rules, on SHIPPED_RULES, beside these.
SETTINGS = for_measurement(SHIPPED_RULES)
FILTER_S = 0.003  # a simulated card blocks the beam this long (> beam_filter_ms = 2)
WAIT_S = 2.0


def _ns() -> int:
    return time.perf_counter_ns()


class Stopwatch:
    """Stamps a ReportingPin's output turning on and off."""

    def __init__(self, pin):
        self.on_at = self.off_at = 0
        self.on = threading.Event()
        self.off = threading.Event()
        pin.add_listener(self._changed)

    def _changed(self, pin) -> None:
        now = _ns()
        if pin.state:
            self.on_at = now
            self.on.set()
        else:
            self.off_at = now
            self.off.set()

    def arm(self) -> None:
        self.on.clear()
        self.off.clear()


class GameProcess:
    """``launcher-game`` on the daemon's socket, its state in ``state_dir``, its log read here:
    :attr:`figures_ready` is set once it says its statistics and history are ready."""

    def __init__(self, socket_path: Path, state_dir: Path):
        self.figures_ready = threading.Event()
        self.said: list[str] = []  # its last lines, for a failure's message
        # LAUNCHER_TEST_COMMIT_DELAY_MS (bench/loaded.py's slow commit) goes with the environment.
        self.process = subprocess.Popen(
            [str(GAME_BIN), "--socket", str(socket_path), "--state-dir", str(state_dir)],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
            env={key: value for key, value in os.environ.items() if key not in ("NOTIFY_SOCKET", "WATCHDOG_USEC")},
            preexec_fn=lambda: os.nice(GAME_NICE))
        threading.Thread(target=self._read, daemon=True).start()

    @property
    def pid(self) -> int:
        return self.process.pid

    def _read(self) -> None:
        for line in self.process.stderr:
            self.said = [*self.said[-30:], line.rstrip()]
            if FIGURES_READY in line:
                self.figures_ready.set()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(30)


class InProcessDaemon:
    """launcherd's Daemon in a thread, on its own mock pins, and (``game``) the game in a process
    of its own beside it, registered and having said what a press means before :meth:`start`
    returns: a press means what the game says (nothing until it has)."""

    def __init__(self, directory: Path, settings: dict = SETTINGS, game: bool = True):
        self.config = build_config(settings)
        self.factory = sim_pin_factory()
        self.game_state_dir = directory / "state" / "game"
        self.daemon = Daemon(self.config, sim=False, seed=1, socket_path=directory / "l.sock",
                             state_dir=directory / "state", pin_factory=self.factory)
        self.with_game = game
        self.game: GameProcess | None = None
        pins = self.config.pins
        self.button = self.factory.pin(pins.button)
        self.beam = self.factory.pin(pins.beam)
        self.launched = threading.Event()
        self.ready = threading.Event()
        self.refused = threading.Event()
        self.last_launched: dict = {}
        self.last_refused: dict = {}
        self.refused_at = 0  # the ns stamp of the last refusal, as the loop sends it
        self.rested_s = 0.0  # time spent waiting for the motor's rest and duty rules
        self.overslept = 0  # presses measured again: the bench's own card blocked the beam past jam_ms
        self.halts = 0  # launches the stall rule halted (stall_ms: the loop stalled on a busy machine)
        self.count_stop_us: list[float] = []  # each press's card clearing the beam to the motor's stop
        self.daemon.subscribe(self._event)
        self._started = threading.Event()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _event(self, name: str, params: dict) -> None:
        if name == "launched":
            self.last_launched = params
            self.launched.set()
        elif name == "state" and params["state"] == "ready":
            self.ready.set()
        elif name == "refused":
            self.refused_at = _ns()
            self.last_refused = params
            self.refused.set()

    def _run(self) -> None:
        try:
            with asyncio.Runner(loop_factory=precise_event_loop) as runner:
                runner.run(self.daemon.run(ready=self._ready))
        except BaseException as exc:
            self._error = exc
            self._started.set()

    def _ready(self, daemon: Daemon) -> None:
        self._started.set()

    def start(self) -> "InProcessDaemon":
        self._thread.start()
        if not self._started.wait(15) or self._error:
            raise RuntimeError(f"daemon did not start: {self._error!r}")
        # The pins exist once the daemon has built its Hardware.
        self.motor = Stopwatch(self.factory.pin(self.config.pins.motor_forward))
        if self.with_game and self.daemon.game_port is not None:
            self.game = GameProcess(self.daemon.socket_path, self.game_state_dir)
            self._wait_for_the_game()
        return self

    def _wait_for_the_game(self) -> None:
        """Until the game is registered and has told the core what a press means."""
        deadline = time.monotonic() + GAME_READY_S
        told = getattr(self.daemon, "_press_meaning_told", None)
        while not (self.daemon.game_port.state == "up" and (told is None or told.is_set())):
            if self.game.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the game process did not come up (exit {self.game.process.poll()}):"
                                   f" {self.game.said[-10:]}")
            time.sleep(0.02)

    def stop(self) -> None:
        # The game first, as systemd stops the units (the game is ordered after launcherd).
        if self.game is not None:
            self.game.stop()
        self.daemon.loop.call_soon_threadsafe(self.daemon.request_stop)
        self._thread.join(10)

    def _settle(self) -> None:
        # Let the release debounce (and the LED's return to steady) finish before the next edge,
        # and the motor coast after the burst's reverse pulse: a press sooner than dead_time_ms
        # after it waits for the coast (the motor never plugs from reverse into forward), which
        # is the rule at work, not the press path this measures. Presses are seconds apart in play.
        time.sleep((DEBOUNCE_MS + self.config.motor.dead_time_ms) / 1000 + 0.004)

    def _card(self) -> int:
        """A card through the beam; the ns stamp of its clearing (where it is counted)."""
        self.beam.drive_low()
        time.sleep(FILTER_S)
        cleared = _ns()
        self.beam.drive_high()
        return cleared

    def _press_until_motor(self) -> int:
        """Press until the motor starts; the ns stamp of the press that started it.

        The motor's rest and duty rules (as shipped) refuse a press that comes too soon after
        a run of jams: the refusal says how long to wait, and the bench waits that long, as a
        player would, then presses again. Only the press that started the motor is measured.
        """
        while True:
            self.motor.arm()
            self.refused.clear()
            t0 = _ns()
            self.button.drive_low()
            deadline = time.monotonic() + WAIT_S
            while not self.motor.on.is_set() and not self.refused.is_set() and time.monotonic() < deadline:
                self.motor.on.wait(0.001)
            if self.motor.on.is_set():
                return t0
            self.button.drive_high()
            if not self.refused.is_set():
                raise RuntimeError(f"no motor after a press: {self.daemon.get_status()}")
            wait = float(self.last_refused.get("retry_after_s") or 1.0)
            self.rested_s += wait + 0.05
            time.sleep(wait + 0.05)

    def rest(self) -> None:
        """Motor off for motor_rest_ms: the next run starts a new chain (max_on_ms), as the rule asks."""
        wait = self.config.timing.motor_rest_ms / 1000 + 0.05
        self.rested_s += wait
        time.sleep(wait)

    def _cut_by_the_chain_limit(self) -> bool:
        # A run that reaches max_on_ms is stopped by the rule, not by what is measured: rest,
        # and measure again (the sample is not kept).
        if self.last_launched.get("ended") != "motor_limit":
            return False
        self.beam.drive_high()
        self._settle()
        self.rest()
        return True

    def _reset_after_a_halt(self) -> bool:
        # The daemon's loop stalled past stall_ms with the motor running (a busy machine): the
        # safety rule stopped the motor and halted, as it must. Reset as a person would, rest,
        # and measure again (the sample is not kept; `halts` says how many).
        if self.last_launched.get("ended") != "halt":
            return False
        self.halts += 1
        self.beam.drive_high()
        self.ready.clear()
        with Client(self.daemon.socket_path, timeout=30) as client:
            client.call("system/reset")
        if not self.ready.wait(WAIT_S * 5):
            raise RuntimeError(f"not ready after a reset: {self.daemon.get_status()}")
        self._settle()
        self.rest()
        return True

    def press(self) -> float:
        """One press through debounce to motor on; µs beyond the debounce time."""
        while True:
            self.launched.clear()
            t0 = self._press_until_motor()
            latency = (self.motor.on_at - t0) / 1000 - DEBOUNCE_MS * 1000
            self.button.drive_high()
            cleared = self._card()
            if not self.launched.wait(WAIT_S):
                raise RuntimeError(f"launch did not finish: {self.daemon.get_status()}")
            if self._cut_by_the_chain_limit() or self._reset_after_a_halt():
                continue
            if self.last_launched.get("ended") == "jam" and self.last_launched.get("cards") == 1:
                # This thread slept past jam_ms with the card in the beam (a loaded machine: the
                # 3 ms block lasted more than 60 ms): the daemon was right, the sample is not one.
                self.overslept += 1
                self._settle()
                time.sleep(0.05)
                continue
            if self.last_launched.get("cards") != 1 or self.last_launched.get("ended") != "done":
                raise RuntimeError(f"unexpected launch: {self.last_launched}")
            # The count stop: the one card asked for cleared the beam, the motor stops at once.
            if self.motor.off.is_set() and self.motor.off_at >= cleared:
                self.count_stop_us.append((self.motor.off_at - cleared) / 1000)
            self._settle()
            return latency

    def jam(self) -> float:
        """Press, block the beam and keep it blocked; µs from block + jam_ms to motor off."""
        while True:
            self.launched.clear()
            self._press_until_motor()
            self.button.drive_high()
            self.ready.clear()
            t_block = _ns()
            self.beam.drive_low()
            if not self.motor.off.wait(WAIT_S + JAM_MS / 1000):
                raise RuntimeError("motor not stopped by a jam")
            latency = (self.motor.off_at - t_block) / 1000 - JAM_MS * 1000
            if not self.launched.wait(WAIT_S):
                raise RuntimeError(f"no jam: {self.last_launched}")
            if self._cut_by_the_chain_limit() or self._reset_after_a_halt():
                continue
            if self.last_launched.get("ended") != "jam":
                raise RuntimeError(f"no jam: {self.last_launched}")
            self.beam.drive_high()  # the stuck card is pulled out: jammed -> ready
            if not self.ready.wait(WAIT_S):
                raise RuntimeError("not ready after the jam cleared")
            self._settle()
            return latency


class QueueBaseline:
    """A bare gpiozero Button whose when_pressed hands to a worker thread that switches an output."""

    def __init__(self):
        self.factory = sim_pin_factory()
        self.button = Button(17, pin_factory=self.factory)  # pull-up: pressed = low
        self.output = DigitalOutputDevice(12, pin_factory=self.factory)
        self.motor = Stopwatch(self.factory.pin(12))
        self.queue: queue.Queue = queue.Queue()
        self.button.when_pressed = self._pressed
        self.worker = threading.Thread(target=self._work, daemon=True)
        self.worker.start()
        self.pin = self.factory.pin(17)

    def _pressed(self) -> None:
        self.queue.put(True)

    def _work(self) -> None:
        while self.queue.get():
            self.output.on()

    def press(self) -> float:
        self.motor.arm()
        t0 = _ns()
        self.pin.drive_low()
        if not self.motor.on.wait(WAIT_S):
            raise RuntimeError("baseline output did not switch")
        latency = (self.motor.on_at - t0) / 1000
        self.pin.drive_high()
        self.output.off()
        time.sleep(0.002)  # a gap between presses, as for the daemon
        return latency

    def close(self) -> None:
        self.queue.put(False)
        self.worker.join(5)
        self.button.close()
        self.output.close()
        self.factory.close()


def summary(samples: list[float], rounds: list[list[float]]) -> dict:
    return {
        "n": len(samples),
        "p50_us": percentile(samples, 50),
        "p99_us": percentile(samples, 99),
        "max_us": max(samples),
        "round_p50_us": [percentile(r, 50) for r in rounds],
        "round_p99_us": [percentile(r, 99) for r in rounds],
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--presses", type=int, default=400, help="presses per round and kind")
    parser.add_argument("--jams", type=int, default=100, help="jams per round")
    parser.add_argument("--warmup", type=int, default=30)
    args = parser.parse_args()

    rounds: dict[str, list[list[float]]] = {"baseline": [], "press": [], "jam": []}
    with tempfile.TemporaryDirectory(prefix="bench-latency-") as tmp:
        daemon = InProcessDaemon(Path(tmp)).start()
        try:
            for _ in range(args.warmup):
                daemon.press()
            for _ in range(args.rounds):
                base = QueueBaseline()
                try:
                    for _ in range(args.warmup):
                        base.press()
                    rounds["baseline"].append([base.press() for _ in range(args.presses)])
                finally:
                    base.close()
                daemon.rest()  # each round starts a fresh chain of motor runs
                rounds["press"].append([daemon.press() for _ in range(args.presses)])
                daemon.rest()
                rounds["jam"].append([daemon.jam() for _ in range(args.jams)])
        finally:
            daemon.stop()
    result = {kind: summary([s for r in rs for s in r], rs) for kind, rs in rounds.items()}
    result["config"] = {"debounce_ms": DEBOUNCE_MS, "jam_ms": JAM_MS, "settings": SETTINGS}
    result["rested_s"] = round(daemon.rested_s, 1)  # waited for the motor's rest and duty rules
    result["overslept"] = daemon.overslept  # presses measured again (the bench thread was late)
    result["halts"] = daemon.halts  # launches measured again after a stall halted the daemon
    print(json.dumps(result))


if __name__ == "__main__":
    main()
