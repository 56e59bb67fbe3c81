"""The one client of launcherd's JSON-lines socket: :class:`Client` for launcherctl (blocking), and
:class:`Connection` for launcher-web and launcher-voice (asyncio).

A request is one line ``{"id", "method", "params"}`` with an optional ``"lang"``; its reply carries
the same id and a ``result`` or an ``error`` ``{"code", "message", ...}``, which becomes an
:class:`~firmware.errors.ApiError`. Events (``{"event", "params"}``) come on the same connection
once ``events/subscribe`` is called. An error that names no request (id null: a line too long, too
many clients, idle) is about the connection itself.

The protocol's limits live here, with its client: launcherd reads them from this module. Nothing
heavy is imported (launcherctl starts with it for every command): no gpiozero, no daemon, and
asyncio only by the asyncio half, when it runs (asyncio is a tenth of launcherctl's start).
"""

from __future__ import annotations

import itertools
import json
import logging
import socket
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator

from firmware.errors import ApiError, InvalidParams, LauncherError, NotFound, Refused, Unavailable
from firmware.i18n import is_message

if TYPE_CHECKING:
    import asyncio

log = logging.getLogger("launcher.client")

# The longest request line launcherd reads; a longer one is answered with an error of id null.
MAX_LINE = 64 * 1024
# Requests one connection may have running at once; launcherd refuses those beyond at once.
MAX_IN_FLIGHT = 16
# A game/log or game/stats reply of a long evening can outgrow asyncio's default 64 KiB line.
REPLY_LINE_LIMIT = 16 * 1024 * 1024
# A daemon answers status, settings and game moves at once; one that does not is stuck.
QUICK_TIMEOUT_S = 5.0
# A press or a single feed is answered when the launch ends: within max_on_ms (at most 120 s by the
# configuration's schema) and the daemon's own 2 s margin.
LAUNCH_TIMEOUT_S = 125.0
LAUNCH_METHODS = frozenset({"launcher/press", "launcher/launch", "launcher/feed"})
# Answered when a person has done their part (a jam pulled out, a reload): no bound fits.
UNBOUNDED_METHODS = frozenset({"launcher/dispense"})

EventListener = Callable[[str, dict[str, Any]], None]


class DaemonDown(LauncherError, ConnectionError):
    """launcherd cannot be reached now (not running, restarting), or closed the connection."""


class Unreachable(DaemonDown):
    """launcherd's socket is missing or refuses connections."""


def request_line(request_id: int, method: str, params: dict[str, Any] | None, lang: str | None) -> bytes:
    """One request as the line sent; ``lang`` (None: the daemon's own) is the language of its texts."""
    request: dict[str, Any] = {"id": request_id, "method": method, "params": params or {}}
    if lang is not None:
        request["lang"] = lang
    return json.dumps(request).encode() + b"\n"


def reply_error(error: dict[str, Any]) -> ApiError:
    """The daemon's error reply as the ``ApiError`` of its code (``Refused``, ``InvalidParams``,
    ``NotFound``, ``Unavailable``; a plain ``ApiError`` for the others): its text as the daemon
    rendered it, its message object (``message_object``, when it sent one) and every detail in
    ``data`` as it came (``retry_after_s``, ``state``, the message object too)."""
    details = {key: value for key, value in error.items() if key not in ("code", "message")}
    code, text = error.get("code", ApiError.INTERNAL_ERROR), str(error.get("message", "error"))
    kind = _ERRORS_BY_CODE.get(code)
    if kind is Refused:
        retry = details.get("retry_after_s")
        failure: ApiError = Refused(text, retry_after_s=retry if isinstance(retry, (int, float)) else None)
    elif kind is not None:
        failure = kind(text)
    else:
        failure = ApiError(code, text)
    failure.data = details
    if is_message(error.get("message_object")):
        failure.message_object = error["message_object"]
    return failure


_ERRORS_BY_CODE: dict[Any, type[ApiError]] = {
    ApiError.REFUSED: Refused, ApiError.INVALID_PARAMS: InvalidParams,
    ApiError.NOT_FOUND: NotFound, ApiError.UNAVAILABLE: Unavailable,
}


def result_of(reply: dict[str, Any]) -> Any:
    """A reply's result; :raises ApiError: it is an error reply."""
    if "error" in reply:
        raise reply_error(reply["error"] or {})
    return reply.get("result")


def answers(message: dict[str, Any], request_id: int) -> bool:
    """Whether a message is the reply to ``request_id``, or an error about the whole connection."""
    return "event" not in message and (message.get("id") == request_id
                                        or (message.get("id") is None and "error" in message))


def method_timeout(method: str) -> float | None:
    """How long a blocking call of ``method`` may wait for its reply (None: as long as it takes)."""
    if method in UNBOUNDED_METHODS:
        return None
    return LAUNCH_TIMEOUT_S if method in LAUNCH_METHODS else QUICK_TIMEOUT_S


class Client:
    """A blocking connection to launcherd: ``call(method, params)`` returns the result or raises ApiError.

    ``timeout`` bounds every call; None (the default) gives each call its method's bound
    (:func:`method_timeout`). ``lang`` ("en", "fr"), sent with every request, is the language of
    the replies' texts; None leaves it to the daemon (``[daemon] language``).
    :raises Unreachable: the socket is missing or refuses connections; other ``OSError`` as raised.
    """

    def __init__(self, path: str | Path, timeout: float | None = None, lang: str | None = None):
        self.path = Path(path)
        self.timeout = timeout
        self.lang = lang
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(QUICK_TIMEOUT_S if timeout is None else timeout)
        try:
            self.sock.connect(str(self.path))
        except (FileNotFoundError, ConnectionRefusedError) as exc:
            self.sock.close()
            raise Unreachable(str(exc)) from None
        except OSError:
            self.sock.close()
            raise
        self._file = self.sock.makefile("rb")
        self._ids = itertools.count(1)

    def close(self) -> None:
        self._file.close()
        self.sock.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def send(self, method: str, params: dict[str, Any] | None = None) -> int:
        """Send one request without waiting for its reply; returns its id."""
        request_id = next(self._ids)
        self.sock.sendall(request_line(request_id, method, params, self.lang))
        return request_id

    def messages(self) -> Iterator[dict[str, Any]]:
        """Every message read, replies and events, until the daemon closes the connection."""
        for line in self._file:
            yield json.loads(line)
        raise DaemonDown("the daemon closed the connection")

    def call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        """The result of one request; :raises ApiError: its error reply, or an error about the
        connection itself (id null: a line too long, too many clients, idle)."""
        if self.timeout is None:
            self.sock.settimeout(method_timeout(method))
        request_id = self.send(method, params)
        for message in self.messages():
            if answers(message, request_id):
                return result_of(message)
        raise DaemonDown("the daemon closed the connection")


class Connection:
    """One asyncio connection to launcherd: calls answered by id, each event handed to ``on_event(name,
    params)`` as it is read (in the loop: it must not block). When the daemon closes the connection,
    the calls still waiting fail with :class:`DaemonDown` and :meth:`wait_closed` returns.

    Open one with :func:`connect`.
    """

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, on_event: EventListener):
        import asyncio

        self.writer = writer
        self.on_event = on_event
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future] = {}
        self._reading = asyncio.ensure_future(self._read(reader))

    @property
    def closed(self) -> bool:
        return self._reading.done()

    async def wait_closed(self) -> None:
        """Return once the daemon has closed the connection (or it was closed here)."""
        import asyncio

        await asyncio.wait({self._reading})  # never raises the reader's end; the caller's cancelling goes through

    async def call(self, method: str, params: dict[str, Any] | None = None, *, lang: str | None = None) -> Any:
        """The result of one request; ``ApiError`` for the daemon's refusal, ``DaemonDown`` once the
        connection is gone. A request longer than :data:`MAX_LINE` is refused here as launcherd
        would, since its refusal (id null) would name no request to answer."""
        if self.closed:
            raise DaemonDown("the daemon closed the connection")
        request_id = next(self._ids)
        line = request_line(request_id, method, params, lang)
        if len(line) - 1 > MAX_LINE:  # launcherd counts the line without its newline
            raise ApiError(ApiError.INVALID_REQUEST, f"request longer than {MAX_LINE // 1024} KiB:"
                                                     " a name or a text in it is far too long")
        import asyncio

        future = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        try:
            try:
                self.writer.write(line)
                await self.writer.drain()
            except ConnectionError as exc:  # the daemon went while the request was being sent
                raise DaemonDown(f"the daemon closed the connection: {exc}") from None
            return await future
        finally:
            self._pending.pop(request_id, None)

    async def close(self) -> None:
        import asyncio

        self._reading.cancel()
        self.writer.transport.abort()
        await asyncio.wait({self._reading})

    async def _read(self, reader: asyncio.StreamReader) -> None:
        try:
            await self._read_lines(reader)
        finally:  # nothing more will answer the requests still waiting
            for future in self._pending.values():
                if not future.done():
                    future.set_exception(DaemonDown("the daemon closed the connection"))
            self._pending.clear()

    async def _read_lines(self, reader: asyncio.StreamReader) -> None:
        import asyncio

        while True:
            try:
                line = await reader.readline()
            except (OSError, ValueError) as exc:  # ValueError: a line over the reader's limit
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
                self.on_event(message["event"], message.get("params") or {})
            else:
                future = self._pending.get(message.get("id"))
                if future is not None and not future.done():
                    if "error" in message:
                        future.set_exception(reply_error(message["error"] or {}))
                    else:
                        future.set_result(message.get("result"))
            # readline() returns a line already buffered without giving the loop a turn: a flood of
            # events (100,000 launches) kept launcher-game's loop here until its watchdog, 15 s
            # later, killed it. One turn per line lets its timers and other tasks run.
            await asyncio.sleep(0)


async def connect(path: str | Path, on_event: EventListener, limit: int = REPLY_LINE_LIMIT) -> Connection:
    """A :class:`Connection` to launcherd's socket at ``path``, replies up to ``limit`` bytes long.

    :raises Unreachable: the socket is missing or refuses connections; other ``OSError`` as raised.
    """
    import asyncio

    try:
        reader, writer = await asyncio.open_unix_connection(str(path), limit=limit)
    except (FileNotFoundError, ConnectionRefusedError) as exc:
        raise Unreachable(str(exc)) from None
    return Connection(reader, writer, on_event)
