"""launcherd: the asyncio driver around the sans-IO launcher core.

One loop thread owns all state. gpiozero callbacks (from the backend's own thread) only post
events into the loop with ``call_soon_threadsafe``; the core turns events into actions, which
this driver applies to the devices, and asks for one deadline, which becomes one timer. The game
(controller/) is a process of its own on the API socket (``firmware/daemon/gameport.py``): no game
code runs here.

The device is chosen by ``[device] kind`` (``firmware/daemon/device.py``): the launcher
(``firmware/launcher/device.py``) or the card blaster (``firmware/blaster/device.py``), each with its
core, hardware, simulation and API methods. The daemon's own methods are in
``firmware/daemon/methods.py``; the extras (dealer, bring-up, refill, the sim's methods) are loaded
by name through ``setup(host)`` (``firmware/daemon/loading.py``). The command line is in
``firmware/daemon/launcherd.py``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import itertools
import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable

from firmware import __version__, i18n
from firmware.daemon.api import ApiServer
from firmware.daemon.registry import Encoded, Registry
from firmware.board.backend import hardware_pin_factory
from firmware.config import Config, with_sim_devices
from firmware.daemon import methods, motorloop
from firmware.daemon.device import Device, DeviceCore, DeviceHardware, Simulation, build_device
from firmware.daemon.loading import load_extras
from firmware.errors import Refused
from firmware.daemon.gameport import GamePort
from firmware.events import Action, ButtonLevel, Chime, DriverEnable, Emit, Event, Led, Motor, Persist, PressMeaning
from firmware.daemon.latch import Latch
from firmware.daemon.replies import shown, with_texts
from firmware.daemon.statelock import StateDirLock
from firmware.daemon.notify import Notifier
from firmware.daemon.outcomes import OutcomeGate, OutcomeRecord
from firmware.paths import default_sim_socket, default_sim_state_dir
from firmware.daemon.trace import PressTrace
from firmware.daemon.waiting import DeadlineTimer, Waiters

log = logging.getLogger("launcherd")

Listener = Callable[[str, dict[str, Any]], None]
# How long a press request waits for its outcome beyond the motor's own limits.
OUTCOME_MARGIN_S = 2.0
# How long the start waits, once the game layer is up, for it to say what a press means.
PRESS_MEANING_WAIT_S = 5.0
# Each signal whose default ends the process stops the motor and exits cleanly (SIGHUP too: no reload).
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2)
API_ANSWER_PERIODS = 2  # the API's loop took in a beat within this many watchdog periods, or it hung
# The exit code when a stop (or the blaster's release) could not be applied: safe-off runs next.
EXIT_STOP_FAILED = 4


class Daemon:
    """Owns the pins, the core, the API and the layers for one run of launcherd."""

    def __init__(self, config: Config, *, sim: bool = False, seed: int | None = None,
                 socket_path: str | Path | None = None, state_dir: str | Path | None = None,
                 pin_factory: Any = None, notifier: Notifier | None = None,
                 load_layers: bool = True, spawn_game: bool = False, game_state_dir: str | Path | None = None):
        self.config = with_sim_devices(config) if sim else config
        self.sim_mode = sim
        self.seed = seed
        self.socket_path = Path(socket_path or (default_sim_socket() if sim else config.daemon.socket))
        self.state_dir = Path(state_dir or (default_sim_state_dir() if sim else config.daemon.state_dir))
        self.notifier = notifier
        # Events and the journal speak it; a request with its own "lang" gets its replies in that.
        self.language = config.daemon.language or i18n.locale_language()
        self._pin_factory = pin_factory
        self._own_factory: Any = None  # an lgpio factory this daemon opened, closed with it
        self._state_lock = StateDirLock(self.state_dir)
        self._load_layers = load_layers
        # launcherd --sim: launcher-game started beside it and watched (firmware/daemon/gamechild.py).
        self._spawn_game = spawn_game
        self.game_state_dir = Path(game_state_dir) if game_state_dir else self.state_dir / "game"
        self.game_child: Any = None
        self.registry = Registry()
        self.api = ApiServer(self.registry, self.socket_path)
        self.loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread: int | None = None
        self.device: Device | None = None  # the one [device] kind names, built at start
        self.pin_factory: Any = None
        self._timer: DeadlineTimer | None = None  # at the core's next deadline
        self._listeners: list[Listener] = []
        self._feedback_watchers: list[Callable[[Action], None]] = []
        self._status_providers: dict[str, Callable[[], Any]] = {}
        self._closers: list[Callable[[], Any]] = []
        # Requests waiting for the outcome of their press, by the id the daemon gave them.
        self._waiters = Waiters()
        self._request_ids = itertools.count(1)
        self._refusals: list[dict[str, Any]] | None = None
        self._stop: asyncio.Event | None = None
        self._started = time.monotonic()
        self.aim_angle: float | None = None
        self._led: Led | None = None
        self._shut_down = False
        # Set on the way down: nothing may start the motor after (a request read, a late edge).
        self._stopping = False
        self._halt_logged: Any = None  # the reason of the halt the journal was last told of
        self.outcomes: OutcomeRecord | None = None  # launch outcomes, numbered, written off the loop
        self.latch: Latch | None = None  # what the next start must know: halt, motor on, on-time
        self._outcome_gate: OutcomeGate | None = None  # events in order, each outcome once on disk
        # The game process's connection (firmware/daemon/gameport.py): there when a game is expected.
        self.game_port: GamePort | None = None
        # Set once launcher/press-means is first asked, while the layers start (_start_layers).
        self._press_meaning_told: asyncio.Event | None = None
        # From a motor action applied until a stop applied: a stall is judged only meanwhile.
        self._motor_may_run = False
        # Where a stall's time went, for the journal.
        self._stall_clock = motorloop.StallClock(self.config.timing.stall_ms / 1000)

    # ---- the layer interface (firmware/daemon/layer.py, docs/internals.md) -----------------------

    def subscribe(self, listener: Listener) -> None:
        """Call ``listener(name, params)`` in the loop for every launcher event."""
        self._listeners.append(listener)

    def publish(self, name: str, params: dict[str, Any]) -> None:
        """Push an event to API subscribers (layers use this for their own events)."""
        self.api.publish(name, params)

    async def call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        if self.game_port is not None and method.startswith("game/"):
            return await self.game_port.call(method, params or {})  # the game process answers it
        result = await self.registry.call(method, params or {})
        return json.loads(result) if isinstance(result, Encoded) else result

    def describe(self) -> list[dict[str, Any]]:
        """``list_methods``: launcherd's own and the game process's (as it registered them)."""
        described = self.registry.describe()
        if self.game_port is not None:
            described += [{"method": m["name"], "doc": m["doc"], "params": m["params"]}
                          for m in self.game_port.methods]
            described.sort(key=lambda m: m["method"])
        return described

    def watch_feedback(self, watcher: Callable[[Action], None]) -> None:
        """Call ``watcher(action)`` for every LED and chime action (the demo shows them)."""
        self._feedback_watchers.append(watcher)

    def add_status(self, name: str, provider: Callable[[], Any]) -> None:
        self._status_providers[name] = provider

    def on_close(self, closer: Callable[[], Any]) -> None:
        self._closers.append(closer)

    def register(self, name: str, handler: Any, params: dict[str, Any] | None = None, doc: str = "") -> None:
        """Add an API method (the same as ``daemon.api.register``)."""
        self.registry.register(name, handler, params, doc)

    @property
    def hopper(self) -> int | None:
        """The core's hopper estimate; None when unknown or before start."""
        return self.core.get_status().get("hopper") if self.core is not None else None  # a blaster has none

    def launcher_status(self) -> dict[str, Any]:
        """The core's status only: no layer's status provider runs. Texts in the request's language."""
        return with_texts(self.core.get_status(), None) if self.core is not None else {"state": "starting"}

    # ---- the device's parts (None before start) ---------------------------------------------------

    @property
    def core(self) -> DeviceCore | None:
        return None if self.device is None else self.device.core

    @property
    def hardware(self) -> DeviceHardware | None:
        return None if self.device is None else self.device.hardware

    @property
    def sim(self) -> Simulation | None:
        return None if self.device is None else self.device.sim

    @property
    def press_trace(self) -> PressTrace | None:
        """Where each press's time goes (a device with a button)."""
        return None if self.device is None else self.device.press_trace

    # ---- start-up ------------------------------------------------------------------------

    def _build(self) -> None:
        """Claim the pins and build the device; its actuator off before anything else can happen."""
        rng_seed = self.seed if self.seed is not None else int.from_bytes(os.urandom(8), "little")
        factory = self._pin_factory
        if self.sim_mode and factory is None:
            from firmware.launcher.sim import sim_pin_factory
            factory = sim_pin_factory()
        elif factory is None:
            factory = self._own_factory = hardware_pin_factory(self.config.pins.chip)
        self.pin_factory = factory  # tests and benches drive mock pins through it
        self.device = device = build_device(self.config, factory, self.loop, rng_seed, sim=self.sim_mode,
                                            state_dir=self.state_dir)
        restored = self.latch.restored
        if restored.halt is None:  # else it stays off: halted from the first moment, the alert showing
            self._apply(device.start_actions())
        self.feed(device.restore(restored, self.loop.time()))
        device.watch(self._post_from_thread)
        # Levels, not edges: a beam blocked (a card in a slot) at power-on must be judged too.
        self.feed(device.hardware.levels())

    def _safe_off(self) -> None:
        """The actuator off now: the motor, or the blaster's release."""
        if self.device is not None:
            self._stop_or_die()

    def _stop_or_die(self) -> None:
        """Apply the device's stop; if it cannot be applied, end the process now.

        Nothing in the process is safer to fall back to, and an exception would be caught by the
        asyncio callback or API task it runs in, the daemon living on with the motor running and
        its status saying "off". A dead process lets systemd run safe-off, on a fresh claim of the
        pins, and restart it."""
        try:
            self.device.stop()
            self._motor_may_run = False
            if self.latch is not None:
                self.latch.motor_may_be_on(False)
        except BaseException as exc:
            try:
                log.critical("the stop could not be applied (%s: %s): ending now, for safe-off to run",
                             type(exc).__name__, exc)
                for handler in logging.getLogger().handlers:
                    handler.flush()
            finally:
                os._exit(EXIT_STOP_FAILED)

    def _post_from_thread(self, event: Event, at: float | None) -> None:
        """Hand an edge to the loop, stamped when it reached Python, with ``at``, the pin backend's
        time of it (the loop's clock): a backend thread that comes late must not change how long
        a level lasted, and the deadlines still run from when the edge was known."""
        now = time.monotonic()
        if threading.get_ident() == self._loop_thread:
            # Mock pins call back in the thread that drives them, which for the simulation is the
            # loop's: feed now, or a sim timer due in the same loop turn would run before the core
            # had seen the edge (a card let through after the motor should have stopped).
            self.feed(event, now, at)
        else:
            self.loop.call_soon_threadsafe(self.feed, event, now, at)

    def _register_methods(self) -> None:
        """The daemon's own methods, its device kind's, then the extras the device names."""
        methods.register(self)
        self.device.register_methods(self)
        load_extras(self, self.device.extras)

    def _expect_game(self) -> None:
        """A game process is expected (``launcher-game``): its port, and in a dealer game a press
        that means nothing until the game says what a press means. launcherd never waits for it."""
        if not self.config.daemon.extensions:
            return
        self.game_port = GamePort(self)
        self.api.game_port = self.game_port
        if self.device.press_means_from_game:
            self._press_meaning_told = asyncio.Event()
            self.feed(PressMeaning("nothing", reason=i18n.message("press_game_starting")))

    def game_away(self) -> None:
        """The game process's connection closed after it had said what a press means: in a dealer
        game a press now means nothing (never a random burst) until a game is back."""
        if self.device is not None and self.device.press_means_from_game and not self._stopping:
            self.feed(PressMeaning("nothing", reason=i18n.message("press_game_away")))

    def press_meaning_told(self) -> None:
        """A layer (or a client) said what a press means (``launcher/press-means``)."""
        if self._press_meaning_told is not None:
            self._press_meaning_told.set()

    # ---- the core driver -----------------------------------------------------------------

    def feed(self, event: Event, now: float | None = None, at: float | None = None) -> None:
        """Give one event to the core and apply what it returns. Runs in the loop thread.

        ``at``: when an edge happened by the pin backend, if known (``Launcher.handle``)."""
        if self.core is None:
            return
        now = self.loop.time() if now is None else now
        if self.press_trace is not None and isinstance(event, ButtonLevel) and event.pressed:
            self.press_trace.pressed(at, now, self.loop.time())
        try:
            actions = self.core.handle(event, now) if at is None else self.core.handle(event, now, at)
        except Exception as exc:
            log.exception("launcher core failed on %r", event)
            self.shutdown(i18n.message("halted_internal_error", error=f"{type(exc).__name__}: {exc}"))
            return
        self._apply(actions)
        self._rearm()
        # Only while the motor may run: only then is a stall judged.
        self._stall_clock.mark(self.loop.time() if self._motor_may_run else None)

    def _rearm(self) -> None:
        self._timer.rearm(self.core.next_deadline() if self.core else None)

    def _on_deadline(self) -> None:
        self.feed(self.device.tick())

    def _apply(self, actions: list[Action]) -> None:
        hw, device = self.hardware, self.device
        # The actuator first: LED and chime patterns start gpiozero threads, which the motor must not
        # wait for. Otherwise the core's order stands (events after the devices they describe).
        first = device.actuator_actions
        actions = [a for a in actions if isinstance(a, first)] + [a for a in actions if not isinstance(a, first)]
        for action in actions:
            if action == device.stop_action:
                self._stop_or_die()
                continue
            if self._stopping and isinstance(action, first) and action != DriverEnable(False):
                log.info("stopping: %r not applied", action)
                continue
            try:
                if isinstance(action, Persist):
                    self.latch.record(action.halt, action.on_time, action.at, self.loop.time())
                elif isinstance(action, first):
                    if isinstance(action, Motor):
                        # Set first: a process that dies with the motor on comes back halted. A
                        # store the kernel keeps past a kill; its msync (for a power cut, when the
                        # motor is off anyway) is woken once the motor has been written.
                        self._motor_may_run = True
                        self.latch.motor_may_be_on(True, wake=False)
                        try:
                            device.drive(action)
                        finally:
                            self.latch.wake()
                    else:
                        device.drive(action)
                elif isinstance(action, Led):
                    self._led = action
                    hw.led(action)
                    self._show_feedback(action)
                elif isinstance(action, Chime):
                    hw.chime(action)
                    self._show_feedback(action)
                elif isinstance(action, Emit):
                    self._dispatch(action.name, action.params)
            except Exception as exc:
                log.exception("applying %r failed", action)
                self.shutdown(i18n.message("halted_device_error", error=f"{type(exc).__name__}: {exc}"))
                return

    def _show_feedback(self, action: Action) -> None:
        for watcher in self._feedback_watchers:
            watcher(action)

    def _dispatch(self, name: str, params: dict[str, Any]) -> None:
        # Subscribers and layers alike get the text in the daemon's language beside the object.
        params = with_texts(params, self.language)
        if name == "refused" and self._refusals is not None:
            self._refusals.append(params)
        if name == "state":
            self._state_changed()
        if self._outcome_gate is None:
            self._announce(name, params)
        elif name in self.device.outcome_events:
            # What a launch's outcome is, for the game: numbered, on disk before it is announced,
            # and caught up on by a game layer that was not there (firmware/daemon/outcomes.py).
            self._outcome_gate.outcome(name, params)
        else:
            self._outcome_gate.event(name, params)

    def _announce(self, name: str, params: dict[str, Any]) -> None:
        """An event to API subscribers, to the requests waiting for it, and to every layer."""
        self.api.publish(name, params)
        # A press answered by "resume" let what was waiting go on, and launched nothing itself.
        if name in ("launched", "ignored", "refused", "insert", "resume"):
            self._waiters.answer(params.get("request"), (name, params))
        for listener in list(self._listeners):
            try:
                listener(name, params)
            except Exception:
                log.exception("layer listener failed on %s", name)
        if self.game_port is not None:
            self.game_port.event(name, params)

    def shutdown(self, reason: str | i18n.Message) -> None:
        """The one way down for faults: motor off first, halted with the reason until reset.

        ``reason``: a message object (an internal or a device error too), or an e-stop's words."""
        try:
            self._safe_off()
        finally:
            if self.core is not None:
                try:
                    self._apply(self.core.shutdown(reason, self.loop.time()))
                    self._rearm()
                except Exception:
                    log.exception("core shutdown failed; the motor is already stopped")
            if reason != self._halt_logged:  # a halt the core was in already: no state change said it
                self._halt_logged = reason
                log.error("halted: %s", shown(reason, self.language))

    # ---- requests (the API's launcher methods are in firmware/daemon/methods.py) ----------------

    async def await_outcome(self, trigger: Callable[[int], None]) -> dict:
        """Start a press with a fresh request id (``trigger(id)``) and return the outcome that
        carries that id: ``{"event": "launched" | "ignored", ...}``.

        :raises Refused: the core refused it (``retry_after_s`` when the motor rules hold it up),
            or no outcome came within the motor's own limits.
        """
        request = next(self._request_ids)
        timing = self.config.timing
        limit = (timing.max_on_ms + timing.button_debounce_ms) / 1000 + OUTCOME_MARGIN_S
        with self._waiters.waiting(request) as future:
            try:
                trigger(request)
                name, params = await asyncio.wait_for(future, limit)
            except asyncio.TimeoutError:
                raise Refused(i18n.message("no_outcome")) from None
        if name == "refused":
            # Raised here, in the request's own context, so that it speaks the caller's language.
            raise Refused.from_event(params)
        return {"event": name, **params}

    def request(self, event: Event) -> dict:
        """Feed one request to the core and return its status; a refusal is the caller's error.

        :raises Refused: the core refused the event.
        """
        self._refusals = refusals = []
        try:
            self.feed(event)
        finally:
            self._refusals = None
        if refusals:
            raise Refused.from_event(refusals[0])
        return with_texts(self.core.get_status(), None)

    # ---- status --------------------------------------------------------------------------

    def get_status(self) -> dict[str, Any]:
        """The core's status with its texts in the request's language, and the daemon's own keys."""
        status = with_texts(self.core.get_status(), None) if self.core else {"state": "starting"}
        status["device"] = self.config.device.kind
        status["language"] = self.language
        status["aim"] = self.aim_angle
        status["led"] = self._led.mode if self._led else None
        status["daemon"] = {
            "version": __version__,
            "sim": self.sim_mode,
            "uptime_s": round(time.monotonic() - self._started, 1),
            "clients": self.api.client_count,
            "config": self.config.source,
        }
        if self.device is not None:
            status.update(self.device.status())
        if self.sim is not None:
            status["sim"] = self.sim.get_status()
        for name, provider in self._status_providers.items():
            try:
                status[name] = provider()
            except Exception as exc:
                log.exception("status of %s failed", name)
                status[name] = {"error": str(exc)}
        if self.game_port is not None:
            status.update(self.game_port.status())  # game_layer, and the game's last status keys
        return status

    async def settled_status(self) -> dict[str, Any]:
        """``status/get``: :meth:`get_status` once the game layer has taken in what came before."""
        if self.game_port is not None:
            await self.game_port.settled()
        return self.get_status()

    def _state_changed(self) -> None:
        """Every halt goes to the journal with its reason, the core's own (a stall, the motor's
        limit) as the driver's; systemd's status line follows the state."""
        if self.core is None:
            return
        core = self.core.get_status()
        reason = core.get("reason")
        if core["state"] != "halted":
            self._halt_logged = None
        elif reason != self._halt_logged:
            self._halt_logged = reason
            log.error("halted: %s", shown(reason, self.language))
            if i18n.is_message(reason) and reason.get("id") == "stalled":
                said = self._stall_clock.where_it_went(self.loop.time())
                if said:
                    log.warning("the stall: %s", said)
        if self.notifier is not None:
            line = self.device.status_line(core)
            self.notifier.status(f"{line}: {shown(reason, self.language)}" if reason else line)

    def _watchdog(self, interval: float) -> None:
        # From the motor's loop, while the API's loop answers its beats too: either one hanging ends
        # launcherd through systemd (safe-off follows). A hung API loop answers no client at all.
        if self.api.answering(time.monotonic(), API_ANSWER_PERIODS * interval):
            self.notifier.watchdog()
        self.api.beat()
        self.loop.call_later(interval, self._watchdog, interval)

    # ---- run -----------------------------------------------------------------------------

    def request_stop(self) -> None:
        self._stopping = True
        if self._stop is not None:
            self._stop.set()

    def _on_signal(self, sig: signal.Signals) -> None:
        self._stopping = True
        self._safe_off()  # now, before anything else of the way down
        log.info("%s: motor stopped; stopping", sig.name)
        self.request_stop()

    async def run(self, ready: Callable[["Daemon"], Any] | None = None) -> int:
        """Run until SIGTERM/SIGINT (or ``request_stop``); returns the exit code."""
        self.loop = asyncio.get_running_loop()
        self._loop_thread = threading.get_ident()
        self._stop = asyncio.Event()
        self._timer = DeadlineTimer(self.loop, self._on_deadline)
        self.loop.set_exception_handler(self._loop_exception)
        i18n.set_daemon_language(self.config.daemon.language)
        # Before the socket answers: a stop signal from then on (a client that saw the socket,
        # systemd) ends the daemon through its own way down, never by the signal's default death.
        for sig in STOP_SIGNALS:
            try:
                self.loop.add_signal_handler(sig, self._on_signal, sig)
            except (NotImplementedError, RuntimeError):
                pass  # not the main thread (tests): request_stop() is the way out
        try:
            self._state_lock.acquire()
            self.latch = Latch(self.state_dir)  # read, and written whole, before any pin is claimed
            self.api.claim()  # before any pin is claimed
            self.outcomes = OutcomeRecord(self.state_dir)
            self.add_status("outcome_record", self.outcomes.status)  # a record found wrong at start
            self._outcome_gate = OutcomeGate(self.outcomes, self.loop, self._announce,
                                             lambda: self.game_port is not None)
            self._build()
            self._register_methods()
            # Every catalogue compiled now, before READY: never on first use, on the motor's loop.
            i18n.prepare()
            if self._load_layers:
                self._expect_game()
            await self.api.start()
        except BaseException:
            self._close_devices()
            if self.outcomes is not None:
                self.outcomes.close()
            if self.latch is not None:
                self.latch.close()
            self._state_lock.release()
            i18n.set_daemon_language(None)
            raise
        log.info("launcherd %s listening on %s (%s); state in %s", __version__, self.socket_path,
                 "simulation" if self.sim_mode else "hardware", self.state_dir)
        if self._spawn_game and self.game_port is not None:
            from firmware.daemon.gamechild import GameChild
            self.game_child = GameChild(self.loop, self.socket_path, self.game_state_dir,
                                        on_exit=self.game_port.child_exited)
            self.game_child.start()
        if self.notifier is not None:
            self.notifier.ready()
            self._state_changed()
            interval = self.notifier.watchdog_interval()
            if interval:
                self.loop.call_later(interval, self._watchdog, interval)
        if ready is not None:
            ready(self)
        try:
            await self._stop.wait()
        finally:
            await self._close()
        return 0

    def _loop_exception(self, loop: asyncio.AbstractEventLoop, context: dict) -> None:
        loop.default_exception_handler(context)
        if not self._shut_down:
            self.shutdown(i18n.message("halted_internal_error",
                                       error=str(context.get("message", "unhandled exception"))))

    def _close_devices(self) -> None:
        if self.device is not None:
            self.device.close()
        if self._own_factory is not None:
            self._own_factory.close()
            self._own_factory = None

    async def _close(self) -> None:
        if self._shut_down:
            return
        self._shut_down = True
        self._stopping = True
        if self.notifier is not None:
            self.notifier.stopping()
        self._safe_off()
        if self.device is not None:
            self._apply(self.device.stopping(self.loop.time()))  # the run's on-time into the latch
        if self._timer is not None:
            self._timer.cancel()
        for closer in self._closers:
            try:
                closer()
            except Exception:
                log.exception("closing a layer failed")
        if self.game_port is not None:
            self.game_port.close()
        await self.api.close()  # first: every request in flight is answered that launcherd stops
        if self.game_child is not None:
            await self.game_child.close()  # its connection gone, it closes its log and ends
        self._close_devices()
        if self.outcomes is not None:
            self.outcomes.close()  # what is queued is written: the next start catches up on it
        if self.latch is not None:
            self.latch.close()  # the motor's flag clear: a clean end
        self._state_lock.release()
        i18n.set_daemon_language(None)  # the language was this daemon's, not the process's
        log.info("launcherd stopped")
