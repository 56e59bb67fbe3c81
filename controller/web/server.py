"""launcher-web: the table page, its HTTP API and a WebSocket of live events (docs/web.md).

Anyone who can reach the page may look; every action needs the table's join code in the
``X-Join-Code`` header, checked by launcherd (``game/code/check``) on every request, so a rotated
code cuts phones off at once. The page and every phone use the same API: nothing here keeps game
state; it is all asked of launcherd, whose refusals come back as 4xx with its structured error.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import logging
import sys
import time
from collections import deque
from pathlib import Path
from typing import Any

import segno
from aiohttp import WSMsgType, web

from firmware.errors import ApiError
from firmware.paths import client_socket

from .link import DaemonDown, Link

log = logging.getLogger("launcher-web")

STATIC = Path(__file__).with_name("static")
CODE_HEADER = "X-Join-Code"
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
# Six digits are a million codes: a phone that gets this many wrong in a window waits it out.
WRONG_CODES_ALLOWED, WRONG_CODES_WINDOW_S = 10, 60.0
MESSAGES_KEPT = 30
# Events waiting for one page; a burst of cards is a few dozen. Past this the page is not reading.
EVENTS_QUEUED = 256

# What the table should do about each launcher state: a symbol beside the word, never colour alone.
LAUNCHER_ADVICE = {
    "ready": ("✔", "ready: the player whose move it is presses the button"),
    "launching": ("➜", "launching: cards are coming out"),
    "jammed": ("⚠", "jammed: pull the stuck card out of the slot"),
    "empty": ("⚠", "empty: reload the hopper, then enter how many cards it holds"),
    "sleeping": ("☾", "asleep: one press wakes it (that press launches nothing)"),
    "lid_open": ("⚠", "lid open: close the hopper lid"),
    "halted": ("⛔", "halted: {reason}; fix it, then run launcherctl reset"),
    "starting": ("…", "starting"),
}


def launcher_advice(status: dict[str, Any]) -> dict[str, str]:
    state = status.get("state") or "starting"
    symbol, text = LAUNCHER_ADVICE.get(state, ("?", state))
    return {"state": state, "symbol": symbol, "text": text.format(reason=status.get("reason") or "")}


def last_burst(actions: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The latest press of the match and what it gave, late cards included ("Bob took 4")."""
    burst = None
    for record in actions:
        action = record["action"]
        if record.get("undone"):
            continue
        if action.get("type") == "press":
            burst = {"player": action.get("by"), "cards": action["cards"], "press_id": action.get("press_id")}
        elif action.get("type") == "cards" and burst and action.get("press_id") == burst["press_id"]:
            burst["cards"] += action["cards"]
    return burst


def error_body(code: Any, message: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": message}}


class Guard:
    """Counts wrong codes per address; too many in the window and the address must wait."""

    def __init__(self, clock=time.monotonic):
        self.clock = clock
        self._wrong: dict[str, deque] = {}

    def blocked(self, address: str) -> bool:
        recent = self._wrong.get(address)
        if not recent:
            return False
        while recent and self.clock() - recent[0] > WRONG_CODES_WINDOW_S:
            recent.popleft()
        return len(recent) >= WRONG_CODES_ALLOWED

    def wrong(self, address: str) -> None:
        self._wrong.setdefault(address, deque()).append(self.clock())


class WebApp:
    """The aiohttp application around one link to launcherd."""

    def __init__(self, socket_path: str | Path, public_url: str | None = None, guard: Guard | None = None):
        self.link = Link(socket_path, self._on_event)
        self.public_url = public_url
        self.guard = guard or Guard()
        self.sockets: dict[web.WebSocketResponse, asyncio.Queue] = {}
        self.messages: deque[dict[str, Any]] = deque(maxlen=MESSAGES_KEPT)
        self._message_no = 0
        self._closing: set[asyncio.Future] = set()

    def build(self) -> web.Application:
        app = web.Application()
        app.router.add_get("/", self.index)
        app.router.add_static("/static/", STATIC)
        app.router.add_get("/api/state", self.state)
        app.router.add_get("/api/stats", self.stats)
        app.router.add_get("/api/scores.csv", self.scores_csv)
        app.router.add_get("/api/qr.svg", self.qr)
        app.router.add_get("/api/events", self.events)
        app.router.add_post("/api/code/check", self.code_check)
        app.router.add_post("/api/press", self.press)
        app.router.add_post("/api/reload", self.reload)
        app.router.add_post("/api/{method:game/.+}", self.game_method)
        app.on_startup.append(self._startup)
        app.on_shutdown.append(self._shutdown)
        return app

    async def _startup(self, app: web.Application) -> None:
        self.link.start()

    async def _shutdown(self, app: web.Application) -> None:
        for ws in list(self.sockets):
            await ws.close()
        await self.link.close()

    # ---- events ------------------------------------------------------------------------------

    def _on_event(self, name: str, params: dict[str, Any]) -> None:
        if name == "game/message":
            self._message_no += 1
            self.messages.append({"n": self._message_no, "text": params.get("text")})
        text = json.dumps({"event": name, "params": params}, default=str)
        for ws, queue in list(self.sockets.items()):
            try:
                queue.put_nowait(text)
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
        self.sockets[ws] = queue
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

    async def _call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        try:
            return await self.link.call(method, params)
        except DaemonDown as exc:
            raise _json_error(503, "unreachable", f"{exc}; reconnecting", connected=False) from None
        except ApiError as exc:
            raise _json_error(HTTP_STATUS.get(exc.code, 500), exc.code, exc.message) from None

    async def _require_code(self, request: web.Request) -> None:
        """403 unless the request carries the table's join code; each refusal is logged."""
        address = request.remote or "?"
        if self.guard.blocked(address):
            log.warning("refused %s %s from %s: too many wrong join codes", request.method, request.path, address)
            raise _json_error(429, "join_code", f"too many wrong join codes: wait {WRONG_CODES_WINDOW_S:.0f} s")
        code = request.headers.get(CODE_HEADER)
        if not code:
            log.warning("refused %s %s from %s: no join code", request.method, request.path, address)
            raise _json_error(403, "join_code", f"this action needs the table's join code ({CODE_HEADER})")
        answer = await self._call("game/code/check", {"code": code})
        if not answer.get("valid"):
            self.guard.wrong(address)
            log.warning("refused %s %s from %s: wrong join code", request.method, request.path, address)
            raise _json_error(403, "join_code", "wrong join code: ask the table for the current one")

    @staticmethod
    async def _body(request: web.Request) -> dict[str, Any]:
        if not request.can_read_body:
            return {}
        try:
            body = await request.json()
        except ValueError:
            raise _json_error(400, ApiError.PARSE_ERROR, "the body is not valid JSON") from None
        if not isinstance(body, dict):
            raise _json_error(400, ApiError.INVALID_PARAMS, "the body must be a JSON object of parameters")
        return body

    # ---- handlers ----------------------------------------------------------------------------

    async def index(self, request: web.Request) -> web.FileResponse:
        return web.FileResponse(STATIC / "index.html")

    async def state(self, request: web.Request) -> web.Response:
        launcher = await self._call("status/get")
        game = launcher.pop("game", None)
        shown: dict[str, Any] = {
            "connected": True,
            "sim": bool((launcher.get("daemon") or {}).get("sim")),
            "launcher": launcher,
            "launcher_advice": launcher_advice(launcher),
            "game": game if game and "ruleset" in game else None,
            "game_error": (game or {}).get("error") if game else "no game yet: start one below",
            "game_damage": (game or {}).get("damage"),  # why there is no game: the log's damage
            "scores": None,
            "last_burst": None,
            "messages": list(self.messages),
        }
        if shown["game"] is not None:
            # game/status reads the hopper afresh: a reload while ready is no event, and status/get's
            # copy of the game would still advise reloading.
            shown["game"] = await self._call("game/status")
            # A damaged log may refuse these while the status still says what is wrong: show that.
            shown["scores"] = await self._optional("game/scores")
            log_of_match = await self._optional("game/log")
            shown["last_burst"] = last_burst(log_of_match["actions"]) if log_of_match else None
        return web.json_response(shown)

    async def _optional(self, method: str) -> Any:
        """A reading that may be refused (None then); only an unreachable daemon is an error."""
        try:
            return await self.link.call(method)
        except DaemonDown as exc:
            raise _json_error(503, "unreachable", f"{exc}; reconnecting", connected=False) from None
        except ApiError:
            return None

    async def game_method(self, request: web.Request) -> web.Response:
        method = request.match_info["method"]
        if method in PRIVATE_METHODS:
            raise _json_error(404, ApiError.METHOD_NOT_FOUND, f"{method} is not available over HTTP")
        if method not in READ_METHODS:
            await self._require_code(request)
        params = await self._body(request)
        return web.json_response(await self._call(method, params))

    async def stats(self, request: web.Request) -> web.Response:
        params = {}
        if "match" in request.query:
            try:
                params["match"] = int(request.query["match"])
            except ValueError:
                raise _json_error(400, ApiError.INVALID_PARAMS, "match must be a whole number") from None
        return web.json_response(await self._call("game/stats", params))

    async def scores_csv(self, request: web.Request) -> web.Response:
        result = await self._call("game/scores", {"csv": True})
        return web.Response(text=result["csv"], content_type="text/csv", charset="utf-8",
                            headers={"Content-Disposition": 'attachment; filename="scores.csv"'})

    async def press(self, request: web.Request) -> web.Response:
        await self._require_code(request)
        return web.json_response(await self._call("launcher/press"))

    async def reload(self, request: web.Request) -> web.Response:
        await self._require_code(request)
        body = await self._body(request)
        return web.json_response(await self._call("launcher/reload", {"cards": body.get("cards")}))

    async def code_check(self, request: web.Request) -> web.Response:
        await self._require_code(request)
        return web.json_response({"valid": True})

    async def qr(self, request: web.Request) -> web.Response:
        """The page's address with the code, as an SVG QR code; only for whoever has the code."""
        await self._require_code(request)
        base = self.public_url or f"{request.scheme}://{request.host}/"
        url = f"{base}{'&' if '?' in base else '?'}code={request.headers[CODE_HEADER]}"
        out = io.BytesIO()
        segno.make(url, error="m").save(out, kind="svg", scale=6, border=2, xmldecl=False,
                                        dark="#000", light="#fff")
        return web.Response(body=out.getvalue(), content_type="image/svg+xml",
                            headers={"Cache-Control": "no-store", "X-Page-Url": url})


_ERRORS = {400: web.HTTPBadRequest, 403: web.HTTPForbidden, 404: web.HTTPNotFound, 409: web.HTTPConflict,
           429: web.HTTPTooManyRequests, 503: web.HTTPServiceUnavailable}


def _json_error(status: int, code: Any, message: str, **extra: Any) -> web.HTTPException:
    kind = _ERRORS.get(status, web.HTTPInternalServerError)
    return kind(text=json.dumps({**error_body(code, message), **extra}), content_type="application/json")


# ---- command line ----------------------------------------------------------------------------


def parse_listen(text: str) -> tuple[str, int]:
    """HOST:PORT (an IPv6 host in brackets) -> (host, port); ValueError says what is allowed."""
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or not 0 < int(port) < 65536 or not host:
        raise ValueError(f"--listen {text!r}: expected HOST:PORT, e.g. 0.0.0.0:8080 or [::]:8080")
    return host.strip("[]"), int(port)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="launcher-web",
                                     description="The table page: the game on every phone at the table.")
    parser.add_argument("--socket", metavar="PATH",
                        help="launcherd's socket (default: $LAUNCHER_SOCKET, the service's, else the sim's)")
    parser.add_argument("--listen", default=DEFAULT_LISTEN, metavar="HOST:PORT",
                        help=f"where to serve the page (default {DEFAULT_LISTEN})")
    parser.add_argument("--url", metavar="URL",
                        help="the page's address for the QR code (default: the address the browser used)")
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
    app = WebApp(path, args.url).build()
    shown = f"[{host}]" if ":" in host else host
    log.info("serving the table page on http://%s:%d/ (launcherd at %s)", shown, port, path)
    try:
        web.run_app(app, host=host, port=port, print=None, access_log=None)
    except OSError as exc:
        print(f"launcher-web: cannot listen on {args.listen}: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
