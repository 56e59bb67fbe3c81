"""launcher-web's one connection to launcherd: requests with ids and the event stream, on one socket
(a :class:`firmware.client.Connection`).

The daemon may restart at any time (an update, a crash, the watchdog): the link notices the end of
the stream, fails the requests still waiting with :class:`DaemonDown`, tells its listener, and
connects again with a growing pause, for as long as launcher-web runs. Requests made meanwhile fail
at once, so that the page can say "reconnecting" instead of hanging.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

from firmware import test_hooks
from firmware.client import MAX_IN_FLIGHT, Connection, DaemonDown, EventListener, connect
from firmware.errors import ApiError

log = logging.getLogger("launcher-web.link")

# launcher/press waits for the launch to end; launcherd bounds that by its own max_on_ms.
CALL_TIMEOUT_S = 60.0
RETRY_FIRST_S, RETRY_MAX_S = 0.2, 2.0
# A test hook (tests/harness/web.py), read when the link is made: the longest pause between two
# attempts in milliseconds, so that a test's launcherd, started or restarted, is reached at once.
RETRY_MAX_VARIABLE = "LAUNCHER_TEST_LINK_RETRY_MAX_MS"


class Link:
    """A reconnecting JSON-lines client of launcherd's socket.

    ``listener(name, params)`` receives every daemon event, and ``("link", {"connected": bool})``
    whenever the connection comes or goes. It runs in the loop and must not block.
    """

    def __init__(self, path: str | Path, listener: EventListener):
        self.path = Path(path)
        self.listener = listener
        self._connection: Connection | None = None
        self._task: asyncio.Task | None = None
        self._up = asyncio.Event()
        # launcherd refuses a connection's request past MAX_IN_FLIGHT still running: the page's
        # many phones share this one connection, so the rest wait here for their turn.
        self._slots = asyncio.Semaphore(MAX_IN_FLIGHT - 1)
        self._retry_max = test_hooks.seconds(RETRY_MAX_VARIABLE, RETRY_MAX_S)

    @property
    def connected(self) -> bool:
        return self._connection is not None and not self._connection.closed

    def start(self) -> None:
        self._task = asyncio.ensure_future(self._run())

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
        await self._drop()

    async def wait_connected(self, timeout: float) -> bool:
        """Whether the link is up within ``timeout`` seconds (start-up and tests)."""
        try:
            await asyncio.wait_for(self._up.wait(), timeout)
        except asyncio.TimeoutError:
            return False
        return True

    async def call(self, method: str, params: dict[str, Any] | None = None,
                   timeout: float = CALL_TIMEOUT_S, lang: str | None = None) -> Any:
        """The result of one request; ``ApiError`` for the daemon's refusal, ``DaemonDown`` without it.

        ``lang``: the language the daemon renders the reply's texts and its refusal in (None: its own).
        """
        if not self.connected:
            raise DaemonDown(f"launcherd is not reachable on {self.path}")
        try:
            async with asyncio.timeout(timeout):
                async with self._slots:
                    connection = self._connection
                    if connection is None or connection.closed:
                        raise DaemonDown(f"launcherd is not reachable on {self.path}")
                    return await connection.call(method, params, lang=lang)
        except TimeoutError:
            raise DaemonDown(f"launcherd did not answer {method} within {timeout:.0f} s") from None

    async def _run(self) -> None:
        first_pause = min(RETRY_FIRST_S, self._retry_max)
        pause = first_pause
        while True:
            try:
                self._connection = await connect(self.path, self.listener)
            except OSError as exc:
                log.debug("launcherd not reachable on %s: %s", self.path, exc)
                await asyncio.sleep(pause)
                pause = min(pause * 2, self._retry_max)
                continue
            pause = first_pause
            try:
                await self._connection.call("events/subscribe")
                log.info("connected to launcherd on %s", self.path)
                self._up.set()
                self.listener("link", {"connected": True})
                await self._connection.wait_closed()
            except (ApiError, OSError) as exc:
                log.warning("launcherd connection failed: %s", exc)
            finally:
                was_up = self._up.is_set()
                await self._drop()
                if was_up:
                    log.warning("lost launcherd on %s: reconnecting", self.path)
                    self.listener("link", {"connected": False})
            await asyncio.sleep(pause)

    async def _drop(self) -> None:
        self._up.clear()
        connection, self._connection = self._connection, None
        if connection is not None:
            await connection.close()
