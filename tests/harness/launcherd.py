"""launcherd as a process and in a thread, launcherctl, and the config they read."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

from firmware.client import Client
from harness.waits import HANG_S, Events, wait_for_socket, wait_for_status

ROOT = Path(__file__).resolve().parent.parent.parent
BIN = Path(sys.executable).parent

# A quicker mechanism than the default so integration tests stay fast; timings stay consistent.
# The stall rule is set as far out as it goes (10 s; 250 ms as shipped): a busy machine that holds
# the motor's loop up a quarter of a second halts a launch by it, whatever the test is about. The
# simulation lives on the loop's timeline, so a late loop changes nothing else a test judges. The
# rule's own tests set it (tests/test_press_after_stall.py; the core's and StallClock's sans-IO).
FAST_SIM = """
[sim]
cards_per_second = 200.0
block_ms = 3
[timing]
card_crossing_ms = 20
jam_ms = 150
feed_timeout_ms = 300
button_debounce_ms = 5
stall_ms = 10000
[motor]
retract_ms = 10
kick_ms = 10
"""
# A run ended by the launch timeout, a run cut by the motor's chain limit, then a request the rest
# rule refuses. The chain's motor time is the pins' own (a late loop's stop adds to it): the first
# run may end up to 0.9 s late and still leave the second a cut (0.1 s of chain left, as this was,
# a busy machine used up first); a minute's rest outlasts any machine's pause between requests.
MOTOR_LIMITS = """
[sim]
hopper = 10000
[timing]
launch_timeout_ms = 1000
max_on_ms = 1900
motor_rest_ms = 60000
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


def game_dies(host) -> None:
    """In a game listener or handler of a ThreadDaemon's game: the game process dies now, as a
    SIGKILL would end it (its connection closed under it; it goes no further with what it did)."""
    host.close()
    host.run_closers()  # its log closed and its deal stopped now: a killed process writes nothing after
    raise RuntimeError("the game process dies here")


def toml(sections: dict) -> str:
    """``{section: {key: value}}`` as TOML (the values JSON can write are TOML too)."""
    lines = []
    for section, body in sections.items():
        lines.append(f"[{section}]")
        lines += [f"{key} = {json.dumps(value)}" for key, value in body.items()]
    return "\n".join(lines) + "\n"


def merge_toml(base: str, extra: str | dict) -> str:
    """``extra`` over ``base``: later keys of the same section win."""
    import tomllib

    merged = tomllib.loads(base)
    for section, body in (extra if isinstance(extra, dict) else tomllib.loads(extra)).items():
        merged.setdefault(section, {}).update(body)
    return toml(merged)


def write_config(directory: Path, extra: str | dict = "", base: str = FAST_SIM) -> Path:
    """``directory/launcher.toml``: ``extra`` (TOML text or sections) over ``base``."""
    path = directory / "launcher.toml"
    path.write_text(merge_toml(base, extra))
    return path


def launcherctl(socket_path: Path, *args: str, check: bool = False, **run) -> subprocess.CompletedProcess:
    """launcherctl as a user types it, on ``socket_path``."""
    result = subprocess.run([str(BIN / "launcherctl"), "--socket", str(socket_path), *args],
                            capture_output=True, text=True, timeout=60, **run)
    if check and result.returncode != 0:
        raise AssertionError(f"launcherctl {' '.join(args)} -> {result.returncode}: {result.stderr}")
    return result


def launcherctl_in_process(socket_path: Path, *args: str, check: bool = False) -> subprocess.CompletedProcess:
    """launcherctl's ``main`` on ``socket_path``, its exit code and what it printed."""
    from firmware.tools.cli import main

    argv = ["--socket", str(socket_path), *args]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exit:  # argparse's --help and usage errors
            code = exit.code if isinstance(exit.code, int) else 0 if exit.code is None else 2
    result = subprocess.CompletedProcess(["launcherctl", *argv], code, out.getvalue(), err.getvalue())
    if check and code != 0:
        raise AssertionError(f"launcherctl {' '.join(args)} -> {code}: {result.stderr}")
    return result


def game_is_up(status: dict) -> bool:
    """The game process registered, its status in launcherd's, and what a press means said: until
    then a press means nothing (``press_game_starting``), which a busy machine makes a long moment."""
    starting = status.get("press_means") == "nothing" and (status.get("press_reason") or {}).get("id") == "press_game_starting"
    return status.get("game_layer", {}).get("state") == "up" and "game" in status and not starting


class DaemonProcess:
    """launcherd --sim as a real process, the way a user starts it.

    ``config``: TOML text or sections over ``base`` (:data:`FAST_SIM`); None: no --config, the
    daemon's own defaults. Its log goes to a pipe (read when it exits early), to a file with
    ``log_file`` (read with :meth:`log`; a flood of requests could fill a pipe), or nowhere with
    ``discard_log`` (the benchmarks). Not under systemd: no notify socket unless ``env`` gives one.
    """

    def __init__(self, directory: Path, config: str | dict | None = "", seed: int = 7, env: dict | None = None,
                 socket_path: Path | None = None, state_dir: Path | None = None, log_file: bool = False,
                 discard_log: bool = False, base: str = FAST_SIM, args: tuple[str, ...] = ()):
        self.socket = socket_path or directory / "launcher.sock"
        self.state_dir = state_dir or directory / "state"
        self.config = None if config is None else write_config(directory, config, base)
        self.seed = seed
        self.args = tuple(args)  # more of launcherd's options (--no-game, --game-state-dir)
        self.env = {key: value for key, value in os.environ.items()
                    if key not in ("NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID")}
        self.env.update(env or {})
        self.process: subprocess.Popen | None = None
        self.log_path = directory / "launcherd.log" if log_file else None
        self.discard_log = discard_log
        self._log = None

    def command(self) -> list[str]:
        config = [] if self.config is None else ["--config", str(self.config)]
        return [str(BIN / "launcherd"), "--sim", "--seed", str(self.seed), *config,
                "--socket", str(self.socket), "--state-dir", str(self.state_dir), *self.args]

    def start(self, wait: bool = True, game: bool = True) -> "DaemonProcess":
        """Start it; ``wait``: until its socket answers, and (``game``) until the game process it
        starts beside it has registered, when a game is expected."""
        if self.log_path is not None:
            self._log = open(self.log_path, "w")
        quiet = self.discard_log or self._log is not None
        self.process = subprocess.Popen(
            self.command(), stdout=subprocess.DEVNULL if quiet else subprocess.PIPE,
            stderr=self._log or (subprocess.DEVNULL if self.discard_log else subprocess.PIPE),
            text=True, env=self.env)
        if wait:
            wait_for_socket(self.socket, self.process, log=self.log if self._log else None)
            if game and "--no-game" not in self.command():
                self.wait_for_game()
        return self

    def wait_for_game(self, timeout: float = HANG_S) -> dict:
        """Until the game process is registered and has said what a press means (at once when no
        game is expected)."""
        return self.wait_for(lambda s: "game_layer" not in s or game_is_up(s), timeout)

    @property
    def pid(self) -> int:
        return self.process.pid

    def log(self) -> str:
        """What it logged so far (with ``log_file``)."""
        self._log.flush()
        return self.log_path.read_text()

    def run_to_exit(self, timeout: float = 30) -> subprocess.CompletedProcess:
        """Start it and wait for it to end: for a daemon expected to refuse to start."""
        return subprocess.run(self.command(), capture_output=True, text=True, env=self.env, timeout=timeout)

    def client(self, timeout: float = 60) -> Client:
        return Client(self.socket, timeout=timeout)

    def call(self, method: str, params: dict | None = None):
        with self.client() as client:
            return client.call(method, params)

    def wait_for(self, predicate, timeout: float = HANG_S) -> dict:
        """Poll status/get until ``predicate(status)`` holds; returns that status."""
        return wait_for_status(self.call, predicate, timeout)

    def events(self) -> Events:
        return Events(self.socket)

    def ctl(self, *args: str, check: bool = False) -> subprocess.CompletedProcess:
        return launcherctl(self.socket, *args, check=check)

    def terminate(self, timeout: float = 5.0) -> int:
        if self.process is None or self.process.poll() is not None:
            return self.process.returncode if self.process else 0
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout)

    def stop(self, timeout: float = 10.0) -> None:
        """SIGTERM, then SIGKILL if it has not ended within ``timeout``."""
        try:
            self.terminate(timeout)
        except subprocess.TimeoutExpired:
            pass
        self.kill()

    def game_pids(self) -> list[int]:
        """The game process(es) launcherd --sim started (its children)."""
        try:
            return [int(pid) for pid in Path(f"/proc/{self.pid}/task/{self.pid}/children").read_text().split()]
        except (OSError, ValueError):
            return []

    def power_cut(self) -> None:
        """SIGKILL of both processes, the game's first: as a power cut ends them, neither writes after."""
        for pid in self.game_pids():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.process.send_signal(signal.SIGKILL)

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(HANG_S)
        if self._log is not None:
            self._log.close()

    def __enter__(self) -> "DaemonProcess":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()



class ThreadDaemon:
    """The daemon in a thread of the test process: lets a test reach into the loop, and starts
    in a fraction of a process's time. Use it where the process is not what is tested."""

    def __init__(self, tmp_path: Path, extra_config: str | dict = "", notifier=None, seed: int = 7,
                 sim: bool = True, **daemon_options):
        from firmware.config import load_config
        from firmware.daemon.driver import Daemon

        config = load_config(write_config(tmp_path, extra_config))
        self.daemon = Daemon(config, sim=sim, seed=seed, socket_path=tmp_path / "t.sock",
                             state_dir=tmp_path / "state", notifier=notifier, **daemon_options)
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self.exit_code: int | None = None
        self.error: BaseException | None = None
        self.game = None  # the game (controller/layer/process.py) on a thread, a client of the socket
        self.game_state_dir = tmp_path / "state" / "game"

    def _run(self) -> None:
        try:
            self.exit_code = asyncio.run(self.daemon.run(ready=lambda d: self._ready.set()))
        except BaseException as exc:  # surfaced by the test through .error
            self.error = exc
            self._ready.set()

    def __enter__(self) -> "ThreadDaemon":
        self._thread.start()
        # The daemon waits up to START_WAIT_S for the game layer (replaying a long log) before it serves.
        assert self._ready.wait(HANG_S), "daemon did not start"
        if self.error:
            raise self.error
        if self.daemon.game_port is not None:
            self.start_game()
        return self

    def start_game(self, wait: bool = True):
        """The game process's part, on a thread of this process, on the daemon's socket; ``wait``:
        until it has registered and caught up."""
        from controller.layer.process import GameThread

        self.game = GameThread(self.daemon.socket_path, self.game_state_dir).start()
        if wait:
            self.wait_for_game()
        return self.game

    def stop_game(self) -> None:
        if self.game is not None:
            self.game.stop()
            self.game = None

    def wait_for_game(self, timeout: float = HANG_S) -> dict:
        return wait_for_status(self.call, game_is_up, timeout)

    def __exit__(self, *exc) -> None:
        self.stop_game()
        if self.daemon.loop is not None and not self.daemon.loop.is_closed():
            self.daemon.loop.call_soon_threadsafe(self.daemon.request_stop)
        self._thread.join(HANG_S)

    def call(self, method: str, params: dict | None = None, lang: str | None = None):
        with Client(self.daemon.socket_path, timeout=30, lang=lang) as client:
            return client.call(method, params)

    def client(self, timeout: float = 30) -> Client:
        return Client(self.daemon.socket_path, timeout=timeout)

    def events(self) -> Events:
        return Events(self.daemon.socket_path)

    def ctl(self, *args: str, check: bool = False) -> subprocess.CompletedProcess:
        """launcherctl's own ``main`` in this process, as a user types it: its code and output
        without starting an interpreter for each command (a process is for tests about the process)."""
        return launcherctl_in_process(self.daemon.socket_path, *args, check=check)

    def pin_state(self, bcm: int) -> float:
        """The state of a mock pin, read in the loop (where the daemon writes it)."""
        return self.in_loop(lambda: self.daemon.pin_factory.pin(bcm).state)

    def wait_for(self, predicate, timeout: float = HANG_S) -> dict:
        """Poll status/get until ``predicate(status)`` holds; returns that status."""
        return wait_for_status(self.call, predicate, timeout)

    def in_loop(self, fn, *args):
        """Run fn(*args) in the daemon's loop and return its result."""
        future = asyncio.run_coroutine_threadsafe(_call_async(fn, *args), self.daemon.loop)
        return future.result(HANG_S)


async def _call_async(fn, *args):
    return fn(*args)
