"""The state dir's lock: held (flock) by the one launcherd that uses the dir, for its whole life.

A second daemon there would acknowledge game moves the first one overwrites.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from firmware.errors import InUse, StateDirError

# In the state dir: held by the one daemon that uses it; holds its pid.
LOCK_FILE = "launcherd.lock"


class StateDirLock:
    """The lock on one state dir (created if missing)."""

    def __init__(self, state_dir: Path):
        self.state_dir = state_dir
        self._fd: int | None = None

    def acquire(self) -> None:
        """Hold a lock on the state dir for the daemon's life: a second daemon there would
        acknowledge game moves the first one overwrites. :raises InUse: it is held."""
        path = self.state_dir / LOCK_FILE
        try:
            self.state_dir.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            raise _unusable(self.state_dir, exc) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 32).decode(errors="replace").strip() or "unknown"
            os.close(fd)
            raise InUse(f"another launcherd (pid {holder}) is using the state dir {self.state_dir}:"
                        " stop it first, or give this one another --state-dir") from None
        try:
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
        except OSError as exc:
            os.close(fd)
            raise _unusable(self.state_dir, exc) from None
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # the lock goes with the descriptor; the file may stay
            self._fd = None


def _unusable(state_dir: Path, exc: OSError) -> StateDirError:
    return StateDirError(f"cannot use the state dir {state_dir} ({exc.strerror or exc}): launcherd keeps its lock"
                         " and the motor's latch there and does not run without them; free some space or"
                         " make it writable")


__all__ = ["LOCK_FILE", "StateDirLock"]
