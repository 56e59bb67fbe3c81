"""launcherctl: the command-line client of launcherd.

Every command is one API call over the daemon's socket (the daemon owns the pins, so nothing
else may touch them). Human output by default, ``--json`` on every command. Exit codes: 0 ok,
1 the daemon refused (error reply), 2 usage, 3 the daemon is unreachable.
"""

from __future__ import annotations

import argparse
import json
import socket
import sys
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, Callable, Iterator

from .errors import ApiError
from .paths import client_socket

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_UNREACHABLE = 0, 1, 2, 3
# Long enough for the longest launch the daemon allows (max_on_ms) plus start-up of the reply.
CALL_TIMEOUT_S = 150.0


class Unreachable(Exception):
    """The daemon's socket is missing or refuses connections."""


class Client:
    """A connection to launcherd: ``call(method, params)`` returns the result or raises ApiError."""

    def __init__(self, path: str | Path, timeout: float = CALL_TIMEOUT_S):
        self.path = Path(path)
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        try:
            self.sock.connect(str(self.path))
        except (FileNotFoundError, ConnectionRefusedError) as exc:
            self.sock.close()
            raise Unreachable(str(exc)) from None
        except PermissionError:
            self.sock.close()
            raise
        self._file = self.sock.makefile("rb")
        self._next_id = 0

    def close(self) -> None:
        self._file.close()
        self.sock.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def send(self, method: str, params: dict[str, Any] | None = None) -> int:
        self._next_id += 1
        line = json.dumps({"id": self._next_id, "method": method, "params": params or {}})
        self.sock.sendall(line.encode() + b"\n")
        return self._next_id

    def messages(self) -> Iterator[dict[str, Any]]:
        for line in self._file:
            yield json.loads(line)
        raise ConnectionError("the daemon closed the connection")

    def call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        request_id = self.send(method, params)
        for message in self.messages():
            if message.get("id") == request_id and "event" not in message:
                if "error" in message:
                    error = message["error"]
                    raise ApiError(error.get("code", ApiError.INTERNAL_ERROR), error.get("message", "error"))
                return message.get("result")
        raise ConnectionError("the daemon closed the connection")


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


def format_status(status: dict[str, Any]) -> str:
    motor = status.get("motor") or {}
    last = status.get("last")
    hopper = status.get("hopper")
    lines = [
        f"state      {status.get('state')}" + (f" ({status['reason']})" if status.get("reason") else ""),
        f"profile    {status.get('profile')}",
        f"presses    {status.get('presses')}   dry streak {status.get('dry_streak')}",
        f"ejected    {status.get('cards_ejected')} cards   hopper {'unknown' if hopper is None else hopper}",
        "last       " + (f"press {last.get('press_id')}: {last['outcome']}, {last['cards']} card(s)" if last else "-"),
        "motor      " + (f"{motor.get('direction')} at {round(100 * motor.get('duty', 0))}%" if motor.get("on") else "off"),
    ]
    if status.get("aim") is not None:
        lines.append(f"aim        {status['aim']:.0f} degrees")
    sim = status.get("sim")
    if sim:
        lines.append(f"sim        hopper {sim.get('hopper')}, cards out {sim.get('cards_out')}"
                     + (", a card is stuck" if sim.get("stuck") else ""))
    return "\n".join(lines)


def format_outcome(result: dict[str, Any]) -> str:
    if result.get("event") == "ignored":
        reason = result.get("reason")
        if reason == "sleeping":
            return "the launcher was asleep: that press woke it (press again to launch)"
        return f"press ignored: {reason}"
    outcome, cards = result.get("outcome"), result.get("cards", 0)
    head = f"press {result.get('press_id')}: "
    if outcome == "dry":
        return head + "nothing came out"
    if outcome == "empty":
        return head + "the hopper is empty: reload it (launcherctl reload N)"
    text = head + f"{cards} card{'s' if cards != 1 else ''} out"
    if result.get("requested") and result.get("requested") != cards:
        text += f" (asked for {result['requested']})"
    ended = result.get("ended")
    if ended and ended != "done":
        text += f"; ended by {ended}"
    return text


def format_event(message: dict[str, Any]) -> str:
    params = " ".join(f"{k}={json.dumps(v)}" for k, v in (message.get("params") or {}).items())
    return f"{message.get('event')}: {params}".rstrip(": ")


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
        raise SystemExit("launcherctl aim: give an ANGLE, or --seat S --seats N")
    return {"seat": args.seat, "seats": args.seats}


def _watch(args: argparse.Namespace, client: Client) -> int:
    client.sock.settimeout(None)
    client.call("events/subscribe")
    try:
        for message in client.messages():
            if "event" in message:
                print(json.dumps(message) if args.json else format_event(message), flush=True)
    except KeyboardInterrupt:
        pass
    return EXIT_OK


def _call(args: argparse.Namespace, client: Client) -> int:
    try:
        params = json.loads(args.params) if args.params else {}
    except ValueError as exc:
        print(f"launcherctl call: PARAMS is not valid JSON: {exc}", file=sys.stderr)
        return EXIT_USAGE
    return print_result(args, client.call(args.method, params))


def _profile_stats(args: argparse.Namespace) -> int:
    """Runs here, not in the daemon: a simulation of the policy needs no pins."""
    from .config import ConfigError, load_config
    from .ejection import format_stats, get_profile, profile_stats

    try:
        config = load_config(args.config)
    except ConfigError as exc:
        print(f"launcherctl: {exc}", file=sys.stderr)
        return EXIT_ERROR
    name = args.profile or config.ejection.profile
    sequence = config.ejection.sequence or (0,)
    try:
        profile = get_profile(name, sequence)
    except ValueError as exc:
        print(f"launcherctl: {exc}", file=sys.stderr)
        return EXIT_USAGE
    stats = profile_stats(profile, args.presses, args.seed)
    return print_result(args, stats, format_stats)


def _methods_text(result: list[dict]) -> str:
    return "\n".join(
        f"{m['method']:<22} {m['doc']}" + (
            " (" + ", ".join(k + ("" if p["required"] else "?") for k, p in m["params"].items()) + ")"
            if m["params"] else "")
        for m in result
    )


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print JSON")
    common.add_argument("--socket", default=argparse.SUPPRESS, metavar="PATH", help="launcherd's socket")

    parser = argparse.ArgumentParser(prog="launcherctl", description="Control the card launcher daemon.")
    parser.add_argument("--json", action="store_true", help="print JSON")
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
    p = add("dispense", _simple("launcher/dispense", lambda a: {"count": a.count}, format_outcome),
            "eject exactly N cards")
    p.add_argument("count", type=int, metavar="N")
    add("retract", _simple("launcher/retract"), "run the reverse pulse")
    p = add("aim", _simple("launcher/aim", _aim_params, lambda r: f"aimed at {r['angle']:.0f} degrees"),
            "turn the launcher to an angle or a seat")
    p.add_argument("angle", type=float, nargs="?", metavar="ANGLE")
    p.add_argument("--seat", type=int)
    p.add_argument("--seats", type=int)
    add("sleep", _simple("launcher/sleep"), "put the launcher to sleep")
    add("wake", _simple("launcher/wake"), "wake the launcher without launching")
    p = add("reload", _simple("launcher/reload", lambda a: {"cards": a.cards}), "the hopper now holds N cards")
    p.add_argument("cards", type=int, metavar="N")
    p = add("estop", _simple("system/estop", lambda a: {"reason": a.reason}), "stop the motor and halt")
    p.add_argument("reason", nargs="?", default="emergency stop from launcherctl")
    add("reset", _simple("system/reset"), "leave the halted state")
    add("jam", _simple("sim/jam"), "simulation: the next card sticks")
    add("clear", _simple("sim/clear"), "simulation: pull the stuck card out")
    p = add("lid", _simple("sim/lid", lambda a: {"open": a.position == "open"}), "simulation: open or close the lid")
    p.add_argument("position", choices=("open", "closed", "close"))
    add("watch", _watch, "print the event stream until Ctrl-C")
    add("methods", _simple("list_methods", human=_methods_text), "list the API's methods")
    p = add("call", _call, "call any API method")
    p.add_argument("method")
    p.add_argument("params", nargs="?", help="parameters as a JSON object")

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


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "local", None):
        return args.local(args)
    path = client_socket(args.socket)
    try:
        with Client(path) as client:
            return args.func(args, client)
    except Unreachable:
        print(f"launcherctl: launcherd is not running (no answer on {path}).\n"
              "  Start the simulator with `launcherd --sim` (or `make demo`), or on a Pi:"
              " `sudo systemctl start launcherd`.", file=sys.stderr)
        return EXIT_UNREACHABLE
    except PermissionError:
        print(f"launcherctl: permission denied on {path}: add yourself to the card-launcher group"
              " (sudo usermod -aG card-launcher $USER, then log in again).", file=sys.stderr)
        return EXIT_UNREACHABLE
    except ApiError as exc:
        if args.json:
            print(json.dumps({"error": exc.to_json()}, indent=2))
        else:
            print(f"launcherctl: {exc.message}", file=sys.stderr)
        return EXIT_ERROR
    except BrokenPipeError:
        return EXIT_OK  # our reader went away (`launcherctl watch | head`): not an error
    except (ConnectionError, socket.timeout) as exc:
        print(f"launcherctl: lost the connection to launcherd: {exc}", file=sys.stderr)
        return EXIT_UNREACHABLE


if __name__ == "__main__":
    sys.exit(main())
