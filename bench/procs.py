"""The figures measured on launcherd as a separate process: idle, RSS, ready, growth, counting, API.

Each function returns a dict of raw results; bench/run.py turns them into the table.
"""

from __future__ import annotations

import contextlib
import os
import random
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from bench import long_log
from firmware.client import MAX_IN_FLIGHT
from firmware.errors import ApiError
from bench.common import (
    BENCH, BIN, PYTHON, cpu_ticks, for_measurement, launcherd, percentile, rss_kb, thread_count, voluntary_switches,
)
from harness.launcherd import DaemonProcess

GAME = {"rules": "attack-mega-hit", "players": ["Ann", "Bob", "Cy"]}


def _tmpfs_dir() -> str | None:
    """A RAM-backed directory for state that is written on every press (SQLite commits)."""
    return "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None


# ---- idle: wakeups, CPU ticks, RSS -------------------------------------------------------------

class BareProcess:
    """bench/bare_gpiozero.py: gpiozero with a Button, a Motor and an LED, idle."""

    def __init__(self):
        self.process = subprocess.Popen([PYTHON, str(BENCH / "bare_gpiozero.py")], stdout=subprocess.PIPE,
                                        text=True)
        line = self.process.stdout.readline()
        if line.strip() != "ready":
            raise RuntimeError(f"the bare gpiozero process did not start: {line!r}")

    @property
    def pid(self) -> int:
        return self.process.pid

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(10)


def game_pid(daemon_pid: int, timeout: float = 120.0) -> int:
    """The pid of ``launcher-game``, the child ``launcherd --sim`` starts beside it (gamechild.py)."""
    deadline = time.monotonic() + timeout
    while True:
        for task in Path(f"/proc/{daemon_pid}/task").iterdir():
            for child in (task / "children").read_text().split():
                try:
                    command = Path(f"/proc/{child}/cmdline").read_bytes().split(b"\0")
                except OSError:
                    continue
                if any(part.endswith(b"launcher-game") for part in command[:2]):
                    return int(child)
        if time.monotonic() > deadline:
            raise RuntimeError(f"no launcher-game beside launcherd (pid {daemon_pid})")
        time.sleep(0.1)


def _snapshot(pid: int) -> tuple[dict[int, int], int]:
    return voluntary_switches(pid), cpu_ticks(pid)


def _delta(before: tuple[dict[int, int], int], after: tuple[dict[int, int], int]) -> tuple[int, int]:
    switches0, ticks0 = before
    switches1, ticks1 = after
    # A thread born during the window counts in full; one that died in it is lost (none do when idle).
    wakeups = sum(count - switches0.get(tid, 0) for tid, count in switches1.items())
    return wakeups, ticks1 - ticks0


def idle(reps: int, window_s: float, settle_s: float) -> dict:
    """launcherd --sim (shipped defaults, a game started) and the bare process, idle side by side;
    the game process launcherd started beside it (launcher-game) sampled over the same windows,
    on its own: launcherd's figures are launcherd's alone.

    All are sampled over the same windows, so they see the same machine.
    """
    result = {name: {"wakeups": [], "ticks": [], "rss_kb": [], "threads": []} for name in ("launcherd", "bare", "game")}
    with tempfile.TemporaryDirectory(prefix="bench-idle-") as tmp:
        daemon = launcherd(Path(tmp)).start()
        bare = None
        try:
            with daemon.client() as client:
                client.call("game/new", GAME)
            bare = BareProcess()
            time.sleep(settle_s)
            pids = {"launcherd": daemon.pid, "bare": bare.pid, "game": game_pid(daemon.pid)}
            for _ in range(reps):
                before = {name: _snapshot(pid) for name, pid in pids.items()}
                time.sleep(window_s)
                after = {name: _snapshot(pid) for name, pid in pids.items()}
                for name, pid in pids.items():
                    wakeups, ticks = _delta(before[name], after[name])
                    result[name]["wakeups"].append(wakeups)
                    result[name]["ticks"].append(ticks)
                    result[name]["rss_kb"].append(rss_kb(pid))
                    result[name]["threads"].append(thread_count(pid))
            with daemon.client() as client:
                status = client.call("status/get")
            result["launcherd_state"] = status["state"]
            result["game_loaded"] = status.get("game") is not None and "error" not in (status["game"] or {})
        finally:
            daemon.stop()
            if bare is not None:
                bare.stop()
    return result


# ---- ready ------------------------------------------------------------------------------------

def ready(reps: int) -> dict:
    """Popen to READY=1 on a real notify socket, against `python -c 'import gpiozero'`, interleaved."""
    result = {"ready_ms": [], "import_ms": [], "python_ms": []}
    with tempfile.TemporaryDirectory(prefix="bench-ready-") as tmp:
        tmp_path = Path(tmp)
        address = str(tmp_path / "notify")
        receiver = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        receiver.bind(address)
        state_dir = tmp_path / "state"  # kept between runs, as on a Pi after the first boot

        def drain() -> None:
            receiver.setblocking(False)
            try:
                while True:
                    receiver.recv(4096)
            except BlockingIOError:
                pass
            receiver.setblocking(True)

        def one_ready() -> float:
            drain()
            run_dir = tmp_path / "run"
            run_dir.mkdir(exist_ok=True)
            daemon = launcherd(run_dir, env={"NOTIFY_SOCKET": address}, state_dir=state_dir)
            receiver.settimeout(30)
            start = time.perf_counter()
            daemon.start(wait=False)
            try:
                while True:
                    message = receiver.recv(4096).decode()
                    if "READY=1" in message.split("\n"):
                        elapsed = time.perf_counter() - start
                        break
            finally:
                daemon.stop()
            return elapsed * 1000

        def one_command(*argv: str) -> float:
            start = time.perf_counter()
            subprocess.run([PYTHON, *argv], check=True)
            return (time.perf_counter() - start) * 1000

        try:
            one_ready(), one_command("-c", "import gpiozero")  # warm the page cache; not counted
            for rep in range(reps):
                steps = [("ready_ms", one_ready), ("import_ms", lambda: one_command("-c", "import gpiozero")),
                         ("python_ms", lambda: one_command("-c", "pass"))]
                if rep % 2:
                    steps.reverse()
                for key, step in steps:
                    result[key].append(step())
        finally:
            receiver.close()
    return result


# ---- RSS growth over many presses -------------------------------------------------------------

# Mostly dry presses with a game running; a fast mechanism whose cards are spaced wider than they
# block the beam (400 cards/s at full duty = 2.5 ms apart, 2 ms in the beam). A figure about
# memory, not about the motor's rest and duty rules: they are set out of the way
# (for_measurement; at the shipped 50 % of any 60 s, 100,000 presses took over an hour of waiting,
# 34,000 in 15 minutes, 770 s of it refused). bench/rules.py measures the rules.
GROWTH_CONFIG = for_measurement({
    "sim": {"cards_per_second": 400.0, "block_ms": 2, "hopper": 10000},
    "timing": {"beam_filter_ms": 1, "card_crossing_ms": 20, "jam_ms": 150, "feed_timeout_ms": 300,
               "button_debounce_ms": 5},
    "motor": {"duty": 1.0, "retract_ms": 0, "kick_ms": 10},
    "ejection": {"profile": "fixed", "sequence": [0, 0, 0, 0, 0, 0, 0, 0, 0, 1]},
})
# Requests written before reading the replies (one connection, handled in order): one turn of the
# fixed sequence, its burst last (the daemon lets one connection have MAX_IN_FLIGHT running). A
# launch asked for while the burst runs is ignored; with batches of MAX_IN_FLIGHT, 6 in 10 bursts
# were followed by requests sent again, 60,000 more round trips over 100,000 presses.
BATCH = len(GROWTH_CONFIG["ejection"]["sequence"])
assert BATCH <= MAX_IN_FLIGHT


# The growth run's matches: a match is kept whole in memory (its table, for undo and replay), about
# a kilobyte per action, which is its data, not a leak; a long real match is a few hundred presses.
MATCH_PRESSES = 1000


def _match_presses(client) -> int:
    game = client.call("game/status")
    return sum(p["presses"] for p in game.get("players", [])) if isinstance(game, dict) else 0


def growth(presses: int, checkpoints: tuple[int, ...]) -> dict:
    """RSS after each checkpoint of launcher/launch presses over one connection, a game running
    (a new match every MATCH_PRESSES presses)."""
    rss: dict[int, int] = {}
    game_presses, next_match = 0, MATCH_PRESSES
    outcomes: dict[str, int] = {}
    rested_s = 0.0  # the waits the motor's rest and duty rules asked for
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="bench-growth-", dir=_tmpfs_dir()) as tmp:
        daemon = launcherd(Path(tmp), GROWTH_CONFIG).start()
        try:
            with daemon.client() as client:
                client.call("game/new", GAME)
                hopper = GROWTH_CONFIG["sim"]["hopper"]
                done = 0
                for checkpoint in sorted(set(checkpoints) | {presses}):
                    while done < checkpoint:
                        batch = min(BATCH, checkpoint - done)
                        ids = {client.send("launcher/launch") for _ in range(batch)}
                        rest_s = 0.0
                        emptied = halted = False
                        for message in client.messages():
                            if message.get("id") not in ids:
                                continue
                            ids.discard(message["id"])
                            if "error" in message:
                                # The motor's rest or duty rule: the batch's refusals come
                                # together, and one wait (the longest asked) serves them all.
                                # A wait per refusal slept a whole batch's worth with no
                                # request in flight, and launcherd closed the idle connection.
                                wait = message["error"].get("retry_after_s")
                                if wait is None:
                                    raise RuntimeError(f"launcher/launch failed: {message['error']}")
                                outcomes["refused"] = outcomes.get("refused", 0) + 1
                                rest_s = max(rest_s, wait)
                            else:
                                reply = message["result"]
                                # A launch asked for while one runs is ignored (said so), not
                                # queued: it is no press, and another is sent in its place.
                                outcome = reply["outcome"] if "outcome" in reply else reply["event"]
                                outcomes[outcome] = outcomes.get(outcome, 0) + 1
                                if outcome != "ignored":
                                    done += 1
                                    hopper -= reply["cards"]
                                # A burst whose next card came later than feed_timeout_ms (the
                                # sim's beam runs on the daemon's loop: a loop stalled on a busy
                                # machine) leaves the launcher empty, and every press after it
                                # an empty one until a reload: 73,250 of 100,000 in one run.
                                emptied = emptied or outcome == "empty" or reply.get("ended") == "empty"
                                # A loop stalled past stall_ms while the motor ran: halted, and
                                # every launch after it ignored until a reset (as a person would).
                                halted = halted or reply.get("ended") == "halt" or reply.get("reason") == "halted"
                            if not ids:
                                break
                        if rest_s:
                            rested_s += rest_s + 0.05
                            time.sleep(rest_s + 0.05)
                        if halted:
                            client.call("system/reset")
                            outcomes["reset"] = outcomes.get("reset", 0) + 1
                        if hopper < 200 or emptied:
                            client.call("launcher/reload", {"cards": 10000})
                            hopper = 10000
                        if done >= next_match:
                            game_presses += _match_presses(client)
                            client.call("game/new", {**GAME, "force": True})
                            next_match += MATCH_PRESSES
                    rss[checkpoint] = rss_kb(daemon.pid)
                status = client.call("status/get")
                game_presses += _match_presses(client)
        finally:
            daemon.stop()
    return {"rss_kb": rss, "outcomes": outcomes, "seconds": time.perf_counter() - started,
            "cards_ejected": status["cards_ejected"], "presses": status["presses"],
            "game_presses": game_presses, "match_presses": MATCH_PRESSES, "rested_s": round(rested_s, 1),
            "state_dir": "tmpfs" if _tmpfs_dir() else "disk"}


# ---- counting -----------------------------------------------------------------------------------

# A figure about counting, not about the motor's rest and duty rules: 1,300 launches back to back
# are what no table asks for, and as shipped the rules made this section wait most of its 19.5
# minutes (2026-12-04). They are set out of the way (for_measurement); bench/rules.py measures them.
COUNT_CONFIG = for_measurement({
    "sim": {"cards_per_second": 400.0, "block_ms": 2, "hopper": 10000, "misfeed_chance": 0.003,
            "jam_chance": 0.003},
    # jam_ms and feed_timeout_ms as FAST_SIM in tests/conftest.py. The simulated mechanism runs
    # on the daemon's loop, so a loop stall longer than jam_ms - block_ms (or feed_timeout_ms)
    # delays the sim's own beam edges and looks like a jam (or an empty hopper) with a card
    # still to come: keep these well above the stalls a busy machine produces.
    "timing": {"beam_filter_ms": 1, "card_crossing_ms": 20, "jam_ms": 150, "feed_timeout_ms": 300,
               "button_debounce_ms": 5},
    "motor": {"kick_ms": 10, "retract_ms": 10},  # duty 0.7: 280 cards/s, 3.6 ms apart
    "ejection": {"profile": "fixed", "sequence": [3, 7, 1, 12, 5, 2, 9]},
})


def _resting(call, rested: list[float]) -> dict:
    """``call()``, again after the wait a refusal by the motor's rest or duty rule asks for."""
    while True:
        try:
            return call()
        except ApiError as exc:
            wait = (exc.data or {}).get("retry_after_s")
            if wait is None:
                raise
            rested.append(wait)
            time.sleep(wait + 0.05)


def _dispense(daemon: DaemonProcess, client, count: int) -> dict:
    """``launcher/dispense``, pulling a stuck card out while it runs and then pressing to go on,
    as a person does: a dispense waits for both."""
    reply: dict = {}

    def dispense() -> None:
        reply.update(client.call("launcher/dispense", {"count": count}))
    thread = threading.Thread(target=dispense)
    thread.start()
    with daemon.client() as hand:
        while thread.is_alive():
            status = hand.call("status/get")
            if status["sim"]["stuck"]:
                hand.call("sim/clear")
            elif status.get("pending"):
                with contextlib.suppress(ApiError):  # gone on by itself meanwhile: nothing to resume
                    hand.call("launcher/resume")
            thread.join(0.02)
    if not reply:
        raise RuntimeError(f"launcher/dispense {count} gave no reply")
    return reply


def count_exact(min_cards: int, seed: int = 11) -> dict:
    """Dispenses and bursts alternately until min_cards have come out; counted vs the sim's truth."""
    rng = random.Random(seed)
    launches = exact = exact_last = 0
    cards_true = cards_counted = 0
    ended: dict[str, int] = {}
    mismatches: list[dict] = []
    rested: list[float] = []  # the waits the motor's rest and duty rules asked for
    halts = 0
    with tempfile.TemporaryDirectory(prefix="bench-count-", dir=_tmpfs_dir()) as tmp:
        daemon = launcherd(Path(tmp), COUNT_CONFIG, seed=seed).start()
        try:
            with daemon.client() as client:
                out = client.call("status/get")["sim"]["cards_out"]
                while cards_true < min_cards:
                    if launches % 2:
                        count = rng.randint(1, 20)
                        reply = _resting(lambda: _dispense(daemon, client, count), rested)
                    else:
                        reply = _resting(lambda: client.call("launcher/launch"), rested)
                    launches += 1
                    ended[reply["ended"]] = ended.get(reply["ended"], 0) + 1
                    status = client.call("status/get")
                    if status["sim"]["stuck"]:
                        status = client.call("sim/clear")
                    for _ in range(100):  # the state follows the beam within a loop iteration or two
                        if status["state"] not in ("jammed", "launching"):
                            break
                        time.sleep(0.002)
                        status = client.call("status/get")
                    if status["state"] == "halted":  # a loop stall past stall_ms: reset, as a person would
                        client.call("system/reset")
                        halts += 1
                        status = client.call("status/get")
                    if status["state"] == "empty" or status["sim"]["hopper"] < 100:
                        hopper = status["sim"]["hopper"]
                        status = client.call("launcher/reload", {"cards": hopper if hopper >= 100 else 10000})
                        status = client.call("status/get")
                    if status["state"] != "ready":
                        raise RuntimeError(f"launcher not ready after a launch: {status['state']}")
                    truth = status["sim"]["cards_out"] - out
                    out = status["sim"]["cards_out"]
                    cards_true += truth
                    cards_counted += reply["cards"]
                    last = status["last"]["cards"] if status["last"]["press_id"] == reply["press_id"] else None
                    if reply["cards"] == truth:
                        exact += 1
                    elif len(mismatches) < 20:
                        mismatches.append({"press_id": reply["press_id"], "outcome": reply["outcome"],
                                           "ended": reply["ended"], "counted": reply["cards"],
                                           "truth": truth, "last_cards": last})
                    if last == truth:
                        exact_last += 1
        finally:
            daemon.stop()
    return {"launches": launches, "exact": exact, "exact_incl_late_cards": exact_last,
            "cards_true": cards_true, "cards_counted": cards_counted, "ended": ended,
            "mismatches": mismatches, "rested_s": round(sum(rested), 1), "halts": halts}


# ---- API round trip -----------------------------------------------------------------------------

def api_roundtrip(requests: int, clients: int = 10) -> dict:
    """status/get over the socket with `clients` connections open (all subscribed to events).

    sequential: one request at a time, taking turns over the connections. concurrent: every
    connection has its own thread asking in a loop (threads of this one client process).
    """
    with tempfile.TemporaryDirectory(prefix="bench-api-") as tmp:
        daemon = launcherd(Path(tmp)).start()
        conns = []
        try:
            with daemon.client() as client:
                client.call("game/new", GAME)
            for _ in range(clients):
                conn = daemon.client()
                conn.call("events/subscribe")
                conns.append(conn)
            connected = conns[0].call("status/get")["daemon"]["clients"]
            for conn in conns:  # warm-up
                conn.call("status/get")
            sequential = []
            for i in range(requests):
                conn = conns[i % clients]
                start = time.perf_counter_ns()
                conn.call("status/get")
                sequential.append((time.perf_counter_ns() - start) / 1000)
            concurrent: list[float] = []
            lock = threading.Lock()

            def hammer(conn) -> None:
                mine = []
                for _ in range(requests // clients):
                    start = time.perf_counter_ns()
                    conn.call("status/get")
                    mine.append((time.perf_counter_ns() - start) / 1000)
                with lock:
                    concurrent.extend(mine)

            threads = [threading.Thread(target=hammer, args=(conn,)) for conn in conns]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
        finally:
            for conn in conns:
                conn.close()
            daemon.stop()
    return {"connected": connected,
            "sequential": {"n": len(sequential), "p50_us": percentile(sequential, 50),
                           "p99_us": percentile(sequential, 99)},
            "concurrent": {"n": len(concurrent), "p50_us": percentile(concurrent, 50),
                           "p99_us": percentile(concurrent, 99)}}


# ---- RSS of the three services together ---------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _rss_mb_or_none(pid: int) -> float | None:
    try:
        return round(rss_kb(pid) / 1024, 1)
    except (OSError, KeyError):  # gone, or a zombie (no VmRSS)
        return None


def services_rss(log_actions: int, settle_s: float = 3.0) -> dict:
    """VmRSS of the whole stack idle under --sim: launcherd --sim, the game process it starts beside
    it (launcher-game), launcher-web and launcher-voice (--mute) side by side, a game running: once
    started, then after game/stats and game/history over a ``log_actions`` log (a Pi Zero 2 W has
    512 MB for all four and the system)."""
    result = {}
    for label, actions in (("started", 0), (f"read_{log_actions}_actions", log_actions)):
        with tempfile.TemporaryDirectory(prefix="bench-rss-") as tmp:
            directory = Path(tmp)
            (directory / "state" / "game").mkdir(parents=True)
            if actions:
                long_log.build(directory / "state" / "game", actions)  # the game's state dir under --sim
            daemon = launcherd(directory).start()
            others = []
            try:
                with daemon.client(timeout=600) as client:
                    client.call("game/new", {**GAME, "force": True})
                    if actions:
                        client.call("game/stats")
                        client.call("game/history")
                common = ["--socket", str(daemon.socket)]
                web = [str(BIN / "launcher-web"), *common, "--listen", f"127.0.0.1:{_free_port()}"]
                voice = [str(BIN / "launcher-voice"), *common, "--mute", "--cache-dir", tmp]
                others = [subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                           env={**daemon.env, "HOME": tmp}) for argv in (web, voice)]
                time.sleep(settle_s)
                pids = {"launcherd": daemon.process.pid, "launcher-game": game_pid(daemon.process.pid),
                        "launcher-web": others[0].pid, "launcher-voice": others[1].pid}
                # A service that has exited (none should) shows as null and adds nothing.
                mb = {name: _rss_mb_or_none(pid) for name, pid in pids.items()}
                result[label] = {**{f"{name}_mb": value for name, value in mb.items()},
                                 "together_mb": round(sum(value or 0 for value in mb.values()), 1)}
            finally:
                for process in others:
                    process.terminate()
                    process.wait(10)
                daemon.stop()
    return result


__all__ = ["api_roundtrip", "count_exact", "game_pid", "growth", "idle", "ready", "services_rss"]
