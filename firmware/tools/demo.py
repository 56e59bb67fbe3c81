"""The live terminal view of `make demo`: the simulated launcher, its LED and chime, and keys.

Keys: Space/Enter press the launch button, j jam the next card, c clear the jam, l open/close the
lid, r reload the hopper, d deal 7 cards, s sleep, w wake, e emergency stop, x reset, q quit.
With ``[device] kind = "blaster"`` it shows the blaster's slots instead, and Space/Enter puts a
card in the first empty slot, 1-8 in that slot.
Without a terminal (stdin not a tty) the events are printed line by line instead.
"""

from __future__ import annotations

import asyncio
import collections
import os
import sys
import termios
import tty
from typing import TYPE_CHECKING, Any

from firmware import i18n
from firmware.errors import Unavailable
from firmware.events import Action, Chime, EStop, Led, Reset, SleepNow, Wake

if TYPE_CHECKING:  # the daemon starts the demo (launcherd --demo): no import at run time
    from firmware.daemon.driver import Daemon


def _say(message_id: str, /, **params: Any) -> str:
    """One of the demo's own lines (firmware's catalogue, ``demo_*``) in the daemon's language
    (``LC_MESSAGES``, as ``make demo DEMO_LANG=fr`` sets it): the screen speaks the language of the
    texts it shows from the catalogues."""
    return i18n.render(i18n.message(message_id, **params), i18n.daemon_language())


def _word(kind: str, value: Any) -> str:
    """A state, an outcome, how a launch ended or a motor's direction in the catalogue's words, in the
    daemon's language (#40: the screen shows no id); a value the catalogue has no word for, as it is."""
    key = f"{kind}:{value}"
    return i18n.render({"id": key}, i18n.daemon_language()) if i18n.catalogue_of(key) is not None else str(value)


def keys_line(blaster: bool) -> str:
    return _say("demo_keys_blaster" if blaster else "demo_keys_launcher")


# The labels of the screen's lines; the column is as wide as the longest in the language (10 at least).
_LABELS = ("state", "led", "chime", "motor", "presses", "last", "hopper", "slots")


def label(name: str) -> str:
    """A line's label, indented and padded to the labels' column."""
    width = max(9, *(len(_say(f"demo_label_{key}")) for key in _LABELS)) + 1
    return f"  {_say(f'demo_label_{name}'):<{width}}"


def device_lines(s: dict[str, Any]) -> list[str]:
    """The lines of the screen about the device itself, from ``status/get``."""
    last = s.get("last")
    if s.get("device") == "blaster":
        slots = " ".join("X" if full else "." for full in s["slots"])
        if not last:
            said = "-"
        elif last["outcome"] == "blast":
            said = _say("demo_last_slot_blast", slot=last["slot"], outcome=last["outcome"], cards=last["cards"])
        else:
            said = _say("demo_last_slot", slot=last["slot"], outcome=last["outcome"])
        return [
            label("slots") + _say("demo_slots", slots=slots, ejected=s["cards_ejected"], profile=str(s["profile"])),
            label("last") + said,
        ]
    sim = s.get("sim") or {}
    motor = s["motor"]
    return [
        label("motor") + (_say("demo_motor_on", direction=_word("motor_direction", motor["direction"]),
                               duty=motor["duty"]) if motor["on"] else _say("demo_motor_off")),
        label("presses") + _say("demo_presses", presses=s["presses"], dry=s["dry_streak"], profile=str(s["profile"])),
        label("last") + (_say("demo_last_press", outcome=last["outcome"], cards=last["cards"]) if last else "-"),
        label("hopper") + _say("demo_hopper", hopper=str(s["hopper"]), truth=str(sim.get("hopper")),
                               ejected=s["cards_ejected"]),
    ]


# What to do now, for the states a player must act on: the lines' message ids.
_ADVICE = {"jammed": ("demo_advice_jammed", "demo_advice_jammed_presses"),
           "empty": ("demo_advice_empty", "demo_advice_empty_pi"),
           "lid_open": ("demo_advice_lid_open",), "halted": ("demo_advice_halted",),
           "sleeping": ("demo_advice_sleeping",)}


def advice_lines(s: dict[str, Any]) -> list[str]:
    """What to do now, for the states a player must act on."""
    state = s.get("state")
    if state in _ADVICE:
        return ["", *(f"  {_say(message_id)}" for message_id in _ADVICE[state])]
    if (s.get("bringup") or {}).get("bench"):
        return ["", f"  {_say('demo_advice_bench')}"]
    if s.get("pending"):
        return ["", "  " + _say("demo_advice_pending", what=s.get("pending_text") or _say("demo_something_waits"))]
    return []


def _text(value: Any) -> str:
    """A message object as its text (the message catalogue, in the daemon's language), else as is."""
    return i18n.render(value, i18n.daemon_language()) if i18n.is_message(value) else str(value)


# How a launch ended, where the demo says it its own way (demo_ended_*); others in the catalogue's words.
_ENDED = ("jam", "empty", "lid", "stop", "estop", "halt", "cancel", "sleep")
# State changes that every launch makes: the launch's own line says it.
_ROUTINE_STATES = {("launching", "ready"), ("ready", "launching"), ("empty", "launching"), ("launching", "empty")}


def _launched(p: dict[str, Any]) -> str:
    """A launch's line: which press, and what came out."""
    cards, requested, outcome = p.get("cards", 0), p.get("requested", 0), p.get("outcome")
    press = str(p.get("press_id"))
    head = (_say("demo_press", press=press) if p.get("source") in (None, "button")
            else _say("demo_press_from", press=press, source=str(p["source"])))
    if outcome == "dry":
        said = _say("demo_launched_dry")
    elif outcome == "empty":
        said = _say("demo_launched_empty")
    elif requested and cards != requested:
        said = _say("demo_launched_cards_of", cards=cards, requested=requested)
    else:
        said = _say("demo_launched_cards", cards=cards)
    ended = p.get("ended")
    if ended and ended != "done":
        how = _say(f"demo_ended_{ended}") if ended in _ENDED else _word("ended", ended)
        said = _say("demo_launched_ended", said=said, ended=how)
    return _say("demo_launched", press=head, said=said)


def _refilled(p: dict[str, Any]) -> str:
    cards, previous = p.get("cards"), p.get("previous")
    if cards is None:
        return (_say("demo_refilled_unknown") if previous is None
                else _say("demo_refilled_unknown_before", previous=previous))
    return _say("demo_refilled", cards=cards) if previous is None else _say("demo_refilled_before", cards=cards,
                                                                             previous=previous)


def event_line(name: str, p: dict[str, Any]) -> str | None:
    """A short line for the screen about one event (None: not worth a line)."""
    if name == "launched":
        return _launched(p)
    if name == "press":
        return None  # the launch's own line follows, or the line that says why nothing did
    if name == "state":
        if (p.get("previous"), p.get("state")) in _ROUTINE_STATES:
            return None
        return _say("demo_state_now", state=_word("state", p.get("state")).upper(),
                    previous=_word("state", p.get("previous")))
    if name == "jammed":
        return _say("demo_jammed")
    if name == "empty":
        return _text(p["message"]) if p.get("message") else _say("demo_hopper_empty")
    if name == "halted":
        return _say("demo_halted", reason=_text(p.get("reason")))
    if name == "refused":
        if p.get("retry_after_s"):
            return _say("demo_refused_wait", reason=_text(p.get("reason")), seconds=p["retry_after_s"])
        return _say("demo_refused", reason=_text(p.get("reason")))
    if name == "ignored":
        reason = p.get("reason")
        return _say("demo_press_ignored", why=_text(reason) if i18n.is_message(reason) else _word("state", reason))
    if name == "refill_wanted":
        return _say("demo_refill_lid" if p.get("source") == "lid" else "demo_refill_button")
    if name == "refilled":
        return _refilled(p)
    if name == "pending":
        return _say("demo_pending", what=_text(p["pending"])) if p.get("pending") else None
    if name == "resume":
        return _say("demo_resumed")
    if name == "reset":
        return (_say("demo_reset") if p.get("source") in (None, "api")
                else _say("demo_reset_from", source=str(p["source"])))
    if name == "bench":
        return _say("demo_bench_on" if p.get("on") else "demo_bench_off")
    if name == "jogged":
        return _say("demo_jogged", direction=_word("motor_direction", p.get("direction")), ms=str(p.get("ms")))
    if name == "insert":
        return _say("demo_insert", slot=str(p.get("slot")), outcome=_word("outcome", p.get("outcome")))
    if name == "blast":
        return _say("demo_blast_jammed" if p.get("jammed") else "demo_blast", slot=str(p.get("slot")),
                    cards=p.get("cards") or 0)
    if name == "removed":
        return _say("demo_removed", slot=str(p.get("slot")))
    if name in ("card", "trace", "game/action", "game/round_over", "game/code_changed"):
        return None  # a move of the game is said by its game/message, in words
    if name == "game/message" and i18n.is_message(p.get("message")):
        return _text(p["message"])
    # Anything else (a layer's event): its name and what it carries, message objects as text.
    shown = [f"{key}={_text(value)}" for key, value in p.items()
             if value is not None and not key.endswith("_object") and not key.endswith("_id")]
    return f"{name}" + (": " + " ".join(shown) if shown else "")


def _dealt(result: dict[str, Any]) -> str:
    """What `d` dealt, once the dispense is done."""
    dealt = _say("demo_dealt", cards=str(result.get("cards")), count=7)
    return _say("demo_dealt_why", dealt=dealt, reason=_text(result["reason"])) if result.get("reason") else dealt


class DemoView:
    """Redraws the screen from the daemon's status whenever something happens; no polling."""

    def __init__(self, daemon: "Daemon", out=sys.stdout):
        self.daemon = daemon
        self.out = out
        self.events: collections.deque[str] = collections.deque(maxlen=12)
        self.led = _say("demo_led_on")
        self.chimes = 0
        self.last_chime = ""
        self.join_code: str | None = None
        self.web_url = os.environ.get("LAUNCHER_WEB_URL")
        # What `make demo` found about its voice (controller/voice/sound.py): it speaks, or why not.
        self.voice_line = os.environ.get("LAUNCHER_DEMO_VOICE")

    def fetch_join_code(self) -> None:
        """The table's join code, from the game layer (none without it), shown for the phones."""
        if getattr(self.daemon, "game_port", None) is None:
            return

        def got(future: asyncio.Future) -> None:
            if not future.cancelled() and future.exception() is None:
                self.join_code = future.result().get("code")
                self.draw()
            elif self.join_code is None:  # the game process is not there yet: asked again soon
                asyncio.get_running_loop().call_later(0.5, self.fetch_join_code)
        asyncio.ensure_future(self.daemon.call("game/code", {})).add_done_callback(got)

    def on_event(self, name: str, params: dict[str, Any]) -> None:
        if name == "game/code_changed":
            self.fetch_join_code()
        line = event_line(name, params)
        if line is not None:
            self.say(line)
        elif self.out.isatty():
            self.draw()

    def say(self, line: str) -> None:
        """One line of what happened: on the screen, newest first, or printed without a terminal."""
        if not self.out.isatty():
            print(line, file=self.out, flush=True)  # a log, not a screen
            return
        self.events.appendleft(line)
        self.draw()

    def on_feedback(self, action: Action) -> None:
        if isinstance(action, Led):
            self.led = {"off": lambda: _say("demo_led_off"),
                        "on": lambda: _say("demo_led_on_at", brightness=action.brightness),
                        "flash": lambda: _say("demo_led_flash", ms=action.period_ms)}[action.mode]()
        elif isinstance(action, Chime):
            self.chimes += 1
            self.last_chime = "♪ " * min(action.count, 8) + f" ({action.count} x {action.ms} ms)"
        if self.out.isatty():
            self.draw()

    def _then_draw(self, request, done_line: Any = None) -> None:
        """Run an API request and redraw when it is done: a reload that changes no state emits
        no event, and the screen must still show the new hopper. Its error is a line of the screen
        (a key pressed at the wrong time), not a failure of the demo; ``done_line(result)`` is the
        line that says it worked (None: its events say it)."""
        def done(future: asyncio.Future) -> None:
            if future.cancelled():
                return
            if future.exception() is not None:
                self.say(_say("demo_refused", reason=str(future.exception())))
            elif done_line is not None:
                self.say(done_line(future.result()))
            self.draw()
        asyncio.ensure_future(request).add_done_callback(done)

    def draw(self) -> None:
        if not self.out.isatty():
            return
        s = self.daemon.get_status()
        blaster = s.get("device") == "blaster"
        lines = [
            "\x1b[H\x1b[2J",
            "  " + _say("demo_title_blaster" if blaster else "demo_title_launcher"),
            "",
            label("state") + _word("state", s["state"]).upper() + (f"  ({_text(s['reason'])})" if s.get("reason") else ""),
            label("led") + self.led,
            label("chime") + _say("demo_chimes", last=self.last_chime or "-", count=self.chimes),
            *device_lines(s),
            *advice_lines(s),
            "",
            "  " + _say("demo_recent_events"),
            *[f"    {e}" for e in self.events],
            "",
            "  " + keys_line(blaster),
            "  " + _say("demo_launcherctl", command=f"launcherctl --socket {self.daemon.socket_path} status"),
        ]
        if self.web_url:
            lines.append("  " + (_say("demo_table_page_code", url=self.web_url, code=self.join_code) if self.join_code
                                 else _say("demo_table_page", url=self.web_url)))
        if self.voice_line:
            lines.append(f"  {self.voice_line}")
        self.out.write("\n".join(lines) + "\n")
        self.out.flush()

    def on_key(self, key: str) -> None:
        """Every key answers with a line at once; what it causes follows as its own lines."""
        daemon, sim = self.daemon, self.daemon.sim
        blaster = daemon.config.device.kind == "blaster"
        status = daemon.get_status()
        name = _say("demo_key_space") if key == " " else _say("demo_key_enter") if key in ("\r", "\n") else key
        if blaster and (key in (" ", "\r", "\n") or key.isdigit()):
            slot = int(key) if key.isdigit() else None
            self.say(_say("demo_key_insert", key=name) if slot is None else _say("demo_key_insert_slot", key=name, slot=slot))
            # A full or unknown slot is the sim/insert error; the screen shows it as a line.
            self._then_draw(daemon.call("sim/insert", {"slot": slot}))
        elif blaster and key in ("l", "r", "d"):
            self.say(_say({"l": "demo_key_no_lid", "r": "demo_key_no_hopper", "d": "demo_key_no_dealer"}[key], key=name))
        elif key in (" ", "\r", "\n"):
            self.say(_say("demo_key_press", key=name))
            sim.press()
        elif key == "j":
            self.say(_say("demo_key_jam"))
            sim.jam_next()
        elif key == "c":
            stuck = status.get("state") == "jammed" or bool(status.get("beam_blocked"))
            self.say(_say("demo_key_clear" if stuck else "demo_key_clear_none"))
            sim.clear()
        elif key == "l":
            opening = not status.get("lid_open")
            self.say(_say("demo_key_lid_open" if opening else "demo_key_lid_closed"))
            try:
                sim.set_lid(opening)
            except Unavailable:  # no lid switch configured
                self.say(_say("demo_key_lid_none"))
        elif key == "r":
            cards = daemon.config.sim.hopper
            self.say(_say("demo_key_reload", cards=cards))
            self._then_draw(daemon.call("launcher/reload", {"cards": cards}),
                            lambda result: _say("demo_reloaded", cards=cards))
        elif key == "d":
            self.say(_say("demo_key_deal", cards=7))
            self._then_draw(daemon.call("launcher/dispense", {"count": 7}), _dealt)
        elif key == "s":
            self.say(_say("demo_key_sleep"))
            daemon.feed(SleepNow())
        elif key == "w":
            self.say(_say("demo_key_wake"))
            daemon.feed(Wake())
        elif key == "e":
            self.say(_say("demo_key_estop"))
            daemon.feed(EStop(_say("demo_estop_reason")))
        elif key == "x":
            self.say(_say("demo_key_reset"))
            daemon.feed(Reset())
        elif key in ("q", "\x03"):
            self.say(_say("demo_key_quit"))
            daemon.request_stop()
        elif key.strip():
            self.say(_say("demo_key_unknown", key=name))
        self.draw()


async def run_demo(daemon: "Daemon") -> int:
    view = DemoView(daemon)
    interactive = sys.stdin.isatty()
    saved = termios.tcgetattr(sys.stdin) if interactive else None

    def started(d: "Daemon") -> None:
        d.subscribe(view.on_event)
        d.watch_feedback(view.on_feedback)
        view.fetch_join_code()
        if interactive:
            tty.setcbreak(sys.stdin.fileno())
            d.loop.add_reader(sys.stdin.fileno(), lambda: view.on_key(os.read(sys.stdin.fileno(), 1).decode(errors="ignore")))
        view.draw()

    try:
        return await daemon.run(ready=started)
    finally:
        if saved is not None:
            asyncio.get_running_loop().remove_reader(sys.stdin.fileno())
            termios.tcsetattr(sys.stdin, termios.TCSADRAIN, saved)
