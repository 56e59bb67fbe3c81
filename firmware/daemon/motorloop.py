"""What keeps the motor's loop on time: an event loop whose timers fire when due, and a short
scheduler slice for its thread, so that woken by an edge it runs before busier threads; and
where the time went when it was not on time (:class:`StallClock`).

Linux's fair scheduler (EEVDF, since 6.6) gives every task a slice; a task that wakes while the
CPUs are busy waits for the running one's slice to end (0.75 ms and more) unless its own slice is
shorter, in which case it preempts at once (since 6.12, ``sched_attr.sched_runtime`` sets a
thread's slice: 0.1 to 100 ms, no privilege needed). The motor's loop sleeps almost all the time
and runs for tens of microseconds when an edge or a deadline wakes it, so a short slice costs the
others nothing and puts a press or a jam ahead of a reader's JSON or the web page's work.

On an older kernel (or one that refuses) nothing changes but a line in the log. glibc has no
wrapper for ``sched_setattr``, hence the system call by number.
"""

from __future__ import annotations

import asyncio
import ctypes
import logging
import os
import platform
import selectors
import time

log = logging.getLogger(__name__)

MOTOR_LOOP_SLICE_NS = 100_000  # the shortest the kernel takes: the loop's run after an edge is shorter
SCHED_OTHER = 0
# The system call's number where the project runs: a Pi's 64-bit and 32-bit kernels, x86 laptops.
SCHED_SETATTR = {"x86_64": 314, "aarch64": 274, "armv7l": 380, "armv6l": 380, "i686": 351}


class SchedAttr(ctypes.Structure):
    """``struct sched_attr`` as of Linux 3.14 (SCHED_ATTR_SIZE_VER0: 48 bytes)."""

    _fields_ = [("size", ctypes.c_uint32), ("sched_policy", ctypes.c_uint32),
                ("sched_flags", ctypes.c_uint64), ("sched_nice", ctypes.c_int32),
                ("sched_priority", ctypes.c_uint32), ("sched_runtime", ctypes.c_uint64),
                ("sched_deadline", ctypes.c_uint64), ("sched_period", ctypes.c_uint64)]


def ask_short_slice(slice_ns: int = MOTOR_LOOP_SLICE_NS) -> bool:
    """Ask for a ``slice_ns`` slice for the calling thread, keeping its policy and nice value;
    whether the kernel took it. Never raises: the daemon runs the same without it."""
    number = SCHED_SETATTR.get(platform.machine())
    if number is None or not hasattr(os, "sched_getscheduler"):
        log.info("no short scheduler slice for the motor's loop on %s", platform.machine())
        return False
    if os.sched_getscheduler(0) != SCHED_OTHER:
        return False  # a real-time policy set from outside (chrt, the unit) is better: keep it
    attr = SchedAttr(size=ctypes.sizeof(SchedAttr), sched_policy=SCHED_OTHER,
                     sched_nice=os.getpriority(os.PRIO_PROCESS, 0), sched_runtime=slice_ns)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.syscall(number, 0, ctypes.byref(attr), 0) != 0:
        log.info("the kernel kept the motor loop's scheduler slice: %s", os.strerror(ctypes.get_errno()))
        return False
    return True


def precise_event_loop() -> asyncio.AbstractEventLoop:
    """An event loop whose timers fire on time: epoll rounds every wait up to a whole millisecond,
    which would add up to 1 ms to every debounce and jam deadline; select() waits in microseconds.
    launcherd watches a handful of descriptors, far below select()'s limit."""
    return asyncio.SelectorEventLoop(selectors.SelectSelector())


class StallClock:
    """Where a stall of the motor's loop went: the loop's time, the process's CPU time and the
    loop thread's at its last event (two clock reads, only while the motor may run), and at the
    halt, which of three it was. Judged on CPU time against ``stall_s`` (the core's limit), never
    on the share of the wall-clock span, which a busy machine stretches: the loop's thread did at
    least ``stall_s`` of work (the loop itself was busy: a long callback, a collection); else other
    threads of launcherd did (the GIL went there); else launcherd did too little to make the stall
    by itself: the system did not schedule it (another process, the machine or its emulator), or
    it was stopped."""

    def __init__(self, stall_s: float) -> None:
        self._stall_s = stall_s
        self._mark: tuple[float, float, float] | None = None

    def mark(self, now: float | None) -> None:
        """The loop has just run an event at ``now`` (None: the motor is off, nothing to judge)."""
        self._mark = None if now is None else (now, time.process_time(), time.thread_time())

    def where_it_went(self, now: float) -> str | None:
        """Said in the loop's thread as the stall is found; None without a mark."""
        if self._mark is None:
            return None
        span = now - self._mark[0]
        process = time.process_time() - self._mark[1]
        loop_thread = time.thread_time() - self._mark[2]
        if loop_thread >= self._stall_s:
            where = "the motor's loop itself was busy"
        elif process - loop_thread >= self._stall_s:
            where = "another thread of launcherd was busy"
        else:
            where = "launcherd hardly ran: the system did not schedule it, or it was stopped"
        return (f"{span:.3f} s since the motor's loop last ran, {process:.3f} s of CPU used by launcherd"
                f" meanwhile, {loop_thread:.3f} s of it on the loop's thread: {where}")


__all__ = ["StallClock", "ask_short_slice", "precise_event_loop"]
