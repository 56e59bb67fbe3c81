"""A fake event loop: timers on a clock that moves only when the test says."""

from __future__ import annotations

import heapq
import itertools

class FakeHandle:
    def __init__(self, when: float, fn, args: tuple):
        self.when, self.fn, self.args = when, fn, args
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class FakeLoop:
    """``call_later`` and ``time`` on a clock that only moves in :meth:`advance` (or :meth:`run_until`)."""

    def __init__(self):
        self.now = 0.0
        self._queue: list = []
        self._order = itertools.count()

    def time(self) -> float:
        return self.now

    def call_later(self, delay: float, fn, *args) -> FakeHandle:
        handle = FakeHandle(self.now + delay, fn, args)
        heapq.heappush(self._queue, (handle.when, next(self._order), handle))
        return handle

    def run_until(self, moment: float) -> None:
        """Every timer due by ``moment``, in order, the clock at each one's time; then ``moment``."""
        while self._queue and self._queue[0][0] <= moment:
            when, _, handle = heapq.heappop(self._queue)
            if not handle.cancelled:
                self.now = max(self.now, when)  # a timer set in the past runs now, in its order
                handle.fn(*handle.args)
        self.now = moment

    def advance(self, seconds: float) -> None:
        self.run_until(self.now + seconds)

    def pause_until(self, moment: float) -> None:
        """A loop that was held up until ``moment``: every timer due by then runs late, at it."""
        self.now = moment
        while self._queue and self._queue[0][0] <= moment:
            _, _, handle = heapq.heappop(self._queue)
            if not handle.cancelled:
                handle.fn(*handle.args)

    def pending(self) -> list[FakeHandle]:
        return [handle for _, _, handle in self._queue if not handle.cancelled]

    def next_timer(self) -> float | None:
        return min((handle.when for handle in self.pending()), default=None)
