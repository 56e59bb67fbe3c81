"""launcherd's side of the game process (``launcher-game``): its one connection on the API socket.

The game (controller/) is a process of its own, a client of this socket like launcher-web. It
registers its methods (``system/register-game``), and from then on every ``game/*`` request of any
client is forwarded to it as it came, params undecoded by launcherd's registry, and its reply is
relayed back by splicing text: launcherd never decodes a game reply (a 100,000-action history costs
its loop a copy). The game's connection is told every launcher event with the press rule's cause
token and a fresh copy of the launcher's status; its calls name the cause they answer, and every
motion it asks is judged by the keeper here (firmware/daemon/keeper.py), whatever the game says.

With no game registered a ``game/*`` request is refused at once (Unavailable, with why); a forward
the game does not answer within :data:`FORWARD_TIMEOUT_S` (a stopped process) is refused; the
connection closing refuses every forward waiting on it. launcherd never waits for the game: the
motor, the button, the counting and every motor rule go on, and a press in a dealer game means
nothing while the game is away (never a random burst).

Everything here runs on the API's loop (firmware/daemon/api.py) but :meth:`GamePort.event`,
:meth:`GamePort.registered`, :meth:`GamePort.settled` and :meth:`GamePort.call`, which run on the
motor's.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import os
import re
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from firmware import i18n
from firmware.daemon.keeper import MOTION_METHODS, PressKeeper
from firmware.daemon.registry import Param, _short, encode
from firmware.errors import ApiError, InvalidParams, Refused, Unavailable

if TYPE_CHECKING:
    from firmware.daemon.connection import Client, Turn

log = logging.getLogger("launcherd.game")

# A forwarded request the game has not answered within this long is refused (a stopped process).
FORWARD_TIMEOUT_S = 15.0
# How long a ``game/*`` request waits for the game's first registration since launcherd started
# (``launcherd --sim &`` and a command at once, as the README does) before it is refused; a game
# that went away is refused at once.
START_WAIT_S = 10.0
# How long ``status/get`` waits for the game to take in what was sent to it before (then: its last status).
SETTLE_WAIT_S = 0.25
SETTLE_POLL_S = 0.005
GAME_PREFIX = "game/"
REGISTER = "system/register-game"
# The methods only the registered game connection may call.
GAME_ONLY = frozenset({"system/publish", "system/game-status", "system/launcher", "outcomes/after",
                       "outcomes/logged"})
_TYPES = {"int": int, "float": float, "str": str, "bool": bool, "list": list, "dict": dict}
_REPLY_HEAD = re.compile(rb'\{"forward":(\d+),"reply":')


@dataclass
class Forward:
    """A ``game/*`` request on its way to the game and back."""

    fid: int
    game: "Client"  # the game connection it was written to
    client: "Client | None"  # who asked (None: a caller inside launcherd)
    turn: "Turn | None"
    request_id: Any
    method: str
    lang: str | None
    answer: asyncio.Future  # on the API's loop: the reply's body (bytes), or an ApiError
    timer: asyncio.TimerHandle | None = field(default=None)


class GamePort:
    """The registered game connection, the forwards waiting on it, and what ``status/get`` shows of it."""

    def __init__(self, daemon: Any):
        self.daemon = daemon
        self.api = daemon.api
        self.keeper = PressKeeper()
        self.game: Client | None = None
        self.pid: int | None = None
        self.methods: list[dict[str, Any]] = []
        self.state = "starting"
        self.reason: dict[str, Any] | None = i18n.message("game_layer_starting")
        self.snapshot: dict[str, dict[str, Any]] = {}
        self._forwards: dict[int, Forward] = {}
        self._fids = itertools.count(1)
        self._counting = threading.Lock()
        self.sent = 0  # events and forwards written to the current game connection
        self.seen = 0  # of those, how many it says it has taken in
        self.told_press = False  # the current game connection said what a press means
        self.closing = False
        self._pids: set[Any] = set()  # of every game process that registered
        self._first: list[asyncio.Future] = []  # requests waiting for the first registration (API loop)
        self.registry = daemon.registry
        self.registry.register(REGISTER, self.registered, {"methods": list, "pid": Param(int, 0)},
                               doc="the game process registers its methods (its connection only)")
        self.registry.register("system/publish", self._publish, {"name": str, "params": (dict, None)},
                               doc="the game publishes one of its events (its connection only)",
                               on_any_loop=True)
        self.registry.register("system/game-status", self._status_in, {"status": dict, "seen": Param(int, 0)},
                               doc="the game's status keys for status/get (its connection only)",
                               on_any_loop=True)
        self.registry.register("system/launcher", self._launcher, doc="the launcher's status and hopper,"
                               " fresh (the game connection only)")
        self.registry.register("outcomes/after", self._outcomes_after,
                               {"seq": Param(int, minimum=0), "record": (str, None)},
                               doc="the launch outcomes recorded after seq (the game's connection only)",
                               on_any_loop=True)
        self.registry.register("outcomes/logged", self._outcomes_logged, {"seq": Param(int, minimum=0)},
                               doc="the game logged every outcome up to seq (its connection only)",
                               on_any_loop=True)

    # ---- the game connection (API loop) ---------------------------------------------------

    def admit(self, client: "Client", name: str, params: Any) -> None:
        """Before a game-only method runs: only the game's connection may (registration: only a
        peer with launcherd's uid or root)."""
        if name == REGISTER:
            if client.uid not in (-1, 0, os.getuid()):
                raise Refused(f"{REGISTER}: only a process of launcherd's own user (or root) may register the game")
            methods = params.get("methods") if isinstance(params, dict) else None
            if not isinstance(methods, list) or not all(
                    isinstance(m, dict) and isinstance(m.get("name"), str) and m["name"].startswith(GAME_PREFIX)
                    for m in methods):
                raise InvalidParams(f"{REGISTER}: methods must be a list of {{name, doc}} whose names begin with game/")
            old = self.game
            if old is not None and old is not client:
                log.warning("a new game process registers: the old connection is closed")
                self._refuse_all(old, i18n.message("game_layer_replaced"))
                old.game = False
                old.drop()
            self.game = client
            client.game = True
            self.methods = [{"name": m["name"], "doc": str(m.get("doc", "")),
                             "params": m.get("params") if isinstance(m.get("params"), dict) else {}}
                            for m in methods]
            self.pid = params.get("pid")
            self._pids.add(self.pid)
            self.state, self.reason = "up", None
            self.snapshot = {}
            self.told_press = False
            with self._counting:
                self.sent = self.seen = 0
            log.info("game process registered (pid %s, %d methods)", self.pid, len(methods))
            for waiter in self._first:
                if not waiter.done():
                    waiter.set_result(None)
            self._first.clear()
            return
        if self.game is not client:
            raise Refused(f"{name}: only the registered game process may call it")

    def registered(self, params: dict[str, Any]) -> dict[str, Any]:
        """``system/register-game``'s reply, on the motor's loop: the start's cause (an interruption
        for the keeper), the launcher's status and the hopper."""
        cause = self.keeper.started()
        return {"cause": cause.token, "launcher": self.daemon.launcher_status(), "hopper": self.daemon.hopper,
                "language": self.daemon.language}

    def lost(self, client: "Client") -> None:
        """A connection ended: if it was the game's, everything waiting on it is refused, and a press
        means nothing in a dealer game until a game is back."""
        if self.game is not client:
            return
        self.game = None
        client.game = False
        reason = i18n.message("game_layer_stopping") if self.closing else i18n.message(
            "game_layer_died", error=i18n.render(i18n.message("game_connection_closed")))
        self.state, self.reason = "down", reason
        self._refuse_all(client, reason)
        log.warning("the game process's connection closed")
        if self.told_press and not self.closing:
            loop = self.daemon.loop
            try:
                loop.call_soon_threadsafe(self.daemon.game_away)
            except RuntimeError:
                pass

    def child_exited(self, pid: int, code: int | None) -> None:
        """``launcherd --sim``'s game process ended (firmware/daemon/gamechild.py), on the motor's
        loop: what status/get and the game/* refusals say until the next one registers."""
        if self.pid == pid and self.game is not None:
            return  # its connection's end says it
        if self.game is None:
            error = f"launcher-game exited with code {code}"
            key = "game_layer_died" if pid in self._pids else "game_layer_failed"
            self.state, self.reason = "down", i18n.message(key, error=error)

    def checked(self, client: "Client", name: str, params: dict[str, Any], token: Any) -> dict[str, Any]:
        """A call of the game connection: every motion judged by the keeper for the cause its token names."""
        if client is not self.game:
            return params
        if name == "launcher/press-means":
            self.told_press = True
        if name not in MOTION_METHODS:
            return params
        return self.keeper.checked(name, params, self.keeper.cause_of(token))

    # ---- forwards (API loop) ----------------------------------------------------------------

    def unavailable(self) -> Unavailable:
        return Unavailable(self.reason or i18n.message("game_layer_starting"))

    def first_start(self) -> asyncio.Future | None:
        """While no game has registered since launcherd started (and none failed yet): a future
        set at the first registration; else None (answer now)."""
        if self.game is not None or self.state != "starting" or self.closing:
            return None
        waiter = asyncio.get_running_loop().create_future()
        self._first.append(waiter)
        return waiter

    def precheck(self, method: str, params: Any) -> None:
        """What the game's own registry would refuse at once and for sure (an unknown method, params
        not an object, an unknown or missing parameter, a value of the wrong type), refused now with
        the game's own words, so that an error comes in the order of the lines as it did; the rest
        (ranges, choices, a null) the game judges. The params forwarded are the client's as sent."""
        if self.game is None:
            return
        schema = next((m["params"] for m in self.methods if m["name"] == method), None)
        if schema is None:
            raise ApiError(ApiError.METHOD_NOT_FOUND, i18n.message("api_unknown_method", method=_short(method)))
        if params is None:
            params = {}
        if not isinstance(params, dict):
            raise InvalidParams(i18n.message("api_params_not_object", method=method, got=_short(params)))
        unknown = sorted(set(params) - set(schema))
        if unknown:
            if not schema:
                raise InvalidParams(i18n.message("api_unknown_param_none", method=method, param=repr(unknown[0])))
            raise InvalidParams(i18n.message("api_unknown_param", method=method, param=repr(unknown[0]),
                                             allowed=", ".join(schema)))
        for key, spec in schema.items():
            kind = _TYPES.get(spec.get("type")) if isinstance(spec, dict) else None
            if key not in params:
                if isinstance(spec, dict) and spec.get("required"):
                    raise InvalidParams(i18n.message("api_missing_param", method=method, param=repr(key)))
                continue
            if kind is None or params[key] is None:
                return  # the game judges it, and whatever comes after it
            Param(kind).check(method, key, params[key])

    def forward(self, client: "Client | None", turn: "Turn | None", request_id: Any, method: str,
                params: Any, lang: str | None) -> asyncio.Future:
        """Write a ``game/*`` request to the game; the future is its reply's body (bytes).

        :raises Unavailable: no game is registered."""
        game = self.game
        if game is None or game.closed:
            with i18n.speaking(lang):
                raise self.unavailable()
        cause = self.keeper.request(method)
        fid = next(self._fids)
        loop = asyncio.get_running_loop()
        forward = Forward(fid, game, client, turn, request_id, method, lang, loop.create_future())
        self._forwards[fid] = forward
        forward.timer = loop.call_later(FORWARD_TIMEOUT_S, self._timed_out, fid)
        line = encode({"forward": fid, "method": method, "params": params if params is not None else {},
                       "lang": lang, "cause": cause.token})
        with self._counting:
            self.sent += 1
        if not game.send_line(line):
            self._settle(fid, Unavailable(i18n.message("game_layer_died",
                                                       error=i18n.render(i18n.message("game_connection_closed")))))
        return forward.answer

    def relay(self, client: "Client", line: bytes) -> bool:
        """A line of the game connection: a forward's reply (True), relayed as it is."""
        match = _REPLY_HEAD.match(line)
        if match is None:
            return False
        fid = int(match.group(1))
        body = line[match.end():].rstrip()
        if body.endswith(b"}"):
            body = body[:-1]
        self._settle(fid, body)
        return True

    def _settle(self, fid: int, outcome: bytes | ApiError) -> None:
        forward = self._forwards.pop(fid, None)
        if forward is None:
            return  # refused meanwhile (timed out), or never ours
        if forward.timer is not None:
            forward.timer.cancel()
        if not forward.answer.done():
            if isinstance(outcome, ApiError):
                forward.answer.set_exception(outcome)
            else:
                forward.answer.set_result(outcome)

    def _timed_out(self, fid: int) -> None:
        forward = self._forwards.get(fid)
        if forward is None:
            return
        forward.timer = None
        with i18n.speaking(forward.lang):
            error = Unavailable(i18n.message("game_layer_no_answer", seconds=FORWARD_TIMEOUT_S))
        self._settle(fid, error)

    def _refuse_all(self, game: "Client", reason: dict[str, Any]) -> None:
        for fid, forward in list(self._forwards.items()):
            if forward.game is game:
                with i18n.speaking(forward.lang):
                    error = Unavailable(reason)
                self._settle(fid, error)

    @staticmethod
    def reply_line(request_id: Any, body: bytes) -> bytes:
        """The client's reply: its id, and the game's reply body as the game wrote it."""
        head = json.dumps({"id": request_id}, separators=(",", ":"))
        inner = body.strip()
        if inner.startswith(b"{"):
            inner = inner[1:]
        return head[:-1].encode() + b"," + inner + b"\n"  # the body's own closing brace closes it

    # ---- what the game sends (API loop) -------------------------------------------------------

    def _publish(self, params: dict[str, Any]) -> dict[str, Any]:
        name = params["name"]
        if not name.startswith(GAME_PREFIX):
            raise InvalidParams("system/publish: the game's events are named game/...")
        self.api.fan_out_game(name, params["params"] or {})
        return {}

    def _status_in(self, params: dict[str, Any]) -> dict[str, Any]:
        self.snapshot = params["status"]
        with self._counting:
            self.seen = max(self.seen, params["seen"])
        return {}

    def _launcher(self, params: dict[str, Any]) -> dict[str, Any]:
        return {"launcher": self.daemon.launcher_status(), "hopper": self.daemon.hopper}

    def _outcomes_after(self, params: dict[str, Any]) -> list[dict[str, Any]]:
        return self.daemon.outcomes.after(params["seq"], params["record"])

    def _outcomes_logged(self, params: dict[str, Any]) -> dict[str, Any]:
        self.daemon.outcomes.logged_up_to(params["seq"])
        return {}

    # ---- the motor's loop ---------------------------------------------------------------------

    def event(self, name: str, params: dict[str, Any]) -> None:
        """A launcher event: its cause noted by the keeper (with no game too), and sent to the game
        with its cause token and a fresh copy of the launcher's status."""
        cause = self.keeper.event(name, params)
        if self.game is None or self.api.loop is None:
            return
        line = encode({"event": name, "params": params, "cause": cause.token,
                       "launcher": self.daemon.launcher_status()})
        try:
            self.api.loop.call_soon_threadsafe(self._send_event, line)
        except RuntimeError:
            pass

    def _send_event(self, line: bytes) -> None:
        game = self.game
        if game is not None and game.subscribed and not game.closed:
            with self._counting:
                self.sent += 1
            game.send_line(line)

    def status(self) -> dict[str, Any]:
        """``status/get``'s ``game_layer`` and, while the game is there, its own keys."""
        reason = self.reason
        shown: dict[str, Any] = {"game_layer": {
            "state": self.state,
            "reason": None if reason is None else i18n.render(reason),
            "reason_object": reason,
        }}
        if self.state == "up":
            shown.update(self.snapshot.get(i18n.current(), {}))
        return shown

    async def settled(self) -> None:
        """Wait (briefly) until the game says it has taken in what was sent to it before now."""
        with self._counting:
            target = self.sent
        waited = 0.0
        while self.state == "up" and self.seen < target and waited < SETTLE_WAIT_S:
            await asyncio.sleep(SETTLE_POLL_S)
            waited += SETTLE_POLL_S

    async def call(self, method: str, params: dict[str, Any]) -> Any:
        """A ``game/*`` method asked inside launcherd (the refill's count, the demo): its result."""
        api_loop = self.api.loop
        if api_loop is None:
            raise self.unavailable()
        lang = i18n.requested()

        async def ask() -> bytes:
            return await self.forward(None, None, None, method, params, lang)

        body = await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(ask(), api_loop))
        reply = json.loads(body)
        if "error" in reply:
            from firmware.client import reply_error
            raise reply_error(reply["error"] or {})
        return reply.get("result")

    def close(self) -> None:
        self.closing = True


__all__ = ["FORWARD_TIMEOUT_S", "GAME_ONLY", "GamePort", "REGISTER"]
