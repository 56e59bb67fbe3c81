"""The state dir's lock: held (flock) by the one launcherd that uses the dir, for its whole life.

A second daemon there would acknowledge game moves the first one overwrites.

Taking it also makes sure the state dir has room (#36): a restart finds its files there already,
so a full disk would pass unnoticed until the game's log failed to open and looked damaged. The
lock file is grown to :data:`ROOM` (allocated, not written, where the file system can) and cut
back: a state dir without that much room refuses the start, as one that cannot be written does.
"""

from __future__ import annotations

import errno
import fcntl
import os
from pathlib import Path

from firmware.errors import InUse, StateDirError

# In the state dir: held by the one daemon that uses it; holds its pid.
LOCK_FILE = "launcherd.lock"
# What a start needs free in the state dir: the game log's shared-memory index (32 KiB) and its
# write-ahead log's first commits, the outcome record's appends, with a margin.
ROOM = 1024 * 1024
# Errors that mean no room (a full disk, a quota), not a file system that cannot allocate ahead.
NO_ROOM = frozenset({errno.ENOSPC, errno.EDQUOT})


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
            _make_room(fd)
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


def _make_room(fd: int) -> None:
    """Take :data:`ROOM` bytes for the (locked) file ``fd``, then give them back.

    :raises OSError: ENOSPC (or EDQUOT) when the state dir has less room than that."""
    try:
        os.posix_fallocate(fd, 0, ROOM)
    except OSError as exc:
        if exc.errno in NO_ROOM:
            raise
        # A file system or a system call filter that does not allocate ahead: written instead.
        os.lseek(fd, 0, os.SEEK_SET)
        for _ in range(ROOM // 65536):
            os.write(fd, bytes(65536))
        os.fsync(fd)
    finally:
        os.ftruncate(fd, 0)


def _unusable(state_dir: Path, exc: OSError) -> StateDirError:
    room = f"; it needs {ROOM // 1024} KiB free to start" if exc.errno in NO_ROOM else ""
    return StateDirError(f"cannot use the state dir {state_dir} ({exc.strerror or exc}): launcherd keeps its lock,"
                         " the motor's latch, the launch outcomes and the game's log there and does not run"
                         f" without them{room}; free some space or make it writable")


__all__ = ["LOCK_FILE", "StateDirLock"]
