"""``launcherctl selftest``, ``jog``, ``inputs`` and ``calibrate``: bring-up from a box of parts.

Added to launcherctl through the ``card_launcher.cli`` entry point ``bringup``. Each command talks
to launcherd's ``bringup/*`` methods (``firmware/bringup.py``); nothing here touches a pin. When
the daemon runs in simulation (``status/get`` says ``daemon.sim``), the simulated mechanism plays
the person's part: it presses the button, opens the lid, sends a card through the beam.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from .calibrate import CalibrationError, analyse, toml_snippet, write_config
from .cli import EXIT_ERROR, EXIT_OK, EXIT_USAGE, Client, print_result
from .config import ConfigError, load_config
from .errors import ApiError
from .hardware import HEADER_PINS

WAIT_S = 15.0  # how long a person has to block the beam, press the button, open the lid
SIM_WAIT_S = 3.0
SELFTEST_JOG_MS = 300
SELFTEST_JOG_DUTY = 0.3
DEFAULT_DUTIES = (0.4, 0.6, 0.8)
DEFAULT_CARDS = 5
SETTLE_S, SETTLE_POLL_S = 1.0, 0.02
JOG_MARGIN_S = 10.0  # beyond the motor's own time, for the reply
FEED_CALL_S = 300.0  # a feed may wait up to 120 s for the motor's rest, then run up to 120 s
PASS, FAIL, SKIPPED = "pass", "fail", "skipped"


@dataclass
class Step:
    """One selftest step's report."""

    name: str
    title: str
    result: str = SKIPPED
    detail: str = ""
    check: list[str] = field(default_factory=list)
    pins: list[dict[str, Any]] = field(default_factory=list)
    judged_by: str = ""  # "person", "daemon", "sim"

    def as_dict(self) -> dict[str, Any]:
        return {"step": self.name, "title": self.title, "result": self.result, "detail": self.detail,
                "check": self.check, "pins": self.pins, "judged_by": self.judged_by}


class Person:
    """Who answers the prompts: a person at a terminal, ``--yes``, or nobody (skipped)."""

    def __init__(self, interactive: bool, yes: bool, json_out: bool):
        self.interactive = interactive and not yes
        self.yes = yes
        # With --json, stdout is the report alone: the person still reads the prompts, on stderr.
        self.out = sys.stderr if json_out else sys.stdout

    def say(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    def confirm(self, question: str) -> bool | None:
        """True/False from a person; True with --yes; None when nobody can answer."""
        if self.yes:
            return True
        if not self.interactive:
            return None
        while True:
            print(f"{question} [y]es / [n]o / [s]kip: ", end="", file=self.out, flush=True)
            line = sys.stdin.readline()
            if not line:
                return None
            answer = line.strip().lower()
            if answer in ("y", "yes"):
                return True
            if answer in ("n", "no"):
                return False
            if answer in ("s", "skip"):
                return None


def _long_call(client: Client, method: str, params: dict[str, Any], seconds: float) -> Any:
    """A call that may take ``seconds`` (a person acting, a feed): beyond launchctl's quick bound."""
    saved = client.timeout
    client.timeout = seconds
    client.sock.settimeout(seconds)
    try:
        return client.call(method, params)
    finally:
        client.timeout = saved


# ---- the wiring rows a failure points at ---------------------------------------------------------


def _pin_row(config: dict[str, Any], key: str, reading: dict[str, Any] | None = None) -> dict[str, Any]:
    gpio = config.get(key)
    row: dict[str, Any] = {"function": key, "gpio": gpio,
                           "header": HEADER_PINS.get(gpio) if isinstance(gpio, int) else None}
    if reading and reading.get("fitted"):
        row.update({"reads": reading["level"], "active_level": reading["active_level"], "pull": reading["pull"]})
    return row


def _row_text(row: dict[str, Any]) -> str:
    if row.get("gpio") in (None, False):
        return f"[pins] {row['function']}: not fitted"
    text = f"[pins] {row['function']} = GPIO {row['gpio']} (header pin {row['header']})"
    if "reads" in row:
        text += (f", reads {row['reads']} now (active {row['active_level']},"
                 f" internal pull-{row['pull']})")
    return text


# ---- selftest -------------------------------------------------------------------------------------


class Selftest:
    def __init__(self, client: Client, person: Person, sim: bool, pins: dict[str, Any]):
        self.client = client
        self.person = person
        self.sim = sim
        self.pins = pins
        self.wheel_free = False

    def call(self, method: str, params: dict | None = None, seconds: float | None = None) -> Any:
        if seconds is not None:
            return _long_call(self.client, method, params or {}, seconds)
        return self.client.call(method, params or {})

    def judge(self, step: Step, question: str, done_by_daemon: bool) -> None:
        """A step only a person can see: ask; in the sim, or without a person, the daemon's word."""
        if self.sim:
            step.judged_by = "sim"
            step.result = PASS if done_by_daemon else FAIL
            return
        answer = self.person.confirm(question)
        if answer is None:
            step.judged_by = "nobody"
            step.result = SKIPPED
            step.detail += " (nobody to look: run it at a terminal, or with --yes to take the daemon's word)"
            return
        step.judged_by = "person" if not self.person.yes else "daemon"
        step.result = PASS if answer and done_by_daemon else FAIL

    def run(self) -> list[Step]:
        self.call("bringup/bench", {"seconds": 300})
        try:
            return [self.led(), self.chime(), *self.motor(), self.standby(), self.beam(), self.button(),
                    self.lid(), self.servo()]
        finally:
            self.call("bringup/bench", {"seconds": 0})

    def led(self) -> Step:
        step = Step("led", "button LED", pins=[_pin_row(self.pins, "led")])
        self.person.say("LED: it flashes 4 times, then shows the launcher's state again.")
        self.call("bringup/identify", {"led": True, "chime": False})
        step.detail = "flashed 4 times"
        self.judge(step, "Did the button LED flash 4 times?", True)
        if step.result == FAIL:
            step.check = [_row_text(step.pins[0]),
                          "the LED's series resistor, its polarity (long leg towards the GPIO), its GND"]
        return step

    def chime(self) -> Step:
        step = Step("chime", "chime", pins=[_pin_row(self.pins, "chime")])
        self.person.say("Chime: 3 beeps.")
        self.call("bringup/identify", {"led": False, "chime": True})
        step.detail = "3 beeps sent"
        self.judge(step, "Did you hear 3 beeps?", True)
        if step.result == FAIL:
            step.check = [_row_text(step.pins[0]),
                          "an active buzzer (it beeps on DC), its transistor, base resistor and 5 V supply"]
        return step

    def motor(self) -> list[Step]:
        self.person.say(f"Motor: the wheel must be free (no cards against it). It turns forward, then"
                        f" reverse, {SELFTEST_JOG_MS} ms each at {SELFTEST_JOG_DUTY:.0%}.")
        self.wheel_free = self.sim or self.person.confirm("Is the wheel free?") is True
        if not self.wheel_free:
            return [Step(f"motor_{d}", f"motor {d}", detail="nobody said the wheel is free")
                    for d in ("forward", "reverse")]
        steps = []
        for direction in ("forward", "reverse"):
            key = "motor_forward" if direction == "forward" else "motor_reverse"
            step = Step(f"motor_{direction}", f"motor {direction}",
                        pins=[_pin_row(self.pins, key), _pin_row(self.pins, "motor_enable")])
            done = self._jog(step, direction, standby=False)
            self.judge(step, f"Did the wheel turn {direction} (it feeds cards out when forward)?", done)
            if step.result == FAIL:
                step.check = [*map(_row_text, step.pins),
                              "the motor supply, its fuse and the driver's VM, VCC and GND; the grounds joined",
                              "TB6612FNG: PWMA tied to 3V3 and STBY high; DRV8833: nSLEEP high",
                              "forward and reverse swapped? swap the two motor wires (or the two [pins])"]
            steps.append(step)
        return steps

    def _jog(self, step: Step, direction: str, standby: bool) -> bool:
        try:
            result = self.call("bringup/jog", {"direction": direction, "ms": SELFTEST_JOG_MS,
                                               "duty": SELFTEST_JOG_DUTY, "standby": standby},
                               SELFTEST_JOG_MS / 1000 + JOG_MARGIN_S)
        except ApiError as exc:
            step.detail = f"the launcher refused the jog: {exc.message}"
            return False
        ended = result["jogged"]["ended"]
        step.detail = f"{direction} {SELFTEST_JOG_MS} ms at {SELFTEST_JOG_DUTY:.0%}: {ended}"
        self._settle()
        return ended == "done"

    def _settle(self) -> None:
        """Let a card the jog pushed out finish crossing the beam before the next step looks at it."""
        deadline = time.monotonic() + SETTLE_S
        while self.call("bringup/inputs")["inputs"]["beam"].get("active") and time.monotonic() < deadline:
            time.sleep(SETTLE_POLL_S)

    def standby(self) -> Step:
        step = Step("standby", "driver standby", pins=[_pin_row(self.pins, "motor_enable")])
        if self.pins.get("motor_enable") in (None, False):
            step.detail = "no standby pin fitted ([pins] motor_enable = false)"
            return step
        if not self.wheel_free:
            step.detail = "nobody said the wheel is free"
            return step
        self.person.say("Standby: the driver is put in standby and the motor driven forward; the wheel"
                        " must NOT turn.")
        done = self._jog(step, "forward", standby=True)
        self.judge(step, "Did the wheel stay still?", done)
        if step.result == FAIL:
            step.check = [_row_text(step.pins[0]) + " to the driver's STBY (TB6612FNG) or nSLEEP (DRV8833)",
                          "a breakout that pulls nSLEEP high on the board: see wiring/README.md"]
        return step

    def _input_step(self, name: str, title: str, act: str, undo: str,
                    sim_act: Callable[[], Any], sim_undo: Callable[[], Any] | None) -> Step:
        before = self.call("bringup/inputs")["inputs"][name]
        step = Step(name, title, pins=[_pin_row(self.pins, name, before)])
        if not before.get("fitted"):
            step.detail = f"no {name} fitted ([pins] {name} = false)"
            return step
        if before["active"]:
            step.result = FAIL
            step.detail = f"the {title} reads active before anyone touched it"
            step.check = self._input_checks(name, step.pins[0])
            return step
        wait = SIM_WAIT_S if self.sim else WAIT_S
        edges = before["edges"]
        self.person.say(f"{title.capitalize()}: {act} now (within {wait:.0f} s).")
        if self.sim:
            sim_act()
        seen = self.call("bringup/wait-input", {"input": name, "active": True, "since": edges["active"],
                                                "timeout_s": wait}, wait + JOG_MARGIN_S)
        if seen["seen"]:
            self.person.say(f"  seen. Now {undo}.")
            if self.sim and sim_undo is not None:
                sim_undo()
            seen = self.call("bringup/wait-input", {"input": name, "active": False,
                                                    "since": edges["inactive"], "timeout_s": wait},
                             wait + JOG_MARGIN_S)
            step.detail = "seen active, then back" if seen["seen"] else "seen active, but it never came back"
        else:
            step.detail = f"nothing seen in {wait:.0f} s"
        step.judged_by = "sim" if self.sim else "daemon"
        step.result = PASS if seen["seen"] else FAIL
        step.pins = [_pin_row(self.pins, name, seen["input"])]
        if step.result == FAIL:
            step.check = self._input_checks(name, step.pins[0])
        return step

    @staticmethod
    def _input_checks(name: str, row: dict[str, Any]) -> list[str]:
        extra = {
            "beam": "the emitter powered (its LED glows in a phone camera), the receiver aligned across the"
                    " slot, its open-collector output to the GPIO; [sensor] beam_blocked",
            "button": "the button between the GPIO and the rail opposite its pull; [sensor] button_active",
            "lid": "the lid switch closed while the lid is shut; [sensor] lid_open",
        }[name]
        return [_row_text(row), extra]

    def beam(self) -> Step:
        return self._input_step("beam", "break-beam", "block the beam at the exit slot (a card or a finger)",
                                "clear it", lambda: self.call("launcher/feed", {"count": 1}), None)

    def button(self) -> Step:
        return self._input_step("button", "button", "press the launch button", "let go",
                                lambda: self.call("launcher/press"), None)

    def lid(self) -> Step:
        return self._input_step("lid", "lid switch", "open the hopper lid", "close it",
                                lambda: self.call("sim/lid", {"open": True}),
                                lambda: self.call("sim/lid", {"open": False}))

    def servo(self) -> Step:
        step = Step("servo", "aim servo", pins=[_pin_row(self.pins, "servo")])
        if self.pins.get("servo") in (None, False):
            step.detail = "no servo fitted ([pins] servo = false)"
            return step
        self.person.say("Servo: it turns to one end, the other, then the middle.")
        try:
            angles = self.call("bringup/servo", {}, JOG_MARGIN_S)["angles"]
            step.detail = "angles " + ", ".join(f"{a:.0f}" for a in angles)
            done = True
        except ApiError as exc:
            step.detail = f"refused: {exc.message}"
            done = False
        self.judge(step, "Did the launcher turn to both ends and back to the middle?", done)
        if step.result == FAIL:
            step.check = [_row_text(step.pins[0]), "the servo's own 5 V supply and the common ground;"
                          " [aim] min_pulse_ms / max_pulse_ms"]
        return step


def _report_text(report: dict[str, Any]) -> str:
    lines = []
    for step in report["steps"]:
        mark = {"pass": "pass", "fail": "FAIL", "skipped": "skip"}[step["result"]]
        lines.append(f"[{mark}] {step['title']}: {step['detail']}")
        lines += [f"       check: {hint}" for hint in step["check"]]
    lines.append(f"{report['passed']} passed, {report['failed']} failed, {report['skipped']} skipped")
    return "\n".join(lines)


def _status(client: Client) -> tuple[dict[str, Any], bool]:
    status = client.call("status/get")
    return status, bool((status.get("daemon") or {}).get("sim"))


def _is_terminal(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, OSError, ValueError):
        return False


def _selftest(args: argparse.Namespace, client: Client) -> int:
    status, sim = _status(client)
    if status.get("state") not in ("ready", "empty"):
        print(f"launcherctl selftest: the launcher is {status.get('state')}; it must be ready"
              " (launcherctl reset, clear the slot, close the lid)", file=sys.stderr)
        return EXIT_ERROR
    person = Person(interactive=_is_terminal(sys.stdin), yes=args.yes, json_out=args.json)
    steps = Selftest(client, person, sim, client.call("bringup/pins")).run()
    report = {"sim": sim, "steps": [s.as_dict() for s in steps],
              **{key: sum(s.result == value for s in steps)
                 for key, value in (("passed", PASS), ("failed", FAIL), ("skipped", SKIPPED))}}
    print_result(args, report, _report_text)
    return EXIT_ERROR if report["failed"] else EXIT_OK


# ---- jog and inputs -------------------------------------------------------------------------------


def _jog(args: argparse.Namespace, client: Client) -> int:
    result = _long_call(client, "bringup/jog", {"direction": args.direction, "ms": args.ms, "duty": args.duty,
                                                "standby": args.standby}, args.ms / 1000 + JOG_MARGIN_S)

    def human(r: dict) -> str:
        j = r["jogged"]
        return (f"{j['direction']} {j['ms']} ms at {j['duty']:.0%}" + (" (driver in standby)" if j["standby"] else "")
                + (": done" if j["ended"] == "done" else f": stopped early ({j['ended']})"))

    print_result(args, result, human)
    return EXIT_OK if result["jogged"]["ended"] == "done" else EXIT_ERROR


def _inputs_text(result: dict[str, Any]) -> str:
    words = {"button": ("pressed", "released"), "beam": ("blocked", "clear"), "lid": ("open", "closed")}
    lines = []
    for name, info in result["inputs"].items():
        if not info.get("fitted"):
            lines.append(f"{name:<7} not fitted")
            continue
        word = words[name][0 if info["active"] else 1]
        lines.append(f"{name:<7} {word:<9} GPIO {info['gpio']} (header pin {info['header']}) reads {info['level']}"
                     f" (active {info['active_level']}, pull-{info['pull']})")
    return "\n".join(lines)


def _inputs(args: argparse.Namespace, client: Client) -> int:
    if not args.watch:
        return print_result(args, client.call("bringup/inputs"), _inputs_text)
    # Subscribed before anything is shown: no edge after the levels printed can be missed.
    client.call("events/subscribe")
    print_result(args, client.call("bringup/inputs"), _inputs_text)
    client.sock.settimeout(None)  # edges may be minutes apart
    if not args.json:
        print("watching (bench mode: the button launches nothing meanwhile); Ctrl-C to stop", flush=True)
    stop = threading.Event()
    path = client.path

    def keep_bench() -> None:
        # A second connection renews bench mode while this one only reads events.
        with Client(path) as renewer:
            while not stop.is_set():
                renewer.call("bringup/bench", {"seconds": 60})
                stop.wait(30)
            renewer.call("bringup/bench", {"seconds": 0})

    renewer = threading.Thread(target=keep_bench, daemon=True)
    renewer.start()
    words = {"button": ("pressed", "released"), "beam": ("blocked", "clear"), "lid": ("open", "closed"),
             "press": ("press (debounced)", "")}
    try:
        for message in client.messages():
            params = message.get("params") or {}
            if message.get("event") != "trace" or params.get("what") not in words:
                continue
            if args.json:
                print(json.dumps(params), flush=True)
            else:
                name = params["what"]
                word = words[name][0] if params.get("level", True) else words[name][1]
                print(f"{params['t']:.3f}  {name:<7} {word}", flush=True)
    except KeyboardInterrupt:
        pass
    finally:
        stop.set()
        renewer.join(5)
    return EXIT_OK


# ---- calibrate ------------------------------------------------------------------------------------


def _duties(text: str) -> list[float]:
    try:
        duties = [float(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: duties separated by commas, e.g. 0.4,0.6,0.8") from None
    if not duties or not all(0.05 <= d <= 1.0 for d in duties):
        raise argparse.ArgumentTypeError(f"{text!r}: each duty from 0.05 to 1")
    return sorted(set(duties))


def _calibrate_text(result: dict[str, Any]) -> str:
    lines = ["duty  cards  crossing ms (max)  gap ms (max)  first card ms  cards/s  misfeeds  jam"]
    for run in result["runs"]:
        def most(values: list[float]) -> str:
            return f"{max(values):.1f}" if values else "-"
        first = "-" if run["first_feed_ms"] is None else f"{run['first_feed_ms']:.1f}"
        rate = "-" if run["cards_per_second"] is None else f"{run['cards_per_second']:.1f}"
        lines.append(f"{run['duty']:<5g} {run['cards']:>2}/{run['requested']:<3} {most(run['crossings_ms']):>17}"
                     f"  {most(run['gaps_ms']):>12}  {first:>13}  {rate:>7}  {run['misfeeds']:>8}  "
                     f"{'yes' if run['jammed'] else 'no'}")
    lines += [f"warning: {w}" for w in result["warnings"]]
    if result["proposed"]:
        lines += ["", "proposed (margins used):"]
        lines += [f"  {key}: {text}" for key, text in result["margins"].items()]
        lines += ["", toml_snippet(result["proposed"]).rstrip()]
    if result.get("written"):
        lines += ["", f"written to {result['written']}; `launcherd --check-config {result['written']}` passes;"
                      " restart launcherd to use it"]
    return "\n".join(lines)


def _calibrate(args: argparse.Namespace, client: Client) -> int:
    status, sim = _status(client)
    path = args.config or (status.get("daemon") or {}).get("config")
    if path in (None, "<defaults>"):
        path = None
    if args.write and path is None:
        print("launcherctl calibrate: launcherd runs on the built-in defaults: give --config FILE to write",
              file=sys.stderr)
        return EXIT_USAGE
    try:
        config = load_config(path if path and Path(path).exists() else None)
    except ConfigError as exc:
        print(f"launcherctl calibrate: {exc}", file=sys.stderr)
        return EXIT_ERROR
    quiet = args.json
    if not quiet:
        need = args.cards * len(args.duties)
        print(f"calibrating: {args.cards} cards at each duty of {', '.join(f'{d:g}' for d in args.duties)}"
              + ("" if sim else f"; load at least {need} cards and catch them"), flush=True)
    runs = []
    client.call("bringup/bench", {"seconds": 300})
    try:
        for duty in args.duties:
            run = _long_call(client, "bringup/feed", {"count": args.cards, "duty": duty}, FEED_CALL_S)
            runs.append(run)
            if not quiet:
                print(f"  duty {duty:g}: {run['cards']} of {run['requested']} cards ({run['ended']})", flush=True)
            if run["ended"] == "jam":
                if not quiet:
                    print("  a card is stuck: calibration stops here (clear the slot and run it again)")
                break
    finally:
        client.call("bringup/bench", {"seconds": 0})
    result = analyse(runs, config)
    result["config"] = path
    if args.write:
        if not result["proposed"]:
            print_result(args, result, _calibrate_text)
            print("launcherctl calibrate: nothing to write", file=sys.stderr)
            return EXIT_ERROR
        try:
            write_config(path, result["proposed"])
        except CalibrationError as exc:
            print_result(args, result, _calibrate_text)
            print(f"launcherctl calibrate: {exc}", file=sys.stderr)
            return EXIT_ERROR
        result["written"] = str(path)
    return print_result(args, result, _calibrate_text)


# ---- registration ---------------------------------------------------------------------------------


def register(subparsers: argparse._SubParsersAction, parents: list[argparse.ArgumentParser]) -> None:
    """The ``card_launcher.cli`` entry point: add the bring-up commands to launcherctl."""
    p = subparsers.add_parser(
        "selftest", parents=parents, help="check each part of the launcher, one at a time",
        description="Walk through the LED, chime, motor, driver standby, break-beam, button, lid and"
                    " servo. Needs a person for what only a person can see; in --sim the simulation"
                    " plays that part. Exit 1 when a step fails.")
    p.add_argument("--yes", action="store_true",
                   help="answer yes for the person where the daemon did its part (no prompts)")
    p.set_defaults(func=_selftest)

    p = subparsers.add_parser("jog", parents=parents, help="run the motor briefly, within its limits",
                              description="Run the motor forward or reverse for --ms at --duty, through the"
                                          " launcher's own limits (max_on_ms, rest, duty share, lid, halted).")
    p.add_argument("direction", choices=("forward", "reverse"))
    p.add_argument("--ms", type=int, default=200, help="how long (default 200)")
    p.add_argument("--duty", type=float, default=0.3, help="duty cycle from 0.05 to 1 (default 0.3)")
    p.add_argument("--standby", action="store_true", help="with the driver in standby: the wheel must not turn")
    p.set_defaults(func=_jog)

    p = subparsers.add_parser("inputs", parents=parents, help="the live levels of button, beam and lid",
                              description="The button, beam and lid: logical state, GPIO, header pin and the"
                                          " level the pin reads. --watch prints every edge as it happens.")
    p.add_argument("--watch", action="store_true", help="print every edge until Ctrl-C")
    p.set_defaults(func=_inputs)

    p = subparsers.add_parser(
        "calibrate", parents=parents, help="measure the feed at the beam and propose timings",
        description="Feed --cards cards at each of --duties, measure at the beam (card crossing time, gap"
                    " between cards, first-card time, misfeeds) and propose [motor] duty, kick_duty,"
                    " kick_ms and [timing] card_crossing_ms, jam_ms, feed_timeout_ms as TOML. --write"
                    " updates the configuration file, keeping its comments and other settings.")
    p.add_argument("--cards", type=int, default=DEFAULT_CARDS, help=f"cards per duty (default {DEFAULT_CARDS})")
    p.add_argument("--duties", type=_duties, default=list(DEFAULT_DUTIES),
                   help="duties to try, comma-separated (default " + ",".join(map(str, DEFAULT_DUTIES)) + ")")
    p.add_argument("--write", action="store_true", help="write the proposal into the configuration file")
    p.add_argument("--config", metavar="FILE", help="the file to write (default: the one launcherd runs on)")
    p.set_defaults(func=_calibrate)
