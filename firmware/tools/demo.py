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
from firmware.events import Action, Chime, EStop, Led, Reset, SleepNow, Wake

if TYPE_CHECKING:  # the daemon starts the demo (launcherd --demo): no import at run time
    from firmware.daemon.driver import Daemon

KEYS = "Space/Enter press   j jam   c clear   l lid   r reload   d deal 7   s sleep   w wake   e e-stop   x reset   q quit"
BLASTER_KEYS = "Space/Enter insert   1-8 insert in slot N   j jam   c clear   s sleep   w wake   e e-stop   x reset   q quit"


def device_lines(s: dict[str, Any]) -> list[str]:
    """The lines of the screen about the device itself, from ``status/get``."""
    last = s.get("last")
    if s.get("device") == "blaster":
        slots = " ".join("X" if full else "." for full in s["slots"])
        return [
            f"  slots     [{slots}]   ejected {s['cards_ejected']}   profile {s['profile']}",
            "  last      " + (f"slot {last['slot']}: {last['outcome']}"
                              + (f", {last['cards']} card(s)" if last["outcome"] == "blast" else "")
                              if last else "-"),
        ]
    sim = s.get("sim") or {}
    return [
        "  motor     " + (f"{s['motor']['direction']} {round(100 * s['motor']['duty'])}%" if s["motor"]["on"] else "off"),
        f"  presses   {s['presses']}   dry streak {s['dry_streak']}   profile {s['profile']}",
        "  last      " + (f"{last['outcome']}, {last['cards']} card(s)" if last else "-"),
        f"  hopper    {s['hopper']} (estimate)   {sim.get('hopper')} (truth)   ejected {s['cards_ejected']}",
    ]


def advice_lines(s: dict[str, Any]) -> list[str]:
    """What to do now, for the states a player must act on."""
    state = s.get("state")
    if state == "jammed":
        return ["", "  a card is stuck in the exit slot: c clears it (on the Pi, pull the card out);",
                "  presses are ignored until then"]
    if state == "empty":
        return ["", "  hopper empty: refill it, then l twice (lid open, lid closed) tells the launcher;",
                "  on the Pi, hold the button 2 s, or open and close the lid"]
    if state == "lid_open":
        return ["", "  lid open: l closes it, and closing it counts as a refill"]
    if state == "halted":
        return ["", "  halted: x resets it once the cause is dealt with"]
    if state == "sleeping":
        return ["", "  asleep: w or a press (Space) wakes it"]
    if (s.get("bringup") or {}).get("bench"):
        return ["", "  bench mode (selftest/calibrate/inputs): presses launch nothing"]
    if s.get("pending"):
        return ["", f"  {s.get('pending_text') or 'something waits'}: a press (Space) goes on"]
    return []


def _text(value: Any) -> str:
    """A message object as its text (the message catalogue, in the daemon's language), else as is."""
    return i18n.render(value) if i18n.is_message(value) else str(value)


_ENDED = {"jam": "then a card jammed", "empty": "then the hopper ran empty", "lid": "the lid was opened",
          "stop": "stopped", "estop": "emergency stop", "halt": "halted", "cancel": "cancelled",
          "sleep": "went to sleep"}
# State changes that every launch makes: the launch's own line says it.
_ROUTINE_STATES = {("launching", "ready"), ("ready", "launching"), ("empty", "launching"), ("launching", "empty")}


def event_line(name: str, p: dict[str, Any]) -> str | None:
    """A short line for the screen about one event (None: not worth a line)."""
    if name == "launched":
        cards, requested, outcome = p.get("cards", 0), p.get("requested", 0), p.get("outcome")
        head = f"press {p.get('press_id')}" + ("" if p.get("source") in (None, "button") else f" ({p['source']})")
        if outcome == "dry":
            text = "nothing came out (a dry press)"
        elif outcome == "empty":
            text = "nothing came out: the hopper is empty"
        else:
            text = (f"{cards} of {requested} cards" if requested and cards != requested
                    else f"{cards} card{'s' if cards != 1 else ''}")
        ended = p.get("ended")
        if ended and ended != "done":
            text += ", " + _ENDED.get(ended, ended)
        return f"{head}: {text}"
    if name == "press":
        return None  # the launch's own line follows, or the line that says why nothing did
    if name == "state":
        if (p.get("previous"), p.get("state")) in _ROUTINE_STATES:
            return None
        return f"now {str(p.get('state')).upper().replace('_', ' ')} (was {str(p.get('previous')).replace('_', ' ')})"
    if name == "jammed":
        return "a card is stuck in the exit slot: c clears it"
    if name == "empty":
        return _text(p["message"]) if p.get("message") else "the hopper is empty"
    if name == "halted":
        return f"halted: {_text(p.get('reason'))}"
    if name == "refused":
        wait = f" (again in {p['retry_after_s']} s)" if p.get("retry_after_s") else ""
        return f"refused: {_text(p.get('reason'))}{wait}"
    if name == "ignored":
        return f"press ignored ({_text(p.get('reason'))})"
    if name == "refill_wanted":
        how = "lid closed" if p.get("source") == "lid" else "button held"
        return f"{how}: the launcher takes it as a refill"
    if name == "refilled":
        cards, previous = p.get("cards"), p.get("previous")
        return ("refilled: " + ("count unknown" if cards is None else f"{cards} cards")
                + (f" ({previous} before)" if previous is not None else ""))
    if name == "pending":
        return f"waiting for a press to go on ({_text(p['pending'])})" if p.get("pending") else None
    if name == "resume":
        return "a press let it go on"
    if name == "reset":
        return "reset: the launcher is ready again" + ("" if p.get("source") in (None, "api") else f" ({p['source']})")
    if name == "bench":
        return "bench mode " + ("on: presses launch nothing" if p.get("on") else "off")
    if name == "jogged":
        return f"jogged {p.get('direction')} {p.get('ms')} ms"
    if name == "insert":
        return f"card into slot {p.get('slot')}: {p.get('outcome')}"
    if name == "blast":
        return f"blast from slot {p.get('slot')}: {p.get('cards')} card(s)" + (", one stuck: c clears it" if p.get("jammed") else "")
    if name == "removed":
        return f"card taken out of slot {p.get('slot')}"
    if name in ("card", "trace"):
        return None
    # Anything else (a layer's event): its name and what it carries, message objects as text.
    shown = [f"{key}={_text(value)}" for key, value in p.items()
             if value is not None and not key.endswith("_object") and not key.endswith("_id")]
    return f"{name}" + (": " + " ".join(shown) if shown else "")


class DemoView:
    """Redraws the screen from the daemon's status whenever something happens; no polling."""

    def __init__(self, daemon: "Daemon", out=sys.stdout):
        self.daemon = daemon
        self.out = out
        self.events: collections.deque[str] = collections.deque(maxlen=12)
        self.led = "on"
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
            self.led = {"off": "off", "on": f"on {round(action.brightness * 100)}%",
                        "flash": f"flashing every {action.period_ms} ms"}[action.mode]
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
                self.say(f"refused: {future.exception()}")
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
            f"  CARD {'BLASTER' if blaster else 'LAUNCHER'}  (simulation)",
            "",
            f"  state     {s['state'].upper()}" + (f"  ({s['reason']})" if s.get("reason") else ""),
            f"  LED       {self.led}",
            f"  chime     {self.last_chime or '-'}   ({self.chimes} so far)",
            *device_lines(s),
            *advice_lines(s),
            "",
            "  recent events:",
            *[f"    {e}" for e in self.events],
            "",
            "  " + (BLASTER_KEYS if blaster else KEYS),
            f"  launcherctl talks to it too: launcherctl --socket {self.daemon.socket_path} status",
        ]
        if self.web_url:
            lines.append(f"  table page: {self.web_url}" + (f"   join code {self.join_code}" if self.join_code else ""))
        if self.voice_line:
            lines.append(f"  {self.voice_line}")
        self.out.write("\n".join(lines) + "\n")
        self.out.flush()

    def on_key(self, key: str) -> None:
        """Every key answers with a line at once; what it causes follows as its own lines."""
        daemon, sim = self.daemon, self.daemon.sim
        blaster = daemon.config.device.kind == "blaster"
        status = daemon.get_status()
        name = "Space" if key == " " else "Enter" if key in ("\r", "\n") else key
        if blaster and (key in (" ", "\r", "\n") or key.isdigit()):
            slot = int(key) if key.isdigit() else None
            self.say(f"{name}: a card into " + (f"slot {slot}" if slot is not None else "the first empty slot"))
            # A full or unknown slot is the sim/insert error; the screen shows it as a line.
            self._then_draw(daemon.call("sim/insert", {"slot": slot}))
        elif blaster and key in ("l", "r", "d"):
            self.say(f"{name}: a blaster has no " + {"l": "lid", "r": "hopper", "d": "dealer"}[key])
        elif key in (" ", "\r", "\n"):
            self.say(f"{name}: the launch button")
            sim.press()
        elif key == "j":
            self.say("j: the next card will jam in the exit slot (c clears it)")
            sim.jam_next()
        elif key == "c":
            stuck = status.get("state") == "jammed" or bool(status.get("beam_blocked"))
            self.say("c: the stuck card is pulled out" if stuck else "c: no card is stuck (j jams the next one)")
            sim.clear()
        elif key == "l":
            opening = not status.get("lid_open")
            self.say("l: lid open (the motor stops; l again closes it, which counts as a refill)" if opening
                     else "l: lid closed")
            try:
                sim.set_lid(opening)
            except Exception as exc:  # no lid switch configured
                self.say(f"l: {exc}")
        elif key == "r":
            cards = daemon.config.sim.hopper
            self.say(f"r: reload {cards} cards")
            self._then_draw(daemon.call("launcher/reload", {"cards": cards}),
                            lambda result: f"reloaded: the hopper holds {cards} cards")
        elif key == "d":
            self.say("d: deal 7 cards")
            self._then_draw(daemon.call("launcher/dispense", {"count": 7}),
                            lambda result: f"dealt {result.get('cards')} of 7 cards"
                            + (f": {_text(result['reason'])}" if result.get("reason") else ""))
        elif key == "s":
            self.say("s: sleep")
            daemon.feed(SleepNow())
        elif key == "w":
            self.say("w: wake")
            daemon.feed(Wake())
        elif key == "e":
            self.say("e: emergency stop (x resets)")
            daemon.feed(EStop("emergency stop from the demo"))
        elif key == "x":
            self.say("x: reset")
            daemon.feed(Reset())
        elif key in ("q", "\x03"):
            self.say("q: quitting")
            daemon.request_stop()
        elif key.strip():
            self.say(f"{name}: not a key of the demo (the keys are below)")
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
