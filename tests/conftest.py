"""Shared fixtures: a fast simulated configuration, launcherd as a subprocess or in a thread."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from firmware.tools.cli import Client
from firmware.config import load_config

# The suite checks English texts unless a test asks for French: a developer's French locale
# (which launcherctl, launcherd and the voice follow) must not change what the tests read. A test
# that wants the locale's effect sets LANG itself, which wins once LC_ALL and LC_MESSAGES are gone.
for _variable in ("LC_ALL", "LC_MESSAGES", "LANGUAGE"):
    os.environ.pop(_variable, None)
os.environ["LANG"] = "C.UTF-8"

BIN = Path(sys.executable).parent
# A run cut by the motor's chain limit, then a request the rest rule refuses.
MOTOR_LIMITS = """
[sim]
hopper = 10000
[timing]
launch_timeout_ms = 200
max_on_ms = 300
motor_rest_ms = 5000
jam_ms = 100
feed_timeout_ms = 150
"""
# The card blaster with a quick release: a short rest between pulses, a short settle before a jam.
BLASTER = """
[device]
kind = "blaster"
[blaster]
debounce_ms = 5
pulse_ms = 60
rest_ms = 0
settle_ms = 150
"""
# A quicker mechanism than the default so integration tests stay fast; timings stay consistent.
FAST_SIM = """
[sim]
cards_per_second = 200.0
block_ms = 3
[timing]
card_crossing_ms = 20
jam_ms = 150
feed_timeout_ms = 300
button_debounce_ms = 5
[motor]
retract_ms = 10
kick_ms = 10
"""


def write_config(directory: Path, extra: str = "") -> Path:
    path = directory / "launcher.toml"
    path.write_text(merge_toml(FAST_SIM, extra))
    return path


def merge_toml(base: str, extra: str) -> str:
    """Later keys of the same section win; a tiny merge so tests can override FAST_SIM."""
    import tomllib

    merged = tomllib.loads(base)
    for section, body in tomllib.loads(extra).items():
        merged.setdefault(section, {}).update(body)
    lines = []
    for section, body in merged.items():
        lines.append(f"[{section}]")
        lines += [f"{key} = {json.dumps(value)}" for key, value in body.items()]
    return "\n".join(lines) + "\n"


def wait_for_socket(path: Path, process: subprocess.Popen | None = None, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"launcherd exited with {process.returncode}: {process.stderr.read()}")
        if path.exists():
            try:
                with socket.socket(socket.AF_UNIX) as probe:
                    probe.connect(str(path))
                return
            except OSError:
                pass
        time.sleep(0.02)
    raise TimeoutError(f"no socket at {path} after {timeout} s")


class DaemonProcess:
    """launcherd --sim as a real process, the way a user starts it.

    ``log_file``: its log goes to a file (read with :meth:`log`) instead of a pipe, which a flood
    of requests could fill.
    """

    def __init__(self, tmp_path: Path, extra_config: str = "", seed: int = 7, env: dict | None = None,
                 socket_path: Path | None = None, state_dir: Path | None = None, log_file: bool = False):
        self.socket = socket_path or tmp_path / "launcher.sock"
        self.state_dir = state_dir or tmp_path / "state"
        self.config = write_config(tmp_path, extra_config)
        self.seed = seed
        self.env = {**os.environ, **(env or {})}
        self.process: subprocess.Popen | None = None
        self.log_path = tmp_path / "launcherd.log" if log_file else None
        self._log = None

    def command(self) -> list[str]:
        return [str(BIN / "launcherd"), "--sim", "--seed", str(self.seed), "--config", str(self.config),
                "--socket", str(self.socket), "--state-dir", str(self.state_dir)]

    def start(self, wait: bool = True) -> "DaemonProcess":
        """Start it; ``wait``: until its socket answers."""
        if self.log_path is not None:
            self._log = open(self.log_path, "w")
        self.process = subprocess.Popen(self.command(), stdout=subprocess.DEVNULL if self._log else subprocess.PIPE,
                                        stderr=self._log or subprocess.PIPE, text=True, env=self.env)
        if wait:
            wait_for_socket(self.socket, None if self._log else self.process)
            assert self.process.poll() is None, self.log() if self._log else self.process.returncode
        return self

    def log(self) -> str:
        """What it logged so far (with ``log_file``)."""
        self._log.flush()
        return self.log_path.read_text()

    def run_to_exit(self, timeout: float = 30) -> subprocess.CompletedProcess:
        """Start it and wait for it to end: for a daemon expected to refuse to start."""
        return subprocess.run(self.command(), capture_output=True, text=True, env=self.env, timeout=timeout)

    def client(self) -> Client:
        return Client(self.socket, timeout=30)

    def call(self, method: str, params: dict | None = None):
        with self.client() as client:
            return client.call(method, params)

    def ctl(self, *args: str, check: bool = False) -> subprocess.CompletedProcess:
        result = subprocess.run([str(BIN / "launcherctl"), "--socket", str(self.socket), *args],
                                capture_output=True, text=True, timeout=60)
        if check and result.returncode != 0:
            raise AssertionError(f"launcherctl {' '.join(args)} -> {result.returncode}: {result.stderr}")
        return result

    def terminate(self, timeout: float = 5.0) -> int:
        if self.process is None or self.process.poll() is not None:
            return self.process.returncode if self.process else 0
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout)

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(5)
        if self._log is not None:
            self._log.close()


@pytest.fixture
def daemon_process(tmp_path):
    started: list[DaemonProcess] = []

    def start(extra_config: str = "", **kwargs) -> DaemonProcess:
        proc = DaemonProcess(tmp_path, extra_config, **kwargs).start()
        started.append(proc)
        return proc

    yield start
    for proc in started:
        proc.kill()


class ThreadDaemon:
    """The daemon in a thread of the test process: lets a test reach into the loop."""

    def __init__(self, tmp_path: Path, extra_config: str = "", notifier=None, seed: int = 7, sim: bool = True,
                 **daemon_options):
        from firmware.daemon.driver import Daemon

        config = load_config(write_config(tmp_path, extra_config))
        self.daemon = Daemon(config, sim=sim, seed=seed, socket_path=tmp_path / "t.sock",
                             state_dir=tmp_path / "state", notifier=notifier, **daemon_options)
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self.exit_code: int | None = None
        self.error: BaseException | None = None

    def _run(self) -> None:
        try:
            self.exit_code = asyncio.run(self.daemon.run(ready=lambda d: self._ready.set()))
        except BaseException as exc:  # surfaced by the test through .error
            self.error = exc
            self._ready.set()

    def __enter__(self) -> "ThreadDaemon":
        self._thread.start()
        # The daemon waits up to START_WAIT_S for the game layer (replaying a long log) before it serves.
        assert self._ready.wait(30), "daemon did not start"
        if self.error:
            raise self.error
        return self

    def __exit__(self, *exc) -> None:
        if self.daemon.loop is not None and not self.daemon.loop.is_closed():
            self.daemon.loop.call_soon_threadsafe(self.daemon.request_stop)
        self._thread.join(10)

    def call(self, method: str, params: dict | None = None, lang: str | None = None):
        with Client(self.daemon.socket_path, timeout=30, lang=lang) as client:
            return client.call(method, params)

    def client(self, timeout: float = 30) -> Client:
        return Client(self.daemon.socket_path, timeout=timeout)

    def pin_state(self, bcm: int) -> float:
        """The state of a mock pin, read in the loop (where the daemon writes it)."""
        return self.in_loop(lambda: self.daemon.pin_factory.pin(bcm).state)

    def wait_for(self, predicate, timeout: float = 10.0):
        """Poll status/get until ``predicate(status)`` holds; returns that status."""
        deadline = time.monotonic() + timeout
        while not predicate(status := self.call("status/get")):
            assert time.monotonic() < deadline, f"status never matched: {status}"
            time.sleep(0.01)
        return status

    def in_loop(self, fn, *args):
        """Run fn(*args) in the daemon's loop and return its result."""
        future = asyncio.run_coroutine_threadsafe(_call_async(fn, *args), self.daemon.loop)
        return future.result(10)


async def _call_async(fn, *args):
    return fn(*args)
