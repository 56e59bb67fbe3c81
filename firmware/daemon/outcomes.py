"""The outcome record: every launch outcome, numbered, on disk before anyone hears of it.

Each launch outcome (a launcher's ``launched``; a blaster's ``insert`` and ``blast``) gets the next
``seq`` and the record's identity (``record``), and is appended, with its event's name as ``event``,
to ``outcomes.jsonl`` in the state dir by a writer thread of its own, which fsyncs and only then
hands the outcome back to the motor's loop to be announced. The motor's loop never waits for the
disk: it gives the outcome to the writer and goes on with its deadlines.

The game layer logs the outcomes it applies together with their seq and the record's identity,
and after a restart reads here what came after the last one it logged (``after``), so that a
launch made while it was hung, dead or starting is applied exactly once. It says how far it has
logged (``logged_up_to``); what is logged is trimmed away, the record stays small.

The record cannot be mistaken for another (#36). Its first line names it (a random identity, and
the seq its numbering goes on after); a record started afresh has another identity, so the game
takes in all of it whatever its numbers. And the game's log knows the last seq it took in: when
it says so (``after``), the numbering goes on above it, never below. A file that is not a sound
record when launcherd starts (overwritten, emptied, lines that do not read) is moved aside and a
fresh record started; a missing one while the game had taken in outcomes, or one that ends before
what the game took in (an older copy put back), is said too: each in the journal and in
``status/get``'s ``outcome_record`` for the daemon's life.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import queue
import threading
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from firmware import i18n

log = logging.getLogger("launcherd.outcomes")

FILENAME = "outcomes.jsonl"
# The record is rewritten without what the game has logged once it holds more than this.
KEEP = 64
# Outcomes the game has not logged (it is down, or there is none) are kept up to this many.
MAX_UNLOGGED = 10_000
# How long closing waits for the writer to put down what it was given.
CLOSE_WAIT_S = 2.0
# The key of the record's first line, which holds its identity.
HEADER = "outcome_record"


@dataclass
class _Reading:
    """What a record file holds."""

    identity: str | None = None  # None: no header (missing, damaged, or written before #36)
    after: int = 0  # the seq its numbering went on after
    entries: list[dict[str, Any]] = field(default_factory=list)
    missing: bool = False
    problem: str | None = None  # why it is no sound record (None: it is one, or missing)
    clean: bool = True  # exactly what the writer writes: else written again as read, at open

    @property
    def last_seq(self) -> int:
        return max(self.after, self.entries[-1]["seq"] if self.entries else 0)


def _entry(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("seq"), int) and not isinstance(value["seq"], bool)


def _header(value: Any) -> bool:
    return (isinstance(value, dict) and isinstance(value.get(HEADER), str) and value[HEADER]
            and isinstance(value.get("after"), int) and value["after"] >= 0)


def _read(path: Path) -> _Reading:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return _Reading(missing=True)
    except OSError as exc:
        return _Reading(problem=f"cannot be read: {exc.strerror or exc}", clean=False)
    if not data:
        return _Reading(problem="empty", clean=False)
    lines = data.split(b"\n")
    cut = lines.pop()  # b"" after the last newline; else a line a crash cut short
    reading, unreadable = _Reading(clean=not cut), 0
    for number, line in enumerate(lines + ([cut] if cut else [])):
        try:
            value = json.loads(line)
        except ValueError:
            value = None
        if number == 0 and _header(value):
            reading.identity, reading.after = value[HEADER], value["after"]
        elif _entry(value) and value["seq"] > reading.last_seq:
            reading.entries.append(value)
        elif not (line is cut and number == len(lines)):  # a cut last line is no damage
            unreadable += 1
    if unreadable:
        reading.problem = f"{unreadable} line(s) that are no launch outcome in order"
    elif reading.identity is None and not reading.entries:
        reading.problem = "no launch outcome in it"
    reading.clean = reading.clean and reading.problem is None and reading.identity is not None
    return reading


def read_record(path: Path) -> list[dict[str, Any]]:
    """The record's entries in order (its header left out); a line cut short by a crash is no entry."""
    reading = _read(path)
    if reading.problem and reading.problem.startswith("cannot be read"):
        log.error("%s %s", path, reading.problem)  # the launcher goes on: what it cannot read it cannot catch up on
    return reading.entries


def _encode(value: dict[str, Any]) -> bytes:
    return json.dumps(value, separators=(",", ":"), default=str).encode() + b"\n"


class OutcomeRecord:
    """Numbers launch outcomes and writes them, in order, off the motor's loop."""

    def __init__(self, state_dir: Path):
        self.path = Path(state_dir) / FILENAME
        reading = _read(self.path)
        # A record started now (missing or not sound): the game has taken in none of it yet.
        self.started_fresh = reading.missing or reading.identity is None and reading.problem is not None
        self._said: dict[str, Any] = {"state": "ok"}
        if reading.problem is not None:
            reading = self._start_over(reading)
        elif not reading.clean:  # written before records had a header, or a cut last line
            reading.identity = reading.identity or _new_identity()
            self._rewrite(reading.identity, reading.after, reading.entries)
        elif reading.missing:
            reading.identity = _new_identity()
            self._rewrite(reading.identity, 0, [])
        self.identity: str = reading.identity
        self._after = reading.after
        self._lock = threading.Lock()  # the counter: numbered on the motor's loop, raised by the game's
        self.last_seq = reading.last_seq  # the motor's loop's own counter
        self._entries = len(reading.entries)  # the writer's count of what the file holds
        self._logged = 0  # the game has logged every outcome up to this one
        self._trimmed_at = 0  # what was logged when the record was last rewritten
        self._failing = False  # the last write failed: said once, until one succeeds
        self._work: queue.SimpleQueue = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._write_forever, name="outcome-writer", daemon=True)
        self._thread.start()

    def _start_over(self, reading: _Reading) -> _Reading:
        """A file that is no sound record: kept aside, and a fresh record numbered on after the
        last outcome found in it (the game's log raises that when the game layer says its own)."""
        stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        aside = self.path.with_name(f"{self.path.name}.damaged-{stamp}")
        try:
            os.replace(self.path, aside)
        except OSError as exc:
            log.error("cannot move the damaged outcome record %s aside: %s", self.path, exc)
            aside = None
        if reading.identity is not None:  # its header is whole: the same record, what reads of it kept
            fresh = _Reading(identity=reading.identity, after=reading.after, entries=reading.entries)
        else:
            fresh = _Reading(identity=_new_identity(), after=reading.last_seq)
        self._rewrite(fresh.identity, fresh.after, fresh.entries)
        self._say("outcome_record_damaged", logging.ERROR, path=str(self.path), reason=reading.problem,
                  aside=str(aside or self.path))
        return fresh

    def _say(self, message_id: str, level: int, **params: Any) -> None:
        """Said once in the journal, and in status for the daemon's life."""
        said = i18n.message(message_id, **params)
        log.log(level, "%s", i18n.render(said, "en"))
        self._said = {"state": message_id.removeprefix("outcome_record_"), "message_object": said}

    def status(self) -> dict[str, Any]:
        """``status/get``'s ``outcome_record``: ``{"state": "ok"}``, or what was wrong and its words."""
        said = dict(self._said)
        if "message_object" in said:
            said["message"] = i18n.render(said["message_object"])
        return said

    def number(self, outcome: dict[str, Any]) -> dict[str, Any]:
        """The outcome with the next ``seq`` and this record's identity. Motor loop only."""
        with self._lock:
            self.last_seq += 1
            return {**outcome, "seq": self.last_seq, "record": self.identity}

    def append(self, outcome: dict[str, Any], written: Callable[[], None]) -> None:
        """Write ``outcome`` (already numbered), then call ``written()`` from the writer's thread."""
        self._work.put((outcome, written))

    def logged_up_to(self, seq: int) -> None:
        """The game has logged every outcome up to ``seq``: those may go. Any thread."""
        self._work.put((seq, None))

    def after(self, seq: int, record: str | None = None) -> list[dict[str, Any]]:
        """Every recorded outcome the game has not taken in, oldest first: the game's log took in
        up to ``seq`` of ``record`` (None: a log from before records had identities). All of this
        record when it is another; and the numbering goes on above ``seq`` from now. Any thread."""
        self._count_above(seq, record)
        ours = record == self.identity or (record is None and not self.started_fresh)
        entries = read_record(self.path)
        return [{"record": self.identity, **entry} for entry in entries if not ours or entry["seq"] > seq]

    def _count_above(self, seq: int, record: str | None) -> None:
        """Never number at or below what the game's log took in (of any record)."""
        with self._lock:
            behind, self.last_seq = self.last_seq, max(self.last_seq, seq)
        if seq <= behind or self._said["state"] != "ok":
            return
        if record == self.identity or (record is None and not self.started_fresh):
            self._say("outcome_record_behind", logging.ERROR, path=str(self.path), last=behind, seq=seq)
        elif self.started_fresh:
            self._say("outcome_record_missing", logging.ERROR, path=str(self.path), seq=seq)

    def close(self) -> None:
        """Write what is queued and stop the writer (bounded: a stuck disk does not hold shutdown)."""
        self._work.put(None)
        self._thread.join(CLOSE_WAIT_S)

    def _write_forever(self) -> None:
        record = self._open()
        while True:
            batch = [self._work.get()]
            while not self._work.empty():  # one fsync for every outcome that came meanwhile
                batch.append(self._work.get())
            outcomes = [item for item in batch if item is not None and item[1] is not None]
            if outcomes:
                try:
                    record = self._write(record, [outcome for outcome, _ in outcomes])
                except Exception:
                    log.exception("writing launch outcomes to %s failed", self.path)
                for _, written in outcomes:
                    written()  # announced even when the disk failed: the launcher goes on
            for item in batch:
                if item is not None and item[1] is None:
                    self._logged = max(self._logged, item[0])
            if (self._entries > KEEP and self._logged > self._trimmed_at) or self._entries > MAX_UNLOGGED:
                try:
                    record = self._trim(record)
                except Exception:
                    log.exception("trimming %s failed", self.path)
            if None in batch:
                if record is not None:
                    record.close()
                return

    def _open(self) -> Any:
        try:
            return self.path.open("ab")
        except OSError as exc:
            log.error("cannot write launch outcomes to %s: %s", self.path, exc)
            return None

    def _write(self, record: Any, outcomes: list[dict[str, Any]]) -> Any:
        """Append and fsync; the file to write next time (reopened after a failure)."""
        lines = b"".join(map(_encode, outcomes))
        record = record or self._open()
        if record is None:
            return None
        try:
            record.write(lines)
            record.flush()
            os.fsync(record.fileno())
        except OSError as exc:
            # The launcher goes on regardless; a game layer restarted now could miss these. Said
            # once (a full disk fails every write), not a line or a traceback per launch.
            if not self._failing:
                log.error("writing launch outcomes from %d to %s failed: %s; they are announced anyway",
                          outcomes[0]["seq"], self.path, exc)
            self._failing = True
            try:
                record.close()
            except OSError:
                pass  # what the buffer held could not be written either
            return None
        if self._failing:
            log.warning("launch outcomes are written to %s again (from %d)", self.path, outcomes[0]["seq"])
            self._failing = False
        self._entries += len(outcomes)
        return record

    def _trim(self, record: Any) -> Any:
        """Rewrite the record without what the game has logged (its last entry always stays: the
        counter starts from it), atomically: a crash leaves the old file or the new one."""
        entries = read_record(self.path)
        kept = [entry for entry in entries if entry["seq"] > self._logged] or entries[-1:]
        if len(kept) > MAX_UNLOGGED:
            kept = kept[-MAX_UNLOGGED // 2:]  # half: not rewritten again at the next outcome
            log.error("launch outcomes up to %d were never logged by the game layer: dropped from %s",
                      kept[0]["seq"] - 1, self.path)
        self._trimmed_at = self._logged
        if record is not None:
            record.close()
        self._rewrite(self.identity, self._after, kept)
        self._entries = len(read_record(self.path))
        return self._open()

    def _rewrite(self, identity: str, after: int, entries: list[dict[str, Any]]) -> None:
        """The record as its header and ``entries``, atomically: a crash leaves the old file or
        the new one. A failure is said; the writer's own writes say theirs."""
        temporary = self.path.with_suffix(".tmp")
        try:
            with temporary.open("wb") as fresh:
                fresh.write(_encode({HEADER: identity, "after": after}) + b"".join(map(_encode, entries)))
                fresh.flush()
                os.fsync(fresh.fileno())
            os.replace(temporary, self.path)
            directory = os.open(self.path.parent, os.O_RDONLY)
            try:
                os.fsync(directory)
            finally:
                os.close(directory)
        except OSError as exc:
            log.error("writing the outcome record %s failed: %s", self.path, exc)


def _new_identity() -> str:
    # os.urandom, as secrets.token_hex does: importing secrets loads OpenSSL's libcrypto through
    # hmac (3.3 MiB of launcherd's resident memory, measured) for nothing launcherd uses.
    return os.urandom(8).hex()


class OutcomeGate:
    """Events announced in their order, each launch outcome only once it is on disk: it and every
    event after it wait in line meanwhile. The motor goes on (its actions are applied already)."""

    def __init__(self, record: OutcomeRecord, loop: asyncio.AbstractEventLoop,
                 announce: Callable[[str, dict[str, Any]], None], caught_up_later: Callable[[], bool]):
        self.record = record
        self._loop = loop
        self._announce = announce
        # Whether a game layer will catch up on an outcome (else it may go once written).
        self._caught_up_later = caught_up_later
        self._held: deque[list[Any]] = deque()  # [name, params, ready to announce]

    def outcome(self, name: str, params: dict[str, Any]) -> None:
        """A launch outcome: numbered, written, announced once on disk."""
        params = self.record.number(params)
        self._held.append([name, params, False])
        self.record.append({**params, "event": name}, self._post_written)

    def event(self, name: str, params: dict[str, Any]) -> None:
        """Any other event: announced now, or in order after the outcome before it."""
        if self._held:
            self._held.append([name, params, True])
        else:
            self._announce(name, params)

    def _post_written(self) -> None:
        """From the writer's thread: the oldest outcome given to it is on disk."""
        try:
            self._loop.call_soon_threadsafe(self._written)
        except RuntimeError:
            pass  # the loop is closed: the daemon stopped; the outcome is on disk for the next start

    def _written(self) -> None:
        for entry in self._held:
            if not entry[2]:
                entry[2] = True
                if not self._caught_up_later():  # nobody catches up on it later: it may go
                    self.record.logged_up_to(entry[1]["seq"])
                break
        while self._held and self._held[0][2]:
            name, params, _ = self._held.popleft()
            self._announce(name, params)


__all__ = ["FILENAME", "OutcomeGate", "OutcomeRecord", "read_record"]
