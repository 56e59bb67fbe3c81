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


def _l(en: str, fr: str) -> str:
    """The demo's own words in the daemon's language (``LC_MESSAGES``, as ``make demo DEMO_LANG=fr``
    sets it): the screen speaks the language of the texts it shows from the catalogues."""
    return fr if i18n.daemon_language() == "fr" else en


def _word(kind: str, value: Any) -> str:
    """A state, an outcome, how a launch ended or a motor's direction in the catalogue's words, in the
    daemon's language (#40: the screen shows no id); a value the catalogue has no word for, as it is."""
    key = f"{kind}:{value}"
    return i18n.render({"id": key}) if i18n.catalogue_of(key) is not None else str(value)


def keys_line(blaster: bool) -> str:
    if blaster:
        return _l("Space/Enter insert   1-8 insert in slot N   j jam   c clear   s sleep   w wake   e e-stop   x reset   q quit",
                  "Espace/Entrée insérer   1-8 insérer en fente N   j coincer   c dégager   s veille   w réveil"
                  "   e arrêt d'urgence   x réinitialiser   q quitter")
    return _l("Space/Enter press   j jam   c clear   l lid   r reload   d deal 7   s sleep   w wake   e e-stop   x reset   q quit",
              "Espace/Entrée appuyer   j coincer   c dégager   l couvercle   r recharger   d distribuer 7   s veille"
              "   w réveil   e arrêt d'urgence   x réinitialiser   q quitter")



def device_lines(s: dict[str, Any]) -> list[str]:
    """The lines of the screen about the device itself, from ``status/get``."""
    last = s.get("last")
    if s.get("device") == "blaster":
        slots = " ".join("X" if full else "." for full in s["slots"])
        return [
            _l(f"  slots     [{slots}]   ejected {s['cards_ejected']}   profile {s['profile']}",
               f"  fentes    [{slots}]   éjectées {s['cards_ejected']}   profil {s['profile']}"),
            _l("  last      ", "  dernier   ") + (_l(f"slot {last['slot']}: {_word('outcome', last['outcome'])}",
                                                    f"fente {last['slot']} : {_word('outcome', last['outcome'])}")
                                                + (_l(f", {last['cards']} card(s)", f", {last['cards']} carte(s)") if last["outcome"] == "blast" else "")
                                                if last else "-"),
        ]
    sim = s.get("sim") or {}
    return [
        _l("  motor     ", "  moteur    ") + (f"{_word('motor_direction', s['motor']['direction'])}"
                                              f" {round(100 * s['motor']['duty'])}%" if s["motor"]["on"]
                                              else _l("off", "arrêté")),
        _l(f"  presses   {s['presses']}   dry streak {s['dry_streak']}   profile {s['profile']}",
           f"  appuis    {s['presses']}   série à vide {s['dry_streak']}   profil {s['profile']}"),
        _l("  last      ", "  dernier   ") + (_l(f"{_word('outcome', last['outcome'])}, {last['cards']} card(s)",
                                                f"{_word('outcome', last['outcome'])}, {last['cards']} carte(s)")
                                              if last else "-"),
        _l(f"  hopper    {s['hopper']} (estimate)   {sim.get('hopper')} (truth)   ejected {s['cards_ejected']}",
           f"  réservoir {s['hopper']} (estimé)   {sim.get('hopper')} (réel)   éjectées {s['cards_ejected']}"),
    ]


def advice_lines(s: dict[str, Any]) -> list[str]:
    """What to do now, for the states a player must act on."""
    state = s.get("state")
    if state == "jammed":
        return ["", _l("  a card is stuck in the exit slot: c clears it (on the Pi, pull the card out);",
                       "  une carte est coincée dans la fente de sortie : c la dégage (sur le Pi, retirez-la) ;"),
                _l("  presses are ignored until then", "  les appuis sont ignorés d'ici là")]
    if state == "empty":
        return ["", _l("  hopper empty: refill it, then l twice (lid open, lid closed) tells the launcher;",
                       "  réservoir vide : remplissez-le, puis l deux fois (couvercle ouvert, fermé) le dit au lanceur ;"),
                _l("  on the Pi, hold the button 2 s, or open and close the lid",
                   "  sur le Pi, tenez le bouton 2 s, ou ouvrez et fermez le couvercle")]
    if state == "lid_open":
        return ["", _l("  lid open: l closes it, and closing it counts as a refill",
                       "  couvercle ouvert : l le ferme, et le fermer compte comme un remplissage")]
    if state == "halted":
        return ["", _l("  halted: x resets it once the cause is dealt with", "  arrêté : x le réinitialise une fois la cause réglée")]
    if state == "sleeping":
        return ["", _l("  asleep: w or a press (Space) wakes it", "  en veille : w ou un appui (Espace) le réveille")]
    if (s.get("bringup") or {}).get("bench"):
        return ["", _l("  bench mode (selftest/calibrate/inputs): presses launch nothing",
                       "  mode banc (selftest/calibrate/inputs) : les appuis ne lancent rien")]
    if s.get("pending"):
        return ["", f"  {s.get('pending_text') or _l('something waits', 'quelque chose attend')}"
                + _l(": a press (Space) goes on", " : un appui (Espace) continue")]
    return []


def _text(value: Any) -> str:
    """A message object as its text (the message catalogue, in the daemon's language), else as is."""
    return i18n.render(value) if i18n.is_message(value) else str(value)


_ENDED = {"jam": ("then a card jammed", "puis une carte s'est coincée"),
          "empty": ("then the hopper ran empty", "puis le réservoir s'est vidé"),
          "lid": ("the lid was opened", "le couvercle a été ouvert"), "stop": ("stopped", "arrêté"),
          "estop": ("emergency stop", "arrêt d'urgence"), "halt": ("halted", "arrêté"),
          "cancel": ("cancelled", "annulé"), "sleep": ("went to sleep", "mis en veille")}
# State changes that every launch makes: the launch's own line says it.
_ROUTINE_STATES = {("launching", "ready"), ("ready", "launching"), ("empty", "launching"), ("launching", "empty")}


def event_line(name: str, p: dict[str, Any]) -> str | None:
    """A short line for the screen about one event (None: not worth a line)."""
    if name == "launched":
        cards, requested, outcome = p.get("cards", 0), p.get("requested", 0), p.get("outcome")
        head = _l("press", "appui") + f" {p.get('press_id')}" + ("" if p.get("source") in (None, "button") else f" ({p['source']})")
        if outcome == "dry":
            text = _l("nothing came out (a dry press)", "rien n'est sorti (un appui à vide)")
        elif outcome == "empty":
            text = _l("nothing came out: the hopper is empty", "rien n'est sorti : le réservoir est vide")
        else:
            text = (_l(f"{cards} of {requested} cards", f"{cards} cartes sur {requested}") if requested and cards != requested
                    else _l(f"{cards} card{'s' if cards != 1 else ''}", f"{cards} carte{'s' if cards > 1 else ''}"))
        ended = p.get("ended")
        if ended and ended != "done":
            text += ", " + (_l(*_ENDED[ended]) if ended in _ENDED else _word("ended", ended))
        return f"{head}: {text}" if i18n.daemon_language() != "fr" else f"{head} : {text}"
    if name == "press":
        return None  # the launch's own line follows, or the line that says why nothing did
    if name == "state":
        if (p.get("previous"), p.get("state")) in _ROUTINE_STATES:
            return None
        state, previous = _word("state", p.get("state")).upper(), _word("state", p.get("previous"))
        return _l(f"now {state} (was {previous})", f"maintenant {state} (avant : {previous})")
    if name == "jammed":
        return _l("a card is stuck in the exit slot: c clears it", "une carte est coincée dans la fente de sortie : c la dégage")
    if name == "empty":
        return _text(p["message"]) if p.get("message") else _l("the hopper is empty", "le réservoir est vide")
    if name == "halted":
        return _l("halted: ", "arrêté : ") + _text(p.get("reason"))
    if name == "refused":
        wait = _l(f" (again in {p['retry_after_s']} s)", f" (de nouveau dans {p['retry_after_s']} s)") if p.get("retry_after_s") else ""
        return _l("refused: ", "refusé : ") + f"{_text(p.get('reason'))}{wait}"
    if name == "ignored":
        reason = p.get("reason")
        return _l("press ignored", "appui ignoré") + f" ({_text(reason) if i18n.is_message(reason) else _word('state', reason)})"
    if name == "refill_wanted":
        how = _l("lid closed", "couvercle fermé") if p.get("source") == "lid" else _l("button held", "bouton tenu")
        return how + _l(": the launcher takes it as a refill", " : le lanceur le prend comme un remplissage")
    if name == "refilled":
        cards, previous = p.get("cards"), p.get("previous")
        return (_l("refilled: ", "rempli : ") + (_l("count unknown", "nombre inconnu") if cards is None
                                                  else _l(f"{cards} cards", f"{cards} cartes"))
                + (_l(f" ({previous} before)", f" ({previous} avant)") if previous is not None else ""))
    if name == "pending":
        return _l("waiting for a press to go on", "attend un appui pour continuer") + f" ({_text(p['pending'])})" if p.get("pending") else None
    if name == "resume":
        return _l("a press let it go on", "un appui l'a fait continuer")
    if name == "reset":
        return (_l("reset: the launcher is ready again", "réinitialisé : le lanceur est de nouveau prêt")
                + ("" if p.get("source") in (None, "api") else f" ({p['source']})"))
    if name == "bench":
        return _l("bench mode ", "mode banc ") + (_l("on: presses launch nothing", "actif : les appuis ne lancent rien")
                                                if p.get("on") else _l("off", "inactif"))
    if name == "jogged":
        return _l("jogged", "moteur poussé") + f" {_word('motor_direction', p.get('direction'))} {p.get('ms')} ms"
    if name == "insert":
        return _l(f"card into slot {p.get('slot')}: {_word('outcome', p.get('outcome'))}",
                  f"carte dans la fente {p.get('slot')} : {_word('outcome', p.get('outcome'))}")
    if name == "blast":
        return (_l(f"blast from slot {p.get('slot')}: {p.get('cards')} card(s)", f"tir depuis la fente {p.get('slot')} : {p.get('cards')} carte(s)")
                + (_l(", one stuck: c clears it", ", une coincée : c la dégage") if p.get("jammed") else ""))
    if name == "removed":
        return _l(f"card taken out of slot {p.get('slot')}", f"carte retirée de la fente {p.get('slot')}")
    if name in ("card", "trace", "game/action", "game/round_over", "game/code_changed"):
        return None  # a move of the game is said by its game/message, in words
    if name == "game/message" and i18n.is_message(p.get("message")):
        return _text(p["message"])
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
        self.led = _l("on", "allumée")
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
            self.led = {"off": _l("off", "éteinte"), "on": _l("on", "allumée") + f" {round(action.brightness * 100)}%",
                        "flash": _l(f"flashing every {action.period_ms} ms", f"clignote toutes les {action.period_ms} ms")}[action.mode]
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
                self.say(_l("refused: ", "refusé : ") + str(future.exception()))
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
            _l(f"  CARD {'BLASTER' if blaster else 'LAUNCHER'}  (simulation)",
               f"  {'BLASTER' if blaster else 'LANCEUR'} DE CARTES  (simulation)"),
            "",
            _l("  state     ", "  état      ") + _word("state", s["state"]).upper()
            + (f"  ({_text(s['reason'])})" if s.get("reason") else ""),
            f"  LED       {self.led}",
            _l("  chime     ", "  carillon  ") + f"{self.last_chime or '-'}   "
            + _l(f"({self.chimes} so far)", f"({self.chimes} jusqu'ici)"),
            *device_lines(s),
            *advice_lines(s),
            "",
            _l("  recent events:", "  derniers événements :"),
            *[f"    {e}" for e in self.events],
            "",
            "  " + keys_line(blaster),
            _l("  launcherctl talks to it too: ", "  launcherctl lui parle aussi : ")
            + f"launcherctl --socket {self.daemon.socket_path} status",
        ]
        if self.web_url:
            lines.append(_l("  table page: ", "  page de la table : ") + self.web_url
                         + (_l(f"   join code {self.join_code}", f"   code de la table {self.join_code}") if self.join_code else ""))
        if self.voice_line:
            lines.append(f"  {self.voice_line}")
        self.out.write("\n".join(lines) + "\n")
        self.out.flush()

    def on_key(self, key: str) -> None:
        """Every key answers with a line at once; what it causes follows as its own lines."""
        daemon, sim = self.daemon, self.daemon.sim
        blaster = daemon.config.device.kind == "blaster"
        status = daemon.get_status()
        name = _l("Space", "Espace") if key == " " else _l("Enter", "Entrée") if key in ("\r", "\n") else key
        if blaster and (key in (" ", "\r", "\n") or key.isdigit()):
            slot = int(key) if key.isdigit() else None
            self.say(_l(f"{name}: a card into ", f"{name} : une carte dans ")
                     + (_l(f"slot {slot}", f"la fente {slot}") if slot is not None else _l("the first empty slot", "la première fente vide")))
            # A full or unknown slot is the sim/insert error; the screen shows it as a line.
            self._then_draw(daemon.call("sim/insert", {"slot": slot}))
        elif blaster and key in ("l", "r", "d"):
            self.say(_l(f"{name}: a blaster has no ", f"{name} : un blaster n'a pas de ")
                     + _l(*{"l": ("lid", "couvercle"), "r": ("hopper", "réservoir"), "d": ("dealer", "distributeur")}[key]))
        elif key in (" ", "\r", "\n"):
            self.say(_l(f"{name}: the launch button", f"{name} : le bouton de lancement"))
            sim.press()
        elif key == "j":
            self.say(_l("j: the next card will jam in the exit slot (c clears it)",
                        "j : la prochaine carte se coincera dans la fente de sortie (c la dégage)"))
            sim.jam_next()
        elif key == "c":
            stuck = status.get("state") == "jammed" or bool(status.get("beam_blocked"))
            self.say(_l("c: the stuck card is pulled out", "c : la carte coincée est retirée") if stuck
                     else _l("c: no card is stuck (j jams the next one)", "c : aucune carte n'est coincée (j coince la prochaine)"))
            sim.clear()
        elif key == "l":
            opening = not status.get("lid_open")
            self.say(_l("l: lid open (the motor stops; l again closes it, which counts as a refill)",
                        "l : couvercle ouvert (le moteur s'arrête ; l encore le ferme, ce qui compte comme un remplissage)")
                     if opening else _l("l: lid closed", "l : couvercle fermé"))
            try:
                sim.set_lid(opening)
            except Exception as exc:  # no lid switch configured
                self.say(f"l: {exc}")
        elif key == "r":
            cards = daemon.config.sim.hopper
            self.say(_l(f"r: reload {cards} cards", f"r : recharger {cards} cartes"))
            self._then_draw(daemon.call("launcher/reload", {"cards": cards}),
                            lambda result: _l(f"reloaded: the hopper holds {cards} cards",
                                              f"rechargé : le réservoir contient {cards} cartes"))
        elif key == "d":
            self.say(_l("d: deal 7 cards", "d : distribuer 7 cartes"))
            self._then_draw(daemon.call("launcher/dispense", {"count": 7}),
                            lambda result: _l(f"dealt {result.get('cards')} of 7 cards", f"{result.get('cards')} cartes sur 7 distribuées")
                            + (f": {_text(result['reason'])}" if result.get("reason") else ""))
        elif key == "s":
            self.say(_l("s: sleep", "s : veille"))
            daemon.feed(SleepNow())
        elif key == "w":
            self.say(_l("w: wake", "w : réveil"))
            daemon.feed(Wake())
        elif key == "e":
            self.say(_l("e: emergency stop (x resets)", "e : arrêt d'urgence (x réinitialise)"))
            daemon.feed(EStop(_l("emergency stop from the demo", "arrêt d'urgence depuis la démo")))
        elif key == "x":
            self.say(_l("x: reset", "x : réinitialiser"))
            daemon.feed(Reset())
        elif key in ("q", "\x03"):
            self.say(_l("q: quitting", "q : fin de la démo"))
            daemon.request_stop()
        elif key.strip():
            self.say(_l(f"{name}: not a key of the demo (the keys are below)",
                        f"{name} : pas une touche de la démo (les touches sont en dessous)"))
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
