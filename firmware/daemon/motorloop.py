"""What keeps the motor's loop on time: an event loop whose timers fire when due, and where the
time went when it was not on time (:class:`StallClock`). The game is a process of its own
(launcher-game): nothing in launcherd competes with this loop for the interpreter but the API's
own thread, so no scheduler slice or switch interval is asked for.
"""

from __future__ import annotations

import asyncio
import logging
import selectors
import time

log = logging.getLogger(__name__)


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


__all__ = ["StallClock", "precise_event_loop"]
