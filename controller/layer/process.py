"""``launcher-game``: the game (controller/) as a process of its own, a client of launcherd's socket.

It takes its state dir's lock (one game process at a time: an old one holds it until it is dead,
a new one waits for it, then opens its log), connects to launcherd's socket, opens and resumes the
log, registers its ``game/*`` methods, catches up on the launch outcomes once, and tells systemd
READY=1; WATCHDOG=1 then comes from its loop. When launcherd goes away (restarted) the game closes
its log, connects again with a growing pause, and starts over: registered again, caught up once.
A setup that fails for good (the state dir unusable) ends the process non-zero: systemd (or
``launcherd --sim``) starts it again. The protocol is firmware/daemon/gameport.py's.
"""

from __future__ import annotations

import argparse
import asyncio
import fcntl
import logging
import os
import signal
import sys
import threading
from pathlib import Path
from typing import Any

from firmware import __version__, i18n
from firmware.daemon.notify import Notifier
from firmware.paths import default_sim_socket, default_sim_state_dir

log = logging.getLogger("launcher.game")

LOCK_NAME = "game.lock"
RECONNECT_FIRST_S = 0.1
RECONNECT_MAX_S = 5.0
EXIT_SETUP_FAILED = 3
# Tests (tests/conftest.py's held_restart): a game whose connection ended connects again only once
# this event is set. None: at once.
RESTART_GATE: threading.Event | None = None
# Set by ``launcherd --sim`` for the game it starts: that game ends once launcherd is gone.
PARENT_VARIABLE = "LAUNCHER_GAME_PARENT"
PR_SET_PDEATHSIG = 1


def _parent_gone() -> bool:
    parent = os.environ.get(PARENT_VARIABLE)
    return bool(parent) and str(os.getppid()) != parent


def _end_with_parent() -> None:
    """Under ``launcherd --sim``: SIGTERM from the kernel once launcherd is gone (PR_SET_PDEATHSIG).
    Asked here rather than between fork and exec so that launcherd loads no ctypes (0.4 MiB of its
    memory); a launcherd gone before the request is seen by :func:`_parent_gone` just after."""
    if not os.environ.get(PARENT_VARIABLE):
        return
    import ctypes

    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):
        pass  # not Linux: the reconnect loop's _parent_gone() still ends it


def take_lock(state_dir: Path) -> int:
    """The state dir's lock, waited for: the descriptor, held until the process ends."""
    state_dir.mkdir(parents=True, exist_ok=True)
    fd = os.open(state_dir / LOCK_NAME, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        log.info("another game process holds %s: waiting for it to end", state_dir / LOCK_NAME)
        fcntl.flock(fd, fcntl.LOCK_EX)
    return fd


async def run_game(socket_path: Path, state_dir: Path, notifier: Notifier | None = None,
                   stop: asyncio.Event | None = None) -> int:
    """Serve the game on launcherd's socket until ``stop`` (or a signal); the exit code."""
    from controller.layer import remote, service as game

    loop = asyncio.get_running_loop()
    stop = stop or asyncio.Event()
    pause = RECONNECT_FIRST_S
    ready_told = False
    watchdog = notifier.watchdog_interval() if notifier is not None else None
    if watchdog:
        def beat() -> None:
            notifier.watchdog()
            loop.call_later(watchdog, beat)
        loop.call_later(watchdog, beat)
    waiting_said = False
    while not stop.is_set():
        host = remote.SocketHost(socket_path, state_dir, loop)
        try:
            host.connect()
        except OSError as exc:
            if _parent_gone():
                log.info("the launcherd that started this game has ended: so does the game")
                break
            if not waiting_said:
                log.info("launcherd is not answering on %s (%s): trying again", socket_path, exc)
                waiting_said = True
            try:
                await asyncio.wait_for(stop.wait(), pause)
            except asyncio.TimeoutError:
                pass
            pause = min(pause * 2, RECONNECT_MAX_S)
            continue
        waiting_said = False
        start = remote.CauseBox()
        remote.CAUSE.set(start)  # what the setup starts (a deal the log owes) answers the start
        try:
            service = game.prepare(host)
            reply = host.register_game(os.getpid())
            start.token = reply.get("cause")
            if reply.get("language"):
                i18n.set_daemon_language(reply["language"])
            game.begin(service)
        except ConnectionError:
            host.run_closers()
            host.close()
            continue
        except Exception as exc:
            from firmware.errors import ApiError
            if isinstance(exc, ApiError) and host.lost.is_set():
                host.run_closers()
                host.close()
                continue  # launcherd went away during the setup: connect again
            log.exception("the game could not start")
            host.run_closers()
            host.close()
            return EXIT_SETUP_FAILED
        finally:
            remote.CAUSE.set(None)
        host.send_status()
        pause = RECONNECT_FIRST_S
        log.info("game registered with launcherd on %s; its state in %s", socket_path, state_dir)
        if notifier is not None and not ready_told:
            notifier.ready()
            ready_told = True
        lost = asyncio.ensure_future(host.lost.wait())
        stopped = asyncio.ensure_future(stop.wait())
        await asyncio.wait({lost, stopped}, return_when=asyncio.FIRST_COMPLETED)
        lost.cancel()
        stopped.cancel()
        host.run_closers()  # its log closed; a deal under way is stopped (the log stays the reference)
        host.close()
        if _parent_gone():
            break
        gate = RESTART_GATE
        while gate is not None and not gate.is_set() and not stop.is_set():
            await asyncio.sleep(0.02)
    if notifier is not None:
        notifier.stopping()
    return 0


class GameThread:
    """The game on a thread of this process, a client of launcherd's socket (tests/harness)."""

    def __init__(self, socket_path: Path, state_dir: Path):
        self.socket_path, self.state_dir = Path(socket_path), Path(state_dir)
        self.loop: asyncio.AbstractEventLoop | None = None
        self._stop: asyncio.Event | None = None
        self._started = threading.Event()
        self.exit_code: int | None = None
        self._thread = threading.Thread(target=self._run, name="launcher-game", daemon=True)
        self._fd: int | None = None

    def _run(self) -> None:
        async def main() -> int:
            self.loop = asyncio.get_running_loop()
            self._stop = asyncio.Event()
            self._started.set()
            return await run_game(self.socket_path, self.state_dir, stop=self._stop)
        self._fd = take_lock(self.state_dir)
        try:
            self.exit_code = asyncio.run(main())
        finally:
            os.close(self._fd)
            self._started.set()

    def start(self) -> "GameThread":
        self._thread.start()
        self._started.wait()
        return self

    def stop(self, timeout: float = 30.0) -> None:
        if self.loop is not None and self._stop is not None and not self.loop.is_closed():
            try:
                self.loop.call_soon_threadsafe(self._stop.set)
            except RuntimeError:
                pass
        self._thread.join(timeout)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="launcher-game", description="The card launcher's game: a client of launcherd's socket.")
    parser.add_argument("--socket", metavar="PATH", help="launcherd's API socket")
    parser.add_argument("--state-dir", metavar="DIR", help="where the game log and the join code are kept")
    parser.add_argument("--sim", action="store_true", help="the simulation's default socket and state dir")
    parser.add_argument("--config", metavar="FILE", help="launcherd's configuration, for its socket path")
    parser.add_argument("--verbose", "-v", action="store_true", help="debug logging")
    parser.add_argument("--version", action="version", version=f"launcher-game {__version__}")
    return parser


def _paths(args: argparse.Namespace) -> tuple[Path, Path]:
    if args.sim:
        socket_path = Path(args.socket) if args.socket else default_sim_socket()
        state_dir = Path(args.state_dir) if args.state_dir else default_sim_state_dir() / "game"
        return socket_path, state_dir
    from firmware.config import DEFAULT_PATH, load_config
    config_path = args.config or (str(DEFAULT_PATH) if DEFAULT_PATH.exists() else None)
    config = load_config(config_path)
    socket_path = Path(args.socket) if args.socket else Path(config.daemon.socket)
    state_dir = Path(args.state_dir) if args.state_dir else Path(config.daemon.state_dir) / "game"
    return socket_path, state_dir


def main(argv: list[str] | None = None) -> int:
    from firmware.daemon.launcherd import setup_logging

    args = build_parser().parse_args(argv)
    _end_with_parent()
    if _parent_gone():
        return 0
    setup_logging(args.verbose)
    try:
        socket_path, state_dir = _paths(args)
        fd = take_lock(state_dir)
    except Exception as exc:
        print(f"launcher-game: {exc}", file=sys.stderr)
        return EXIT_SETUP_FAILED
    notifier = Notifier.from_environ()

    async def serve() -> int:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            loop.add_signal_handler(sig, stop.set)
        return await run_game(socket_path, state_dir, notifier, stop)

    try:
        return asyncio.run(serve())
    except KeyboardInterrupt:
        return 0
    finally:
        os.close(fd)


if __name__ == "__main__":
    sys.exit(main())
