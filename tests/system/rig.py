"""The test side of the system tests: the gpio-sim chip, the daemon's socket, a mechanism model.

Runs inside the VM as root with Debian's python3 (no project code imported: the daemon is a
black box reached through its lines, its socket, systemd and the journal).
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import statistics
import subprocess
import threading
import time
import tomllib
from pathlib import Path

CHECKOUT = Path("/mnt/checkout")
RESULTS = Path("/mnt/results")
CONFIG = Path("/etc/card-launcher/launcher.toml")
SOCKET = "/run/card-launcher/launcher.sock"
# The game's process (issue #38): its unit, installed by install.sh beside launcherd, and its state.
GAME = "launcher-game"
GAME_UNIT = Path("/etc/systemd/system/launcher-game.service")
GAME_STATE = Path("/var/lib/launcher-game")
CHIP_CONFIG = Path("/sys/kernel/config/gpio-sim/pi")
TRACING = Path("/sys/kernel/tracing")
# SYSTEMTEST_TRACE=1: every write to an input line is kept (CLOCK_MONOTONIC ns, line, level) and
# the kernel's irq and gpio_value events are traced on the same clock, so that an edge the daemon
# missed can be told apart from one the kernel never reported (docs/systemtest.md).
TRACE = os.environ.get("SYSTEMTEST_TRACE") == "1"
PULLS: list[tuple[int, int, str]] = []


def sh(*args: str, check: bool = True, timeout: float = 600, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(args, capture_output=True, text=True, check=check, timeout=timeout, **kwargs)


def wait_for(predicate, timeout: float, interval: float = 0.05, what: str = "condition"):
    """Polls predicate until it returns something truthy; that value, or AssertionError."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.1f} s waiting for {what}")
        time.sleep(interval)


# A line driven by lgpio's software PWM (the reverse pulse at 50 %, the LED) is "on" when any
# read within this window is high; under TCG the PWM thread's periods stretch, hence the margin.
# The test config runs the motor forward at duty 1.0, so that its line is simply high while it runs.
PWM_WINDOW_S = 0.01


class Chip:
    """The gpio-sim chip's lines through sysfs: `pull` drives an input, `value` reads a line."""

    def __init__(self) -> None:
        self.name = (CHIP_CONFIG / "bank0" / "chip_name").read_text().strip()
        self.number = int(self.name.removeprefix("gpiochip"))
        device = (CHIP_CONFIG / "dev_name").read_text().strip()
        self.base = Path(f"/sys/devices/platform/{device}/{self.name}")
        self._pull: dict[int, int] = {}
        self._value: dict[int, int] = {}
        self.levels: dict[int, str] = {}

    def _fd(self, cache: dict[int, int], line: int, attr: str, flags: int) -> int:
        if line not in cache:
            cache[line] = os.open(self.base / f"sim_gpio{line}" / attr, flags)
        return cache[line]

    def pull(self, line: int, level: str) -> None:
        """level "up" or "down": what the switch or sensor outside the Pi does to the line."""
        self.levels[line] = level
        if TRACE:
            PULLS.append((time.clock_gettime_ns(time.CLOCK_MONOTONIC), line, level))
        os.pwrite(self._fd(self._pull, line, "pull", os.O_WRONLY), f"pull-{level}".encode(), 0)

    def reassert(self) -> None:
        """Writes every input's level again. gpio-sim applies a consumer's bias request to the
        line's pull, so each (re)start of the daemon overwrites what the test set: a closed
        switch, which on a Pi overrides the internal pull, is modelled by writing it again."""
        for line, level in self.levels.items():
            self.pull(line, level)

    def value(self, line: int) -> int:
        return int(os.pread(self._fd(self._value, line, "value", os.O_RDONLY), 4, 0)[:1])

    def high_share(self, line: int, window: float) -> float:
        """The share of reads within window seconds that found the line high."""
        end, reads, high = time.perf_counter() + window, 0, 0
        while time.perf_counter() < end:
            reads += 1
            high += self.value(line)
        return high / max(reads, 1)

    def highs_within(self, lines: tuple[int, ...], window: float) -> set[int]:
        """Which of lines were high at any read within window seconds (PWM outputs on)."""
        end, high = time.perf_counter() + window, set()
        while True:
            high.update(line for line in lines if line not in high and self.value(line))
            if time.perf_counter() > end:
                return high

    def high_within(self, line: int, window: float) -> bool:
        """Whether the line is high at any read within window seconds (a PWM output is on)."""
        end = time.perf_counter() + window
        while True:
            if self.value(line):
                return True
            if time.perf_counter() > end:
                return False

    def close(self) -> None:
        for fd in [*self._pull.values(), *self._value.values()]:
            os.close(fd)
        self._pull.clear()
        self._value.clear()


_CHIP: Chip | None = None


def chip() -> Chip:
    global _CHIP
    if _CHIP is None:
        _CHIP = Chip()
    return _CHIP


class Api:
    """One connection to launcherd's socket: JSON-line requests, and events once subscribed."""

    def __init__(self, path: str = SOCKET, timeout: float = 120) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(path)
        self.file = self.sock.makefile("rb")
        self.events: list[dict] = []
        self._next = 0

    def call(self, method: str, **params):
        self._next += 1
        request = {"id": self._next, "method": method, "params": params}
        self.sock.sendall(json.dumps(request).encode() + b"\n")
        while True:
            message = json.loads(self.file.readline())
            if "event" in message:
                self.events.append(message)
            elif message.get("id") == self._next:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message["result"]

    def next_event(self, name: str, timeout: float) -> dict:
        """The next event called name (earlier ones already read count first)."""
        for index, event in enumerate(self.events):
            if event["event"] == name:
                return self.events.pop(index)
        self.sock.settimeout(timeout)
        try:
            while True:
                message = json.loads(self.file.readline())
                if message.get("event") == name:
                    return message
                if "event" in message:
                    self.events.append(message)
        except TimeoutError:
            # What the CI's console keeps of a failure is its message: say what the daemon did.
            raise AssertionError(f"no {name!r} event in {timeout} s; events meanwhile: {self.events[-8:]};"
                                 f" journal: {_journal_tail()}; status: {_status_for_a_failure()}") from None

    def drain(self, seconds: float) -> list[dict]:
        """The events not read yet, and those that come within ``seconds`` (for a failure's message)."""
        self.sock.settimeout(seconds)
        try:
            while True:
                message = json.loads(self.file.readline())
                if "event" in message:
                    self.events.append(message)
        except (OSError, ValueError):  # the timeout (a socket.timeout is an OSError)
            pass
        events, self.events = self.events, []
        return events

    def until_closed(self, timeout: float) -> list[dict]:
        """Every event (read or not yet) until launcherd closes the connection, as when it dies."""
        self.sock.settimeout(timeout)
        while line := self.file.readline():
            message = json.loads(line)
            if "event" in message:
                self.events.append(message)
        return self.events

    def close(self) -> None:
        self.file.close()
        self.sock.close()


def api_call(method: str, **params):
    api = Api()
    try:
        return api.call(method, **params)
    finally:
        api.close()


def status() -> dict:
    return api_call("status/get")


STATUS_FOR_A_FAILURE = ("state", "reason", "pending", "press_means", "press_reason", "motor", "lid_open",
                        "beam_blocked", "driver_enabled", "game_layer", "dealer")


def _status_for_a_failure() -> dict | str:
    try:
        full = status()
    except (OSError, ValueError, RuntimeError) as exc:
        return repr(exc)
    return {key: full.get(key) for key in STATUS_FOR_A_FAILURE}


def _journal_tail(lines: int = 15) -> str:
    return journal("-u", "launcherd", "-n", str(lines), "-o", "cat")


def game_journal_tail(lines: int = 15) -> str:
    return journal("-u", GAME, "-n", str(lines), "-o", "cat")


def pins() -> dict:
    configured = {}
    if CONFIG.exists():
        with CONFIG.open("rb") as file:
            configured = tomllib.load(file).get("pins", {})
    with (CHECKOUT / "firmware" / "launcher.toml").open("rb") as file:
        defaults = tomllib.load(file)["pins"]
    return {**defaults, **configured}


class Mechanism:
    """The launcher's mechanics, replacing firmware/launcher/sim.py: cards leave while the motor runs.

    A thread watches the motor's forward line (software PWM: on while any read within a PWM
    period is high); after `feed_s` of running each card blocks the beam for `crossing_s`.
    `jam()` makes the next card stick until `clear()`. The reverse line going high is recorded,
    and each run's stop with the clearing of every card in it (`runs`).
    """

    def __init__(self, chip: Chip, forward: int, reverse: int, beam: int, *, period: float = PWM_WINDOW_S,
                 feed_s: float = 0.06, crossing_s: float = 0.015) -> None:
        self.chip, self.forward, self.reverse, self.beam = chip, forward, reverse, beam
        self.period, self.feed_s, self.crossing_s = period, feed_s, crossing_s
        self.cards = 0
        self.reverse_seen = 0
        self.motor_on = False
        self.blocked_at = 0.0  # perf_counter() of the last card's block
        self.cleared_at = 0.0  # and of its clearing (where the daemon counts it)
        # Seconds from the last card's clearing to the forward line seen low, per run.
        self.stop_reactions: list[float] = []
        # Per run of the forward line: when it was seen low, and each card's clearing in it.
        self.runs: list[tuple[float, list[float]]] = []
        self._clearings: list[float] = []
        self._jam = threading.Event()
        self._stuck = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="mechanism", daemon=True)
        chip.pull(beam, "up")

    def __enter__(self) -> "Mechanism":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(5)

    def jam(self) -> None:
        self._jam.set()

    def stuck(self) -> bool:
        return self._stuck.is_set()

    def clear(self) -> None:
        self._jam.clear()
        self._stuck.clear()
        self.chip.pull(self.beam, "up")

    def _run(self) -> None:
        running_for = 0.0
        last = on_since = time.perf_counter()
        while not self._stop.is_set():
            # The reverse pulse may be software PWM (50 % by default) for retract_ms: one read of
            # it per window missed a whole pulse in about one launch in 60 (6 reads, each low half
            # the time).
            highs = self.chip.highs_within((self.forward, self.reverse), self.period)
            on = self.forward in highs
            if self.reverse in highs:
                self.reverse_seen += 1
            now = time.perf_counter()
            if on and self.motor_on:
                running_for += now - last
            if on and not self.motor_on:
                on_since = now
                self._clearings = []
            elif self.motor_on and not on:
                self.runs.append((now - self.period, self._clearings))
                if self.cleared_at > on_since:
                    self.stop_reactions.append(now - self.period - self.cleared_at)
            self.motor_on = on
            last = now
            if not on:
                running_for = 0.0
                time.sleep(0.001)
                continue
            if running_for >= self.feed_s and not self._stuck.is_set():
                self.chip.pull(self.beam, "down")
                self.blocked_at = time.perf_counter()
                if self._jam.is_set():
                    self._stuck.set()
                    continue
                time.sleep(self.crossing_s)
                self.chip.pull(self.beam, "up")
                self.cleared_at = time.perf_counter()
                self._clearings.append(self.cleared_at)
                self.cards += 1
                running_for = 0.0
                last = time.perf_counter()


def trace_start() -> None:
    """The kernel's side of every edge: which irq fired, and what the edge thread read."""
    (TRACING / "tracing_on").write_text("0")
    (TRACING / "trace").write_text("")
    (TRACING / "trace_clock").write_text("mono")
    (TRACING / "buffer_size_kb").write_text("32768")
    # Reads only (the PWM thread's writes would fill the buffer), and only lgpio's edge irqs.
    for event, keep in (("irq/irq_handler_entry", 'name == "lg"'), ("gpio/gpio_value", "get == 1")):
        (TRACING / "events" / event / "filter").write_text(keep)
        (TRACING / "events" / event / "enable").write_text("1")
    (TRACING / "tracing_on").write_text("1")


def trace_save() -> None:
    (TRACING / "tracing_on").write_text("0")
    (RESULTS / "ftrace.txt").write_bytes((TRACING / "trace").read_bytes())
    # The chip's global GPIO numbers (the trace's) and its irqs, to tell the lines apart.
    for source, name in (("/sys/kernel/debug/gpio", "gpio-debug.txt"), ("/proc/interrupts", "interrupts.txt")):
        try:
            (RESULTS / name).write_text(Path(source).read_text())
        except OSError as exc:
            (RESULTS / name).write_text(f"{source}: {exc}\n")
    (RESULTS / "pulls.txt").write_text("".join(f"{ns / 1e9:.6f} {line} {level}\n" for ns, line, level in PULLS))


def motor_rest_s() -> float:
    """The service's motor_rest_ms in seconds: the shipped default unless its config sets one."""
    with (CHECKOUT / "firmware" / "launcher.toml").open("rb") as file:
        shipped = tomllib.load(file)["timing"]
    with CONFIG.open("rb") as file:
        configured = tomllib.load(file).get("timing", {})
    return {**shipped, **configured}["motor_rest_ms"] / 1000


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def summary_us(samples: list[float]) -> dict:
    return {"p50": round(statistics.median(samples) * 1e6), "p99": round(percentile(samples, 99) * 1e6),
            "n": len(samples)}


PI_CPUINFO = "/etc/card-launcher-systemtest/cpuinfo"


def as_pi(*command: str) -> list[str]:
    """command in a mount namespace where /proc/cpuinfo names a Pi 4 (as the service's drop-in
    does), for gpiozero run outside the service."""
    return ["unshare", "--mount", "--propagation", "private", "sh", "-c",
            f'mount --bind {PI_CPUINFO} /proc/cpuinfo && exec "$@"', "as-pi", *command]


def journal(*args: str) -> str:
    return sh("journalctl", "--no-pager", "-o", "short-monotonic", *args, check=False).stdout


def uptime() -> float:
    """CLOCK_BOOTTIME-ish seconds since boot, the clock of `journalctl -o short-monotonic`."""
    return time.clock_gettime(time.CLOCK_MONOTONIC)


def logged_after(pattern: str, since: float, timeout: float) -> float:
    """Seconds from `since` (uptime()) to the first line about launcherd matching pattern."""
    def find():
        for line in journal("-u", "launcherd", "-g", pattern).splitlines():
            try:
                stamp = float(line.partition("]")[0].strip("[ "))
            except ValueError:
                continue
            if stamp >= since:
                return stamp - since
        return None
    return wait_for(find, timeout, 0.2, f"{pattern!r} in the journal")


def safe_off_logged_after(since: float, timeout: float) -> float:
    return logged_after("safe-off: motor pins driven low", since, timeout)


def main_pid(unit: str = "launcherd") -> int:
    return int(sh("systemctl", "show", "-p", "MainPID", "--value", unit).stdout)


def game_pid() -> int:
    """launcher-game's main process (0 while it is not running)."""
    return main_pid(GAME)


class GuestLateness:
    """The guest's own lateness, as `lateness.py` sees it on each CPU (real-time, pinned): the
    spans in which a vCPU ran nothing, on the clock of `time.perf_counter()` and launcherd's loop.

    A late stop, an extra card or a stall halt of launcherd is the emulator's where the guest
    itself was that late at that moment (:meth:`late_within`): had the vCPU run, the daemon would
    have been on time. Anything else is launcherd's, and fails.
    """

    def __init__(self) -> None:
        self.spans: dict[int, list[tuple[float, float]]] = {}
        self._processes: list[subprocess.Popen] = []
        self._lock = threading.Lock()

    def start(self) -> "GuestLateness":
        for cpu in sorted(os.sched_getaffinity(0)):
            process = subprocess.Popen(["python3", str(CHECKOUT / "tests/system/lateness.py"), str(cpu)],
                                       stdout=subprocess.PIPE, text=True)
            assert process.stdout.readline().strip() == "ready", f"the lateness probe on CPU {cpu}"
            self._processes.append(process)
            self.spans[cpu] = []
            threading.Thread(target=self._read, args=(cpu, process), daemon=True).start()
        return self

    def _read(self, cpu: int, process: subprocess.Popen) -> None:
        for line in process.stdout:
            due, woke = (float(word) for word in line.split())
            with self._lock:
                self.spans[cpu].append((due, woke))

    def late_within(self, start: float, end: float) -> float:
        """Seconds of [start, end] in which the guest ran nothing on a CPU (the most on any one)."""
        with self._lock:
            return max((sum(max(0.0, min(end, woke) - max(start, due)) for due, woke in spans)
                        for spans in self.spans.values()), default=0.0)

    def figures(self) -> dict:
        with self._lock:
            every = [woke - due for spans in self.spans.values() for due, woke in spans]
        return {"gaps": len(every), "gaps_over_100_ms": sum(gap > 0.1 for gap in every),
                "longest_ms": round(max(every, default=0.0) * 1e3, 1),
                "late_s_total": round(sum(every), 2)}

    def close(self) -> None:
        for process in self._processes:
            process.terminate()
            process.wait(10)


# ---- the kernel's trace of the lines ------------------------------------------------------
# gpiolib's gpio_value event records every level a process writes to a line, with the writing
# task and a CLOCK_MONOTONIC stamp: what launcherd wrote and when, whatever the rig's own
# scheduling (a poll of the line from a loaded guest measures the poller as much as the daemon).
# trace_on() clears what SYSTEMTEST_TRACE's trace_start() was keeping: a traced run keeps the rest.

TRACE_LINE = re.compile(r"^\s*(?P<task>.+?)-(?P<pid>\d+)\s+\[\d+\].*?\s(?P<t>\d+\.\d+): (?P<event>\w+): (?P<rest>.*)$")


def now() -> float:
    """CLOCK_MONOTONIC seconds: the clock of the kernel's trace (trace_clock mono)."""
    return time.clock_gettime(time.CLOCK_MONOTONIC)


def chip_base() -> int:
    """The global number of the chip's line 0, which the gpio trace events use."""
    text = Path("/sys/kernel/debug/gpio").read_text()
    found = re.search(rf"{chip().name}: GPIOs (\d+)-", text)
    assert found, text[:500]
    return int(found.group(1))


TRACED = ("gpio/gpio_value", "sched/sched_process_exec", "signal/signal_generate")


def trace_on() -> None:
    (TRACING / "tracing_on").write_text("0")
    (TRACING / "trace").write_text("")
    (TRACING / "trace_clock").write_text("mono")
    (TRACING / "buffer_size_kb").write_text("8192")
    (TRACING / "events" / "gpio" / "gpio_value" / "filter").write_text("get == 0")
    # Stop and kill signals only: when the kernel took a SIGSTOP is the trace's, not the rig's
    # clock read before its kill() (a rig preempted in between on a loaded guest read it early).
    (TRACING / "events" / "signal" / "signal_generate" / "filter").write_text(
        f"sig == {int(signal.SIGSTOP)} || sig == {int(signal.SIGKILL)}")
    for event in TRACED:
        (TRACING / "events" / event / "enable").write_text("1")
    (TRACING / "tracing_on").write_text("1")


def trace_off() -> list[str]:
    (TRACING / "tracing_on").write_text("0")
    lines = (TRACING / "trace").read_text().splitlines()
    for event in TRACED:
        (TRACING / "events" / event / "enable").write_text("0")
    (TRACING / "events" / "gpio" / "gpio_value" / "filter").write_text("0")
    (TRACING / "events" / "signal" / "signal_generate" / "filter").write_text("0")
    return lines


def events(lines: list[str]) -> list[dict]:
    """The trace's events; each one's "program" is what its process exec'd in the trace (the task
    name alone may be "<...>" when the kernel's name cache lost a short-lived process)."""
    found, programs = [], {}
    for line in lines:
        match = TRACE_LINE.match(line)
        if match:
            event = {**match.groupdict(), "t": float(match["t"])}
            if event["event"] == "sched_process_exec":
                exec_match = re.match(r"filename=(\S+) pid=(\d+)", event["rest"])
                if exec_match:
                    programs[exec_match.group(2)] = exec_match.group(1)
            found.append(event)
    for event in found:
        event["program"] = programs.get(event["pid"], event["task"])
    return found


def line_writes(trace: list[dict], line: int) -> list[tuple[float, int]]:
    """The kernel's record of every level written to ``line``: (time, level)."""
    writes = []
    for event in trace:
        found = re.match(r"(\d+) set (\d)\b", event["rest"]) if event["event"] == "gpio_value" else None
        if found and int(found.group(1)) == line:
            writes.append((event["t"], int(found.group(2))))
    return writes


def signalled_at(trace: list[dict], pid: int, sig: int) -> float | None:
    """When the kernel generated ``sig`` for ``pid`` (the first time in the trace)."""
    for event in trace:
        if event["event"] == "signal_generate":
            found = re.search(r"\bsig=(\d+)\b.*\bpid=(\d+)\b", event["rest"])
            if found and int(found.group(1)) == sig and int(found.group(2)) == pid:
                return event["t"]
    return None


def rises_so_far(line: int) -> int:
    """How many rises of ``line`` the trace running now holds (it goes on)."""
    trace = events((TRACING / "trace").read_text().splitlines())
    return sum(1 for _, level in line_writes(trace, line) if level)
