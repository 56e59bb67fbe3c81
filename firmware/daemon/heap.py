"""When launcherd's heap is walked: its start never again, the rest only while the motor rests.

A full garbage collection holds the GIL for as long as it walks every tracked object, whichever
thread starts it, and the motor's loop runs no deadline meanwhile. Launcherd's start-up heap
(modules, catalogues, config: about 33,000 objects, 15 ms to walk on an x86 machine) is frozen
once READY, and never walked again. What the game side builds later is not: its statistics of a
100,000-action log made a full collection 13 ms long here (bench/loaded.py, "readers"), several
times that on a Pi Zero 2 W, and CPython starts one whenever enough has piled up, in the middle of
a launch as readily as anywhere: a count or jam stop that late lets a card through.

So in launcherd's own process the collector's automatic full collections are turned off
(:meth:`HeapKeeper.take_over`); the young generations are still collected as they fill (well
under a millisecond each). Once as many young collections have passed as would have started a
full one (CPython's own threshold), the full one is *due*: the motor's loop runs it itself at its
next rest, the motor off and no deadline of the core for ``REST_S``. The duty and rest rules give
the motor a rest often, so the heap never grows for long. A press that comes during the walk waits
for it; a stop never does.

Only launcherd's main (and the bench's in-process launcherd, which mirrors it) takes the
collector over: a test process that ran its daemons so would keep every test's garbage cycles.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from typing import Any, Callable

from firmware.daemon.crossing import post_guarded

log = logging.getLogger("launcherd.heap")

# How long the motor must be off, with no deadline of the core as near, before a full collection.
REST_S = 1.0
# A full collection is due after this many collections of the middle generation: CPython's own
# third threshold (gc.get_threshold()[2]), which launcherd sets to NEVER.
FULL_AFTER = 10
NEVER = 2**31 - 1  # the largest threshold CPython takes: no automatic full collection


def freeze_startup_heap() -> None:
    """Leave what exists now (the start's modules, catalogues, config, the game's tables) out of
    every later collection: collected once, then frozen. Frozen objects are never walked again;
    a cycle among them that becomes garbage later stays (launcherd's start-up objects live as
    long as the process)."""
    gc.collect()
    gc.freeze()


class HeapKeeper:
    """Runs the full collections on the motor's loop, at rest (``at_rest()``, asked there)."""

    def __init__(self, loop: asyncio.AbstractEventLoop, at_rest: Callable[[], bool],
                 rest_s: float = REST_S):
        self._loop = loop
        self._at_rest = at_rest
        self._rest_s = rest_s
        self._thresholds: tuple[int, int, int] | None = None  # the collector's, while taken over
        self._due = False
        self._timer: asyncio.TimerHandle | None = None
        self.collections = 0
        self.last_ms: float | None = None
        self.longest_ms = 0.0

    @property
    def taken_over(self) -> bool:
        return self._thresholds is not None

    def take_over(self) -> None:
        """Freeze the start-up heap and run every full collection from now on (once READY)."""
        if self.taken_over:
            return
        freeze_startup_heap()
        self._thresholds = gc.get_threshold()
        young, middle, _ = self._thresholds
        gc.set_threshold(young, middle, NEVER)
        gc.callbacks.append(self._collected)

    def give_back(self) -> None:
        """The collector as it was (the frozen heap stays frozen). Idempotent."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if not self.taken_over:
            return
        gc.callbacks.remove(self._collected)
        gc.set_threshold(*self._thresholds)
        self._thresholds = None

    def _collected(self, phase: str, info: dict[str, Any]) -> None:
        # In whichever thread collected, in the middle of the collector: only a flag and a post.
        if phase == "stop" and not self._due and info["generation"] >= 1 and gc.get_count()[2] >= FULL_AFTER:
            self._due = True
            post_guarded(self._loop, self._arm)

    def _arm(self) -> None:
        if self._timer is None and self.taken_over:
            self._timer = self._loop.call_later(self._rest_s, self._collect_at_rest)

    def _collect_at_rest(self) -> None:
        self._timer = None
        if not self.taken_over:
            return
        if not self._at_rest():
            self._arm()  # the motor runs or a deadline is near: again once it rests
            return
        started = time.perf_counter()
        gc.collect()
        took_ms = (time.perf_counter() - started) * 1000
        self.collections += 1
        self.last_ms = round(took_ms, 3)
        self.longest_ms = round(max(self.longest_ms, took_ms), 3)
        self._due = False
        log.debug("full collection at rest: %.1f ms", took_ms)

    def figures(self) -> dict[str, Any]:
        """``system/heap``: whether launcherd runs its full collections, how many, how long."""
        count = gc.get_count()
        return {"at_rest": self.taken_over, "due": self._due, "collections": self.collections,
                "last_ms": self.last_ms, "longest_ms": self.longest_ms,
                "frozen": gc.get_freeze_count(), "young": count[0], "middle_since_full": count[2]}


__all__ = ["FULL_AFTER", "HeapKeeper", "NEVER", "REST_S", "freeze_startup_heap"]
