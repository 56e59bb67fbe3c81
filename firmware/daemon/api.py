"""The daemon's API: JSON lines on a Unix socket.

A request is one line ``{"id", "method", "params"}``, with an optional ``"lang"`` ("en" or "fr")
for the texts of its reply (firmware/i18n.py); the reply is ``{"id", "result"}`` or
``{"id", "error": {"code", "message"}}``. Subscribers also receive ``{"event", "params"}`` lines.
Bad input of any kind gets a structured error and leaves the daemon and its state untouched; a
client that stops reading is dropped without holding up the others.

Requests run side by side, so replies may come in another order than the requests: a client
matches them by id. What is answered at once (an error, a method that finishes in its first step)
keeps the order of the lines. An emergency stop sent behind a running dispense is answered at once.
The server runs on a thread and loop of its own: only the launcher's handlers run on the motor's
loop. A ``game/*`` request goes from the API's loop to the game process's connection as it came,
and its reply back as the game wrote it (firmware/daemon/gameport.py).
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import os
import socket
import stat
import time
from pathlib import Path
from typing import Any, Callable

from firmware import i18n, test_hooks
from firmware.client import MAX_IN_FLIGHT, MAX_LINE
from firmware.daemon.connection import Call, Client, Handlers
from firmware.daemon.registry import MAX_NESTING, Handler, Registry, encode, nested_deeper, second_bracket
from firmware.daemon.crossing import LoopThread, plain, post, post_guarded
from firmware.daemon.gameport import GAME_ONLY, REGISTER, START_WAIT_S
from firmware.daemon.peers import may_connect, peer_credentials, peer_groups
from firmware.errors import ApiError, InUse, InvalidParams

log = logging.getLogger("launcherd.api")

# Far more than a game table needs; a bound keeps descriptors under select()'s limit of 1024.
MAX_CLIENTS = 256
# Beyond MAX_CLIENTS, root may still connect this many times: the administrator is never locked out.
ADMIN_SLOTS = 1
# A connection with no request in flight and no subscription is closed after this long without a
# request: bytes that complete no request (a byte every 200 s, blank lines, lines refused) do not
# count, or a trickle would hold a slot for ever.
IDLE_TIMEOUT_S = 300.0
# A line must be complete within this long of its first byte (a client writes its request at once:
# 64 KiB cross a Unix socket in milliseconds).
LINE_TIMEOUT_S = 30.0
# Test hooks (tests/test_api_slots.py), read when the server is made: the two deadlines above in ms.
IDLE_TIMEOUT_VARIABLE = "LAUNCHER_TEST_API_IDLE_MS"
LINE_TIMEOUT_VARIABLE = "LAUNCHER_TEST_API_LINE_MS"
# Always run, whatever is in flight: stopping the motor never waits behind anything.
UNLIMITED_METHODS = frozenset({"system/estop"})


def claim_socket_path(path: Path) -> None:
    """Make ``path`` free for a new server: remove a stale socket, refuse anything else.

    :raises InUse: a daemon answers on it, or something other than a socket is there.
    """
    try:
        mode = path.lstat().st_mode
    except FileNotFoundError:
        return
    if not stat.S_ISSOCK(mode):
        kind = "a directory" if stat.S_ISDIR(mode) else "a regular file" if stat.S_ISREG(mode) else "not a socket"
        raise InUse(f"{path} is {kind}, not a socket: remove it, or choose another socket path")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        probe.settimeout(1.0)
        try:
            probe.connect(str(path))
        except (ConnectionRefusedError, FileNotFoundError):
            path.unlink(missing_ok=True)  # a stale socket from a killed daemon
            return
        except OSError:
            pass  # it exists and is not refusing: treat it as alive
    raise InUse(f"another launcherd is already answering on {path}: stop it first"
                      " (systemctl stop launcherd), or give this one another --socket")


class ApiServer:
    """Serves a :class:`Registry` on a Unix socket and fans events out to subscribers.

    The server runs on a thread and loop of its own: accepting, reading, parsing, checking params,
    encoding replies and events and writing them cost the loop that started it nothing. That loop
    (launcherd's: the motor's) runs only each method's handler, posted to it with its checked
    params; the result comes back as a plain copy and is encoded here. An event is posted here
    once, and encoded once for all its subscribers.
    """

    def __init__(self, registry: Registry, path: str | Path, mode: int = 0o660,
                 clock: Callable[[], float] = time.monotonic):
        self.registry = registry
        self._clock = clock  # the watchdog's beats (time.monotonic: answering() is asked on it)
        self.path = Path(path)
        self.mode = mode
        self._thread = LoopThread("launcherd-api")
        self._loop: asyncio.AbstractEventLoop | None = None  # the API's own, while it serves
        self._handlers: Handlers | None = None  # on the loop that started it
        self._here: Handlers | None = None  # on the API's own loop, for methods that run on any
        self._server: asyncio.base_events.Server | None = None
        self._clients: set[Client] = set()
        self._tasks: set[asyncio.Task] = set()
        self._numbers = 0
        self.game_port: Any = None  # firmware/daemon/gameport.py's GamePort, when a game is expected
        self._claimed = False  # the path made free by claim(), once per run
        self._beat_taken = clock()  # when the API's loop last took in a beat (beat()); set again at start
        self.idle_timeout = test_hooks.seconds(IDLE_TIMEOUT_VARIABLE, IDLE_TIMEOUT_S)
        self.line_timeout = test_hooks.seconds(LINE_TIMEOUT_VARIABLE, LINE_TIMEOUT_S)
        registry.register("events/subscribe", self._subscribe_placeholder, doc="receive every event")

    def register(self, name: str, handler: Handler, params: dict[str, Any] | None = None,
                 doc: str = "") -> None:
        """Add a method to the API (layers call this as ``daemon.api.register``)."""
        self.registry.register(name, handler, params, doc)

    @staticmethod
    def _subscribe_placeholder(params: dict) -> dict:
        # Subscription needs the connection, so _start_request answers it; this entry documents it.
        return {"subscribed": True}

    def claim(self) -> None:
        """Make the socket path free now, ahead of :meth:`start` (launcherd does it before it
        claims any pin, so that a second instance gives up before touching the motor).

        :raises InUse: see :func:`claim_socket_path`."""
        claim_socket_path(self.path)
        self._claimed = True

    async def start(self) -> None:
        """Listen on the socket path (claimed first, unless :meth:`claim` did); handlers will run
        on the caller's loop.

        :raises InUse: see :func:`claim_socket_path`."""
        self._loop = self._thread.start()
        self._handlers = Handlers(asyncio.get_running_loop(), self._loop)
        self._here = Handlers(self._loop, self._loop)
        try:
            await self._thread.run(self._listen())
        except BaseException:
            await self._thread.stop()
            self._loop = None
            raise

    async def _listen(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if not self._claimed:
            self.claim()
        self._claimed = False  # the next start, after a close, claims again
        self._server = await asyncio.start_unix_server(self._serve, path=str(self.path), limit=MAX_LINE)
        os.chmod(self.path, self.mode)
        # Answering from now: a start that took longer than the watchdog's window (imports and a
        # game log replayed, seconds on a slow machine) must not read as a loop that hung.
        self._beat_taken = self._clock()

    async def close(self) -> None:
        """Stop serving. A request still running gets an error reply before its client is let go."""
        if self._loop is None:
            return
        self._handlers.close()
        await self._thread.run(self._close())
        await self._thread.stop()
        self._loop = None

    async def _close(self) -> None:
        if self._server is None:
            return
        self._server.close()
        self._here.close()
        for client in self._clients:
            for answer in list(client.requests):
                answer.cancel()  # _reply answers the caller, and the handler is cancelled
        await asyncio.sleep(0)  # the replies of the cancelled requests are queued
        drainers = []
        for client in self._clients:
            client.end()
            drainers.append(client.drainer)
        if drainers:
            await asyncio.wait(drainers, timeout=1.0)
        for client in list(self._clients):
            client.drop()  # their readers see the end of the stream and their tasks finish
        if self._tasks:
            _, stuck = await asyncio.wait(list(self._tasks), timeout=1.0)
            for task in stuck:
                task.cancel()
        self._server = None
        try:
            self.path.unlink()
        except FileNotFoundError:
            pass

    @property
    def loop(self) -> asyncio.AbstractEventLoop | None:
        """The API's own loop while it serves (None before start and after close)."""
        return self._loop

    @property
    def client_count(self) -> int:
        return len(self._clients)

    def beat(self) -> None:
        """Ask the API's loop to note that it runs (the watchdog's question, from the motor's loop)."""
        if self._loop is not None:
            post(self._loop, self._take_beat)

    def _take_beat(self) -> None:
        self._beat_taken = self._clock()

    def answering(self, now: float, within: float) -> bool:
        """Whether the API's loop took in a beat within ``within`` s of ``now`` (time.monotonic's
        clock); a server not serving counts as answering: nothing of it can hang."""
        return self._loop is None or now - self._beat_taken <= within

    def publish(self, event: str, params: dict[str, Any]) -> None:
        """Send an event to every subscriber (called on the handlers' loop; a copy of ``params``
        crosses to the API's, where it is encoded and written)."""
        if self._loop is not None:
            post(self._loop, self._fan_out, event, plain(params))

    def _fan_out(self, event: str, params: dict[str, Any]) -> None:
        line = encode({"event": event, "params": params})
        for client in list(self._clients):
            # The game's connection is told launcher events by the game port (with their cause),
            # and never its own events.
            if client.subscribed and not client.game:
                client.send_line(line)

    def fan_out_game(self, event: str, params: dict[str, Any]) -> None:
        """One of the game's own events, on the API's loop (``system/publish``)."""
        self._fan_out(event, params)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._numbers += 1
        client = Client(writer, self._numbers)
        sock = writer.get_extra_info("socket")
        try:
            pid, uid, gid = peer_credentials(sock)
        except OSError:
            pid = uid = gid = -1
        if uid >= 0 and not may_connect(uid, gid, peer_groups(sock)):
            log.warning("refused API client pid %d uid %d gid %d: not in the service group", pid, uid, gid)
            writer.transport.abort()
            return
        limit = MAX_CLIENTS + (ADMIN_SLOTS if uid == 0 else 0)
        if len(self._clients) >= limit:
            log.warning("refused API client pid %d uid %d: already %d clients", pid, uid, len(self._clients))
            await _refuse(writer, f"launcherd already serves {len(self._clients)} clients (the limit);"
                                  f" idle ones are closed after {self.idle_timeout:g} s: try again later")
            return
        client.uid = uid
        self._clients.add(client)
        client.drainer = asyncio.ensure_future(client.drain_forever())
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            await self._read_lines(reader, client)
        except (ConnectionError, OSError):
            pass
        finally:
            self._clients.discard(client)
            if self.game_port is not None:
                self.game_port.lost(client)
            try:
                await self._finish(client)
            finally:  # close() waits for a client that is finishing too
                if task is not None:
                    self._tasks.discard(task)

    @staticmethod
    async def _finish(client: Client) -> None:
        """Let the client's requests finish (a client that closed its side after sending may
        still read), flush what is queued, briefly; then let it go."""
        if client.requests:
            await asyncio.wait(list(client.requests))  # each is bounded by its own handler
        if not client.closed:
            client.end()
            try:
                await asyncio.wait_for(asyncio.shield(client.drainer), 1.0)
            except asyncio.TimeoutError:
                client.drop()
            client.writer.close()
        client.drainer.cancel()

    async def _read_lines(self, reader: asyncio.StreamReader, client: Client) -> None:
        """Read lines and start their requests until the client leaves, or breaks a deadline: a line
        not complete within ``line_timeout`` of its first byte, or ``idle_timeout`` without a request
        while nothing is in flight and nothing subscribed."""
        loop = asyncio.get_running_loop()
        buffer = b""
        discarding = False  # inside a line that was too long: skip to its end
        line_began: float | None = None  # the first byte of the line being read, None between lines
        last_request = loop.time()  # the last request started (or the last moment one was in flight)
        while not client.closed:
            busy = client.subscribed or bool(client.requests)
            if busy:
                last_request = loop.time()  # waiting for events or for a reply is not idle
            due = min(last_request + self.idle_timeout,
                      line_began + self.line_timeout if line_began is not None else math.inf)
            try:
                chunk = await asyncio.wait_for(reader.read(MAX_LINE), max(0.0, due - loop.time()))
            except asyncio.TimeoutError:
                now = loop.time()
                if line_began is not None and now >= line_began + self.line_timeout:
                    client.send_line(_error(None, ApiError(ApiError.REFUSED, (
                        f"a line must be complete within {self.line_timeout:g} s of its first byte:"
                        " closing the connection"))))
                    return
                if busy or client.subscribed or client.requests:
                    continue
                client.send_line(_error(None, ApiError(
                    ApiError.REFUSED, f"idle for {self.idle_timeout:g} s: closing the connection")))
                return
            if not chunk:
                return
            buffer += chunk
            if b"\n" in buffer:
                line_began = None  # a line ended: the next one (if begun) began with this chunk
            while b"\n" in buffer:
                line, buffer = buffer.split(b"\n", 1)
                if discarding:
                    discarding = False
                    continue
                if len(line) > MAX_LINE:
                    client.send_in_turn(_error(None, _too_long()))
                    continue
                if client.game and self.game_port.relay(client, line):
                    continue  # a forward's reply, relayed as it came
                if line.strip():
                    if client.running() >= MAX_IN_FLIGHT:
                        await client.turns_over()  # requests that finish at once are not in flight
                    if self._start_request(line, client):
                        last_request = loop.time()
            if len(buffer) > MAX_LINE:
                if not discarding:
                    client.send_in_turn(_error(None, _too_long()))
                discarding = True
                buffer = b""
            if (buffer or discarding) and line_began is None:
                line_began = loop.time()

    def _start_request(self, line: bytes, client: Client) -> bool:
        """Check one line and start its method; whether a method was started (a refusal is not)."""
        if nested_deeper(line, MAX_NESTING + 1):  # the params' limit, and the request's object
            # Refused before any parsing: json.loads of a 60 KB line 30,000 deep, then reading it
            # again without its depths, held the API's thread 46 ms. The id and method are read
            # from the line's head, before its second bracket, where a client writes them.
            head = _head(line)
            name = head.get("method")
            refusal = InvalidParams(f"{name[:80]}: params hold lists or objects nested more than"
                                    f" {MAX_NESTING} deep") if isinstance(name, str) else ApiError(
                ApiError.INVALID_REQUEST, f"a request with lists or objects nested more than {MAX_NESTING}"
                                          " deep, and no method before them")
            client.send_in_turn(_error(_safe_id(head.get("id")), refusal))
            return False
        try:
            request = json.loads(line)
        except (ValueError, RecursionError):  # RecursionError: thousands of brackets never closed
            client.send_in_turn(_error(None, ApiError(ApiError.PARSE_ERROR, "not valid JSON")))
            return False
        if not isinstance(request, dict) or not isinstance(request.get("method"), str):
            request_id = request.get("id") if isinstance(request, dict) else None
            client.send_in_turn(_error(_safe_id(request_id), ApiError(
                ApiError.INVALID_REQUEST, 'a request is an object with a string "method"')))
            return False
        request_id = _safe_id(request.get("id"))
        name = request["method"]
        lang = request.get("lang")
        if lang is not None and lang not in i18n.LANGUAGES:
            client.send_in_turn(_error(request_id, ApiError(
                ApiError.INVALID_REQUEST, '"lang" is one of ' + ", ".join(i18n.LANGUAGES)
                                          + f", not {_safe_id(lang)!r}")))
            return False
        if client.running() >= MAX_IN_FLIGHT and name not in UNLIMITED_METHODS:
            client.send_in_turn(_error(request_id, ApiError(
                ApiError.REFUSED, f"{MAX_IN_FLIGHT} requests of this connection are still running:"
                                  " wait for their replies")))
            return False
        port = self.game_port
        if port is not None and name.startswith("game/"):
            self._forward(client, request_id, name, request.get("params"), lang)
            return True
        try:
            with i18n.speaking(lang):
                method, params = self.registry.check(name, request.get("params"))
                if port is not None and (name in GAME_ONLY or name == REGISTER):
                    port.admit(client, name, params)
                if port is not None and client.game:
                    params = port.checked(client, name, params, request.get("cause"))
        except ApiError as exc:
            client.send_in_turn(_error(request_id, exc))
            return False
        if name == "events/subscribe":
            client.subscribed = True
            client.send_in_turn(encode({"id": request_id, "result": method.handler(params)}))
            return True
        call = Call(client, client.take_turn(), request_id, method, params, lang, self._loop.create_future())
        client.requests.add(call.answer)
        call.answer.add_done_callback(client.requests.discard)
        call.answer.add_done_callback(lambda _: self._reply(call))
        handlers = self._here if method.on_any_loop else self._handlers
        self._begin(handlers, call)
        return True

    def _forward(self, client: Client, request_id: Any, name: str, params: Any, lang: str | None) -> None:
        """A ``game/*`` request, to the game process as it came; its reply back as the game wrote it."""
        turn = client.take_turn()
        first = self.game_port.first_start()
        if first is not None:
            # launcherd has just started and its game not yet: the request waits for it, bounded.
            client.requests.add(first)
            first.add_done_callback(client.requests.discard)
            client.answer_in_turn(turn, None)

            def go_on() -> None:
                if not first.done():
                    first.set_result(None)
            timer = self._loop.call_later(START_WAIT_S, go_on)

            def started(done: asyncio.Future) -> None:
                timer.cancel()
                if done.cancelled() or client.closed:
                    return
                self._forward_now(client, turn, request_id, name, params, lang)
            first.add_done_callback(started)
            return
        self._forward_now(client, turn, request_id, name, params, lang)

    def _forward_now(self, client: Client, turn: Any, request_id: Any, name: str, params: Any,
                     lang: str | None) -> None:
        try:
            with i18n.speaking(lang):
                self.game_port.precheck(name, params)
            answer = self.game_port.forward(client, turn, request_id, name, params, lang)
        except ApiError as exc:
            client.answer_in_turn(turn, _error(request_id, exc))
            return
        client.requests.add(answer)
        answer.add_done_callback(client.requests.discard)
        client.answer_in_turn(turn, None)  # the lines after it need not wait for the game

        def relayed(done: asyncio.Future) -> None:
            if done.cancelled():
                line = _error(request_id, ApiError(
                    ApiError.UNAVAILABLE, f"launcherd stopped before {name} finished; the motor is stopped"))
            elif isinstance(error := done.exception(), ApiError):
                line = _error(request_id, error)
            elif error is not None:
                line = _error(request_id, ApiError(ApiError.INTERNAL_ERROR, f"internal error: {error}"))
            else:
                line = self.game_port.reply_line(request_id, done.result())
            client.answer_in_turn(turn, line)
        answer.add_done_callback(relayed)

    @staticmethod
    def _begin(handlers: Handlers, call: Call) -> None:
        if call.answer.done():
            return  # answered meanwhile: launcherd is stopping, or its client left
        if not post_guarded(handlers.loop, handlers.begin, call):
            call.answer.cancel()  # the handlers' loop is gone: launcherd is stopping

    def _reply(self, call: Call) -> None:
        answer, request_id, name = call.answer, call.request_id, call.method.name
        if answer.cancelled():
            # launcherd is stopping (or the client left): the caller hears so instead of nothing.
            handlers = self._here if call.method.on_any_loop else self._handlers
            post_guarded(handlers.loop, handlers.cancel, call)
            message = _error(request_id, ApiError(
                ApiError.UNAVAILABLE, f"launcherd stopped before {name} finished; the motor is stopped"))
        elif isinstance(error := answer.exception(), ApiError):
            message = _error(request_id, error)
        elif error is not None:  # a bug in a handler must not take the daemon down
            log.error("internal error in %s", name, exc_info=error)
            message = _error(request_id, ApiError(ApiError.INTERNAL_ERROR, f"internal error: {error}"))
        else:
            message = encode({"id": request_id, "result": answer.result()})
        call.client.answer_in_turn(call.turn, message)


def _head(line: bytes) -> dict[str, Any]:
    """The top-level keys of a request written before its second bracket (``{"id": 7, "method":
    "game/new", "params": ``), read as JSON; empty when there is nothing to read there."""
    second = second_bracket(line)
    if second is None:
        return {}
    try:
        head = json.loads(line[:second] + b"null}")
    except ValueError:
        return {}
    return head if isinstance(head, dict) else {}


def _too_long() -> ApiError:
    return ApiError(ApiError.INVALID_REQUEST, f"line longer than {MAX_LINE // 1024} KiB: request ignored")


async def _refuse(writer: asyncio.StreamWriter, message: str) -> None:
    """Tell a client why it is turned away, then close; a client that does not read is cut off."""
    writer.write(_error(None, ApiError(ApiError.REFUSED, message)))
    try:
        await asyncio.wait_for(writer.drain(), 1.0)
    except (asyncio.TimeoutError, ConnectionError, OSError):
        pass
    if writer.transport.get_write_buffer_size():
        writer.transport.abort()
    else:
        writer.close()


def _safe_id(value: Any) -> Any:
    """Echo the id back only when it is a plain scalar; anything else could be huge or deep."""
    if isinstance(value, float) and not math.isfinite(value):
        return None  # NaN and Infinity are not JSON: a strict client could not read the reply
    if value is None or isinstance(value, (int, float, str, bool)):
        if isinstance(value, str) and len(value) > 200:
            return None
        return value
    return None


def _error(request_id: Any, exc: ApiError) -> bytes:
    """The error reply's line."""
    return encode({"id": request_id, "error": exc.to_json()})
