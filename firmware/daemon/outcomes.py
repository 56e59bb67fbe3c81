"""The outcome record: every launch outcome, numbered, on disk before anyone hears of it.

Each launch outcome (a launcher's ``launched``; a blaster's ``insert`` and ``blast``) gets the next
``seq`` (1, 2, ... across restarts: the record keeps its last entry) and is appended, with its
event's name as ``event``, to ``outcomes.jsonl`` in the state dir by a writer thread of its own, which
fsyncs and only then hands the outcome back to the motor's loop to be announced. The motor's loop
never waits for the disk: it gives the outcome to the writer and goes on with its deadlines.

The game layer logs the outcomes it applies together with their seq, and after a restart reads
here what came after the last one it logged (``after``), so that a launch made while it was hung,
dead or starting is applied exactly once. It says how far it has logged (``logged_up_to``); what is
logged is trimmed away, the record stays small.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import queue
import threading
from collections import deque
from pathlib import Path
from typing import Any, Callable

log = logging.getLogger("launcherd.outcomes")

FILENAME = "outcomes.jsonl"
# The record is rewritten without what the game has logged once it holds more than this.
KEEP = 64
# Outcomes the game has not logged (it is down, or there is none) are kept up to this many.
MAX_UNLOGGED = 10_000
# How long closing waits for the writer to put down what it was given.
CLOSE_WAIT_S = 2.0


def read_record(path: Path) -> list[dict[str, Any]]:
    """The record's entries in order; a line cut short by a crash is no entry."""
    try:
        lines = path.read_bytes().splitlines()
    except FileNotFoundError:
        return []
    except OSError as exc:  # the launcher goes on: what it cannot read it cannot catch up on
        log.error("cannot read %s: %s", path, exc)
        return []
    entries = []
    for line in lines:
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict) and isinstance(entry.get("seq"), int):
            entries.append(entry)
    return entries


class OutcomeRecord:
    """Numbers launch outcomes and writes them, in order, off the motor's loop."""

    def __init__(self, state_dir: Path):
        self.path = Path(state_dir) / FILENAME
        entries = read_record(self.path)
        self.last_seq = entries[-1]["seq"] if entries else 0  # the motor's loop's own counter
        self._entries = len(entries)  # the writer's count of what the file holds
        self._logged = 0  # the game has logged every outcome up to this one
        self._trimmed_at = 0  # what was logged when the record was last rewritten
        self._failing = False  # the last write failed: said once, until one succeeds
        self._work: queue.SimpleQueue = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._write_forever, name="outcome-writer", daemon=True)
        self._thread.start()

    def number(self, outcome: dict[str, Any]) -> dict[str, Any]:
        """The outcome with the next ``seq``. Motor loop only."""
        self.last_seq += 1
        return {**outcome, "seq": self.last_seq}

    def append(self, outcome: dict[str, Any], written: Callable[[], None]) -> None:
        """Write ``outcome`` (already numbered), then call ``written()`` from the writer's thread."""
        self._work.put((outcome, written))

    def logged_up_to(self, seq: int) -> None:
        """The game has logged every outcome up to ``seq``: those may go. Any thread."""
        self._work.put((seq, None))

    def after(self, seq: int) -> list[dict[str, Any]]:
        """Every recorded outcome after ``seq``, oldest first. Any thread (a whole file is read)."""
        return [entry for entry in read_record(self.path) if entry["seq"] > seq]

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
        lines = b"".join(json.dumps(o, separators=(",", ":"), default=str).encode() + b"\n" for o in outcomes)
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
        temporary = self.path.with_suffix(".tmp")
        try:
            with temporary.open("wb") as fresh:
                fresh.write(b"".join(json.dumps(e, separators=(",", ":")).encode() + b"\n" for e in kept))
                fresh.flush()
                os.fsync(fresh.fileno())
            if record is not None:
                record.close()
            os.replace(temporary, self.path)
            directory = os.open(self.path.parent, os.O_RDONLY)
            try:
                os.fsync(directory)
            finally:
                os.close(directory)
        except OSError as exc:
            log.error("trimming %s failed: %s", self.path, exc)
        self._entries = len(read_record(self.path))
        return self._open()


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
