"""Crossing between two asyncio loops on two threads: a loop on a thread of its own, posting to a
loop that may be gone, and the plain copy of a value handed over.

launcherd runs two loops: the motor's (firmware/daemon/driver.py) and the API server's
(firmware/daemon/api.py), which reads, parses and writes every client's lines (the game process's
too) off the motor's thread. Whatever crosses from one to the other is posted
(``call_soon_threadsafe``) and copied, so that no two threads ever share an object one of them
changes.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import Any, Callable, Coroutine

log = logging.getLogger("launcherd.crossing")


def plain(value: Any) -> Any:
    """A copy of a JSON-like value, for the other side: its own dicts and lists.

    Copied without recursion: launcherd bounds the nesting of a request's params, but a value of any
    depth must not overflow the stack here (it did at 500 levels, two frames a level)."""
    if not isinstance(value, (dict, list, tuple)):
        return value
    copy: dict | list = {} if isinstance(value, dict) else []
    waiting: list[tuple[Any, dict | list]] = [(value, copy)]
    while waiting:
        original, into = waiting.pop()
        for key, item in (original.items() if isinstance(original, dict) else enumerate(original)):
            if isinstance(item, (dict, list, tuple)):
                inner: dict | list = {} if isinstance(item, dict) else []
                waiting.append((item, inner))  # filled later: it is in its place already
                item = inner
            if isinstance(into, dict):
                into[key] = item
            else:
                into.append(item)
    return copy


def post(loop: asyncio.AbstractEventLoop, fn: Callable[..., Any], *args: Any) -> bool:
    """Run ``fn(*args)`` on ``loop`` (from any thread); False when that loop is closed."""
    try:
        loop.call_soon_threadsafe(fn, *args)
    except RuntimeError:
        return False  # closed: what it was sent no longer matters to anyone
    return True


def post_guarded(loop: asyncio.AbstractEventLoop, fn: Callable[..., Any], *args: Any) -> bool:
    """:func:`post`, where an exception of ``fn`` is logged and goes no further: on the motor's
    loop an exception in a callback halts the launcher, and nothing another thread asks for may."""
    return post(loop, _guarded, fn, args)


def _guarded(fn: Callable[..., Any], args: tuple) -> None:
    try:
        fn(*args)
    except Exception:
        log.exception("%s, posted from another thread, failed", getattr(fn, "__qualname__", fn))


class LoopThread:
    """An asyncio loop on a thread of its own, started and stopped from another loop."""

    def __init__(self, name: str):
        self.name = name
        self.loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._ended: Callable[[], Any] | None = None

    def start(self) -> asyncio.AbstractEventLoop:
        """Start the thread; returns its loop, running (the wait is a thread's start, no more)."""
        started = threading.Event()

        def run() -> None:
            loop = self.loop = asyncio.new_event_loop()
            asyncio.set_event_loop(loop)
            loop.call_soon(started.set)
            try:
                loop.run_forever()
            finally:
                wind_down(loop)
                if self._ended is not None:
                    self._ended()

        self._thread = threading.Thread(target=run, name=self.name, daemon=True)
        self._thread.start()
        started.wait()
        return self.loop

    async def run(self, coroutine: Coroutine[Any, Any, Any]) -> Any:
        """Run ``coroutine`` on this thread's loop; the caller's loop waits for its result."""
        here = asyncio.get_running_loop()
        answer = here.create_future()

        def begin() -> None:
            task = asyncio.ensure_future(coroutine)
            task.add_done_callback(lambda done: post(here, _copy_outcome, done, answer))

        if not post(self.loop, begin):
            coroutine.close()
            raise RuntimeError(f"the {self.name} thread's loop is closed")
        return await answer

    async def stop(self) -> None:
        """Stop the loop (its tasks cancelled) and wait for the thread to end, without blocking."""
        if self._thread is None:
            return
        here = asyncio.get_running_loop()
        ended = here.create_future()
        self._ended = lambda: post(here, _set_once, ended)
        if post(self.loop, self.loop.stop):
            await ended
        self._thread.join(1.0)  # at its last line already: posting the end was its last act
        self._thread = None


def _copy_outcome(source: asyncio.Future, into: asyncio.Future) -> None:
    if into.done():
        return
    if source.cancelled():
        into.cancel()
    elif source.exception() is not None:
        into.set_exception(source.exception())
    else:
        into.set_result(source.result())


def _set_once(future: asyncio.Future) -> None:
    if not future.done():
        future.set_result(None)


def wind_down(loop: asyncio.AbstractEventLoop) -> None:
    """Cancel what is left running on ``loop`` (an aim on its way, a deal, a request) and close it."""
    try:
        pending = asyncio.all_tasks(loop)
        for task in pending:
            task.cancel()
        if pending:
            loop.run_until_complete(asyncio.wait(pending, timeout=1.0))
        loop.close()
    except BaseException:  # a loop that raised out may not run again: it is dropped as it is
        log.debug("a loop did not wind down cleanly", exc_info=True)


__all__ = ["LoopThread", "plain", "post", "post_guarded", "wind_down"]
