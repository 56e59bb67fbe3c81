"""launcherctl: the command-line client of launcherd.

Every command is one API call over the daemon's socket (the daemon owns the pins, so nothing
else may touch them). Human output by default, ``--json`` on every command; with ``--json`` a
failure of any kind is a JSON object ``{"error": {"code", "message", ...}}`` on stdout. Exit codes:
0 ok, 1 the daemon refused (error reply), 2 usage, 3 the daemon is unreachable or did not answer.

``--lang en|fr`` (default: the locale's) is sent with every request, so the daemon's replies and
errors come back in that language, and launcherctl renders in it the message objects it shows
(``firmware/i18n.py``). ``--help`` is English. ``--json`` prints replies as they came, objects
included.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, Callable

from firmware import i18n
from firmware.client import Client, DaemonDown, Unreachable, answers, result_of
from firmware.errors import ApiError, LauncherError
from firmware.paths import client_socket

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_UNREACHABLE = 0, 1, 2, 3
# sun_path of struct sockaddr_un is 108 bytes, the last one NUL.
MAX_SOCKET_PATH = 107

# Code of the JSON error object for failures that are not an error reply of the daemon.
USAGE, UNREACHABLE, TIMEOUT = "usage", "unreachable", "timeout"


class UsageError(LauncherError, ValueError):
    """The command line is wrong; the message says how (exit code 2)."""


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are UsageError, so that --json can report them too."""

    def error(self, message: str):  # type: ignore[override]
        raise UsageError(f"{self.prog}: {message}")


def print_result(args: argparse.Namespace, result: Any, human: Callable[[Any], str] | str | None = None) -> int:
    """Print a result as JSON (--json) or as the human text; returns EXIT_OK."""
    if args.json:
        print(json.dumps(result, indent=2, sort_keys=True))
    elif callable(human):
        print(human(result))
    elif human is not None:
        print(human)
    else:
        print(json.dumps(result, indent=2, sort_keys=True))
    return EXIT_OK


# ---- human formatting -----------------------------------------------------------------------


def _lines(*messages: i18n.Message | None) -> str:
    """Status lines, each a message rendered in launcherctl's language (None: no such line)."""
    return "\n".join(i18n.render(line) for line in messages if line is not None)


def _state_line(status: dict[str, Any]) -> i18n.Message:
    reason = status.get("reason_object") or status.get("reason")
    if reason:
        return i18n.message("status_state_reason", state=status.get("state"), reason=reason)
    return i18n.message("status_state", state=status.get("state"))


def format_blaster_status(status: dict[str, Any]) -> str:
    last = status.get("last")
    slots = [i18n.message("status_slot_full" if full else "status_slot_empty", slot=n)
             for n, full in enumerate(status.get("slots") or [], 1)]
    if not last:
        last_line = i18n.message("status_last_none")
    elif last["outcome"] == "blast":
        last_line = i18n.message("status_last_blast", insert_id=last.get("insert_id"), slot=last["slot"],
                                 cards=last["cards"])
    else:
        last_line = i18n.message("status_last_insert", insert_id=last.get("insert_id"), slot=last["slot"],
                                 outcome=last["outcome"])
    sim = status.get("sim")
    return _lines(
        _state_line(status),
        i18n.message("status_profile", profile=str(status.get("profile"))),
        i18n.message("status_slots", slots=slots),
        i18n.message("status_inserts", inserts=status.get("inserts"), cards=status.get("cards_ejected")),
        last_line,
        i18n.message("status_sim_stuck_slot", slot=sim["stuck"]) if sim and sim.get("stuck") else None,
        _outcome_record_line(status),
    )


def format_status(status: dict[str, Any]) -> str:
    if "cards_ejected" not in status:
        return _lines(_state_line(status))  # launcherd still starting: no launcher yet, only its state
    if status.get("device") == "blaster":
        return format_blaster_status(status)
    motor = status.get("motor") or {}
    last = status.get("last")
    hopper, cards = status.get("hopper"), status.get("cards_ejected")
    sim = status.get("sim")
    return _lines(
        _state_line(status),
        i18n.message("status_profile", profile=str(status.get("profile"))),
        i18n.message("status_presses", presses=status.get("presses"), streak=status.get("dry_streak")),
        i18n.message("status_ejected_unknown", cards=cards) if hopper is None
        else i18n.message("status_ejected", cards=cards, hopper=hopper),
        i18n.message("status_last_press", press_id=last.get("press_id"), outcome=last["outcome"], cards=last["cards"])
        if last else i18n.message("status_last_none"),
        i18n.message("status_motor_on", direction=motor.get("direction"), duty=round(100 * motor.get("duty", 0)))
        if motor.get("on") else i18n.message("status_motor_off"),
        i18n.message("status_aim", angle=round(status["aim"])) if status.get("aim") is not None else None,
        i18n.message("status_sim_stuck" if sim.get("stuck") else "status_sim", hopper=sim.get("hopper"),
                     out=sim.get("cards_out")) if sim else None,
        i18n.message("status_pending", what=status["pending"]) if status.get("pending") else None,
        i18n.message("status_reset_how", seconds=status["reset_hold_ms"] / 1000)
        if status.get("state") == "halted" and "reset_hold_ms" in status else None,
        _outcome_record_line(status),
    )


def _outcome_record_line(status: dict[str, Any]) -> i18n.Message | None:
    """The outcome record found wrong at start (firmware/daemon/outcomes.py), while the daemon runs."""
    said = status.get("outcome_record") or {}
    if said.get("state", "ok") == "ok":
        return None
    return i18n.message("status_outcome_record", said=said.get("message_object") or said.get("message"))


def outcome_message(result: dict[str, Any]) -> i18n.Message:
    """What a press's outcome (``launched``, ``ignored``, a dispense's reply) says, as a message."""
    if result.get("event") == "ignored":
        reason = result.get("reason")
        if reason == "sleeping":
            return i18n.message("press_woke")
        said = result.get("message_object", result.get("message"))
        if i18n.is_message(said):  # what the game says to settle first (decision_pending)
            return said
        return i18n.message("press_ignored", reason=reason)
    if result.get("event") == "resume":
        return i18n.message("press_resumed")
    outcome, cards, press_id = result.get("outcome"), result.get("cards", 0), result.get("press_id")
    if outcome == "dry":
        return i18n.message("press_dry", press_id=press_id)
    if outcome == "empty":
        return i18n.message("press_empty", press_id=press_id)
    requested = result.get("requested")
    asked = {"requested": requested} if requested and requested != cards else {}
    return i18n.message("press_out_asked" if asked else "press_out", press_id=press_id, cards=cards, **asked)


def format_outcome(result: dict[str, Any]) -> str:
    """A press's outcome in the language launcherctl speaks (``--lang``)."""
    ended = result.get("ended")
    if result.get("outcome") == "dispense" and result.get("press_id") is None:
        # A dispense that ended before its first run (a halt while it waited): no press to name.
        reason = result.get("reason_object") or result.get("reason") or ended
        return i18n.render(i18n.message("dispense_progress", reason=reason, cards=result.get("cards", 0),
                                        count=result.get("requested", result.get("count"))))
    said = outcome_message(result)
    if result.get("event") in ("ignored", "resume") or result.get("outcome") in ("dry", "empty") \
            or ended in (None, "", "done"):
        return i18n.render(said)
    # Every other ending is a word of the catalogue ("ended by jam", "ended by motor_limit").
    return i18n.render({**said, "id": said["id"] + "_ended", "ended": ended})


def format_insert(result: dict[str, Any]) -> str:
    """A blaster's insertion: judged safe or blast (the blast's cards come in its ``blast`` event)."""
    if result.get("event") == "ignored":
        return i18n.render(i18n.message("insert_not_judged", slot=result.get("slot"), reason=result.get("reason")))
    if result.get("outcome") == "blast":
        return i18n.render(i18n.message("insert_blast", insert_id=result.get("insert_id"), slot=result.get("slot")))
    return i18n.render(i18n.message("insert_outcome", insert_id=result.get("insert_id"), slot=result.get("slot"),
                                    outcome=result.get("outcome")))


def format_event(message: dict[str, Any]) -> str:
    """One event on one line, its message objects rendered in launcherctl's language: ``X_object``
    replaces the daemon's text ``X``, and a ``message`` object replaces the ``text`` beside it."""
    params = dict(message.get("params") or {})
    if i18n.is_message(params.get("message")):
        params.pop("text", None)
    shown: dict[str, Any] = {}
    for key, value in params.items():
        base = key.removesuffix("_object")
        if base != key and i18n.is_message(value):
            shown[base] = i18n.render(value)
        elif i18n.is_message(value):
            shown[key] = i18n.render(value)
        else:
            shown.setdefault(key, value)
    text = " ".join(f"{k}={json.dumps(v, ensure_ascii=False)}" for k, v in shown.items())
    return f"{message.get('event')}: {text}".rstrip(": ")


# ---- commands -------------------------------------------------------------------------------


def _simple(method: str, params: Callable[[argparse.Namespace], dict] | None = None,
            human: Callable[[Any], str] = format_status) -> Callable[[argparse.Namespace, Client], int]:
    def run(args: argparse.Namespace, client: Client) -> int:
        return print_result(args, client.call(method, params(args) if params else {}), human)
    return run


def _aim_params(args: argparse.Namespace) -> dict:
    if args.angle is not None:
        return {"angle": args.angle}
    if args.seat is None or args.seats is None:
        raise UsageError("launcherctl aim: give an ANGLE, or --seat S --seats N")
    return {"seat": args.seat, "seats": args.seats}


def _dispense(args: argparse.Namespace, client: Client) -> int:
    """launcher/dispense, with the dealer's waits on stderr as they come: a jam or an empty hopper
    needs a person, who must be told. The dealer serves one dispense at a time, so the waits heard
    between the request and its reply are this one's or those queued before it."""
    client.call("events/subscribe")
    client.sock.settimeout(None)
    request_id = client.send("launcher/dispense", {"count": args.count})
    said = None
    for message in client.messages():
        if message.get("event") == "dealer/dispense":
            progress = message.get("params") or {}
            state = progress.get("state", "")
            if state.startswith("waiting_") and (progress.get("request"), state) != said and not args.json:
                said = (progress.get("request"), state)
                reason = progress.get("reason_object") or progress.get("reason") or state
                line = i18n.message("dispense_progress", reason=reason, cards=progress.get("cards"),
                                    count=progress.get("count"))
                print(f"launcherctl: {i18n.render(line)}", file=sys.stderr, flush=True)
        elif answers(message, request_id):
            return print_result(args, result_of(message), format_outcome)
    raise DaemonDown("the daemon closed the connection")


def _watch(args: argparse.Namespace, client: Client) -> int:
    client.call("events/subscribe")
    client.sock.settimeout(None)  # events may be minutes apart
    try:
        for message in client.messages():
            if "event" in message:
                print(json.dumps(message) if args.json else format_event(message), flush=True)
    except KeyboardInterrupt:
        pass
    return EXIT_OK


def _call_params(args: argparse.Namespace) -> dict:
    try:
        return json.loads(args.params) if args.params else {}
    except ValueError as exc:
        raise UsageError(f"launcherctl call: PARAMS is not valid JSON: {exc}") from None


def _call(args: argparse.Namespace, client: Client) -> int:
    return print_result(args, client.call(args.method, _call_params(args)))


def _profile_stats(args: argparse.Namespace) -> int:
    """Runs here, not in the daemon: a simulation of the policy needs no pins."""
    from firmware.config import ConfigError, load_config
    from firmware.launcher.ejection import PROFILE_NAMES, format_stats, stats_for_profile

    if args.profile is not None and args.profile not in PROFILE_NAMES:
        raise UsageError(f"launcherctl profile stats: unknown profile {args.profile!r}; allowed: "
                         + ", ".join(PROFILE_NAMES))
    try:
        config = load_config(args.config)
        stats = stats_for_profile(args.profile or config.ejection.profile, config.ejection.sequence,
                                  args.presses, args.seed)
    except ConfigError as exc:
        return report_error(args, ApiError(ApiError.REFUSED, str(exc)))
    return print_result(args, stats, format_stats)


def _methods_text(result: list[dict]) -> str:
    return "\n".join(
        f"{m['method']:<22} {m['doc']}" + (
            " (" + ", ".join(k + ("" if p["required"] else "?") for k, p in m["params"].items()) + ")"
            if m["params"] else "")
        for m in result
    )


def build_parser() -> argparse.ArgumentParser:
    common = _Parser(add_help=False)
    common.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print JSON")
    common.add_argument("--socket", default=argparse.SUPPRESS, metavar="PATH", help="launcherd's socket")

    common.add_argument("--lang", choices=i18n.LANGUAGES, default=argparse.SUPPRESS,
                        help="language of the replies and messages")

    parser = _Parser(prog="launcherctl", description="Control the card launcher daemon.")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--lang", choices=i18n.LANGUAGES,
                        help="language of the replies and messages: en or fr (default: the locale's,"
                             " from LC_ALL, LC_MESSAGES or LANG)")
    parser.add_argument("--socket", metavar="PATH",
                        help="launcherd's socket (default: $LAUNCHER_SOCKET, the service's, else the sim's)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    def add(name: str, run: Callable, help: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, parents=[common], help=help, description=help)
        p.set_defaults(func=run)
        return p

    add("status", _simple("status/get"), "show the launcher's status")
    add("press", _simple("launcher/press", human=format_outcome), "press the launch button (simulation)")
    add("launch", _simple("launcher/launch", human=format_outcome), "a press from software")
    p = add("dispense", _dispense, "eject exactly N cards (waits through jams and reloads, saying what for)")
    p.add_argument("count", type=int, metavar="N")
    p = add("feed", _simple("launcher/feed", lambda a: {"count": a.count}, format_outcome),
            "one run of the motor for up to N cards (no retry)")
    p.add_argument("count", type=int, metavar="N")
    add("retract", _simple("launcher/retract"), "run the reverse pulse")
    p = add("aim", _simple("launcher/aim", _aim_params,
                           lambda r: i18n.render(i18n.message("aimed", angle=round(r["angle"])))),
            "turn the launcher to an angle or a seat")
    p.add_argument("angle", type=float, nargs="?", metavar="ANGLE")
    p.add_argument("--seat", type=int)
    p.add_argument("--seats", type=int)
    p.set_defaults(check=_aim_params)
    add("sleep", _simple("launcher/sleep"), "put the launcher to sleep")
    add("wake", _simple("launcher/wake"), "wake the launcher without launching")
    p = add("reload", _simple("launcher/reload", lambda a: {"cards": a.cards}), "the hopper now holds N cards")
    p.add_argument("cards", type=int, metavar="N")
    p = add("estop", _simple("system/estop", lambda a: {"reason": a.reason}), "stop the motor and halt")
    p.add_argument("reason", nargs="?", default="emergency stop from launcherctl")
    add("reset", _simple("system/reset"), "leave the halted state")
    add("resume", _simple("launcher/resume"), "go on with what waits for a press (a dispense after a jam, ...)")
    p = add("insert", _simple("sim/insert", lambda a: {"slot": a.slot}, format_insert),
            "simulation: a card goes into a blaster's slot (the first empty one, or --slot N)")
    p.add_argument("--slot", type=int, metavar="N")
    add("jam", _simple("sim/jam"), "simulation: the next card sticks")
    add("clear", _simple("sim/clear"), "simulation: pull the stuck card out")
    p = add("lid", _simple("sim/lid", lambda a: {"open": a.position == "open"}), "simulation: open or close the lid")
    p.add_argument("position", choices=("open", "closed", "close"))
    add("watch", _watch, "print the event stream until Ctrl-C")
    add("methods", _simple("list_methods", human=_methods_text), "list the API's methods")
    p = add("call", _call, "call any API method")
    p.add_argument("method")
    p.add_argument("params", nargs="?", help="parameters as a JSON object")
    p.set_defaults(check=_call_params)

    profile = sub.add_parser("profile", help="ejection profiles")
    profile_sub = profile.add_subparsers(dest="profile_command", metavar="COMMAND", required=True)
    p = profile_sub.add_parser("stats", parents=[common], help="simulate a profile and show its statistics")
    p.add_argument("--profile", help="profile name (default: the configured one)")
    p.add_argument("--presses", type=int, default=100_000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--config", metavar="FILE", help="configuration to read the profile from")
    p.set_defaults(func=None, local=_profile_stats)

    for ep in entry_points(group="card_launcher.cli"):
        try:
            register = ep.load()
        except Exception as exc:  # one broken layer must not take every other command with it
            print(f"launcherctl: the {ep.name!r} commands are unavailable: {exc}", file=sys.stderr)
            continue
        register(sub, [common])
    return parser


def report_error(args: argparse.Namespace | None, error: ApiError | dict[str, Any], *,
                 json_output: bool = False, exit_code: int = EXIT_ERROR) -> int:
    """Print a failure: a JSON error object on stdout with --json, else a line on stderr."""
    body = error.to_json() if isinstance(error, ApiError) else error
    if json_output or getattr(args, "json", False):
        print(json.dumps({"error": body}, indent=2))
    else:
        text = body["message"]
        if isinstance(body.get("state"), str):
            text = _in_state(text, body["state"])  # a refusal of the core: the state it was refused in
        print(text if text.startswith("launcherctl") else f"launcherctl: {text}", file=sys.stderr)
        if body.get("retry_after_s") is not None:
            print("  " + i18n.render(i18n.message("retry_after", seconds=body["retry_after_s"])), file=sys.stderr)
    return exit_code


def _in_state(reason: str, state: str) -> str:
    """A refusal's text and the state it was refused in, the state's word in launcherctl's
    language; a state the catalogue does not know (a newer daemon's) is shown as it came."""
    try:
        return i18n.render(i18n.message("refused_in_state", reason=reason, state=state))
    except LauncherError:
        return f"{reason} (state {state})"


def _socket_path(args: argparse.Namespace) -> Path:
    if args.socket is not None and not args.socket.strip():
        raise UsageError("launcherctl: --socket needs a path (it is empty)")
    path = client_socket(args.socket)
    if "\0" in str(path):
        raise UsageError("launcherctl: the socket path contains a NUL byte")
    if len(os.fsencode(path)) > MAX_SOCKET_PATH:
        raise UsageError(f"launcherctl: the socket path is {len(os.fsencode(path))} bytes long; a Unix"
                         f" socket path has at most {MAX_SOCKET_PATH}: {str(path)[:60]}...")
    return path


def _said(code: str, message: i18n.Message) -> dict[str, Any]:
    """The JSON error of a failure launcherctl itself reports: its text and its message object."""
    return {"code": code, "message": i18n.render(message), "message_object": message}


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    try:
        args = build_parser().parse_args(argv)
        if getattr(args, "local", None):
            return args.local(args)
        if getattr(args, "check", None):
            args.check(args)  # a wrong command line is found before any daemon is asked
        path = _socket_path(args)
    except UsageError as exc:
        return report_error(None, {"code": USAGE, "message": str(exc)}, json_output="--json" in argv,
                            exit_code=EXIT_USAGE)
    lang = args.lang or i18n.locale_language()
    # Everything rendered here (and by the game's commands) speaks ``lang``, as the daemon does.
    with i18n.speaking(lang):
        return _run(args, path, lang)


def _run(args: argparse.Namespace, path: Path, lang: str) -> int:
    """One command against the daemon, every failure reported with its exit code."""
    try:
        with Client(path, lang=lang) as client:
            return args.func(args, client)
    except UsageError as exc:
        return report_error(args, {"code": USAGE, "message": str(exc)}, exit_code=EXIT_USAGE)
    except Unreachable:
        return report_error(args, _said(UNREACHABLE, i18n.message("not_running", path=str(path))),
                            exit_code=EXIT_UNREACHABLE)
    except PermissionError:
        return report_error(args, _said(UNREACHABLE, i18n.message("permission_denied", path=str(path))),
                            exit_code=EXIT_UNREACHABLE)
    except ApiError as exc:
        return report_error(args, exc)
    except BrokenPipeError:
        return EXIT_OK  # our reader went away (`launcherctl watch | head`): not an error
    except TimeoutError:
        return report_error(args, _said(TIMEOUT, i18n.message("not_answering", path=str(path))),
                            exit_code=EXIT_UNREACHABLE)
    except (ConnectionError, OSError) as exc:
        return report_error(args, _said(UNREACHABLE, i18n.message("lost_connection", reason=str(exc))),
                            exit_code=EXIT_UNREACHABLE)


if __name__ == "__main__":
    sys.exit(main())
