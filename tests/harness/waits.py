"""Waits with a deadline, on the thing itself: a status, an event, a line, a socket."""

from __future__ import annotations

import queue
import socket
import subprocess
import threading
import time
from pathlib import Path

from firmware.client import Client

# How long a wait on something that comes within milliseconds waits before it fails: a bound on a
# hang, never on the machine's speed (a busy machine with a VM beside it has held a test up 10 s).
HANG_S = 60.0


def wait_until(check, timeout: float = HANG_S, what: str = "", interval: float = 0.01):
    """``check()``'s first true value, polled until ``timeout``; for what has no event to wait on
    (a process that starts, a pin that a thread drives). Raises AssertionError at the deadline."""
    deadline = time.monotonic() + timeout
    while not (value := check()):
        if time.monotonic() >= deadline:
            raise AssertionError(f"{what or 'the condition'} not within {timeout} s")
        time.sleep(interval)
    return value


def socket_answers(path: Path) -> bool:
    try:
        with socket.socket(socket.AF_UNIX) as probe:
            probe.connect(str(path))
        return True
    except OSError:
        return False


def wait_for_socket(path: Path, process: subprocess.Popen | None = None, timeout: float = 60.0,
                    log=None) -> None:
    """Until something listens on ``path``; a ``process`` that exits first is an error, with
    ``log()`` (or its stderr pipe) in the message. ``timeout`` bounds a hang, not a start: 15 s
    failed thirteen starts of launcherd in one loaded make test (load average above 20)."""
    def listening() -> bool:
        if process is not None and process.poll() is not None:
            said = log() if log else process.stderr.read() if process.stderr else ""
            raise RuntimeError(f"launcherd exited with {process.returncode}: {said}")
        return socket_answers(path)

    wait_until(listening, timeout, f"a socket at {path}", 0.02)


class Events:
    """Every event a daemon publishes, read by a subscriber thread; :meth:`wait_for` one of them."""

    def __init__(self, socket_path: Path):
        self.queue: queue.Queue = queue.Queue()
        self.seen: list[tuple[str, dict]] = []
        self._client = Client(socket_path)
        self._client.call("events/subscribe")
        self._client.sock.settimeout(None)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        try:
            for message in self._client.messages():
                if "event" in message:
                    self.queue.put((message["event"], message.get("params") or {}))
        except (OSError, ValueError, ConnectionError):
            pass

    def wait_for(self, name: str, where=lambda params: True, timeout: float = HANG_S) -> dict:
        """The params of the next event ``name`` for which ``where(params)`` holds."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                event, params = self.queue.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"no {name} within {timeout} s; seen: {self.seen}") from None
            self.seen.append((event, params))
            if event == name and where(params):
                return params

    def close(self) -> None:
        # Shut the socket first: closing the file while the reader blocks in it would wait forever.
        self._client.sock.shutdown(socket.SHUT_RDWR)
        self._reader.join(HANG_S)
        self._client.close()

    def __enter__(self) -> "Events":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class Lines:
    """A process's output lines, read in a thread; :meth:`wait_for` the line that says something."""

    def __init__(self, stream):
        self.lines: queue.Queue = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=lambda: [self.lines.put(line.rstrip("\n")) for line in stream],
                         daemon=True).start()

    def wait_for(self, wanted: str, timeout: float = HANG_S) -> list[str]:
        """The lines up to the next one containing ``wanted`` (earlier lines are not searched again)."""
        deadline = time.monotonic() + timeout
        read: list[str] = []
        while not read or wanted not in read[-1]:
            try:
                read.append(self.lines.get(timeout=max(0.0, deadline - time.monotonic())))
            except queue.Empty:
                raise AssertionError(f"{wanted!r} not within {timeout} s: {self.seen + read}") from None
        self.seen += read
        return read



def wait_for_status(call, predicate, timeout: float = HANG_S) -> dict:
    """Poll ``call("status/get")`` until ``predicate(status)`` holds; returns that status."""
    deadline = time.monotonic() + timeout
    while not predicate(status := call("status/get")):
        assert time.monotonic() < deadline, f"status never matched: {status}"
        time.sleep(0.01)
    return status
