"""The game's view of launcherd over its socket: :class:`SocketHost`, the ``LayerHost`` of the game process.

The game process (``launcher-game``, controller/layer/process.py) holds one connection to
launcherd's socket (firmware/daemon/gameport.py has the other end). On it the game:

- registers its methods (``system/register-game``) and is sent every ``game/*`` request of any client
  as ``{"forward", "method", "params", "lang", "cause"}``; it checks the params with its own
  :class:`~firmware.daemon.registry.Registry` (the same schemas as ever, so the same errors), runs
  the handler and writes ``{"forward", "reply": {"result"|"error"}}``, its status keys just before;
- subscribes, and takes in each launcher event with its cause token and launcherd's status of the
  launcher (``host.hopper`` and ``host.launcher_status()`` answer from the latest copy);
- calls launcher methods as any client, naming the cause it runs in (:data:`CAUSE`: the forward's
  or the event's, inherited by the tasks they start); launcherd's keeper judges every motion;
- publishes its events (``system/publish``), tells its status (``system/game-status``), catches up
  on outcomes (``outcomes/after``, ``outcomes/logged``).

A reader thread takes the lines in and hands them to the game's loop in launcherd's order, a few
per turn of the loop (:data:`TURN`), so that a call the game code makes synchronously
(``outcomes_after``) can wait for its answer on the loop's own thread, and so that a flood of
events (launches back to back) never keeps the loop's timers, its watchdog's beat first, waiting.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import contextvars
import inspect
import itertools
import json
import logging
import socket
import threading
from pathlib import Path
from typing import Any, Callable

from firmware import i18n
from firmware.client import reply_error
from firmware.daemon.registry import Encoded, Registry
from firmware.errors import ApiError, Unavailable

log = logging.getLogger("launcher.game")

# How long a call the game code makes synchronously (outcomes_after) waits for launcherd.
SYNC_ANSWER_S = 30.0
READ_CHUNK = 1 << 16
# Lines from launcherd taken in per turn of the game's loop. Posted one handle each, 100,000 launches
# queued thousands at once, and asyncio runs every handle queued before it looks at its timers: the
# watchdog's beat waited past its 15 s and launcherd killed a game that was working.
TURN = 16


class CauseBox:
    """The keeper's token of what the game runs now (a forward, an event, its start); filled in
    once known (the start's comes with the registration's reply)."""

    __slots__ = ("token",)

    def __init__(self, token: int | None = None):
        self.token = token


# The cause of whatever the game runs now: set around each forwarded request's task and each event's
# listeners, inherited by the tasks they start.
CAUSE: contextvars.ContextVar[CauseBox | None] = contextvars.ContextVar("game_cause", default=None)

def _gone() -> ApiError:
    return Unavailable(i18n.message("game_layer_died", error=i18n.render(i18n.message("game_connection_closed"))))


class SocketHost:
    """``firmware.daemon.layer.LayerHost`` over launcherd's socket, on the game process's loop."""

    def __init__(self, socket_path: str | Path, state_dir: str | Path, loop: asyncio.AbstractEventLoop):
        self.socket_path = Path(socket_path)
        self.state_dir = Path(state_dir)
        self.loop = loop
        self.registry = Registry()
        self.lost = asyncio.Event()
        self.seen = 0  # forwards and events taken in
        self._sock: socket.socket | None = None
        self._write = threading.Lock()
        self._ids = itertools.count(1)
        self._waiting: dict[int, Callable[[dict[str, Any]], None]] = {}
        self._waiting_lock = threading.Lock()
        self._listeners: list[Callable[[str, dict[str, Any]], None]] = []
        self._status_providers: dict[str, Callable[[], Any]] = {}
        self._closers: list[Callable[[], Any]] = []
        self._launcher: dict[str, Any] = {}
        self._hopper: int | None = None
        self._status_due = False
        self._closed = False
        self._inbox: collections.deque[tuple[Callable[..., Any], tuple[Any, ...]]] = collections.deque()
        self._inbox_lock = threading.Lock()
        self._taking = False  # a turn of _take_turn is due on the loop
        self._delivering = False  # an event's listeners run: its copy of the launcher is current

    # ---- the connection ---------------------------------------------------------------------

    def connect(self) -> None:
        """Connect to launcherd (:raises OSError: it is not there) and start reading."""
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(str(self.socket_path))
        except OSError:
            sock.close()
            raise
        self._sock = sock
        threading.Thread(target=self._reader, args=(sock,), name="game-reader", daemon=True).start()

    def register_game(self, pid: int) -> dict[str, Any]:
        """Subscribe, then register the methods; launcherd's reply (cause, launcher, hopper)."""
        self.request_sync("events/subscribe", {})
        methods = [{"name": m["method"], "doc": m["doc"], "params": m["params"]} for m in self.registry.describe()]
        reply = self.request_sync("system/register-game", {"methods": methods, "pid": pid})
        self._take_launcher(reply.get("launcher"))
        if "hopper" in reply:
            self._hopper = reply["hopper"]
        return reply

    def close(self) -> None:
        self._closed = True
        if self._sock is not None:
            try:
                self._sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            self._sock.close()

    def _reader(self, sock: socket.socket) -> None:
        buffer = b""
        try:
            while True:
                chunk = sock.recv(READ_CHUNK)
                if not chunk:
                    break
                buffer += chunk
                while b"\n" in buffer:
                    line, buffer = buffer.split(b"\n", 1)
                    if line.strip():
                        self._take(line)
        except OSError:
            pass
        finally:
            with self._waiting_lock:
                waiting, self._waiting = self._waiting, {}
            for answer in waiting.values():
                answer({"error": None})
            self._post(self._connection_lost)

    def _post(self, fn: Callable[..., Any], *args: Any) -> None:
        """``fn(*args)`` on the loop, after every line taken in before it. Reader thread."""
        with self._inbox_lock:
            self._inbox.append((fn, args))
            if self._taking:
                return
            self._taking = True
        try:
            self.loop.call_soon_threadsafe(self._take_turn)
        except RuntimeError:
            pass  # the loop is closed: the process is ending

    def _take_turn(self) -> None:
        """Up to TURN of the lines taken in, in order; the rest on the loop's next turn."""
        for _ in range(TURN):
            with self._inbox_lock:
                if not self._inbox:
                    self._taking = False
                    return
                fn, args = self._inbox.popleft()
            try:
                fn(*args)
            except Exception:
                log.exception("taking in a line of launcherd failed")
        self.loop.call_soon(self._take_turn)

    def _take(self, line: bytes) -> None:
        try:
            message = json.loads(line)
        except ValueError:
            log.error("launcherd sent a line that is not JSON: %.80r", line)
            return
        if not isinstance(message, dict):
            return
        if "forward" in message and "method" in message:
            self._post(self._serve, message)
        elif "event" in message:
            self._post(self._deliver, message)
        elif "id" in message:
            with self._waiting_lock:
                answer = self._waiting.pop(message["id"], None)
            if answer is not None:
                answer(message)
            elif "error" in message and message["error"]:
                log.warning("launcherd refused a line of the game: %s", message["error"].get("message"))

    def _connection_lost(self) -> None:
        if not self._closed:
            log.warning("launcherd's connection closed")
        self.lost.set()

    def _send(self, message: dict[str, Any]) -> None:
        self._send_line(json.dumps(message, separators=(",", ":"), default=str).encode() + b"\n")

    def _send_line(self, line: bytes) -> None:
        sock = self._sock
        if sock is None or self.lost.is_set():
            raise _gone()
        try:
            with self._write:
                sock.sendall(line)
        except OSError:
            raise _gone() from None

    def _request(self, method: str, params: dict[str, Any], answer: Callable[[dict[str, Any]], None] | None,
                 cause: bool = False) -> None:
        request_id = next(self._ids)
        message: dict[str, Any] = {"id": request_id, "method": method, "params": params}
        lang = i18n.requested()
        if lang is not None:
            message["lang"] = lang
        box = CAUSE.get() if cause else None
        if box is not None and box.token is not None:
            message["cause"] = box.token
        if answer is not None:
            with self._waiting_lock:
                self._waiting[request_id] = answer
        try:
            self._send(message)
        except ApiError:
            with self._waiting_lock:
                self._waiting.pop(request_id, None)
            raise

    def request_sync(self, method: str, params: dict[str, Any]) -> Any:
        """A request whose answer this thread waits for (the loop's thread too: the reader answers)."""
        answer: concurrent.futures.Future = concurrent.futures.Future()
        self._request(method, params, answer.set_result)
        try:
            reply = answer.result(SYNC_ANSWER_S)
        except concurrent.futures.TimeoutError:
            raise Unavailable(i18n.message("no_outcome")) from None
        return _result(reply)

    def tell(self, method: str, params: dict[str, Any]) -> None:
        """A request whose answer nobody waits for."""
        try:
            self._request(method, params, None)
        except ApiError:
            pass  # gone: the next connection tells again

    # ---- what launcherd sends -----------------------------------------------------------------

    def _serve(self, message: dict[str, Any]) -> None:
        self.seen += 1
        box = CauseBox(message.get("cause") if isinstance(message.get("cause"), int) else None)
        asyncio.ensure_future(self._answer(message.get("forward"), message.get("method"),
                                           message.get("params"), message.get("lang"), box))

    async def _answer(self, fid: Any, method: Any, params: Any, lang: Any, box: CauseBox) -> None:
        CAUSE.set(box)  # this task's own context: what its handler starts answers this request
        lang = lang if lang in i18n.LANGUAGES else None
        result: Any = None
        body: dict[str, Any] | None = None
        with i18n.speaking(lang):
            try:
                found, checked = self.registry.check(method, params)
                result = found.handler(checked)
                if inspect.isawaitable(result):
                    result = await result
            except ApiError as exc:
                body = {"error": exc.to_json()}
            except Exception as exc:  # a bug in a handler must not take the game down
                log.error("internal error in %s", method, exc_info=exc)
                body = {"error": ApiError(ApiError.INTERNAL_ERROR, f"internal error: {exc}").to_json()}
            self.send_status()  # before the reply: a status/get after it sees what it did
            if body is not None:
                line = json.dumps({"forward": fid, "reply": body}, separators=(",", ":"), default=str)
            elif isinstance(result, Encoded):
                line = f'{{"forward":{int(fid)},"reply":{{"result":{result}}}}}'
            else:
                line = json.dumps({"forward": fid, "reply": {"result": result}}, separators=(",", ":"),
                                  default=str)
        try:
            self._send_line(line.encode() + b"\n")
        except ApiError:
            pass  # launcherd is gone: the client heard so from it

    def _deliver(self, message: dict[str, Any]) -> None:
        self.seen += 1
        self._take_launcher(message.get("launcher"))
        token = message.get("cause")
        context = contextvars.copy_context()
        self._delivering = True
        try:
            context.run(self._listen, str(message.get("event")), message.get("params") or {},
                        CauseBox(token if isinstance(token, int) else None))
        finally:
            self._delivering = False
        self._status_soon()

    def _listen(self, name: str, params: dict[str, Any], box: CauseBox) -> None:
        CAUSE.set(box)  # the tasks the listeners start keep it
        for listener in list(self._listeners):
            try:
                listener(name, params)
            except Exception:
                log.exception("game listener failed on %s", name)

    def _take_launcher(self, launcher: Any) -> None:
        if isinstance(launcher, dict):
            self._launcher = launcher
            self._hopper = launcher.get("hopper")

    def _status_soon(self) -> None:
        if not self._status_due:
            self._status_due = True
            self.loop.call_soon(self.send_status)

    def send_status(self) -> None:
        """``system/game-status``: the status keys in every language, and how much was taken in."""
        self._status_due = False
        snapshot = {}
        for lang in i18n.LANGUAGES:
            shown = {}
            with i18n.speaking(lang):
                for name, provider in self._status_providers.items():
                    try:
                        shown[name] = provider()
                    except Exception as exc:
                        log.exception("status of %s failed", name)
                        shown[name] = {"error": str(exc)}
            snapshot[lang] = shown
        self.tell("system/game-status", {"status": snapshot, "seen": self.seen})

    # ---- the layer interface (firmware/daemon/layer.py) ---------------------------------------

    @property
    def api(self) -> "SocketHost":
        return self

    def subscribe(self, listener: Callable[[str, dict[str, Any]], None]) -> None:
        self._listeners.append(listener)

    def publish(self, name: str, params: dict[str, Any]) -> None:
        self.tell("system/publish", {"name": name, "params": params})
        self._status_soon()

    async def call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        answer = self.loop.create_future()

        def give(reply: dict[str, Any]) -> None:
            self._post(_give, answer, reply)

        self._request(method, params or {}, give, cause=True)
        return _result(await answer)

    def register(self, name: str, handler: Callable[[dict[str, Any]], Any], params: dict[str, Any] | None = None,
                 doc: str = "", version: Callable[[], Any] | None = None) -> None:
        if version is not None:
            handler = kept_replies(handler, version)
        self.registry.register(name, handler, params, doc)

    def add_status(self, name: str, provider: Callable[[], Any]) -> None:
        self._status_providers[name] = provider

    def on_close(self, closer: Callable[[], Any]) -> None:
        self._closers.append(closer)

    def run_closers(self) -> None:
        for closer in self._closers:
            try:
                closer()
            except Exception:
                log.exception("closing the game failed")
        self._closers.clear()

    def watch_feedback(self, watcher: Callable[[Any], None]) -> None:
        """LED and chime actions stay in launcherd: the game process is not told them."""

    @property
    def hopper(self) -> int | None:
        """The copy that came with the event being taken in (launcherd's as the event was sent: a
        round trip per event held the loop, one launch after another); else asked of launcherd now,
        since a reload while the launcher is ready changes it with no event."""
        if self._delivering:
            return self._hopper
        try:
            self._take_launcher(self.request_sync("system/launcher", {}).get("launcher"))
        except ApiError:
            pass  # launcherd is away: the last copy it is
        return self._hopper

    def launcher_status(self) -> dict[str, Any]:
        return dict(self._launcher)

    def outcomes_after(self, seq: int, record: str | None = None) -> list[dict[str, Any]]:
        return self.request_sync("outcomes/after", {"seq": seq, "record": record})

    def outcomes_logged(self, seq: int) -> None:
        self.tell("outcomes/logged", {"seq": seq})


# How many replies of one read method are kept for one version of what it reads (params differ).
KEPT_REPLIES = 32


def kept_replies(handler: Callable[[dict[str, Any]], Any], version: Callable[[], Any]) -> Callable[[dict[str, Any]], Any]:
    """``handler``, a read whose reply depends only on its params, the language and ``version()``:
    while ``version()`` stays the same, a reply once encoded is sent again as it is (readers asking
    statistics and history in a loop over a long log cost the game one encoding per change)."""
    kept: dict[tuple[str | None, str], Encoded] = {}
    seen: list[Any] = [object()]  # the version the kept replies are of (none yet)

    async def reading(params: dict[str, Any]) -> Encoded:
        now = version()
        if now != seen[0]:
            kept.clear()
            seen[0] = now
        key = (i18n.requested(), repr(sorted(params.items())))
        reply = kept.get(key)
        if reply is None:
            result = handler(params)
            if inspect.isawaitable(result):
                result = await result
            reply = result if isinstance(result, Encoded) else Encoded(
                json.dumps(result, separators=(",", ":"), default=str))
            if version() == now:  # nothing was written meanwhile: the reply is of this version
                if len(kept) >= KEPT_REPLIES:
                    del kept[next(iter(kept))]
                kept[key] = reply
        return reply
    return reading


def _give(answer: asyncio.Future, reply: dict[str, Any]) -> None:
    if not answer.done():
        answer.set_result(reply)


def _result(reply: dict[str, Any]) -> Any:
    if "error" in reply:
        if not reply["error"]:
            raise _gone()
        raise reply_error(reply["error"])  # the exception the game code knows: Refused, Unavailable, ...
    return reply.get("result")


__all__ = ["CAUSE", "CauseBox", "SocketHost"]
