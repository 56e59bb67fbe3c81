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

from .events import Action, Chime, EStop, Led, Reset, SleepNow, Wake

if TYPE_CHECKING:  # the daemon starts the demo (launcherd --demo): no import at run time
    from .daemon import Daemon

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
    if s.get("state") == "empty":
        return ["", "  hopper empty: refill it, then l twice (lid open, lid closed) tells the launcher;",
                "  on the Pi, hold the button 2 s, or open and close the lid"]
    if (s.get("bringup") or {}).get("bench"):
        return ["", "  bench mode (selftest/calibrate/inputs): presses launch nothing"]
    return []


class DemoView:
    """Redraws the screen from the daemon's status whenever something happens; no polling."""

    def __init__(self, daemon: "Daemon", out=sys.stdout):
        self.daemon = daemon
        self.out = out
        self.events: collections.deque[str] = collections.deque(maxlen=10)
        self.led = "on"
        self.chimes = 0
        self.last_chime = ""
        self.join_code: str | None = None
        self.web_url = os.environ.get("LAUNCHER_WEB_URL")
        # What `make demo` found about its voice (controller/voice/sound.py): it speaks, or why not.
        self.voice_line = os.environ.get("LAUNCHER_DEMO_VOICE")

    def fetch_join_code(self) -> None:
        """The table's join code, from the game layer (none without it), shown for the phones."""
        if "game/code" not in self.daemon.registry:
            return

        def got(future: asyncio.Future) -> None:
            if not future.cancelled() and future.exception() is None:
                self.join_code = future.result().get("code")
                self.draw()
        asyncio.ensure_future(self.daemon.call("game/code", {})).add_done_callback(got)

    def on_event(self, name: str, params: dict[str, Any]) -> None:
        if name == "game/code_changed":
            self.fetch_join_code()
        line = f"{name:<9} " + " ".join(f"{k}={v}" for k, v in params.items())
        if not self.out.isatty():
            print(line, file=self.out, flush=True)  # a log, not a screen
            return
        if name != "card":
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

    def _then_draw(self, request, quiet: bool = False) -> None:
        """Run an API request and redraw when it is done: a reload that changes no state emits
        no event, and the screen must still show the new hopper. ``quiet``: its error is a line
        of the screen (a key pressed at the wrong time), not a failure of the demo."""
        def done(future: asyncio.Future) -> None:
            if quiet and not future.cancelled() and future.exception() is not None:
                self.events.appendleft(f"refused   {future.exception()}")
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
        daemon, sim = self.daemon, self.daemon.sim
        blaster = daemon.config.device.kind == "blaster"
        if blaster and (key in (" ", "\r", "\n") or key.isdigit()):
            slot = int(key) if key.isdigit() else None
            # A full or unknown slot is the sim/insert error; the screen shows it as an event.
            self._then_draw(daemon.call("sim/insert", {"slot": slot}), quiet=True)
        elif blaster and key in ("l", "r", "d"):
            pass  # the launcher's lid, hopper and dealer: a blaster has none
        elif key in (" ", "\r", "\n"):
            sim.press()
        elif key == "j":
            sim.jam_next()
        elif key == "c":
            sim.clear()
        elif key == "l":
            sim.set_lid(not daemon.get_status()["lid_open"])
        elif key == "r":
            self._then_draw(daemon.call("launcher/reload", {"cards": daemon.config.sim.hopper}))
        elif key == "d":
            self._then_draw(daemon.call("launcher/dispense", {"count": 7}))
        elif key == "s":
            daemon.feed(SleepNow())
        elif key == "w":
            daemon.feed(Wake())
        elif key == "e":
            daemon.feed(EStop("emergency stop from the demo"))
        elif key == "x":
            daemon.feed(Reset())
        elif key in ("q", "\x03"):
            daemon.request_stop()
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
