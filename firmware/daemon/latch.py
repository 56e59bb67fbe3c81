"""The latch: what the next start of launcherd must know, kept in a small mapped file in the state dir.

Three things survive the process (issue #20): whether the motor may have been on when it ended
(SIGKILL, a crash, a watchdog's SIGABRT), the halt the launcher was in (an e-stop's words, a stall,
any fault) and the motor's on-time and duty record. The next start comes up ``halted`` after the
first two; only a deliberate reset clears them.

The motor's loop must never wait for the disk, so the file is opened once at start, written
whole (which proves the state dir writable and the disk not full before any pin is claimed) and
``mmap``ed: the loop's writes are stores into the page cache, which the kernel keeps when the
process dies however it dies. A writer thread of its own ``msync``s the mapping after each change,
for a power cut.

Layout (``SIZE`` bytes): ``MAGIC``; one byte "motor may be on" (0 or 1: a single store, never
torn); at ``START_AT`` the CLOCK_BOOTTIME at which that flag last went from 0 to 1 (a double;
0: unknown), stored before the flag so that a flag of 1 always has its time; two slots of ``SLOT_SIZE`` bytes, each ``seq`` (u64), payload length (u32), CRC-32 of
the payload (u32), the payload (JSON). A record goes into the slot not holding the newest one,
payload first and its header last: a process killed between the two leaves the other slot as
it was, and the newest slot whose CRC matches is the record. A file of another size, another
magic, a flag byte other than 0 or 1, or no slot that checks out is damaged: the launcher comes
up halted (``halted_latch_damaged``) and the file is written afresh.

A run the process did not live to end: the core keeps each run's start in its record as the
motor starts (``on``), and the next start counts it as run until the core would have cut it or
until that start, whichever is sooner (``OnTimeRecord.from_ages``). The driver applies the motor
before that record, so a kill in the microseconds between leaves the flag without a run on
record; the flag's own start time then stands for it, the run taken as lasting until this start
and continuing the chain on record (the conservative choice: nothing knows when the process died).

Times: the loop's clock (CLOCK_MONOTONIC) starts again at every boot, so a record carries ages
(seconds before it was written) with the boot's id and CLOCK_BOOTTIME at the write. After a
restart in the same boot the ages grow by what BOOTTIME says has passed; after a reboot the motor
has certainly rested and only the halt is kept.
"""

from __future__ import annotations

import json
import logging
import mmap
import os
import struct
import threading
import time
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from firmware import i18n
from firmware.errors import StateDirError
from firmware.events import OnTimeRecord

log = logging.getLogger("launcherd.latch")

FILENAME = "launcher.latch"
SIZE = 4096
MAGIC = b"LCHLATCH\x00\x01"  # the name, and the layout's version
FLAG_AT = len(MAGIC)
START_AT = 16  # the motor's start (CLOCK_BOOTTIME) for the flag: 8 bytes, inside the header's 64
_START = struct.Struct("<d")
SLOTS_AT = 64
SLOT_SIZE = (SIZE - SLOTS_AT) // 2
_HEADER = struct.Struct("<QII")  # seq, payload length, CRC-32 of the payload
PAYLOAD_MAX = SLOT_SIZE - _HEADER.size
BOOT_ID = Path("/proc/sys/kernel/random/boot_id")


@dataclass(frozen=True)
class Restored:
    """What the last run left: the halt to come up in (None: none), and the on-time record
    (ages in seconds, already grown by the time since; None: nothing of it is kept)."""

    halt: Any = None
    on_time: dict[str, Any] | None = None


def boot_id() -> str:
    try:
        return BOOT_ID.read_text().strip()
    except OSError:
        return ""  # no /proc: every start is taken for a new boot (the on-time is not kept)


def boottime() -> float:
    return time.clock_gettime(time.CLOCK_BOOTTIME)


def _slot(payload: bytes, seq: int) -> bytes:
    return _HEADER.pack(seq, len(payload), zlib.crc32(payload)) + payload


def _read_slots(image: bytes) -> tuple[int, dict[str, Any]] | None:
    """The newest slot that checks out, as (seq, record); None if none does."""
    found = []
    for index in range(2):
        start = SLOTS_AT + index * SLOT_SIZE
        seq, length, crc = _HEADER.unpack_from(image, start)
        payload = image[start + _HEADER.size:start + _HEADER.size + length]
        if length > PAYLOAD_MAX or zlib.crc32(payload) != crc:
            continue
        try:
            record = json.loads(payload)
        except ValueError:
            continue
        if isinstance(record, dict):
            found.append((seq, record))
    return max(found, key=lambda item: item[0], default=None)


def _damage(image: bytes) -> str | None:
    """What is wrong with a latch file's contents (the journal's words); None: nothing."""
    if len(image) != SIZE:
        return f"it holds {len(image)} bytes, not {SIZE}"
    if not image.startswith(MAGIC):
        return "it does not start as a latch file of this version does"
    if image[FLAG_AT] not in (0, 1):
        return f"its motor flag reads {image[FLAG_AT]}, neither 0 nor 1"
    if _read_slots(image) is None:
        return "neither of its two records checks out (CRC)"
    return None


class Latch:
    """The latch file of one daemon: read at start (:attr:`restored`), then written by the loop.

    :raises StateDirError: the file cannot be created, written whole or mapped (a read-only or full
        state dir); the daemon refuses to start rather than run without it.
    """

    def __init__(self, state_dir: Path, *, clock: Callable[[], float] = boottime, boot: str | None = None):
        self.path = Path(state_dir) / FILENAME
        self._clock = clock
        self._boot = boot_id() if boot is None else boot
        self._seq = 0
        self._changed = threading.Event()
        self._closing = False
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            raise StateDirError(f"cannot open the latch file {self.path} ({exc.strerror}): launcherd keeps the"
                             " motor's faults there and does not run without it; make the state dir"
                             " writable") from None
        try:
            image = os.pread(fd, SIZE + 1, 0)
            self.restored, last = self._restore(image)
            self._seq = last + 1
            fresh = bytearray(SIZE)
            fresh[:len(MAGIC)] = MAGIC
            first = _slot(self._payload(self.restored.halt, self.restored.on_time), self._seq)
            fresh[SLOTS_AT:SLOTS_AT + len(first)] = first
            # Written whole and synced now: a full disk or a read-only state dir is found here,
            # before any pin is claimed, and the mapping then stands on blocks the file owns.
            os.ftruncate(fd, SIZE)
            if os.pwrite(fd, bytes(fresh), 0) != SIZE:
                raise OSError(28, "short write")
            os.fsync(fd)
            self._map = mmap.mmap(fd, SIZE, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
        except OSError as exc:
            raise StateDirError(f"cannot write the latch file {self.path} ({exc.strerror or exc}): launcherd"
                             " keeps the motor's faults there and does not run without it; free some"
                             " space or make the state dir writable") from None
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd  # the writer thread's fsync: it releases the GIL, mmap.flush() (msync) does not
        self._current = 0  # the slot holding the newest record
        self._writer = threading.Thread(target=self._sync_forever, name="latch-sync", daemon=True)
        self._writer.start()

    # ---- start ---------------------------------------------------------------------------

    def _restore(self, image: bytes) -> tuple[Restored, int]:
        if not image:
            return Restored(), 0  # a first start
        damage = _damage(image)
        if damage is not None:
            log.error("the latch file %s is damaged (%s): halted until reset, which writes it afresh",
                      self.path, damage)
            return Restored(halt=i18n.message("halted_latch_damaged")), 0
        seq, record = _read_slots(image)  # type: ignore[misc]
        halt = record.get("halt")
        if image[FLAG_AT] == 1 and halt is None:
            log.error("launcherd ended while the motor may have been running: halted until reset")
            halt = i18n.message("halted_after_crash")
        on_time = None
        if record.get("boot") == self._boot and self._boot:
            now = self._clock()
            passed = max(0.0, now - float(record.get("at", 0.0)))
            ages = record.get("on_time")
            on_time = _grown(ages if isinstance(ages, dict) else {}, passed)
            if image[FLAG_AT] == 1 and on_time["on"] is None:
                on_time = self._unrecorded_run(image, on_time, now)
        return Restored(halt=halt, on_time=on_time), seq

    def _unrecorded_run(self, image: bytes, on_time: dict[str, Any], now: float) -> dict[str, Any]:
        """The flag says the motor may have been on, and the record has no run under way: the
        process died between the motor's start and its record. The flag's start time stands for
        the run's, taken as run until now (when it ended is unknown) and as continuing the chain."""
        (start,) = _START.unpack_from(image, START_AT)
        if not 0.0 < start <= now:
            return on_time  # a file of an older launcherd: no start time kept
        ran = now - start
        log.error("the motor's last run (started %.1f s ago) was not on record: counted as run until now", ran)
        return {**on_time, "chain": on_time["chain"] + ran, "off": 0.0, "on": None,
                "runs": on_time["runs"] + [[ran, 0.0]]}

    # ---- the loop's writes: stores into the mapping, no system call --------------------------

    def motor_may_be_on(self, on: bool, *, wake: bool = True) -> None:
        """Set before the motor is started, cleared once a stop has been applied.

        ``wake=False``: the store only; :meth:`wake` the writer once the motor has been written
        (woken first, its thread could take the GIL from the loop in between)."""
        if self._map.closed:
            return  # the daemon has stopped: its last stop cleared the flag
        if self._map[FLAG_AT] == (1 if on else 0):
            return  # as it is already (a stop after a stop, a blaster's every release): nothing to write
        if on:
            # The start's time first, then the flag: a flag of 1 always has its start.
            self._map[START_AT:START_AT + _START.size] = _START.pack(self._clock())
        self._map[FLAG_AT] = 1 if on else 0
        if wake:
            self._changed.set()

    def wake(self) -> None:
        """Let the writer make the last stores durable (:meth:`motor_may_be_on` with ``wake=False``)."""
        self._changed.set()

    def record(self, halt: Any, on_time: OnTimeRecord | None, core_now: float, loop_now: float) -> None:
        """Keep ``halt`` (None: not halted) and the on-time record, given in the core's clock at
        ``core_now`` (the loop's clock reads ``loop_now``)."""
        if self._map.closed:
            return
        payload = self._payload(halt, None if on_time is None else on_time.to_ages(core_now),
                                at=self._clock() - (loop_now - core_now))
        if len(payload) > PAYLOAD_MAX:
            log.error("the latch record is %d bytes, over %d: the on-time record is left out", len(payload),
                      PAYLOAD_MAX)
            payload = self._payload(halt, None)
        self._seq += 1
        slot = 1 - self._current
        start = SLOTS_AT + slot * SLOT_SIZE
        # The payload first, its header last: a kill in between leaves the other slot the newest.
        self._map[start + _HEADER.size:start + _HEADER.size + len(payload)] = payload
        self._map[start:start + _HEADER.size] = _HEADER.pack(self._seq, len(payload), zlib.crc32(payload))
        self._current = slot
        self._changed.set()

    def _payload(self, halt: Any, on_time: dict[str, Any] | None, at: float | None = None) -> bytes:
        record = {"halt": halt, "boot": self._boot, "at": round(self._clock() if at is None else at, 4),
                  "on_time": on_time}
        return json.dumps(record, separators=(",", ":"), default=str).encode()

    # ---- off the loop ----------------------------------------------------------------------

    def _sync_forever(self) -> None:
        while True:
            self._changed.wait()
            self._changed.clear()
            try:
                os.fsync(self._fd)  # the mapping's dirty page on the card, for a power cut
            except OSError as exc:
                if not self._closing:
                    log.error("cannot sync the latch file %s: %s", self.path, exc)
            if self._closing:
                return

    def close(self) -> None:
        """Sync what was written and unmap (the loop writes nothing after this)."""
        self._closing = True
        self._changed.set()
        self._writer.join(2.0)
        try:
            self._map.close()
            os.fsync(self._fd)
        except (OSError, BufferError):
            pass
        finally:
            os.close(self._fd)


def _grown(ages: dict[str, Any], passed: float) -> dict[str, Any]:
    """The on-time record's ages, ``passed`` seconds later (``{}``: the motor never ran)."""
    def older(value: Any) -> float | None:
        return None if value is None else float(value) + passed
    return {"chain": float(ages.get("chain", 0.0)), "off": older(ages.get("off")), "on": older(ages.get("on")),
            "runs": [[older(a), older(b)] for a, b in ages.get("runs", [])]}


__all__ = ["FILENAME", "Latch", "Restored", "SIZE"]
