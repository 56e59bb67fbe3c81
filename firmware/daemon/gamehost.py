"""The game layer's own thread and loop beside the motor's, and the one door between them.

The motor's loop (firmware/daemon/driver.py) owns the pins and the core's deadlines and runs nothing that
can take long. The layers (the game controller) run on a thread of their own with their own asyncio
loop, and see the daemon only through a :class:`Door`, the :class:`firmware.daemon.layer.LayerHost` they
are given. Everything that crosses is posted to the other loop and copied (plain dicts, lists and
scalars; a reply already JSON text), so neither side ever holds an object the other one changes:

- launcher events go in: posted to the game loop, never run on the motor's;
- requests come out: ``await door.call(...)`` runs the method on the motor's loop and the result
  comes back; ``door.hopper`` and ``door.launcher_status()`` ask the motor's loop and wait (on the
  game thread) for its answer;
- a method the layer registers is a proxy the API server runs on its own loop
  (firmware/daemon/api.py): it posts the request to the game loop, where the handler runs and its
  result is encoded (firmware/daemon/layer_replies.py), and the reply is posted straight back; the
  layer's events go to the API's loop straight too, so a request's event comes before its reply.
  A game request costs the motor's loop nothing;
- ``status/get``'s layer keys are the last snapshot the game side made (in each language), taken
  after every request it served, every event it was given and every event it published (a deal's
  action is logged by the layer's own task): reading it costs the motor nothing.

The host watches the game loop with a heartbeat. A loop that neither answers it nor takes in
an event or a request for ``HUNG_AFTER_S``, by the clock and by the beats of the motor's loop
meanwhile (a stall of the whole process is no hang), is hung (one working through a backlog is only slow), one whose thread ended is dead, a setup that raised has failed: the
layer is then ``down`` (``status/get``'s ``game_layer``, with the reason as a message object),
every request waiting on it and every new one is refused at once with that reason (Unavailable),
and a fresh thread is started after ``RESTART_AFTER_S``. A thread cannot be killed: a hung one is
abandoned. Every door it holds is of an old generation and refuses to work, and its store's
commits pass through :meth:`GameHost.commit_fence`, which refuses them, so an abandoned layer
cannot write anymore. The new layer catches up from the outcome record (firmware/daemon/outcomes.py).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import inspect
import logging
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Iterator, Protocol

from firmware import i18n
from firmware.daemon.crossing import plain, post, post_guarded, wind_down
from firmware.daemon.keeper import CAUSE, Cause, PressKeeper
from firmware.daemon.layer_replies import encoded, kept_replies
from firmware.errors import Unavailable
from firmware.events import Action
from firmware.daemon.layer import Handler, Listener

if TYPE_CHECKING:
    from firmware.daemon.api import ApiServer
    from firmware.daemon.outcomes import OutcomeRecord
    from firmware.daemon.registry import Registry

log = logging.getLogger("launcherd.layers")

HEARTBEAT_S = 0.5
# A game loop that leaves a heartbeat unanswered this long is hung: abandoned, a fresh one started.
HUNG_AFTER_S = 10.0
# The same while it sets up: replaying a long log on a Pi takes a while, and is no hang.
SETUP_HUNG_AFTER_S = 60.0
RESTART_AFTER_S = 1.0
# How long the daemon's start waits for the layers' setup before it serves without them.
START_WAIT_S = 10.0
# How long a layer's question to the motor's loop (hopper, launcher status) may take.
MOTOR_ANSWER_S = 2.0
# How long ``status/get`` waits for the layer to take in what came before it (then: its last snapshot).
SETTLE_WAIT_S = 0.25
# How long closing waits for the layers' closers (their logs closed).
CLOSE_WAIT_S = 3.0


class MotorSide(Protocol):
    """What the layers' door uses of the daemon (the driver), all of it on the motor's loop."""

    loop: asyncio.AbstractEventLoop
    state_dir: Path
    registry: Registry
    api: ApiServer
    outcomes: OutcomeRecord

    @property
    def hopper(self) -> int | None: ...

    def launcher_status(self) -> dict[str, Any]: ...

    def call(self, method: str, params: dict[str, Any] | None = None) -> Awaitable[Any]: ...


class GameHost:
    """The layers' thread, seen from the motor's loop: start, watch, restart, close."""

    def __init__(self, daemon: MotorSide, setup: Callable[["Door"], Any]):
        self.daemon = daemon
        self._setup = setup
        self.motor_loop = daemon.loop
        self.generation = 0
        self.state = "starting"
        self.reason: dict[str, Any] | None = i18n.message("game_layer_starting")
        self.door: Door | None = None
        self._handlers: dict[str, Handler] = {}  # of the current generation
        self._proxied: set[str] = set()  # methods the registry has a proxy for
        # Replies the game loop owes, each on the loop of its caller (the API's, or the motor's).
        self._waiting: set[asyncio.Future] = set()
        self._counting = threading.Lock()  # sent and _posted: the API's thread posts requests too
        self.sent = 0  # events and requests posted to the current door, counted
        self._ping_sent: float | None = None
        self._seen_at_ping = 0  # the door's count of what its loop took in, when the ping went
        self._beats_unanswered = 0  # heartbeats since then with no answer and nothing taken in
        # Posts to the layer's loop, counted: the heartbeat stops once a ping answered after the
        # last of them (nothing is then waiting there), so an idle launcher has no wake-ups.
        self._posted = 0
        self._posted_at_ping = -1
        self._restart: asyncio.TimerHandle | None = None
        self._beat: asyncio.TimerHandle | None = None
        self._up = asyncio.Event()
        self._ended: asyncio.Future | None = None  # the current thread's end, while closing
        self._closing = False
        # Held around each commit of a layer's log, and by a new layer before it opens its log.
        self._fence = threading.Lock()
        # The press rule's keeper: what the layers ask may move the motor only for a press or an
        # action whose effect is that motion (firmware/daemon/keeper.py); it outlives the layers.
        self.keeper = PressKeeper()

    # ---- life ------------------------------------------------------------------------------

    async def start(self) -> None:
        """Start the first layer thread and wait (bounded) for its setup: its methods are there
        before the socket serves. A layer slower than that is still starting, and refused."""
        self._spawn()
        try:
            await asyncio.wait_for(self._up.wait(), START_WAIT_S)
        except asyncio.TimeoutError:
            log.error("the game layer did not start within %g s; the launcher serves without it", START_WAIT_S)

    def _spawn(self) -> None:
        self.generation += 1
        self._handlers = {}
        self._ping_sent = None
        self._posted_at_ping = -1
        with self._counting:
            self.sent = 0
        self.state = "starting"
        self.reason = i18n.message("game_layer_starting")
        door = self.door = Door(self, self.generation)
        thread = threading.Thread(target=self._run, args=(door,), name=f"game-layer-{self.generation}",
                                  daemon=True)  # a hung one must not keep the process alive
        thread.start()
        self._arm_heartbeat()

    def _run(self, door: "Door") -> None:
        """The layer thread: its loop, until closed or until it raises out."""
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        loop.call_soon(door.set_up)  # first: events posted from now on come after its subscriptions
        door.loop = loop
        error: BaseException | None = None
        try:
            with self._fence:
                pass  # a commit of an abandoned layer still under way ends before this one opens the log
            loop.run_forever()
        except BaseException as exc:  # what ends the thread is reported, then the thread ends
            error = exc
        finally:
            wind_down(loop)
        self._post(self._thread_ended, door.generation, error)

    def _post(self, fn: Callable[..., Any], *args: Any) -> None:
        """Run ``fn(*args)`` on the motor's loop, for the game side."""
        post_guarded(self.motor_loop, fn, *args)  # a closed loop: the daemon is gone

    def _thread_ended(self, generation: int, error: BaseException | None) -> None:
        if generation != self.generation:
            return  # an abandoned layer that finally came back: nothing of it is used
        if self._closing:
            if self._ended is not None and not self._ended.done():
                self._ended.set_result(None)
            return
        log.error("the game layer's thread ended: %r", error)
        self._down(i18n.message("game_layer_died", error=_error_text(error)))

    def setup_done(self, generation: int, error: BaseException | None) -> None:
        """The layer's setup finished (``error``: it raised)."""
        if generation != self.generation or self._closing:
            return
        if error is not None:
            log.error("the game layer's setup failed: %r", error)
            self._down(i18n.message("game_layer_failed", error=_error_text(error)))
            return
        self.state, self.reason = "up", None
        self._up.set()
        log.info("game layer up (generation %d)", generation)

    def _down(self, reason: dict[str, Any]) -> None:
        """Refuse what waits on the layer, abandon it, and start another one soon."""
        self.state, self.reason = "down", reason
        self._up.clear()
        self.generation += 1  # the abandoned layer's doors and commits stop working now
        self._handlers = {}
        self.door = None
        for reply in list(self._waiting):
            post_guarded(reply.get_loop(), _refuse, reply, Unavailable(reason))
        self._waiting.clear()
        if self._restart is None and not self._closing:
            self._restart = self.motor_loop.call_later(RESTART_AFTER_S, self._restart_now)

    def _restart_now(self) -> None:
        self._restart = None
        if not self._closing:
            log.warning("starting the game layer again")
            self._spawn()

    def _arm_heartbeat(self) -> None:
        if self._beat is None and not self._closing:
            self._beat = self.motor_loop.call_later(HEARTBEAT_S, self._heartbeat)

    def _post_to_layer(self, door: "Door", fn: Callable[..., Any], *args: Any) -> bool:
        """Post an event or a request to the layer's loop (from the motor's loop or the API's),
        with the heartbeat watching until the loop is through it; False: that loop is closed."""
        with self._counting:
            self.sent += 1
            self._posted += 1
        if not door.post(fn, *args):
            return False
        if self._beat is None:
            if asyncio.get_running_loop() is self.motor_loop:
                self._arm_heartbeat()
            else:
                post_guarded(self.motor_loop, self._arm_heartbeat)
        return True

    def _heartbeat(self) -> None:
        self._beat = None
        door = self.door
        if door is None:
            return  # down: the next spawn watches again
        if door.loop is None:
            self._arm_heartbeat()  # its thread is starting
            return
        now = self.motor_loop.time()
        if self._ping_sent is None:
            if self.state == "up" and self._posted == self._posted_at_ping and not self._waiting:
                return  # idle: the last ping was answered after everything posted; a post rearms
            self._ping_sent, self._seen_at_ping, self._posted_at_ping = now, door.seen, self._posted
            self._beats_unanswered = 0
            door.post(door.ping)
        elif door.seen != self._seen_at_ping:
            # The ping waits behind a backlog the loop is working through (a burst of presses on
            # a busy machine): a loop that takes in events is slow, not hung. Timed from now.
            self._ping_sent, self._seen_at_ping = now, door.seen
            self._beats_unanswered = 0
        else:
            self._beats_unanswered += 1
            limit = HUNG_AFTER_S if self.state == "up" else SETUP_HUNG_AFTER_S
            # Hung once the limit has passed by the clock and by the beats taken meanwhile: a stall
            # of the whole process (not scheduled, stopped, a paused VM) holds this loop up too,
            # and the beat after it is one beat, not the stall's length of the game loop's silence.
            if now - self._ping_sent > limit and self._beats_unanswered * HEARTBEAT_S > limit:
                log.error("the game layer has not answered for %.1f s: abandoning it", now - self._ping_sent)
                self._down(i18n.message("game_layer_hung", seconds=round(now - self._ping_sent, 1)))
                return
        self._arm_heartbeat()

    def pong(self, generation: int) -> None:
        if generation == self.generation:
            self._ping_sent = None

    async def close(self) -> None:
        """Run the layers' closers on their loop and stop it (bounded: a hung layer is left)."""
        self._closing = True
        for timer in (self._restart, self._beat):
            if timer is not None:
                timer.cancel()
        door = self.door
        for reply in list(self._waiting):
            post_guarded(reply.get_loop(), _refuse, reply, Unavailable(i18n.message("game_layer_stopping")))
        if door is None or door.loop is None:
            return
        self._ended = self.motor_loop.create_future()
        door.post(door.close)
        try:
            await asyncio.wait_for(self._ended, CLOSE_WAIT_S)
        except asyncio.TimeoutError:
            log.error("the game layer did not close within %g s; left behind", CLOSE_WAIT_S)
        self.generation += 1

    # ---- what the motor's side serves -------------------------------------------------------

    def forward(self, name: str, params: dict[str, Any]) -> None:
        """A launcher event, to the layers' listeners (on their loop, with their own copy), as the
        cause of what they do with it (a press, a halt: the keeper notes it even with no layer)."""
        cause = self.keeper.event(name, params)
        door = self.door
        if door is not None and door.loop is not None:
            self._post_to_layer(door, door.deliver, name, plain(params), cause)

    def forward_feedback(self, action: Action) -> None:
        door = self.door
        if door is not None and door.loop is not None and door._feedback_watchers:
            self._post_to_layer(door, door.feedback, action)  # actions are frozen dataclasses

    def status(self) -> dict[str, Any]:
        """``status/get``'s ``game_layer`` and, while the layer is up, its own keys."""
        reason = self.reason
        shown: dict[str, Any] = {"game_layer": {
            "state": self.state,
            "reason": None if reason is None else i18n.render(reason),
            "reason_object": reason,
        }}
        if self.state == "up" and self.door is not None:
            shown.update(self.door.snapshot.get(i18n.current(), {}))
        return shown

    async def settled(self) -> None:
        """Wait (briefly) until the layer's loop has taken in everything posted to it before now,
        so that a ``status/get`` sent after a reply shows what that reply's event did there."""
        door = self.door
        if self.state != "up" or door is None or door.loop is None or door.snapshot_seen == self.sent:
            return  # nothing it has not taken in: answered at once, in turn with the others
        reply = self.motor_loop.create_future()
        door.post(door.settle, reply)
        try:
            await asyncio.wait_for(reply, SETTLE_WAIT_S)
        except asyncio.TimeoutError:
            pass  # a busy layer: its last snapshot it is

    @contextmanager
    def commit_fence(self, generation: int) -> Iterator[None]:
        """Around each commit of a layer's log: refused for a layer that was abandoned."""
        with self._fence:
            if generation != self.generation:
                raise Unavailable(i18n.message("game_layer_abandoned"))
            yield

    def register(self, generation: int, name: str, handler: Handler, params: dict[str, Any] | None,
                 doc: str, reading: bool = False) -> None:
        """A layer's method: the registry gets a proxy once; each generation brings its handler.
        ``reading``: it only reads (registered with a version), and is served at the readings' pace."""
        if generation != self.generation:
            return
        if name not in self._proxied:
            if name in self.daemon.registry:  # the launcher's own: a layer does not replace it
                log.error("the game layer registers %s, which the launcher has already", name)
                return
            self.daemon.registry.register(name, self._proxy(name), params, doc, on_any_loop=True,
                                          reading=reading)
            self._proxied.add(name)
        self._handlers[name] = handler

    def _proxy(self, name: str) -> Handler:
        """The registry's handler for a layer's method: it posts the request to the layer's loop
        and waits for the reply there. It runs on the API's loop (a reading costs the motor's loop
        nothing) or, for a caller inside launcherd, on the motor's; the layer is replaced on the
        motor's, so what it reads of the host it reads once, and checks again once it waits."""
        async def proxied(params: dict[str, Any]) -> Any:
            door, handler = self.door, self._handlers.get(name)
            if self._closing:  # a request that waited for its turn (api.py's pace) until now
                raise Unavailable(i18n.message("game_layer_stopping"))
            if self.state != "up" or door is None or handler is None:
                raise Unavailable(self.reason or i18n.message("game_layer_starting"))
            reply = asyncio.get_running_loop().create_future()
            self._waiting.add(reply)
            try:
                if door is not self.door:  # went down meanwhile, before it could refuse this reply
                    raise Unavailable(self.reason or i18n.message("game_layer_starting"))
                if not self._post_to_layer(door, door.serve, handler, plain(params), i18n.requested(), reply,
                                           self.keeper.request(name)):
                    # Its loop closed meanwhile (launcherd is stopping): nothing would ever answer.
                    raise Unavailable(i18n.message("game_layer_stopping"))
                return await reply
            finally:
                self._waiting.discard(reply)
        return proxied

    def settle(self, reply: asyncio.Future, result: Any, error: BaseException | None) -> None:
        """The game loop's answer to a proxied request, on the reply's loop (ignored if it was
        refused meanwhile)."""
        if reply.done():
            return
        if error is not None:
            reply.set_exception(error)
        else:
            reply.set_result(result)


def _refuse(reply: asyncio.Future, error: Exception) -> None:
    if not reply.done():
        reply.set_exception(error)


def _error_text(error: BaseException | None) -> str:
    if error is None:
        return "its loop stopped"
    return f"{type(error).__name__}: {error}" if str(error) else type(error).__name__


class Door:
    """What a layer holds of the daemon (:class:`firmware.daemon.layer.LayerHost`), on the layer's thread.

    One door per generation: once its layer is abandoned, nothing it is asked reaches the daemon.
    """

    def __init__(self, host: GameHost, generation: int):
        self._host = host
        self.generation = generation
        self.state_dir: Path = host.daemon.state_dir
        self.loop: asyncio.AbstractEventLoop | None = None
        self.snapshot: dict[str, dict[str, Any]] = {}  # language -> status keys; replaced, never changed
        self.snapshot_seen = 0  # how many of the events and requests posted to it the snapshot shows
        self.seen = 0
        self._listeners: list[Listener] = []
        self._feedback_watchers: list[Callable[[Action], None]] = []
        self._status_providers: dict[str, Callable[[], Any]] = {}
        self._closers: list[Callable[[], Any]] = []
        self._refresh_due = False
        self._readings: set[Handler] = set()  # handlers registered with a version: they only read
        self._changing = 0  # requests that are not readings, started and not finished

    @property
    def current(self) -> bool:
        return self.generation == self._host.generation

    def post(self, fn: Callable[..., Any], *args: Any) -> bool:
        """Run ``fn(*args)`` on this door's loop (from the motor's side); False: its loop is closed,
        the layer is gone."""
        return post(self.loop, fn, *args)

    def _to_motor(self, fn: Callable[..., Any], *args: Any) -> None:
        if self.current:
            self._host._post(fn, *args)

    # ---- run on the layer's loop, posted by the host ---------------------------------------

    def set_up(self) -> None:
        CAUSE.set(self._host.keeper.started())  # what the setup starts (a deal the log owes) waits
        try:
            self._host._setup(self)
        except Exception as exc:
            log.exception("setting up the game layer failed")
            self._to_motor(self._host.setup_done, self.generation, exc)
            return
        self.refresh()
        self._to_motor(self._host.setup_done, self.generation, None)

    def ping(self) -> None:
        self._to_motor(self._host.pong, self.generation)

    def deliver(self, name: str, params: dict[str, Any], cause: Cause | None = None) -> None:
        """A launcher event, to every listener of the layer, as the cause of what they do."""
        self.seen += 1
        CAUSE.set(cause)  # this callback's own context: the tasks the listeners start keep it
        if not self.current:
            # Posted before the layer was abandoned or closed, taken in only now: nothing it
            # would do can reach the daemon any more (each listener failed, logged, one by one).
            return
        for listener in list(self._listeners):
            try:
                listener(name, params)
            except Exception:
                if self.current:
                    log.exception("game layer listener failed on %s", name)
                else:  # abandoned or closed while the listener ran: refused as it should be
                    log.debug("an abandoned game layer's listener refused on %s", name, exc_info=True)
        self._refresh_soon()

    def feedback(self, action: Action) -> None:
        for watcher in list(self._feedback_watchers):
            try:
                watcher(action)
            except Exception:
                log.exception("game layer feedback watcher failed")

    def serve(self, handler: Handler, params: dict[str, Any], lang: str | None, reply: asyncio.Future,
              cause: Cause | None = None) -> None:
        self.seen += 1  # counted as it starts: a request that waits long must not hold status/get up
        if handler not in self._readings:
            self._changing += 1
        asyncio.ensure_future(self._serve(handler, params, lang, reply, cause))

    async def _serve(self, handler: Handler, params: dict[str, Any], lang: str | None,
                     reply: asyncio.Future, cause: Cause | None = None) -> None:
        CAUSE.set(cause)  # the request's task: what its handler starts answers this request
        result, error = None, None
        with i18n.speaking(lang):
            try:
                result = handler(params)
                if inspect.isawaitable(result):
                    result = await result
                result = encoded(result)  # here, not on the motor's loop: a reply may be large
            except Exception as exc:  # the request's error, as any handler's
                error = exc
        if handler not in self._readings:
            self._changing -= 1
            self.refresh()  # before the reply: a status/get after it sees what it did
        elif self._refresh_due or self._changing:
            self.refresh()
        else:
            # A reading changed nothing, and no event or change waits to be shown: the snapshot
            # shows this reading too. Four clients reading without pause made the game thread take
            # it again, in every language, for each reading: GIL time the motor's thread waited for.
            self.snapshot_seen = min(self.seen, self.snapshot_seen + 1)
        self._answer(reply, result, error)

    def settle(self, reply: asyncio.Future) -> None:
        if self._refresh_due or self.snapshot_seen != self.seen:
            self.refresh()
        self._answer(reply, None, None)

    def _answer(self, reply: asyncio.Future, result: Any, error: BaseException | None) -> None:
        """To the loop the reply is awaited on: the API's for a client's request, straight there."""
        if self.current:
            post_guarded(reply.get_loop(), self._host.settle, reply, result, error)

    def close(self) -> None:
        for closer in self._closers:
            try:
                closer()
            except Exception:
                log.exception("closing the game layer failed")
        self.loop.stop()

    def _refresh_soon(self) -> None:
        if not self._refresh_due:
            self._refresh_due = True
            self.loop.call_soon(self.refresh)

    def refresh(self) -> None:
        """Take the status snapshot that ``status/get`` shows, in every language."""
        self._refresh_due = False
        snapshot = {}
        for lang in i18n.LANGUAGES:
            shown = {}
            with i18n.speaking(lang):
                for name, provider in self._status_providers.items():
                    try:
                        shown[name] = plain(provider())
                    except Exception as exc:
                        log.exception("status of %s failed", name)
                        shown[name] = {"error": str(exc)}
            snapshot[lang] = shown
        self.snapshot, self.snapshot_seen = snapshot, self.seen

    # ---- the layer interface (firmware/daemon/layer.py) ------------------------------------------

    @property
    def api(self) -> "Door":
        """``host.api.register`` is ``host.register`` (docs/internals.md keeps it working)."""
        return self

    def subscribe(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def publish(self, name: str, params: dict[str, Any]) -> None:
        # Straight to the API's loop, as the replies are: a request's event comes before its reply.
        if self.current:
            self._host.daemon.api.publish(name, params)
        # The layer tells of a change of its own (an action its deal logged, a message): the
        # status snapshot follows it, not only the requests and events it was given.
        self._refresh_soon()

    async def call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        if not self.current:
            raise Unavailable(i18n.message("game_layer_abandoned"))
        params = self._host.keeper.checked(method, params or {})  # the press rule, for every path
        answer = self.loop.create_future()
        lang = i18n.requested()
        host = self._host

        def give(result: Any, error: BaseException | None) -> None:
            if not answer.done():
                answer.set_exception(error) if error is not None else answer.set_result(result)

        async def ask() -> None:
            with i18n.speaking(lang):
                try:
                    result, error = plain(await host.daemon.call(method, plain(params or {}))), None
                except Exception as exc:
                    result, error = None, exc
            self.post(give, result, error)

        self._to_motor(asyncio.ensure_future, ask())
        return await answer

    def register(self, name: str, handler: Handler, params: dict[str, Any] | None = None,
                 doc: str = "", version: Callable[[], Any] | None = None) -> None:
        if version is not None:
            handler = kept_replies(handler, version)
            self._readings.add(handler)
        self._to_motor(self._host.register, self.generation, name, handler, params, doc, version is not None)

    def add_status(self, name: str, provider: Callable[[], Any]) -> None:
        self._status_providers[name] = provider

    def on_close(self, closer: Callable[[], Any]) -> None:
        self._closers.append(closer)

    def watch_feedback(self, watcher: Callable[[Action], None]) -> None:
        self._feedback_watchers.append(watcher)

    def _ask_motor(self, fn: Callable[[], Any]) -> Any:
        """``fn()`` run on the motor's loop (in this request's language); this thread waits."""
        if not self.current:
            raise Unavailable(i18n.message("game_layer_abandoned"))
        answer: concurrent.futures.Future = concurrent.futures.Future()
        lang = i18n.requested()

        def run() -> None:
            with i18n.speaking(lang):
                try:
                    answer.set_result(plain(fn()))
                except Exception as exc:
                    answer.set_exception(exc)

        self._host._post(run)
        try:
            return answer.result(MOTOR_ANSWER_S)
        except concurrent.futures.TimeoutError:
            raise Unavailable(i18n.message("no_outcome")) from None

    @property
    def hopper(self) -> int | None:
        return self._ask_motor(lambda: self._host.daemon.hopper)

    def launcher_status(self) -> dict[str, Any]:
        return self._ask_motor(self._host.daemon.launcher_status)

    def outcomes_after(self, seq: int, record: str | None = None) -> list[dict[str, Any]]:
        """The launch outcomes recorded after ``seq`` of ``record`` (firmware/daemon/outcomes.py), for
        catching up; the record numbers on above ``seq``."""
        return self._host.daemon.outcomes.after(seq, record)

    def outcomes_logged(self, seq: int) -> None:
        """The layer has logged every launch outcome up to ``seq``: the record may let them go."""
        if self.current:
            self._host.daemon.outcomes.logged_up_to(seq)

    def commit_fence(self) -> Any:
        """A context manager around each commit of the layer's log: refused once it is abandoned."""
        return self._host.commit_fence(self.generation)


__all__ = ["Door", "GameHost", "plain"]
