"""The game log: every accepted table action, appended to SQLite before its reply is sent.

The state of a match is never stored, only the actions that built it; the service replays them
(``controller.match.table.replay``) at start-up and after an undo. The database is in WAL mode with
``synchronous=FULL``: a commit has reached the disk when ``append`` returns, so a kill -9 or a
power cut at any moment leaves a database that passes ``integrity_check`` and holds every action
that was acknowledged. Undo marks an action undone instead of deleting it, so the log stays the
whole story of the table.

One connection, used from the game process's loop only (launcher-game, never launcherd): a commit
may take long on an SD card (one game process at a time holds the state dir's lock,
controller/layer/process.py). The test hook
``LAUNCHER_TEST_COMMIT_DELAY_MS`` (read when the store opens, default 0) makes every commit wait that
long first, as a slow SD card would, for the bench and the tests of a slow commit.

The ``meta`` table also keeps ``outcome_seq``: the last launch outcome (firmware/daemon/outcomes.py) the
game has taken in, written in the same transaction as the press it logged, so that catching up
after a restart applies each outcome exactly once; and ``outcome_record``, the identity of the
record that seq is of (a record started afresh numbers on its own). A file that is not a sound game log
(random bytes, a row that is not JSON, a missing column) raises :class:`LogDamaged` when it is
opened, not in the middle of a game; the caller decides what to tell the table
(``controller.log.damage``). The file's identity is kept, so that a log deleted or replaced under the
daemon is noticed before an action is acknowledged (``in_place``), and the log the connection still
holds can be written back (``write_back``).
"""

from __future__ import annotations

import itertools
import json
import os
import sqlite3
import time
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator

from firmware import test_hooks
from firmware.errors import LauncherError, NotFound, Refused
from firmware.i18n import message

FILENAME = "game.sqlite3"
SCHEMA_VERSION = 1
# Store.version's values: unique across stores, so that a log reopened (repaired) is never taken
# for the one before it.
_VERSIONS = itertools.count(1)
# A test hook (the bench, tests/test_game_layer.py): every commit first waits this many milliseconds.
COMMIT_DELAY_VARIABLE = "LAUNCHER_TEST_COMMIT_DELAY_MS"

_SCHEMA = (
    """CREATE TABLE IF NOT EXISTS matches (
        id       INTEGER PRIMARY KEY,
        started  TEXT NOT NULL,
        rules    TEXT NOT NULL,
        players  TEXT NOT NULL,          -- JSON list of names, in seat order
        finished TEXT,                   -- when the match was won, NULL while it runs
        winner   TEXT
    )""",
    """CREATE TABLE IF NOT EXISTS actions (
        seq      INTEGER PRIMARY KEY AUTOINCREMENT,
        match_id INTEGER NOT NULL REFERENCES matches(id),
        ts       TEXT NOT NULL,
        action   TEXT NOT NULL,          -- the JSON object given to controller.match.table.apply
        undone   INTEGER NOT NULL DEFAULT 0
    )""",
    "CREATE INDEX IF NOT EXISTS actions_by_match ON actions(match_id, seq)",
    # The table's current match: absent before any "resume" or "abandon" (then the latest match),
    # an empty value after "abandon" (no match at the table).
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)",
    # What game/stats and game/history compute from a match's actions, kept so that a reading
    # costs the same at any log length (one replay per match changed since the last reading, not
    # one per match ever played). Triggers drop a match's row in the same commit as any change to
    # its actions, so a kept row always describes the log as it is. Not part of the story: it can
    # be deleted at any time and is computed again.
    """CREATE TABLE IF NOT EXISTS match_figures (
        match_id INTEGER PRIMARY KEY REFERENCES matches(id),
        stats    TEXT,                   -- JSON: controller.match.stats.match_stats, or null
        summary  TEXT                    -- JSON: game/history's rounds and totals
    )""",
    *(f"""CREATE TRIGGER IF NOT EXISTS match_figures_on_{event.lower()} AFTER {event} ON actions
        BEGIN DELETE FROM match_figures WHERE match_id = {row}.match_id; END"""
      for event, row in (("INSERT", "NEW"), ("UPDATE", "NEW"), ("DELETE", "OLD"))),
)
FIGURES = ("stats", "summary")  # the kinds of match_figures
_COLUMNS = {
    "matches": {"id", "started", "rules", "players", "finished", "winner"},
    "actions": {"seq", "match_id", "ts", "action", "undone"},
    "meta": {"key", "value"},
    "match_figures": {"match_id", "stats", "summary"},
}


class LogDamaged(LauncherError, sqlite3.DatabaseError):
    """The file opens as SQLite but is not a sound game log; the message says what is wrong."""


@dataclass(frozen=True)
class MatchRecord:
    """One row of ``matches``."""

    id: int
    started: str
    rules: str
    players: list[str]
    finished: str | None
    winner: str | None

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "started": self.started, "rules": self.rules, "players": self.players,
                "finished": self.finished, "winner": self.winner}


@dataclass(frozen=True)
class ActionRecord:
    """One row of ``actions``."""

    seq: int
    match_id: int
    ts: str
    action: dict[str, Any]
    undone: bool

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "match_id": self.match_id, "ts": self.ts, "action": self.action,
                "undone": self.undone}


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def _encode(action: dict[str, Any]) -> str:
    # Sorted keys: the same action is always the same text, which keeps exports diffable.
    return json.dumps(action, sort_keys=True, separators=(",", ":"))


class Store:
    """The SQLite log of matches and their actions."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self._commit_delay_s = test_hooks.seconds(COMMIT_DELAY_VARIABLE, 0.0)
        # Each match written through this connection: the version its last write ended with. A
        # reading kept for every match but the table's one stays true while none of them is here
        # with a later version (others_version), so a press costs the history nothing.
        self._written: dict[int, int] = {}
        self._writing: set[int] = set()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # isolation_level=None: transactions are opened explicitly below, never implicitly.
        self._db = sqlite3.connect(str(self.path), isolation_level=None)
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            # The log is appended to and read back in order; SQLite's default 2 MB page cache would
            # only grow the daemon on a 512 MB Pi Zero as the log grows. 256 KiB is plenty.
            self._db.execute("PRAGMA cache_size=-256")
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise LogDamaged(
                    f"{self.path} was written by a newer version (schema {version}, this one reads"
                    f" {SCHEMA_VERSION})")
            self._verify()  # before anything is written: a damaged file is left as it was found
            with self._transaction():
                for statement in _SCHEMA:
                    self._db.execute(statement)
                self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        except BaseException:
            self._db.close()
            raise
        self._identity = _identity(self.path)
        # What a reader's reply was computed from: it changes with every write (kept replies,
        # controller/layer/remote.py); read on the game loop only, as every use of the store.
        self.version = next(_VERSIONS)

    def _verify(self) -> None:
        """Refuse a log that would fail later, mid-game: damaged pages, missing columns, bad rows."""
        for table, columns in _COLUMNS.items():
            found = {row[1] for row in self._db.execute(f"PRAGMA table_info({table})")}
            if found and columns - found:  # a table not there yet is created below
                raise LogDamaged(f"table {table} lacks column(s) {', '.join(sorted(columns - found))}")
        verdict = "; ".join(row[0] for row in self._db.execute("PRAGMA quick_check"))
        if verdict != "ok":
            raise LogDamaged(verdict)
        tables = {row[0] for row in self._db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if "matches" in tables:
            for row in self._db.execute("SELECT id, started, rules, players, finished, winner FROM matches"):
                _match(row)
        if "actions" in tables:
            for row in self._db.execute("SELECT seq, match_id, ts, action, undone FROM actions"):
                _action(row)

    @classmethod
    def in_dir(cls, state_dir: str | Path) -> "Store":
        """The store of a game's state directory."""
        return cls(Path(state_dir) / FILENAME)

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        if self._commit_delay_s:
            time.sleep(self._commit_delay_s)  # the test hook, before the write lock is taken
        # IMMEDIATE takes the write lock at once, so a transaction never fails half-way on a lock.
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield
            self._db.execute("COMMIT")
        except BaseException:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            raise
        finally:
            self.version = next(_VERSIONS)
            for match_id in self._writing:  # a rollback too: what a reader kept may be gone
                self._written[match_id] = self.version
            self._writing.clear()

    def others_version(self, match_id: int | None) -> int:
        """The version of the last write to any match but ``match_id`` through this connection
        (0: none since it opened): while it stays the same, so does every other match."""
        return max((version for written, version in self._written.items() if written != match_id),
                   default=0)

    def in_place(self) -> bool:
        """Whether the file this connection writes is still the one at ``path`` (not deleted, not replaced)."""
        return _identity(self.path) == self._identity

    def write_back(self) -> None:
        """Copy the log this connection holds to ``path`` (recreating its directory) and use that copy.

        For a state directory deleted under the daemon: the connection still reads the deleted file,
        every acknowledged action included. Whatever now sits at ``path`` is not overwritten.
        """
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if self.path.exists():
            raise FileExistsError(f"{self.path} exists again: move it aside first")
        fresh = sqlite3.connect(str(self.path), isolation_level=None)
        try:
            self._db.backup(fresh)
            fresh.execute("PRAGMA journal_mode=WAL")
        except BaseException:
            fresh.close()
            self.path.unlink(missing_ok=True)
            raise
        self._db.close()
        self._db = fresh
        for pragma in ("synchronous=FULL", "foreign_keys=ON", "cache_size=-256"):
            self._db.execute(f"PRAGMA {pragma}")
        self._identity = _identity(self.path)
        self.version = next(_VERSIONS)

    def close(self) -> None:
        """Close the connection (idempotent); the WAL is checkpointed into the main file."""
        if self._db is not None:
            self._db.close()
            self._db = None

    # ---- writing -------------------------------------------------------------------------

    def start_match(self, new_action: dict[str, Any]) -> int:
        """Open a match with its ``new`` action as its first logged action; returns its id."""
        with self._transaction():
            cursor = self._db.execute(
                "INSERT INTO matches (started, rules, players) VALUES (?, ?, ?)",
                (_now(), new_action["rules"], json.dumps(list(new_action["players"]))))
            match_id = cursor.lastrowid
            self._insert(match_id, new_action)
            self._set_current(match_id)
        return match_id

    def set_current(self, match_id: int | None) -> None:
        """Make match ``match_id`` the table's (``resume``), or none (``abandon``)."""
        if match_id is not None:
            self.match(match_id)
        with self._transaction():
            self._set_current(match_id)

    def _set_current(self, match_id: int | None) -> None:
        self._db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('current_match', ?)",
                         ("" if match_id is None else str(match_id),))

    def append(self, match_id: int, action: dict[str, Any], *, over: bool = False,
               winner: str | None = None, outcome_seq: int | None = None) -> int:
        """Log one accepted action and the match's result after it, in one commit; returns its seq.

        ``outcome_seq``: the launch outcome this action takes in, recorded in the same commit."""
        with self._transaction():
            seq = self._insert(match_id, action)
            self._set_result(match_id, over, winner)
            if outcome_seq is not None:
                self._set_outcome_seq(outcome_seq)
        return seq

    def note_outcome(self, outcome_seq: int) -> None:
        """A launch outcome taken in without an action (no game press, or not a move)."""
        with self._transaction():
            self._set_outcome_seq(outcome_seq)

    def outcome_seq(self) -> int:
        """The last launch outcome taken in (0: none yet)."""
        row = self._db.execute("SELECT value FROM meta WHERE key = 'outcome_seq'").fetchone()
        return int(row[0]) if row is not None and str(row[0]).isdigit() else 0  # a value is TEXT or INTEGER

    def outcome_record(self) -> str | None:
        """The identity of the outcome record ``outcome_seq`` is of (None: a log from before records
        had one, or one that took in none)."""
        row = self._db.execute("SELECT value FROM meta WHERE key = 'outcome_record'").fetchone()
        return str(row[0]) if row is not None and row[0] else None

    def adopt_outcome_record(self, record: str, outcome_seq: int) -> None:
        """From now on the launch outcomes taken in are of outcome record ``record``, of which the log
        holds those up to ``outcome_seq``: a record started afresh numbers on its own (#36)."""
        with self._transaction():
            self._db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('outcome_record', ?)", (record,))
            self._db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('outcome_seq', ?)", (outcome_seq,))

    def deck_wait(self) -> str:
        """Which round's opening deal waits for its deck to be loaded ("MATCH:ROUND"; "" none): kept
        across a restart, so that a deal asked for its deck is not dealt from whatever is loaded (#40)."""
        row = self._db.execute("SELECT value FROM meta WHERE key = 'deck_wait'").fetchone()
        return str(row[0]) if row is not None and row[0] else ""

    def set_deck_wait(self, value: str) -> None:
        with self._transaction():
            self._db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('deck_wait', ?)", (value,))

    def _set_outcome_seq(self, outcome_seq: int) -> None:
        # Never backwards: a dispense's outcome may be taken in after a later press's.
        self._db.execute(
            "INSERT INTO meta (key, value) VALUES ('outcome_seq', ?) ON CONFLICT(key) DO UPDATE"
            " SET value = MAX(CAST(value AS INTEGER), CAST(excluded.value AS INTEGER))", (outcome_seq,))

    def undo(self, match_id: int, seq: int, *, over: bool = False, winner: str | None = None) -> None:
        """Mark action ``seq`` undone and record the match's result without it, in one commit.

        ``seq`` must be the match's last live action other than its opening ``new``: the caller
        replays the remaining actions first, so a refusal here means the log moved underneath.
        """
        # The last two live actions, not every one decoded: a long match has 100,000.
        live = self._db.execute("SELECT seq FROM actions WHERE match_id = ? AND undone = 0"
                                " ORDER BY seq DESC LIMIT 2", (match_id,)).fetchall()
        if len(live) < 2:
            raise Refused("nothing to undo: only the start of the game is left"
                          " (start another with game/new)")
        if live[0][0] != seq:
            raise Refused(f"action {seq} is not the last one of match {match_id}")
        with self._transaction():
            self._writing.add(match_id)
            self._db.execute("UPDATE actions SET undone = 1 WHERE seq = ?", (seq,))
            self._set_result(match_id, over, winner)

    def _insert(self, match_id: int, action: dict[str, Any]) -> int:
        self._writing.add(match_id)
        cursor = self._db.execute(
            "INSERT INTO actions (match_id, ts, action) VALUES (?, ?, ?)",
            (match_id, _now(), _encode(action)))
        return cursor.lastrowid

    def _set_result(self, match_id: int, over: bool, winner: str | None) -> None:
        # Kept only when it changes, so that "finished" is the time the match was first won.
        self._writing.add(match_id)
        row = self._db.execute("SELECT finished, winner FROM matches WHERE id = ?", (match_id,)).fetchone()
        if row is None:
            raise NotFound(message("no_match", match=match_id))
        if over and row[0] is None:
            self._db.execute("UPDATE matches SET finished = ?, winner = ? WHERE id = ?",
                             (_now(), winner, match_id))
        elif over and row[1] != winner:
            self._db.execute("UPDATE matches SET winner = ? WHERE id = ?", (winner, match_id))
        elif not over and row[0] is not None:
            self._db.execute("UPDATE matches SET finished = NULL, winner = NULL WHERE id = ?", (match_id,))

    # ---- reading -------------------------------------------------------------------------

    def current_match(self) -> MatchRecord | None:
        """The table's match, finished or not (the latest unless resumed or abandoned); None if none."""
        row = self._db.execute("SELECT value FROM meta WHERE key = 'current_match'").fetchone()
        if row is not None:
            return self.match(int(row[0])) if row[0] else None
        row = self._db.execute(
            "SELECT id, started, rules, players, finished, winner FROM matches ORDER BY id DESC LIMIT 1"
        ).fetchone()
        return _match(row) if row else None

    def match(self, match_id: int) -> MatchRecord:
        """One match by id; NotFound if there is none."""
        row = self._db.execute(
            "SELECT id, started, rules, players, finished, winner FROM matches WHERE id = ?", (match_id,)
        ).fetchone()
        if row is None:
            raise NotFound(message("no_match", match=match_id))
        return _match(row)

    def matches(self, *, limit: int | None = None, before: int | None = None) -> list[MatchRecord]:
        """Every match, oldest first; or the last ``limit`` of them, or of those before match ``before``."""
        query, args = "SELECT id, started, rules, players, finished, winner FROM matches", []
        if before is not None:
            query += " WHERE id < ?"
            args.append(before)
        query += " ORDER BY id DESC"
        if limit is not None:
            query += " LIMIT ?"
            args.append(limit)
        rows = self._db.execute(query, args).fetchall()
        return [_match(row) for row in reversed(rows)]

    def figures(self, kind: str, match_ids: list[int]) -> dict[int, Any]:
        """The kept ``kind`` figures (:data:`FIGURES`) of those of ``match_ids`` that have them."""
        if kind not in FIGURES:
            raise ValueError(f"figures are {' or '.join(FIGURES)}, not {kind!r}")
        kept: dict[int, Any] = {}
        # In slices: SQLite allows a bounded number of parameters per statement.
        for start in range(0, len(match_ids), 500):
            part = match_ids[start:start + 500]
            rows = self._db.execute(
                f"SELECT match_id, {kind} FROM match_figures WHERE {kind} IS NOT NULL"
                f" AND match_id IN ({', '.join('?' * len(part))})", part)
            kept.update((match_id, json.loads(text)) for match_id, text in rows)
        return kept

    def keep_figures(self, match_id: int, kind: str, value: Any) -> None:
        """Keep ``value`` as match ``match_id``'s ``kind`` figures, until its actions change.

        Only an aid to reading: a log that cannot be written (a full disk, a read-only file)
        keeps nothing, and the figures are computed again next time.
        """
        if kind not in FIGURES:
            raise ValueError(f"figures are {' or '.join(FIGURES)}, not {kind!r}")
        try:
            with self._transaction():
                self._db.execute(
                    f"INSERT INTO match_figures (match_id, {kind}) VALUES (?, ?)"
                    f" ON CONFLICT(match_id) DO UPDATE SET {kind} = excluded.{kind}",
                    (match_id, json.dumps(value, sort_keys=True, separators=(",", ":"))))
        except sqlite3.OperationalError:
            pass

    def actions(self, match_id: int, *, include_undone: bool = False) -> list[ActionRecord]:
        """A match's actions in log order: the live ones, or every one with ``include_undone``."""
        query = "SELECT seq, match_id, ts, action, undone FROM actions WHERE match_id = ?"
        if not include_undone:
            query += " AND undone = 0"
        rows = self._db.execute(query + " ORDER BY seq", (match_id,)).fetchall()
        return [_action(row) for row in rows]

    def last_actions(self, match_id: int, limit: int, before: int | None = None) -> tuple[list[ActionRecord], bool]:
        """A page of a match's log, undone actions included: its last ``limit`` actions (of those
        before seq ``before``), in log order, and whether older ones come before them. Read newest
        first on the (match_id, seq) index: a page costs its own rows, whatever the log's length."""
        rows = self._db.execute(
            "SELECT seq, match_id, ts, action, undone FROM actions WHERE match_id = ? AND seq < ?"
            " ORDER BY seq DESC LIMIT ?", (match_id, before if before is not None else 2**63 - 1, limit + 1)).fetchall()
        return [_action(row) for row in reversed(rows[:limit])], len(rows) > limit

    def integrity_check(self) -> str:
        """SQLite's own verdict on the file: "ok" or a description of the damage."""
        return "; ".join(row[0] for row in self._db.execute("PRAGMA integrity_check"))


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return stat.st_dev, stat.st_ino


def _json(text: object, what: str, shape: type) -> Any:
    try:
        value = json.loads(text)
    except (TypeError, ValueError):
        value = None
    if not isinstance(value, shape):
        raise LogDamaged(f"{what} is not a JSON {shape.__name__}: {str(text)[:60]!r}")
    return value


def _match(row: tuple) -> MatchRecord:
    return MatchRecord(row[0], row[1], row[2], _json(row[3], f"the players of match {row[0]}", list),
                       row[4], row[5])


def _action(row: tuple) -> ActionRecord:
    return ActionRecord(row[0], row[1], row[2], _json(row[3], f"action {row[0]}", dict), bool(row[4]))
