"""``launcherctl selftest``, ``jog``, ``inputs`` and ``calibrate``: bring-up from a box of parts.

Added to launcherctl through the ``card_launcher.cli`` entry point ``bringup``. Each command talks
to launcherd's ``bringup/*`` methods (``firmware/extras/bringup.py``); nothing here touches a pin. When
the daemon runs in simulation (``status/get`` says ``daemon.sim``), the simulated mechanism plays
the person's part: it presses the button, opens the lid, sends a card through the beam.

What it says and asks is in launcherctl's language (``--lang``, else the locale's): the prompts,
the report and, with ``--json``, the report's titles, details and checks.
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

from firmware import i18n
from firmware.client import Client
from firmware.tools.cli import EXIT_ERROR, EXIT_OK, EXIT_USAGE, print_result
from firmware.errors import ApiError

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
# What a person may answer, in either language: yes, no, skip.
_ANSWERS = {"y": True, "yes": True, "o": True, "oui": True, "n": False, "no": False, "non": False,
            "s": None, "skip": None, "p": None, "passer": None}


def _say(message_id: str, **params: Any) -> str:
    """A message of the catalogue in launcherctl's language."""
    return i18n.render(i18n.message(message_id, **params))


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
            print(_say("selftest_ask", question=question), end="", file=self.out, flush=True)
            line = sys.stdin.readline()
            if not line:
                return None
            answer = line.strip().lower()
            if answer in _ANSWERS:
                return _ANSWERS[answer]


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
    from firmware.board.pins import HEADER_PINS  # reads the configuration's schema: only when a step failed

    gpio = config.get(key)
    row: dict[str, Any] = {"function": key, "gpio": gpio,
                           "header": HEADER_PINS.get(gpio) if isinstance(gpio, int) else None}
    if reading and reading.get("fitted"):
        row.update({"reads": reading["level"], "active_level": reading["active_level"], "pull": reading["pull"]})
    return row


def _row_text(row: dict[str, Any]) -> str:
    if row.get("gpio") in (None, False):
        return _say("selftest_pin_not_fitted", function=row["function"])
    pin = {"function": row["function"], "gpio": str(row["gpio"]), "header": str(row["header"])}
    if "reads" in row:
        return _say("selftest_pin_reads", **pin, reads=str(row["reads"]), active=str(row["active_level"]),
                    pull=str(row["pull"]))
    return _say("selftest_pin", **pin)


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
            step.detail += _say("selftest_nobody")
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
        step = Step("led", _say("selftest_title_led"), pins=[_pin_row(self.pins, "led")])
        self.person.say(_say("selftest_say_led"))
        self.call("bringup/identify", {"led": True, "chime": False})
        step.detail = _say("selftest_flashed")
        self.judge(step, _say("selftest_ask_led"), True)
        if step.result == FAIL:
            step.check = [_row_text(step.pins[0]), _say("selftest_check_led")]
        return step

    def chime(self) -> Step:
        step = Step("chime", _say("selftest_title_chime"), pins=[_pin_row(self.pins, "chime")])
        self.person.say(_say("selftest_say_chime"))
        self.call("bringup/identify", {"led": False, "chime": True})
        step.detail = _say("selftest_beeps")
        self.judge(step, _say("selftest_ask_chime"), True)
        if step.result == FAIL:
            step.check = [_row_text(step.pins[0]), _say("selftest_check_chime")]
        return step

    def motor(self) -> list[Step]:
        self.person.say(_say("selftest_say_motor", ms=SELFTEST_JOG_MS, duty=SELFTEST_JOG_DUTY))
        self.wheel_free = self.sim or self.person.confirm(_say("selftest_ask_wheel_free")) is True
        if not self.wheel_free:
            return [Step(f"motor_{d}", _say("selftest_title_motor", direction=d),
                         detail=_say("selftest_wheel_not_free")) for d in ("forward", "reverse")]
        steps = []
        for direction in ("forward", "reverse"):
            key = "motor_forward" if direction == "forward" else "motor_reverse"
            step = Step(f"motor_{direction}", _say("selftest_title_motor", direction=direction),
                        pins=[_pin_row(self.pins, key), _pin_row(self.pins, "motor_enable")])
            done = self._jog(step, direction, standby=False)
            self.judge(step, _say("selftest_ask_motor", direction=direction), done)
            if step.result == FAIL:
                step.check = [*map(_row_text, step.pins), _say("selftest_check_motor_supply"),
                              _say("selftest_check_motor_driver"), _say("selftest_check_motor_swapped")]
            steps.append(step)
        return steps

    def _jog(self, step: Step, direction: str, standby: bool) -> bool:
        try:
            result = self.call("bringup/jog", {"direction": direction, "ms": SELFTEST_JOG_MS,
                                               "duty": SELFTEST_JOG_DUTY, "standby": standby},
                               SELFTEST_JOG_MS / 1000 + JOG_MARGIN_S)
        except ApiError as exc:
            step.detail = _say("selftest_jog_refused", reason=exc.message)
            return False
        ended = result["jogged"]["ended"]
        step.detail = _say("selftest_jogged", direction=direction, ms=SELFTEST_JOG_MS, duty=SELFTEST_JOG_DUTY,
                           ended=ended)
        self._settle()
        return ended == "done"

    def _settle(self) -> None:
        """Let a card the jog pushed out finish crossing the beam before the next step looks at it."""
        deadline = time.monotonic() + SETTLE_S
        while self.call("bringup/inputs")["inputs"]["beam"].get("active") and time.monotonic() < deadline:
            time.sleep(SETTLE_POLL_S)

    def standby(self) -> Step:
        step = Step("standby", _say("selftest_title_standby"), pins=[_pin_row(self.pins, "motor_enable")])
        if self.pins.get("motor_enable") in (None, False):
            step.detail = _say("selftest_no_standby")
            return step
        if not self.wheel_free:
            step.detail = _say("selftest_wheel_not_free")
            return step
        self.person.say(_say("selftest_say_standby"))
        done = self._jog(step, "forward", standby=True)
        self.judge(step, _say("selftest_ask_standby"), done)
        if step.result == FAIL:
            step.check = [_say("selftest_check_standby_pin", pin=_row_text(step.pins[0])),
                          _say("selftest_check_standby_breakout")]
        return step

    def _input_step(self, name: str, sim_act: Callable[[], Any], sim_undo: Callable[[], Any] | None) -> Step:
        """The beam, the button or the lid: a person acts (``selftest_act_<name>``), then undoes it."""
        before = self.call("bringup/inputs")["inputs"][name]
        title = _say(f"selftest_title_{name}")
        step = Step(name, title, pins=[_pin_row(self.pins, name, before)])
        if not before.get("fitted"):
            step.detail = _say("selftest_not_fitted", name=name)
            return step
        if before["active"]:
            step.result = FAIL
            step.detail = _say("selftest_active_before", title=title)
            step.check = self._input_checks(name, step.pins[0])
            return step
        wait = SIM_WAIT_S if self.sim else WAIT_S
        edges = before["edges"]
        self.person.say(_say("selftest_say_act", title=title.capitalize(), act=i18n.message(f"selftest_act_{name}"),
                             seconds=round(wait)))
        if self.sim:
            sim_act()
        seen = self.call("bringup/wait-input", {"input": name, "active": True, "since": edges["active"],
                                                "timeout_s": wait}, wait + JOG_MARGIN_S)
        if seen["seen"]:
            self.person.say(_say("selftest_say_undo", undo=i18n.message(f"selftest_undo_{name}")))
            if self.sim and sim_undo is not None:
                sim_undo()
            seen = self.call("bringup/wait-input", {"input": name, "active": False,
                                                    "since": edges["inactive"], "timeout_s": wait},
                             wait + JOG_MARGIN_S)
            step.detail = _say("selftest_seen_back" if seen["seen"] else "selftest_seen_not_back")
        else:
            step.detail = _say("selftest_nothing_seen", seconds=round(wait))
        step.judged_by = "sim" if self.sim else "daemon"
        step.result = PASS if seen["seen"] else FAIL
        step.pins = [_pin_row(self.pins, name, seen["input"])]
        if step.result == FAIL:
            step.check = self._input_checks(name, step.pins[0])
        return step

    @staticmethod
    def _input_checks(name: str, row: dict[str, Any]) -> list[str]:
        return [_row_text(row), _say(f"selftest_check_{name}")]

    def beam(self) -> Step:
        return self._input_step("beam", lambda: self.call("launcher/feed", {"count": 1}), None)

    def button(self) -> Step:
        return self._input_step("button", lambda: self.call("launcher/press"), None)

    def lid(self) -> Step:
        return self._input_step("lid", lambda: self.call("sim/lid", {"open": True}),
                                lambda: self.call("sim/lid", {"open": False}))

    def servo(self) -> Step:
        step = Step("servo", _say("selftest_title_servo"), pins=[_pin_row(self.pins, "servo")])
        if self.pins.get("servo") in (None, False):
            step.detail = _say("selftest_no_servo")
            return step
        self.person.say(_say("selftest_say_servo"))
        try:
            angles = self.call("bringup/servo", {}, JOG_MARGIN_S)["angles"]
            step.detail = _say("selftest_angles", angles=", ".join(f"{a:.0f}" for a in angles))
            done = True
        except ApiError as exc:
            step.detail = _say("selftest_servo_refused", reason=exc.message)
            done = False
        self.judge(step, _say("selftest_ask_servo"), done)
        if step.result == FAIL:
            step.check = [_row_text(step.pins[0]), _say("selftest_check_servo")]
        return step


def _report_text(report: dict[str, Any]) -> str:
    lines = []
    for step in report["steps"]:
        mark = i18n.message(f"selftest_mark_{step['result']}")
        lines.append(_say("selftest_report_line", mark=mark, title=step["title"], detail=step["detail"]))
        lines += [_say("selftest_report_check", hint=hint) for hint in step["check"]]
    lines.append(_say("selftest_summary", passed=report["passed"], failed=report["failed"],
                      skipped=report["skipped"]))
    return "\n".join(lines)


def _status(client: Client) -> tuple[dict[str, Any], bool]:
    status = client.call("status/get")
    return status, bool((status.get("daemon") or {}).get("sim"))


def _nothing_waits(command: str, status: dict[str, Any]) -> bool:
    """Whether ``command`` (its bench mode runs the motor) may start: not while something waits for
    a person's press, whose cards its own would join (said on stderr then)."""
    if status.get("pending") is None:
        return True
    print(_say("bringup_pending", command=command, what=status["pending"]), file=sys.stderr)
    return False


def _is_terminal(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, OSError, ValueError):
        return False


def _selftest(args: argparse.Namespace, client: Client) -> int:
    status, sim = _status(client)
    if status.get("state") not in ("ready", "empty"):
        print(_say("selftest_not_ready", state=status.get("state")), file=sys.stderr)
        return EXIT_ERROR
    if not _nothing_waits("selftest", status):
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
        return (_say("jog_run", direction=j["direction"], ms=j["ms"], duty=j["duty"])
                + (_say("jog_standby") if j["standby"] else "")
                + (_say("jog_done") if j["ended"] == "done" else _say("jog_stopped", ended=j["ended"])))

    print_result(args, result, human)
    return EXIT_OK if result["jogged"]["ended"] == "done" else EXIT_ERROR


# Each input's words for active and inactive (``input_level:*`` in the catalogue).
_LEVEL_WORDS = {"button": ("pressed", "released"), "beam": ("blocked", "clear"), "lid": ("open", "closed"),
                "press": ("press", "")}


def _input_word(name: str) -> str:
    return _say(f"input:{name}")


def _level_word(name: str, active: bool) -> str:
    word = _LEVEL_WORDS[name][0 if active else 1]
    return _say(f"input_level:{word}") if word else ""


def _inputs_text(result: dict[str, Any]) -> str:
    inputs = result["inputs"]
    # The columns as wide as the longest word of the language (7 and 9 in English).
    names = {name: _input_word(name) for name in inputs}
    name_width = max([7, *map(len, names.values())])
    level_width = max([9, *(len(_level_word(name, active)) for name in inputs for active in (True, False))])
    lines = []
    for name, info in inputs.items():
        shown = names[name].ljust(name_width)
        if not info.get("fitted"):
            lines.append(_say("inputs_not_fitted", name=shown))
            continue
        lines.append(_say("inputs_line", name=shown, level=_level_word(name, info["active"]).ljust(level_width),
                          gpio=str(info["gpio"]), header=str(info["header"]), reads=str(info["level"]),
                          active=str(info["active_level"]), pull=str(info["pull"])))
    return "\n".join(lines)


def _inputs(args: argparse.Namespace, client: Client) -> int:
    if not args.watch:
        return print_result(args, client.call("bringup/inputs"), _inputs_text)
    # Subscribed before anything is shown: no edge after the levels printed can be missed.
    client.call("events/subscribe")
    print_result(args, client.call("bringup/inputs"), _inputs_text)
    client.sock.settimeout(None)  # edges may be minutes apart
    if not args.json:
        print(_say("inputs_watching"), flush=True)
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
    try:
        for message in client.messages():
            params = message.get("params") or {}
            if message.get("event") != "trace" or params.get("what") not in _LEVEL_WORDS:
                continue
            if args.json:
                print(json.dumps(params), flush=True)
            else:
                name = params["what"]
                word = _level_word(name, params.get("level", True))
                print(f"{params['t']:.3f}  {_input_word(name):<7} {word}", flush=True)
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
    from firmware.extras.calibrate import toml_snippet

    lines = [_say("calibrate_header")]
    for run in result["runs"]:
        def most(values: list[float]) -> str:
            return f"{max(values):.1f}" if values else "-"
        first = "-" if run["first_feed_ms"] is None else f"{run['first_feed_ms']:.1f}"
        rate = "-" if run["cards_per_second"] is None else f"{run['cards_per_second']:.1f}"
        lines.append(f"{run['duty']:<5g} {run['cards']:>2}/{run['requested']:<3} {most(run['crossings_ms']):>17}"
                     f"  {most(run['gaps_ms']):>12}  {first:>13}  {rate:>7}  {run['misfeeds']:>8}  "
                     f"{_say('calibrate_yes' if run['jammed'] else 'calibrate_no')}")
    lines += [_say("calibrate_warning", warning=w) for w in result["warnings"]]
    if result["proposed"]:
        lines += ["", _say("calibrate_proposed")]
        lines += [f"  {key}: {text}" for key, text in result["margins"].items()]
        lines += ["", toml_snippet(result["proposed"]).rstrip()]
    if result.get("written"):
        lines += ["", _say("calibrate_written", path=str(result["written"]))]
    return "\n".join(lines)


def _calibrate(args: argparse.Namespace, client: Client) -> int:
    # Imported here: statistics and the configuration's schema would slow every launcherctl command.
    from firmware.config import ConfigError, load_config
    from firmware.extras.calibrate import CalibrationError, analyse, write_config

    status, sim = _status(client)
    if not _nothing_waits("calibrate", status):
        return EXIT_ERROR
    path = args.config or (status.get("daemon") or {}).get("config")
    if path in (None, "<defaults>"):
        path = None
    if args.write and path is None:
        print(_say("calibrate_defaults"), file=sys.stderr)
        return EXIT_USAGE
    try:
        config = load_config(path if path and Path(path).exists() else None)
    except ConfigError as exc:
        print(f"launcherctl calibrate: {exc}", file=sys.stderr)
        return EXIT_ERROR
    quiet = args.json
    if not quiet:
        duties = ", ".join(f"{d:g}" for d in args.duties)
        if sim:
            print(_say("calibrate_start", cards=args.cards, duties=duties), flush=True)
        else:
            print(_say("calibrate_start_load", cards=args.cards, duties=duties, need=args.cards * len(args.duties)),
                  flush=True)
    runs = []
    client.call("bringup/bench", {"seconds": 300})
    try:
        for duty in args.duties:
            run = _long_call(client, "bringup/feed", {"count": args.cards, "duty": duty}, FEED_CALL_S)
            runs.append(run)
            if not quiet:
                print(_say("calibrate_run", duty=f"{duty:g}", cards=run["cards"], requested=run["requested"],
                           ended=run["ended"]), flush=True)
            if run["ended"] == "jam":
                if not quiet:
                    print(_say("calibrate_stuck"))
                break
    finally:
        client.call("bringup/bench", {"seconds": 0})
    result = analyse(runs, config)
    result["config"] = path
    if args.write:
        if not result["proposed"]:
            print_result(args, result, _calibrate_text)
            print(_say("calibrate_nothing"), file=sys.stderr)
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
