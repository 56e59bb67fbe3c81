"""launcher-web: the table page, its HTTP API and a WebSocket of live events (docs/web.md).

Anyone who can reach the page may look; every action needs the table's join code in the
``X-Join-Code`` header, checked by launcherd (``game/code/check``); a phone that gave the right code
gets a session cookie and is not checked again until the code is rotated, which cuts phones off at
once. Guesses, readers, foreign names and other origins are held off by :mod:`.guard`, connections by
:mod:`.connections` (docs/web.md "What the page protects"). The page and every phone use the same API: nothing here keeps game
state; it is all asked of launcherd, whose refusals come back as 4xx with its structured error.

Every reply is in the reader's language (:func:`choose_language`: ``?lang=``, else the browser's
``Accept-Language``, else ``--lang``): launcherd renders its own texts in the language the request
carries, and the message objects kept or relayed here (``game/message`` events) are rendered with
``controller.text.messages.render``.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import logging
import signal
import sys
from collections import deque
from pathlib import Path
from typing import Any

import segno
from aiohttp import WSMsgType, web

from firmware import test_hooks
from firmware.daemon.registry import MAX_NESTING, too_deep
from firmware.errors import ApiError
from firmware.paths import client_socket

from controller.text.messages import LANGUAGES, default_language
from controller.web.connections import (ACCEPT_BACKLOG, HEADER_TIMEOUT_S, HEADER_TIMEOUT_VARIABLE, KEEPALIVE_S,
                                        KEEPALIVE_VARIABLE, Gate, MalformedRequests)
from controller.web.guard import HEAVY_READ_COST, CodeGuard, HostRule, ReadLimit, Summary
from controller.web.lan import listens_everywhere, page_url, parse_listen
from controller.web.link import DaemonDown, Link
from controller.web.page_texts import (
    CODE_HEADER, choose_language, last_burst, launcher_advice, localized_params, own_message, own_text, shown,
    shown_sent, words,
)

log = logging.getLogger("launcher-web")

STATIC = Path(__file__).with_name("static")
# Set after one right code: the phone's later actions are not checked (nor counted) again.
SESSION_COOKIE = "launcher_session"
NEW_SESSION = web.RequestKey("new_session", str)  # the token to set as the cookie on this reply
DEFAULT_LISTEN = "0.0.0.0:8080"
# Reading needs no code; everything else under game/ changes the table.
READ_METHODS = frozenset({"game/status", "game/log", "game/scores", "game/history", "game/rules",
                          "game/stats"})
# Never relayed: the code itself is for launcherctl and the demo screen, not for the LAN.
PRIVATE_METHODS = frozenset({"game/code", "game/code/check"})
HTTP_STATUS = {
    ApiError.PARSE_ERROR: 400, ApiError.INVALID_REQUEST: 400, ApiError.INVALID_PARAMS: 400,
    ApiError.METHOD_NOT_FOUND: 404, ApiError.NOT_FOUND: 404, ApiError.REFUSED: 409,
    ApiError.UNAVAILABLE: 409,
}
# Readings that replay the whole log: they count for more against a reader's allowance.
HEAVY_READS = frozenset({"/api/stats", "/api/scores.csv", "/api/game/stats", "/api/game/history",
                         "/api/game/log"})
MESSAGES_KEPT = 30
# POST /api/render: the message objects said again at once (a page keeps a few: its answer, its refusal).
RENDERED_AT_ONCE = 32
# /api/state's page of the match's log (game/log's last actions), where it finds the last burst.
STATE_LOG_ACTIONS = 100
# Events waiting for one page; a burst of cards is a few dozen. Past this the page is not reading.
EVENTS_QUEUED = 256

def error_body(code: Any, message: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": message}}


class WebApp:
    """The aiohttp application around one link to launcherd; ``lang`` is the language of a reader
    whose browser asks for none of the page's (None: the locale's)."""

    def __init__(self, socket_path: str | Path, public_url: str | None = None, lang: str | None = None,
                 allowed_hosts: list[str] | tuple[str, ...] = (), listen: tuple[str, int] | None = None):
        self.link = Link(socket_path, self._on_event)
        self.public_url = public_url
        # Where it listens: on every address, the QR code carries the LAN address (lan.py), which a
        # phone can open, and never the 127.0.0.1 a browser on the Pi itself used.
        self.listen = listen
        self.guard = CodeGuard()
        self.reads = ReadLimit()
        self.hosts = HostRule([*allowed_hosts, *([public_url] if public_url else [])],
                              listen_host=listen[0] if listen else None)
        self.gate: Gate | None = None  # set by serve(): the connections' bookkeeping
        self.refused_codes = Summary(log, "join codes refused")
        self.refused_requests = Summary(log, "requests refused")
        self.malformed = MalformedRequests()  # on aiohttp's server logger, by serve()
        self.lang = lang or default_language()
        # Each open page's queue of events and its language.
        self.sockets: dict[web.WebSocketResponse, tuple[asyncio.Queue, str]] = {}
        self.messages: deque[dict[str, Any]] = deque(maxlen=MESSAGES_KEPT)
        self._message_no = 0
        # The log as /api/state last found its last burst: the changes seen (each game/action event,
        # each link change) and the burst, or the page's reading under way.
        self._log_changes = 0
        self._kept_burst: tuple[tuple[Any, int], asyncio.Future] | None = None
        self._closing: set[asyncio.Future] = set()
        self._flusher: asyncio.Task | None = None

    def build(self) -> web.Application:
        app = web.Application(middlewares=[self._guarded])
        app.router.add_get("/", self.index)
        app.router.add_get("/favicon.ico", self.favicon)
        app.router.add_static("/static/", STATIC)
        app.router.add_get("/api/state", self.state)
        app.router.add_get("/api/words", self.words)
        app.router.add_get("/api/stats", self.stats)
        app.router.add_get("/api/scores.csv", self.scores_csv)
        app.router.add_get("/api/qr.svg", self.qr)
        app.router.add_get("/api/events", self.events)
        app.router.add_post("/api/code/check", self.code_check)
        app.router.add_post("/api/render", self.render_messages)
        app.router.add_post("/api/press", self.press)
        app.router.add_post("/api/reload", self.reload)
        app.router.add_post("/api/resume", self.resume)
        app.router.add_post("/api/reset", self.reset)
        app.router.add_post("/api/turn-up", self.turn_up)
        app.router.add_post("/api/{method:game/.+}", self.game_method)
        app.on_startup.append(self._startup)
        app.on_shutdown.append(self._shutdown)
        return app

    async def _startup(self, app: web.Application) -> None:
        self.link.start()
        self._flusher = asyncio.ensure_future(self._flush_summaries())

    async def _shutdown(self, app: web.Application) -> None:
        if self._flusher is not None:
            self._flusher.cancel()
        for ws in list(self.sockets):
            await ws.close()
        await self.link.close()

    async def _flush_summaries(self) -> None:
        """The once-a-minute log lines come out even when nothing new happens."""
        while True:
            await asyncio.sleep(1.0)
            for summary in (self.refused_codes, self.refused_requests, *self.malformed.summaries(),
                            *(self.gate.summaries() if self.gate else ())):
                summary.flush()

    @web.middleware
    async def _guarded(self, request: web.Request, handler) -> web.StreamResponse:
        """Before any handler: the Host, the Origin of what acts, the allowance of a reader that has
        not joined; after it, the session cookie of a phone that just gave the right code."""
        address = request.remote or "?"
        lang = self.language(request)
        host = request.headers.get("Host")
        if host is not None and not self.hosts.allows(host):
            self.refused_requests.note(address, f"{address} asked for the foreign host {host[:80]!r}")
            raise _own_error(421, "host", lang, "foreign_host", {"host": host[:80]})
        origin = request.headers.get("Origin")
        acts = request.method not in ("GET", "HEAD") or request.headers.get("Upgrade", "").lower() == "websocket"
        if acts and origin is not None and not self.hosts.same_origin(origin, host or "", _local_address(request)):
            self.refused_requests.note(address, f"{request.method} {request.path} from {address}"
                                                f" of the origin {origin[:80]!r}")
            raise _own_error(403, "origin", lang, "foreign_origin", {"origin": origin[:80]})
        joined = self.guard.session_holds(request.cookies.get(SESSION_COOKIE), None)
        if not joined and not _acts_on_the_table(request):
            wait = self.reads.take(address, HEAVY_READ_COST if request.path in HEAVY_READS else 1.0)
            if wait:
                self.refused_requests.note(address, f"{address} reads too fast ({request.path})")
                raise _own_error(429, "too_many", lang, "too_many_reads", {"seconds": max(1.0, wait)},
                                 headers={"Retry-After": str(max(1, round(wait)))})
        if self.gate is not None:
            self.gate.request_started(request.transport)
        try:
            response = await handler(request)
        finally:
            if self.gate is not None:
                self.gate.request_ended(request.transport)
        if NEW_SESSION in request:
            response.set_cookie(SESSION_COOKIE, request[NEW_SESSION], httponly=True, samesite="Strict", path="/")
        return response

    # ---- events ------------------------------------------------------------------------------

    def language(self, request: web.Request) -> str:
        """The language the reader of this request asked for (:func:`choose_language`)."""
        return choose_language(request.query.get("lang"), request.headers.get("Accept-Language"), self.lang)

    def _on_event(self, name: str, params: dict[str, Any]) -> None:
        if name in ("game/action", "link"):
            self._log_changes += 1  # the last burst /api/state keeps is read again
        if name == "game/code_changed":
            self.guard.end_sessions()  # a rotated code cuts every phone off
        elif name == "link":
            # A launcherd that comes back may hold another code (or have rotated it while the link was
            # down): each session's code is checked again, once and uncounted, before it acts. Ending
            # them instead would send every phone to the guessing limit a guest may be filling.
            self.guard.suspend_sessions()
        if name == "game/message":
            self._message_no += 1
            # The object, when the daemon sends one, so that each reader gets it in their language.
            self.messages.append({"n": self._message_no, "message": params.get("message"),
                                  "text": params.get("text")})
        lines = {lang: json.dumps({"event": name, "params": localized_params(params, lang)}, default=str)
                 for lang in LANGUAGES}
        for ws, (queue, lang) in list(self.sockets.items()):
            try:
                queue.put_nowait(lines[lang])
            except asyncio.QueueFull:
                # A page that stopped reading is closed; it reconnects and fetches the state anew.
                log.info("closing a WebSocket that is not reading")
                self.sockets.pop(ws, None)
                closing = asyncio.ensure_future(ws.close())
                self._closing.add(closing)  # a reference until done, or the loop may drop it
                closing.add_done_callback(self._closing.discard)

    async def events(self, request: web.Request) -> web.WebSocketResponse:
        """Relay every event to one page, in order, through its own queue."""
        ws = web.WebSocketResponse(heartbeat=20)
        await ws.prepare(request)
        queue: asyncio.Queue[str] = asyncio.Queue(EVENTS_QUEUED)
        queue.put_nowait(json.dumps({"event": "link", "params": {"connected": self.link.connected}}))
        self.sockets[ws] = (queue, self.language(request))
        sender = asyncio.ensure_future(self._send_all(ws, queue))
        try:
            async for message in ws:  # the page only listens; anything it sends is ignored
                if message.type == WSMsgType.ERROR:
                    break
        finally:
            self.sockets.pop(ws, None)
            sender.cancel()
        return ws

    @staticmethod
    async def _send_all(ws: web.WebSocketResponse, queue: asyncio.Queue) -> None:
        try:
            while True:
                await ws.send_str(await queue.get())
        except (ConnectionError, RuntimeError):
            pass  # the page went away: the receiving side ends the handler

    # ---- talking to launcherd ----------------------------------------------------------------

    async def _call(self, method: str, params: dict[str, Any] | None = None, lang: str | None = None) -> Any:
        try:
            return await self.link.call(method, params, lang=lang)
        except DaemonDown as exc:
            raise _unreachable(exc, lang or self.lang) from None
        except ApiError as exc:
            raise _json_error(HTTP_STATUS.get(exc.code, 500), exc.code, exc.message,
                              message_object=exc.message_object, details=exc.data) from None

    async def _require_code(self, request: web.Request) -> None:
        """403 unless the request carries the table's join code, or the session of a phone that gave
        it; 429 past the guessing limits, which count each guess before it is checked."""
        address = request.remote or "?"
        lang = self.language(request)
        code = request.headers.get(CODE_HEADER)
        token = request.cookies.get(SESSION_COOKIE)
        granted = self.guard.unconfirmed_code(token)
        if granted is not None:  # launcherd came back since this session was made: still that code?
            answer = await self._call("game/code/check", {"code": granted}, lang)
            self.guard.confirm(granted, bool(answer.get("valid")))
        if self.guard.session_holds(token, code):
            return
        refused = f"refused {request.method} {request.path} from {address}"
        wait = self.guard.wait_s(address)
        if wait:
            self.refused_codes.note(address, f"{refused}: too many join codes tried")
            raise _own_error(429, "join_code", lang, "too_many_codes", {"seconds": max(1.0, wait)},
                             headers={"Retry-After": str(max(1, round(wait)))})
        if not code:
            self.refused_codes.note(address, f"{refused}: no join code")
            raise _own_error(403, "join_code", lang, "no_code")
        guess = self.guard.begin(address)
        answer = await self._call("game/code/check", {"code": code}, lang)
        if not answer.get("valid"):
            self.refused_codes.note(address, f"{refused}: wrong join code")
            raise _own_error(403, "join_code", lang, "wrong_code")
        self.guard.proved_right(guess)
        request[NEW_SESSION] = self.guard.open_session(code)

    async def _body(self, request: web.Request) -> dict[str, Any]:
        if not request.can_read_body:
            return {}
        lang = self.language(request)
        try:
            async with asyncio.timeout(HEADER_TIMEOUT_S):
                raw = await request.read()
        except TimeoutError:
            raise _own_error(408, ApiError.INVALID_REQUEST, lang, "slow_body", {"seconds": HEADER_TIMEOUT_S}) from None
        try:
            body = json.loads(raw)
        except RecursionError:
            raise _too_deep(lang) from None
        except ValueError:
            raise _json_error(400, ApiError.PARSE_ERROR, "the body is not valid JSON") from None
        if too_deep(body):  # launcherd would refuse it too, but encoding it for the link would overflow first
            raise _too_deep(lang)
        if not isinstance(body, dict):
            raise _json_error(400, ApiError.INVALID_PARAMS, "the body must be a JSON object of parameters")
        return body

    # ---- handlers ----------------------------------------------------------------------------

    async def index(self, request: web.Request) -> web.FileResponse:
        return web.FileResponse(STATIC / "index.html")

    async def favicon(self, request: web.Request) -> web.Response:
        return web.Response(body=FAVICON, content_type="image/svg+xml",
                            headers={"Cache-Control": "max-age=86400"})

    async def state(self, request: web.Request) -> web.Response:
        lang = self.language(request)
        launcher = await self._call("status/get", lang=lang)
        game = launcher.pop("game", None)
        layer = launcher.pop("game_layer", None)  # whether launcherd's game layer is up (None: no layer)
        if layer is not None:
            layer = {"state": layer.get("state"), "reason_object": layer.get("reason_object"),
                     "reason": shown(layer.get("reason_object"), lang, layer.get("reason"))}
        state: dict[str, Any] = {
            "lang": lang,  # the language of every text below: the page shows its own labels in it
            "connected": True,
            "sim": bool((launcher.get("daemon") or {}).get("sim")),
            "launcher": launcher,
            "launcher_advice": launcher_advice(launcher, lang),
            "game": game if game and "ruleset" in game else None,
            "game_error": (game or {}).get("error") if game else own_text("no_game", lang),
            "game_damage": (game or {}).get("damage"),  # why there is no game: the log's damage
            "game_layer": layer,
            "scores": None,
            "last_burst": None,
            "messages": [{**kept, "text": shown(kept["message"], lang, kept["text"])} for kept in self.messages],
        }
        if game is None and layer is not None and layer["state"] != "up":
            state["game_error"] = layer["reason"]  # not "no game yet": the game cannot be asked now
        if state["game"] is not None:
            # game/status reads the hopper afresh: a reload while ready is no event, and status/get's
            # copy of the game would still advise reloading.
            state["game"] = await self._call("game/status", lang=lang)
            # A damaged log may refuse these while the status still says what is wrong: show that.
            state["scores"] = await self._optional("game/scores", lang)
            state["last_burst"] = await self._last_burst(state["game"].get("match_id"), lang)
        return web.json_response(state)

    async def _last_burst(self, match_id: Any, lang: str) -> dict[str, Any] | None:
        """The match's last burst, found once per change of its log and kept (one reading for
        every state asked meanwhile, however many guests ask at once).

        A state is asked by every phone after every event: the whole log (262 KB at 2,000 actions)
        took thirty guests' states from 52 ms to 1.4 s, and even its last page is a reading that
        launcherd serves at its readings' pace, shared by every client, which put a phone's state
        behind the guests' (a second with thirty). The last page, not the whole log: a burst's
        late cards follow its press closely."""
        key = (match_id, self._log_changes)  # before the reading: a change during it reads again
        kept = self._kept_burst
        if kept is None or kept[0] != key:
            kept = self._kept_burst = (key, asyncio.ensure_future(self._read_last_burst(lang)))
        try:
            found, refused = await asyncio.shield(kept[1])
        except Exception:
            if self._kept_burst is kept:
                self._kept_burst = None  # an unreachable daemon: asked again by the next state
            raise
        if refused and self._kept_burst is kept:
            self._kept_burst = None  # a log that refuses its page now (damaged) is asked again
        return found

    async def _read_last_burst(self, lang: str) -> tuple[dict[str, Any] | None, bool]:
        """(the last burst in the log's last page, whether launcherd refused the page)."""
        log_of_match = await self._optional("game/log", lang, {"limit": STATE_LOG_ACTIONS})
        return (last_burst(log_of_match["actions"]) if log_of_match else None), log_of_match is None

    async def words(self, request: web.Request) -> web.Response:
        return web.json_response(words(self.language(request)))

    async def _optional(self, method: str, lang: str, params: dict[str, Any] | None = None) -> Any:
        """A reading that may be refused (None then); only an unreachable daemon is an error."""
        try:
            return await self.link.call(method, params, lang=lang)
        except DaemonDown as exc:
            raise _unreachable(exc, lang) from None
        except ApiError:
            return None

    async def game_method(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        if method in PRIVATE_METHODS:
            raise _json_error(404, ApiError.METHOD_NOT_FOUND, f"{method} is not available over HTTP")
        if method not in READ_METHODS:
            await self._require_code(request)
        params = await self._body(request)
        return web.json_response(await self._call(method, params, self.language(request)))

    async def stats(self, request: web.Request) -> web.Response:
        params = {}
        if "match" in request.query:
            try:
                params["match"] = int(request.query["match"])
            except ValueError:
                raise _json_error(400, ApiError.INVALID_PARAMS, "match must be a whole number") from None
        return web.json_response(await self._call("game/stats", params, self.language(request)))

    async def scores_csv(self, request: web.Request) -> web.Response:
        result = await self._call("game/scores", {"csv": True}, self.language(request))
        return web.Response(text=result["csv"], content_type="text/csv", charset="utf-8",
                            headers={"Content-Disposition": 'attachment; filename="scores.csv"'})

    async def press(self, request: web.Request) -> web.Response:
        await self._require_code(request)
        return web.json_response(await self._call("launcher/press", lang=self.language(request)))

    async def reload(self, request: web.Request) -> web.Response:
        await self._require_code(request)
        body = await self._body(request)
        return web.json_response(await self._call("launcher/reload", {"cards": body.get("cards")},
                                                  self.language(request)))

    async def resume(self, request: web.Request) -> web.Response:
        """"Go on": what waits for a person's press (a dispense after a jam, ...) may move."""
        await self._require_code(request)
        return web.json_response(await self._call("launcher/resume", lang=self.language(request)))

    async def reset(self, request: web.Request) -> web.Response:
        """"Reset": the launcher leaves halted (a fault, an e-stop, launcherd ended with the motor on),
        as launcherctl reset does; what was pending still waits for a press."""
        await self._require_code(request)
        return web.json_response(await self._call("system/reset", lang=self.language(request)))

    async def turn_up(self, request: web.Request) -> web.Response:
        """"Turn up the first card": the launcher deals one card, face up; the table then says which
        it is (game/turn-up). One card, never more: this is no way to dispense at will."""
        await self._require_code(request)
        return web.json_response(await self._call("launcher/dispense", {"count": 1}, self.language(request)))

    def page_base(self, request: web.Request) -> str:
        """The page's address for a phone: --url, else the LAN address when listening on every
        address, else the address this browser used."""
        if self.public_url:
            return self.public_url
        if self.listen is not None and listens_everywhere(self.listen[0]):
            url = page_url(*self.listen)
            if url:
                return url
        return f"{request.scheme}://{request.host}/"

    async def render_messages(self, request: web.Request) -> web.Response:
        """``{"messages": [objects]}`` as ``{"lang", "texts"}`` in the reader's language: a page's answers
        said again after a switch of language (#40); null for what does not render. No code needed."""
        lang = self.language(request)
        messages = (await self._body(request)).get("messages")
        if not isinstance(messages, list) or len(messages) > RENDERED_AT_ONCE:
            raise _json_error(400, ApiError.INVALID_PARAMS,
                              f"messages must be a list of at most {RENDERED_AT_ONCE} message objects")
        return web.json_response({"lang": lang, "texts": [shown_sent(message, lang) for message in messages]})

    async def code_check(self, request: web.Request) -> web.Response:
        await self._require_code(request)
        return web.json_response({"valid": True})

    async def qr(self, request: web.Request) -> web.Response:
        """The page's address with the code, as an SVG QR code; only for whoever has the code."""
        await self._require_code(request)
        base = self.page_base(request)
        # A phone that joined may ask without the code in its header: its session's code is the table's.
        code = request.headers.get(CODE_HEADER) or self.guard.session_code(request.cookies.get(SESSION_COOKIE))
        url = f"{base}{'&' if '?' in base else '?'}code={code}"
        out = io.BytesIO()
        segno.make(url, error="m").save(out, kind="svg", scale=6, border=2, xmldecl=False,
                                        dark="#000", light="#fff")
        return web.Response(body=out.getvalue(), content_type="image/svg+xml",
                            headers={"Cache-Control": "no-store", "X-Page-Url": url})


# A card with a launch arrow, for the browser's tab (no 404 in its log).
FAVICON = (b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">'
           b'<rect x="6" y="3" width="20" height="26" rx="4" fill="#e53935" stroke="#fff" stroke-width="2"/>'
           b'<path d="M16 8v14M10 14l6-6 6 6" stroke="#ffd54a" stroke-width="3" fill="none"/></svg>')

_ERRORS = {400: web.HTTPBadRequest, 403: web.HTTPForbidden, 404: web.HTTPNotFound, 408: web.HTTPRequestTimeout,
           409: web.HTTPConflict, 421: web.HTTPMisdirectedRequest, 429: web.HTTPTooManyRequests,
           503: web.HTTPServiceUnavailable}


def _local_address(request: web.Request) -> str | None:
    """The address of this machine the request came to (the page's own, whatever the Host says)."""
    sockname = request.transport.get_extra_info("sockname") if request.transport is not None else None
    return sockname[0] if isinstance(sockname, tuple) and sockname else None


def _acts_on_the_table(request: web.Request) -> bool:
    """Whether the request needs the join code (and meets the guessing limit, not the readers')."""
    if request.method != "POST":
        return request.path == "/api/qr.svg"
    method = request.path.removeprefix("/api/")
    return method not in READ_METHODS and method != "render"


def _json_error(status: int, code: Any, message: str, message_object: dict[str, Any] | None = None,
                details: dict[str, Any] | None = None, headers: dict[str, str] | None = None,
                **extra: Any) -> web.HTTPException:
    """An HTTP error with launcherd's error object: its code, its text, its message object (for a
    client that renders it) and its details (``retry_after_s``)."""
    body = error_body(code, message)
    body["error"].update(details or {})
    if message_object is not None:
        body["error"]["message_object"] = message_object
    kind = _ERRORS.get(status, web.HTTPInternalServerError)
    return kind(text=json.dumps({**body, **extra}), content_type="application/json", headers=headers)


def _own_error(status: int, code: Any, lang: str, key: str, params: dict[str, Any] | None = None,
               headers: dict[str, str] | None = None, **extra: Any) -> web.HTTPException:
    """An HTTP error in launcher-web's own words (:data:`page_texts.TEXTS`), with its message object
    (:func:`page_texts.own_message`): a page that switches language says it again in the new one."""
    params = params or {}
    return _json_error(status, code, own_text(key, lang, **params), message_object=own_message(key, **params),
                       headers=headers, **extra)


def _too_deep(lang: str) -> web.HTTPException:
    return _own_error(400, ApiError.INVALID_PARAMS, lang, "too_deep", {"levels": MAX_NESTING})


def _unreachable(exc: DaemonDown, lang: str) -> web.HTTPException:
    return _own_error(503, "unreachable", lang, "unreachable", {"reason": str(exc)}, connected=False)


# ---- command line ----------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="launcher-web",
                                     description="The table page: the game on every phone at the table.")
    parser.add_argument("--socket", metavar="PATH",
                        help="launcherd's socket (default: $LAUNCHER_SOCKET, the service's, else the sim's)")
    parser.add_argument("--listen", default=DEFAULT_LISTEN, metavar="HOST:PORT",
                        help=f"where to serve the page (default {DEFAULT_LISTEN})")
    parser.add_argument("--url", metavar="URL",
                        help="the page's address for the QR code (default: the address the browser used)")
    parser.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                        help="one more name the page answers to (repeatable); IP addresses, localhost,"
                             " this machine's names and NAME.local are always allowed")
    parser.add_argument("--lang", choices=LANGUAGES,
                        help="the page's language for a browser that asks for neither"
                             " (default: from LANG / LC_ALL); each reader may switch")
    parser.add_argument("--verbose", "-v", action="store_true", help="debug logging")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO,
                        format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    try:
        host, port = parse_listen(args.listen)
    except ValueError as exc:
        print(f"launcher-web: {exc}", file=sys.stderr)
        return 2
    path = client_socket(args.socket)
    page = WebApp(path, args.url, lang=args.lang, allowed_hosts=args.allow_host, listen=(host, port))
    try:
        asyncio.run(serve(page, host, port, path))
    except OSError as exc:
        print(f"launcher-web: cannot listen on {args.listen}: {exc}", file=sys.stderr)
        return 1
    return 0


async def serve(page: WebApp, host: str, port: int, path: Path) -> None:
    """Serve the page until SIGTERM or SIGINT, every connection through the :class:`Gate`."""
    loop = asyncio.get_running_loop()
    runner = web.AppRunner(page.build(), access_log=None,
                           keepalive_timeout=test_hooks.seconds(KEEPALIVE_VARIABLE, KEEPALIVE_S))
    await runner.setup()
    page.gate = Gate(runner.server, header_timeout=test_hooks.seconds(HEADER_TIMEOUT_VARIABLE, HEADER_TIMEOUT_S))
    loop.set_exception_handler(page.gate.loop_exception)
    logging.getLogger("aiohttp.server").addFilter(page.malformed)
    stop = asyncio.Event()
    for number in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(number, stop.set)
    try:
        server = await loop.create_server(page.gate, host, port, reuse_address=True, backlog=ACCEPT_BACKLOG)
        shown = f"[{host}]" if ":" in host else host
        log.info("serving the table page on http://%s:%d/ (launcherd at %s; at most %d connections)",
                 shown, port, path, page.gate.limit)
        if listens_everywhere(host):
            log.info("phones open it at %s", page_url(host, port) or "(no network address found)")
        await stop.wait()
        server.close()
    finally:
        await runner.cleanup()


if __name__ == "__main__":
    sys.exit(main())
