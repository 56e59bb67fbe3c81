"""The motor's loop under load (issue 19), each figure beside the same run's idle one.

    .venv/bin/python bench/loaded.py [--presses N] [--jams N] [--rounds N]

One in-process launcherd (bench/latency.py's) per load and round, with the game beside it in a
process of its own on its socket (``launcher-game``, as systemd runs it on a Pi: the readers' replies,
the slow commits and the game's catalogue are that process's work, not launcherd's); the loads
take turns, idle first, for ``--rounds`` rounds (3), and each pools its samples:

- idle: nothing else happening;
- readers: four clients, each a process of its own (as launcher-web's and the CLI's are), reading
  game/stats and game/history in a loop, over a 100,000-action log;
- slow_commit: a match in play (every press is a logged action) with each commit slowed to 500 ms
  by the store's test hook (LAUNCHER_TEST_COMMIT_DELAY_MS, read when the game process's store opens);
- cold_catalogue: a fresh daemon asked in French at once (by a client process), pressed while it
  answers.

The motor's rest and duty rules are out of the way (bench/latency.py's SETTINGS): what is
measured is the press, the jam and the count stop under each load, not the rules, and the rounds'
back-to-back presses and jams are one long chain the rules as shipped would cut and then hold up
(bench/rules.py measures them).

For each: press-to-motor (p50/p99, debounce subtracted), jam-to-stop (p50/p99/max, jam_ms
subtracted), count-to-stop (the card asked for clearing the beam to the motor's stop:
p50/p99/max), the loop's timer lateness (a probe timer re-armed every 2 ms in the daemon's loop:
p50/p99/max), whether the daemon halted (a stall), the motor loop thread's own CPU time and
wake-ups per second (from /proc: what the load costs that thread, however busy the machine), and
the 1-minute load average before and after. Then game/stats and game/history at 1,000,
10,000 and 100,000 actions (first reading, which computes and keeps every match's figures, the
median of the next ones once the start's replay of what the log lacks is over, and the median of
the readings that each follow a logged press). Prints one JSON line; bench/run.py stores it in bench/results.json.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import long_log  # noqa: E402
from bench.common import percentile, unit_nice  # noqa: E402
from bench.latency import InProcessDaemon  # noqa: E402
from firmware.client import Client  # noqa: E402

LOG_ACTIONS = 100_000
COMMIT_DELAY_MS = 500
PROBE_S = 0.002
# Issue 38's targets, once the game had a process of its own (issue 19's were 1.5x and 20 ms).
TARGETS = {"press_p99_vs_idle": 1.2, "lateness_max_ms": 5.0, "jam_later_than_idle_ms": 5.0,
           "count_later_than_idle_ms": 5.0}


# The readers stand for launcher-web's phones (and the voice): they run at its unit's Nice=.
CLIENT_NICE = unit_nice("launcher-web.service")
# A client of the daemon in a process of its own: its JSON decoding does not compete with the
# daemon's threads for the daemon's GIL, as a real client's does not.
READER = """
import sys
sys.path.insert(0, sys.argv[1])
from firmware.client import Client
with Client(sys.argv[2], timeout=600, lang=sys.argv[3] or None) as client:
    methods = [method for method in sys.argv[4:] if method != "once"]
    while True:
        for method in methods:
            client.call(method)
        if "once" in sys.argv[4:]:
            break
"""
ROOT = Path(__file__).resolve().parent.parent


class LatenessProbe:
    """A timer in the daemon's loop, re-armed every PROBE_S: how late each one ran."""

    def __init__(self, daemon) -> None:
        self.loop = daemon.loop
        self.samples: list[float] = []
        self._running = True
        self.loop.call_soon_threadsafe(self._arm)

    def _arm(self) -> None:
        due = self.loop.time() + PROBE_S
        self.loop.call_at(due, self._ran, due)

    def _ran(self, due: float) -> None:
        self.samples.append(self.loop.time() - due)
        if self._running:
            self._arm()

    def stop(self) -> list[float]:
        """How late each probe ran, in ms."""
        self._running = False
        return [s * 1000 for s in self.samples]


def _ms(samples: list[float]) -> dict:
    ms = sorted(samples) or [0.0]
    return {"p50_ms": round(statistics.median(ms), 2), "p99_ms": round(percentile(ms, 99), 2),
            "max_ms": round(ms[-1], 2), "n": len(samples)}


def _loop_thread_use(daemon) -> tuple[int, int]:
    """(CPU ticks, voluntary context switches) so far of the daemon's motor loop thread, from /proc:
    what a load costs the motor's loop itself, whatever else runs on the machine."""
    native = next(thread.native_id for thread in threading.enumerate() if thread.ident == daemon._loop_thread)
    fields = Path(f"/proc/self/task/{native}/stat").read_text().rsplit(")", 1)[1].split()
    status = Path(f"/proc/self/task/{native}/status").read_text()
    switches = int(status.split("voluntary_ctxt_switches:")[1].split()[0])
    return int(fields[11]) + int(fields[12]), switches


def _us(samples: list[float]) -> dict:
    ordered = sorted(samples)
    return {"p50_us": round(statistics.median(ordered)), "p99_us": round(percentile(ordered, 99)),
            "max_us": round(ordered[-1]), "n": len(ordered)}


def _clients(socket: Path, methods: list[str], count: int, lang: str = "") -> list[subprocess.Popen]:
    """``count`` client processes calling ``methods`` in turn, without pause, until killed."""
    return [subprocess.Popen([sys.executable, "-c", READER, str(ROOT), str(socket), lang, *methods],
                             preexec_fn=lambda: os.nice(CLIENT_NICE))
            for _ in range(count)]


def _connected(daemon, count: int, timeout: float = 30) -> None:
    """Wait until ``count`` clients are connected (the readers have started reading)."""
    deadline = time.monotonic() + timeout
    while daemon.daemon.api.client_count < count and time.monotonic() < deadline:
        time.sleep(0.05)


def measure_rounds(loads: tuple[str, ...], presses: int, jams: int, rounds: int) -> dict:
    """Each load's figures over ``rounds`` rounds, the loads taking turns in each round (idle
    first): a machine that gets busier or quieter during the run moves idle and the loads alike,
    so each is compared with an idle measured beside it, not minutes before. The presses and
    jams are shared out between the rounds and their samples pooled."""
    taken: dict[str, list[dict]] = {load: [] for load in loads}
    with tempfile.TemporaryDirectory(prefix="bench-loaded-kept-") as kept:
        for number in range(rounds):
            for load in loads:
                taken[load].append(measure(load, _share(presses, rounds, number), _share(jams, rounds, number),
                                           Path(kept)))
    return {load: _pooled(parts) for load, parts in taken.items()}


def _share(total: int, rounds: int, number: int) -> int:
    return total // rounds + (1 if number < total % rounds else 0)


def _pooled(parts: list[dict]) -> dict:
    seconds = sum(part["motor_loop"]["seconds"] for part in parts)
    return {
        "press": _us([s for part in parts for s in part["press"]]),
        "jam": _us([s for part in parts for s in part["jam"]]),
        "count_stop": _us([s for part in parts for s in part["count_stop"]]),
        "timer_lateness": _ms([s for part in parts for s in part["timer_lateness"]]),
        "halted": any(part["halted"] for part in parts),
        "rested_s": round(sum(part["rested_s"] for part in parts), 1),
        "overslept": sum(part["overslept"] for part in parts),
        "motor_loop": {
            "cpu_ms_per_s": round(sum(part["motor_loop"]["cpu_ms_per_s"] * part["motor_loop"]["seconds"]
                                      for part in parts) / max(seconds, 1e-9), 1),
            "wakeups_per_s": round(sum(part["motor_loop"]["wakeups_per_s"] * part["motor_loop"]["seconds"]
                                       for part in parts) / max(seconds, 1e-9)),
            "seconds": round(seconds, 1)},
        "load_average": [part["load_average"] for part in parts],
        "rounds": len(parts),
    }


def measure(load: str, presses: int, jams: int, kept: Path) -> dict:
    """One round of ``load``: its raw samples (µs; the lateness in ms) and the rest of its figures.
    ``kept``: where the readers' long log is kept, its figures kept in it, between rounds."""
    try:
        return _measure(load, presses, jams, kept)
    finally:
        os.environ.pop("LAUNCHER_TEST_COMMIT_DELAY_MS", None)


def _measure(load: str, presses: int, jams: int, kept: Path) -> dict:
    with tempfile.TemporaryDirectory(prefix=f"bench-loaded-{load}-") as tmp:
        directory = Path(tmp)
        if load == "readers":
            # The readers read a long log whose figures are kept (the first reading, below): the
            # first round builds it and reads it once, the next ones start from a copy of what
            # it left (25 s of the first reading and a second of building saved per round on a
            # busy machine; game_log_costs times the first reading).
            if (kept / "state").exists():
                shutil.copytree(kept / "state", directory / "state")
            else:
                (directory / "state" / "game").mkdir(parents=True)
                long_log.build(directory / "state" / "game", LOG_ACTIONS)  # the game's state dir
        if load == "slow_commit":
            # Set for the whole measurement (measure() unsets it): the game process, started after
            # it, reads it.
            os.environ["LAUNCHER_TEST_COMMIT_DELAY_MS"] = str(COMMIT_DELAY_MS)
        clients: list[subprocess.Popen] = []
        daemon = InProcessDaemon(directory).start()
        ready = daemon.game.figures_ready
        try:
            socket = daemon.daemon.socket_path
            if load == "readers":
                with Client(socket, timeout=600) as client:  # the first reading keeps the figures
                    client.call("game/stats")
                    client.call("game/history")
                # The readers read a log whose figures are kept: the start's one-off replay of what
                # an older log lacks (controller/match/stats.py) is over first, as in game_log_costs.
                ready.wait(600)
                clients = _clients(socket, ["game/stats", "game/history"], 4)
                _connected(daemon, 4)
            elif load == "slow_commit":
                with Client(socket, timeout=60) as client:
                    client.call("game/new", {"rules": "attack-mega-hit", "players": ["Ann", "Bob"]})
            elif load == "cold_catalogue":
                clients = _clients(socket, ["status/get", "once"], 1, lang="fr")
            load_before = os.getloadavg()[0]
            ticks, switches = _loop_thread_use(daemon.daemon)
            started = time.monotonic()
            probe = LatenessProbe(daemon.daemon)
            press = [daemon.press() for _ in range(presses)]
            jam = [daemon.jam() for _ in range(jams)]
            lateness = probe.stop()
            seconds = time.monotonic() - started
            ticks_after, switches_after = _loop_thread_use(daemon.daemon)
            # Per second of measurement: the probe's and the presses' own share is idle's figure.
            motor_loop = {"cpu_ms_per_s": round((ticks_after - ticks) * 10 / seconds, 1),
                          "wakeups_per_s": round((switches_after - switches) / seconds),
                          "seconds": round(seconds, 1)}
            # A halt is reset and the press measured again (bench/latency.py): counted here.
            halted = daemon.halts > 0 or daemon.daemon.core.get_status()["state"] == "halted"
        finally:
            for client in clients:
                client.kill()
                client.wait(30)
            daemon.stop()
        if load == "readers" and not (kept / "state").exists():
            shutil.copytree(directory / "state", kept / "state")
    return {"press": press, "jam": jam, "count_stop": list(daemon.count_stop_us),
            "timer_lateness": lateness, "halted": halted, "rested_s": round(daemon.rested_s, 1),
            "overslept": daemon.overslept, "motor_loop": motor_loop,
            "load_average": [round(load_before, 2), round(os.getloadavg()[0], 2)]}


def game_log_costs(sizes: tuple[int, ...], repeats: int = 5) -> dict:
    """game/stats and game/history over the socket at each log size: the first reading, the kept
    one, and the one after a press (the table's match is the log's last, so the press is logged)."""
    costs = {}
    for size in sizes:
        with tempfile.TemporaryDirectory(prefix="bench-gamelog-") as tmp:
            directory = Path(tmp)
            (directory / "state" / "game").mkdir(parents=True)
            long_log.build(directory / "state" / "game", size)
            daemon = InProcessDaemon(directory).start()
            ready = daemon.game.figures_ready
            try:
                with Client(daemon.daemon.socket_path, timeout=600) as client:
                    figures = {}
                    for method in ("game/stats", "game/history"):
                        started = time.perf_counter()
                        client.call(method)
                        first = time.perf_counter() - started
                        # The kept readings once the start's replay of what the log lacks is over
                        # (controller/match/stats.py): during it, every figure it keeps changes the log.
                        ready.wait(600)
                        kept = []
                        for _ in range(repeats):
                            started = time.perf_counter()
                            client.call(method)
                            kept.append(time.perf_counter() - started)
                        # After a press the table's match logs: the reading is computed again,
                        # over that match alone (the others' figures are kept in memory).
                        after_press = []
                        for _ in range(repeats):
                            daemon.press()
                            started = time.perf_counter()
                            client.call(method)
                            after_press.append(time.perf_counter() - started)
                        figures[method] = {"first_ms": round(first * 1000, 1),
                                           "kept_ms": round(statistics.median(kept) * 1000, 1),
                                           "after_press_ms": round(statistics.median(after_press) * 1000, 1)}
                    costs[str(size)] = figures
            finally:
                daemon.stop()
    return costs


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--presses", type=int, default=200)
    parser.add_argument("--jams", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3,
                        help="the loads take turns this many times; presses and jams are shared out")
    parser.add_argument("--sizes", default="1000,10000,100000")
    args = parser.parse_args()
    loads = measure_rounds(("idle", "readers", "slow_commit", "cold_catalogue"), args.presses, args.jams,
                           max(1, args.rounds))
    idle = loads["idle"]
    verdicts = {}
    for load, figures in loads.items():
        if load == "idle":
            continue
        verdicts[load] = {
            "press_p99_vs_idle": round(figures["press"]["p99_us"] / max(1, idle["press"]["p99_us"]), 2),
            "lateness_max_ms": figures["timer_lateness"]["max_ms"],
            "jam_later_than_idle_ms": round((figures["jam"]["max_us"] - idle["jam"]["max_us"]) / 1000, 2),
            "count_later_than_idle_ms": round(
                (figures["count_stop"]["max_us"] - idle["count_stop"]["max_us"]) / 1000, 2),
            "halted": figures["halted"],
        }
        verdicts[load]["ok"] = (verdicts[load]["press_p99_vs_idle"] <= TARGETS["press_p99_vs_idle"]
                                and verdicts[load]["lateness_max_ms"] < TARGETS["lateness_max_ms"]
                                and verdicts[load]["jam_later_than_idle_ms"] <= TARGETS["jam_later_than_idle_ms"]
                                and verdicts[load]["count_later_than_idle_ms"]
                                <= TARGETS["count_later_than_idle_ms"]
                                and not figures["halted"])
    sizes = tuple(int(size) for size in args.sizes.split(","))
    print(json.dumps({"loads": loads, "verdicts": verdicts, "targets": TARGETS,
                      "game_log": game_log_costs(sizes)}))


if __name__ == "__main__":
    main()
