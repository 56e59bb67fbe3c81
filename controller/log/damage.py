"""What can go wrong with the game log on disk, what the table is told, and what repairs it (#9).

The launcher must run whatever state the game log is in: the game layer then refuses game actions
with a :class:`GameUnavailable` error that carries a :class:`Damage` (what happened, what to do,
whether ``launcherctl game repair`` fixes it), and ``game status`` shows the same. Each kind of
damage has its own advice, because the right move differs: a damaged file is moved aside (only when
the table asks), a read-only directory is a matter of ownership and must not be "fixed" by moving
a good log away, and a state directory deleted under the daemon can be written back from the file
the daemon still holds open.

Only the file itself is ever called damaged (#36): its pages, its structure or its rows, as SQLite
and the log's own checks find them when it is opened. A full disk, or an error that says nothing of
the file (an I/O error, a lock), is a passing state: the log is opened again at the next request,
and a repair moves nothing aside.
"""

from __future__ import annotations

import errno
import getpass
import os
import sqlite3
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from firmware.errors import Unavailable
from firmware.i18n import message

from controller.log.store import LogDamaged
from controller.text.wording import text

DAMAGED = "damaged"  # the file cannot be read as a game log: move it aside
UNREPLAYABLE = "unreplayable"  # the file is sound, one match in it is not: start another or move it aside
READ_ONLY = "read_only"  # the directory or file cannot be written: fix ownership, keep the log
GONE = "gone"  # the state directory or the log was deleted or replaced while the daemon ran
UNWRITABLE = "unwritable"  # a write failed for a passing reason (a full disk): each action tries again
UNOPENED = "unopened"  # it could not be opened, for no fault found in the file: each request tries again
# The kinds a request tries again by itself: they end when their cause does.
PASSING = frozenset({UNWRITABLE, UNOPENED})
# Less room than this on the log's disk, and an error of SQLite's is that disk being full: SQLite
# needs 32 KiB for its shared-memory index and a page or more for a commit.
NEAR_FULL = 64 * 1024


@dataclass(frozen=True)
class Damage:
    """Why the game cannot be played, said for the table: ``what`` happened, ``todo`` about it.

    ``what`` and ``todo`` are message objects; :meth:`to_json` gives their texts in the language
    of the request being served, and the objects beside them.
    """

    kind: str
    what: dict[str, Any]
    todo: dict[str, Any]
    path: str

    @property
    def message(self) -> dict[str, Any]:
        """The whole of it as one message object: "what happened: what to do"."""
        return message("damage", what=self.what, todo=self.todo)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "what": text(self.what), "what_object": self.what,
                "todo": text(self.todo), "todo_object": self.todo, "path": self.path,
                "repair": "launcherctl game repair"}


class GameUnavailable(Unavailable):
    """A game request refused because of the log's damage; the reply's ``data`` says which."""

    def __init__(self, damage: Damage):
        super().__init__(damage.message)
        self.damage = damage

    def to_json(self) -> dict[str, Any]:
        return {**super().to_json(), "data": {"damage": self.damage.to_json()}}


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no passwd entry (a container's uid): the number will do
        return str(os.geteuid())


def damaged(path: Path, detail: str) -> Damage:
    return Damage(DAMAGED, message("log_damaged", path=str(path), reason=detail),
                  message("log_damaged_todo"), str(path))


def unreplayable(path: Path, match_id: int, detail: str | dict[str, Any]) -> Damage:
    return Damage(UNREPLAYABLE, message("match_unreplayable", match=match_id, path=str(path), reason=detail),
                  message("match_unreplayable_todo"), str(path))


def read_only(path: Path, detail: str) -> Damage:
    user = _user()
    return Damage(READ_ONLY, message("log_read_only", path=str(path), reason=detail),
                  message("log_read_only_todo", user=user, dir=str(path.parent)), str(path))


def gone(path: Path) -> Damage:
    return Damage(GONE, message("log_gone", path=str(path)), message("log_gone_todo"), str(path))


def unwritable(path: Path, detail: str, since: datetime) -> Damage:
    return Damage(UNWRITABLE, message("log_unwritable", path=str(path), since=f"{since:%H:%M:%S} UTC",
                                      reason=detail),
                  message("log_unwritable_todo", dir=str(path.parent)), str(path))


def unopened(path: Path, detail: str) -> Damage:
    return Damage(UNOPENED, message("log_unopened", path=str(path), reason=detail),
                  message("log_unopened_todo", dir=str(path.parent)), str(path))


def no_room(path: Path) -> bool:
    """The disk the log is on is full, or as good as full for SQLite."""
    where = path.parent
    while not where.exists() and where != where.parent:
        where = where.parent
    try:
        disk = os.statvfs(where)
    except OSError:
        return False
    return disk.f_bavail * disk.f_frsize < NEAR_FULL


def _code(exc: BaseException) -> int | None:
    """SQLite's primary result code of an error (its extended code carries it in the low byte)."""
    code = getattr(exc, "sqlite_errorcode", None)
    return None if code is None else code & 0xFF


def unsound(exc: BaseException) -> bool:
    """The error says the file itself is no sound game log (not the disk, not a lock)."""
    if isinstance(exc, LogDamaged) or _code(exc) in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB):
        return True
    return isinstance(exc, sqlite3.DatabaseError) and ("malformed" in str(exc) or "not a database" in str(exc))


def _full(path: Path, exc: BaseException) -> bool:
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return True
    return _code(exc) == sqlite3.SQLITE_FULL or no_room(path)


def _cannot_write(path: Path, exc: BaseException) -> bool:
    if isinstance(exc, OSError) and exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return True
    if "readonly" in str(exc) or "read-only" in str(exc):
        return True
    # SQLite says only "unable to open database file" when it may not create the file or its WAL.
    target = path if path.exists() else path.parent
    return target.exists() and not os.access(target, os.W_OK)


def on_open(path: Path, exc: BaseException, now: datetime | None = None) -> Damage:
    """The damage an error opening the log (``Store``) reveals: the file damaged only when the
    error says so; a full disk is ``unwritable``, any other error ``unopened``."""
    detail = str(exc) or type(exc).__name__
    if _cannot_write(path, exc):
        return read_only(path, detail)
    if unsound(exc):
        return damaged(path, detail)
    if _full(path, exc):
        return unwritable(path, detail, now or datetime.now(timezone.utc))
    return unopened(path, detail)


def on_write(path: Path, exc: sqlite3.Error) -> Damage | None:
    """The damage a failed write reveals; None for a passing trouble (a full disk, a busy lock)."""
    if _cannot_write(path, exc):
        return read_only(path, str(exc))
    if unsound(exc):
        return damaged(path, str(exc))
    return None


def move_aside(path: Path, now: datetime | None = None) -> Path:
    """Rename the log (and its WAL and shared-memory files) to ``NAME.damaged-TIME``; the new name."""
    stamp = (now or datetime.now(timezone.utc)).strftime("%Y%m%dT%H%M%SZ")
    aside = path.with_name(f"{path.name}.damaged-{stamp}")
    for suffix in ("", "-wal", "-shm"):
        part = path.with_name(path.name + suffix)
        if part.exists():
            os.replace(part, aside.with_name(aside.name + suffix))
    return aside
