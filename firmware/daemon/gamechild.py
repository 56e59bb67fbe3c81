"""``launcherd --sim``'s game: ``launcher-game`` started beside it, as systemd starts it on a Pi.

The child gets launcherd's socket and its own state dir, a notify socket of its own (an abstract
address launcherd reads) with ``WATCHDOG_USEC``: it is started again when it exits (after
:data:`RESTART_FIRST_S`, growing while it keeps failing), and killed (SIGKILL) and started again when
its watchdog lapses (a stopped process) or when it is not READY within :data:`READY_WITHIN_S`. It
dies with launcherd (``LAUNCHER_GAME_PARENT``: the game asks the kernel for that itself, so that
launcherd loads no ctypes). launcherd never waits for it; nothing of it runs here.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

log = logging.getLogger("launcherd.game")

WATCHDOG_S = 15.0
READY_WITHIN_S = 120.0
RESTART_FIRST_S = 1.0
GAME_NICE = 5  # launcher-game.service's Nice= (tests/test_install_game_unit.py holds them equal)
RESTART_MAX_S = 16.0
STOP_WAIT_S = 5.0
STAYED_UP_S = 30.0  # a child up this long that exits is restarted after the first pause again


def game_command() -> list[str] | None:
    """``launcher-game`` beside this interpreter's launcherd, or on PATH (None: not installed)."""
    beside = Path(sys.executable).parent / "launcher-game"
    if beside.exists():
        return [str(beside)]
    found = shutil.which("launcher-game")
    return [found] if found else None


def _in_the_child() -> None:
    """In the game process before it starts: it yields the CPU to launcherd as
    launcher-game.service's Nice= makes it yield on a Pi."""
    os.nice(GAME_NICE)


class GameChild:
    """Start, watch and restart the game process, on launcherd's (motor's) loop: cheap timers only."""

    def __init__(self, loop: asyncio.AbstractEventLoop, socket_path: Path, state_dir: Path,
                 watchdog_s: float = WATCHDOG_S, on_exit: Any = None):
        self.loop = loop
        self.socket_path = socket_path
        self.state_dir = state_dir
        self.watchdog_s = watchdog_s
        self._on_exit = on_exit  # told the exit code of each child that ended
        self.process: subprocess.Popen | None = None
        self.starts = 0
        self._pause = RESTART_FIRST_S
        self._notify: socket.socket | None = None
        self._address = f"@launcherd-game-{os.getpid()}-{id(self):x}"
        self._last_beat = 0.0
        self._ready = False
        self._started_at = 0.0
        self._timer: asyncio.TimerHandle | None = None
        self._pidfd: int | None = None
        self._closing = False

    def start(self) -> None:
        command = game_command()
        if command is None:
            log.error("launcher-game is not installed: launcherd runs without the game")
            return
        self._notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_NONBLOCK | socket.SOCK_CLOEXEC)
        self._notify.bind("\0" + self._address[1:])
        self.loop.add_reader(self._notify.fileno(), self._take_notice)
        self._spawn()

    def _spawn(self) -> None:
        if self._closing:
            return
        command = game_command()
        if command is None:
            return
        env = {key: value for key, value in os.environ.items() if key not in ("WATCHDOG_PID", "LISTEN_FDS")}
        env.update(NOTIFY_SOCKET=self._address, WATCHDOG_USEC=str(int(self.watchdog_s * 1_000_000)),
                   LAUNCHER_GAME_PARENT=str(os.getpid()))
        self.starts += 1
        self._ready = False
        self._started_at = self._last_beat = self.loop.time()
        try:
            self.process = subprocess.Popen(
                [*command, "--socket", str(self.socket_path), "--state-dir", str(self.state_dir)],
                env=env, stdin=subprocess.DEVNULL, preexec_fn=_in_the_child)
        except OSError as exc:
            log.error("launcher-game could not be started: %s", exc)
            self.process = None
            self._restart_later()
            return
        log.info("launcher-game started (pid %d)", self.process.pid)
        # Its end wakes this loop (a pidfd), as each of its notices does: nothing polls, and an
        # idle launcher does not wake up for the game.
        try:
            self._pidfd = os.pidfd_open(self.process.pid)
            self.loop.add_reader(self._pidfd, self._exited)
        except (OSError, AttributeError):
            self._pidfd = None
        self._arm(READY_WITHIN_S if self._pidfd is not None else 0.5)

    def _arm(self, delay: float) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer = self.loop.call_later(delay, self._check)

    def _exited(self) -> None:
        if self._pidfd is not None:
            self.loop.remove_reader(self._pidfd)
            os.close(self._pidfd)
            self._pidfd = None
        self._check()

    def _take_notice(self) -> None:
        try:
            while True:
                data = self._notify.recv(4096)
                fields = dict(line.split("=", 1) for line in data.decode(errors="replace").splitlines() if "=" in line)
                if fields.get("READY") == "1" or fields.get("WATCHDOG") == "1":
                    self._ready = self._ready or fields.get("READY") == "1"
                    self._last_beat = self.loop.time()
                    if self.process is not None:
                        self._arm(self.watchdog_s)
        except (BlockingIOError, InterruptedError):
            pass
        except OSError:
            pass

    def _check(self) -> None:
        self._timer = None
        process = self.process
        if process is None or self._closing:
            return
        code = process.poll()
        now = self.loop.time()
        if code is not None:
            log.warning("launcher-game exited (%s): starting it again", code)
            self.process = None
            if self._pidfd is not None:
                self.loop.remove_reader(self._pidfd)
                os.close(self._pidfd)
                self._pidfd = None
            if self._on_exit is not None:
                self._on_exit(process.pid, code)
            if now - self._started_at > STAYED_UP_S:
                self._pause = RESTART_FIRST_S
            self._restart_later()
            return
        limit = self.watchdog_s if self._ready else READY_WITHIN_S
        since = now - self._last_beat
        if since >= limit * 0.99:
            log.error("launcher-game's watchdog lapsed (%.1f s without a sign): killing it", since)
            try:
                process.kill()
            except OSError:
                pass
            self._arm(0.5)  # its end comes through the pidfd; this only bounds a missed one
            return
        wait = limit - since
        self._arm(wait if self._pidfd is not None else min(wait, 0.5))  # without a pidfd: polled

    def _restart_later(self) -> None:
        pause, self._pause = self._pause, min(self._pause * 2, RESTART_MAX_S)
        self._timer = self.loop.call_later(pause, self._spawn)

    async def close(self) -> None:
        """Stop the child (SIGTERM, then SIGKILL), its log closed. Awaited, never blocking this loop:
        the game's last requests (its hopper, its outcomes) are answered on it meanwhile."""
        self._closing = True
        if self._timer is not None:
            self._timer.cancel()
        if self._pidfd is not None:
            try:
                self.loop.remove_reader(self._pidfd)
            except (RuntimeError, ValueError):
                pass
            os.close(self._pidfd)
            self._pidfd = None
        if self._notify is not None:
            try:
                self.loop.remove_reader(self._notify.fileno())
            except (RuntimeError, ValueError):
                pass
            self._notify.close()
        process = self.process
        if process is None or process.poll() is not None:
            return
        process.terminate()
        waited = 0.0
        while process.poll() is None and waited < STOP_WAIT_S:
            await asyncio.sleep(0.02)
            waited += 0.02
        if process.poll() is None:
            process.kill()
            process.wait(STOP_WAIT_S)


__all__ = ["GameChild", "game_command"]
