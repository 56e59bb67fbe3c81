"""launcher-web's one connection to launcherd: requests with ids and the event stream, on one socket.

The daemon may restart at any time (an update, a crash, the watchdog): the link notices the end of
the stream, fails the requests still waiting with :class:`DaemonDown`, tells its listener, and
connects again with a growing pause, for as long as launcher-web runs. Requests made meanwhile fail
at once, so that the page can say "reconnecting" instead of hanging.
"""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any, Callable

from firmware.daemon.api import MAX_IN_FLIGHT, MAX_LINE
from firmware.errors import ApiError, LauncherError
from firmware.i18n import is_message

log = logging.getLogger("launcher-web.link")

# A game/log or game/stats reply of a long evening can outgrow asyncio's default 64 KiB line.
LINE_LIMIT = 16 * 1024 * 1024
# launcher/press waits for the launch to end; launcherd bounds that by its own max_on_ms.
CALL_TIMEOUT_S = 60.0
RETRY_FIRST_S, RETRY_MAX_S = 0.2, 2.0

Listener = Callable[[str, dict[str, Any]], None]


class DaemonDown(LauncherError, ConnectionError):
    """launcherd cannot be reached now (not running, restarting, or the socket refused us)."""


def daemon_error(error: dict[str, Any]) -> ApiError:
    """The daemon's error reply as an ``ApiError``: its text as the daemon rendered it, its message
    object (``message_object``, when it sent one) and its other details (``retry_after_s``)."""
    details = {key: value for key, value in error.items()
               if key not in ("code", "message", "message_object")}
    failure = ApiError(error.get("code", ApiError.INTERNAL_ERROR), str(error.get("message", "error")),
                       details)
    if is_message(error.get("message_object")):
        failure.message_object = error["message_object"]
    return failure


class Link:
    """A reconnecting JSON-lines client of launcherd's socket.

    ``listener(name, params)`` receives every daemon event, and ``("link", {"connected": bool})``
    whenever the connection comes or goes. It runs in the loop and must not block.
    """

    def __init__(self, path: str | Path, listener: Listener):
        self.path = Path(path)
        self.listener = listener
        self.connected = False
        self._writer: asyncio.StreamWriter | None = None
        self._pending: dict[int, asyncio.Future] = {}
        self._next_id = 0
        self._task: asyncio.Task | None = None
        self._up = asyncio.Event()
        # launcherd refuses a connection's request past MAX_IN_FLIGHT still running: the page's
        # many phones share this one connection, so the rest wait here for their turn.
        self._slots = asyncio.Semaphore(MAX_IN_FLIGHT - 1)

    def start(self) -> None:
        self._task = asyncio.ensure_future(self._run())

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
        self._drop()

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
        if not self.connected or self._writer is None:
            raise DaemonDown(f"launcherd is not reachable on {self.path}")
        request: dict[str, Any] = {"id": self._next_id + 1, "method": method, "params": params or {}}
        if lang is not None:
            request["lang"] = lang
        line = json.dumps(request)
        if len(line) + 20 >= MAX_LINE:  # 20: room for the id it is given when its turn comes
            # launcherd would answer it with an error that names no request (id null), which would
            # leave this call waiting for CALL_TIMEOUT_S: refuse it here, as launcherd would.
            raise ApiError(ApiError.INVALID_REQUEST, f"request longer than {MAX_LINE // 1024} KiB:"
                                                     " a name or a text in it is far too long")
        try:
            async with asyncio.timeout(timeout):
                async with self._slots:
                    if not self.connected or self._writer is None:
                        raise DaemonDown(f"launcherd is not reachable on {self.path}")
                    self._next_id += 1
                    request_id = self._next_id
                    request["id"] = request_id
                    future = asyncio.get_running_loop().create_future()
                    self._pending[request_id] = future
                    try:
                        self._writer.write(json.dumps(request).encode() + b"\n")
                        return await future
                    finally:
                        self._pending.pop(request_id, None)
        except TimeoutError:
            raise DaemonDown(f"launcherd did not answer {method} within {timeout:.0f} s") from None

    async def _run(self) -> None:
        pause = RETRY_FIRST_S
        while True:
            try:
                reader, self._writer = await asyncio.open_unix_connection(str(self.path), limit=LINE_LIMIT)
            except OSError as exc:
                log.debug("launcherd not reachable on %s: %s", self.path, exc)
                await asyncio.sleep(pause)
                pause = min(pause * 2, RETRY_MAX_S)
                continue
            pause = RETRY_FIRST_S
            reading = asyncio.ensure_future(self._read(reader))
            try:
                self.connected = True
                await self.call("events/subscribe")
                log.info("connected to launcherd on %s", self.path)
                self._up.set()
                self.listener("link", {"connected": True})
                await reading
            except (DaemonDown, ApiError, OSError) as exc:
                log.warning("launcherd connection failed: %s", exc)
            finally:
                reading.cancel()
                was_up = self._up.is_set()
                self._drop()
                if was_up:
                    log.warning("lost launcherd on %s: reconnecting", self.path)
                    self.listener("link", {"connected": False})
            await asyncio.sleep(pause)

    async def _read(self, reader: asyncio.StreamReader) -> None:
        try:
            await self._read_lines(reader)
        finally:  # nothing more will answer the requests still waiting
            self.connected = False
            self._fail_pending()

    async def _read_lines(self, reader: asyncio.StreamReader) -> None:
        while True:
            try:
                line = await reader.readline()
            except (OSError, ValueError) as exc:  # ValueError: a line over LINE_LIMIT
                log.warning("reading from launcherd failed: %s", exc)
                return
            if not line:
                return
            try:
                message = json.loads(line)
            except ValueError:
                log.warning("launcherd sent a line that is not JSON: %.80r", line)
                continue
            if "event" in message:
                self.listener(message["event"], message.get("params") or {})
                continue
            future = self._pending.get(message.get("id"))
            if future is None or future.done():
                continue
            if "error" in message:
                future.set_exception(daemon_error(message["error"] or {}))
            else:
                future.set_result(message.get("result"))

    def _drop(self) -> None:
        self.connected = False
        self._up.clear()
        if self._writer is not None:
            self._writer.transport.abort()
            self._writer = None
        self._fail_pending()

    def _fail_pending(self) -> None:
        for future in self._pending.values():
            if not future.done():
                future.set_exception(DaemonDown("launcherd closed the connection"))
        self._pending.clear()
