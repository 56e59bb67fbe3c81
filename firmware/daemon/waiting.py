"""The two ways the daemon's loop waits: one timer at a sans-IO object's next deadline, and the
requests waiting for the event that names them. The driver (for its core), the dealer and
bring-up all use them.
"""

from __future__ import annotations

import asyncio
from contextlib import contextmanager
from typing import Any, Callable, Hashable, Iterator


class DeadlineTimer:
    """One loop timer, moved to the next deadline after every batch of work (None: no timer)."""

    def __init__(self, loop: asyncio.AbstractEventLoop, on_deadline: Callable[[], None]):
        self._loop = loop
        self._on_deadline = on_deadline
        self._handle: asyncio.TimerHandle | None = None

    def rearm(self, deadline: float | None) -> None:
        self.cancel()
        if deadline is not None:
            self._handle = self._loop.call_at(deadline, self._fire)

    def cancel(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def _fire(self) -> None:
        self._handle = None
        self._on_deadline()


class Waiters:
    """Requests waiting for an answer, by the id the answer will carry."""

    def __init__(self) -> None:
        self._futures: dict[Hashable, asyncio.Future] = {}

    @contextmanager
    def waiting(self, key: Hashable) -> Iterator[asyncio.Future]:
        """A future answered by :meth:`answer` with ``key``, forgotten when the block ends."""
        future = asyncio.get_running_loop().create_future()
        self._futures[key] = future
        try:
            yield future
        finally:
            self._futures.pop(key, None)

    def answer(self, key: Any, value: Any) -> None:
        """Answer the request waiting under ``key``, if one still waits."""
        future = self._futures.pop(key, None)
        if future is not None and not future.done():
            future.set_result(value)


__all__ = ["DeadlineTimer", "Waiters"]
