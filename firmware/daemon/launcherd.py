"""The `launcherd` command: its command line, logging and the run of one Daemon.

Nothing heavy is imported before ``main`` has kept ssl out (see there).
"""

from __future__ import annotations

import argparse
import logging
import os
import sys

from firmware import __version__
from firmware.board.backend import requested_backend
from firmware.config import DEFAULT_PATH, check_backend, load_config
from firmware.errors import ConfigError, HardwareError


class _JournalFormatter(logging.Formatter):
    """Under systemd, prefix each line with its syslog priority so the journal keeps levels."""

    PRIORITY = {logging.DEBUG: 7, logging.INFO: 6, logging.WARNING: 4, logging.ERROR: 3, logging.CRITICAL: 2}

    def format(self, record: logging.LogRecord) -> str:
        return f"<{self.PRIORITY.get(record.levelno, 6)}>{super().format(record)}"


def setup_logging(verbose: bool) -> None:
    handler = logging.StreamHandler(sys.stderr)
    if os.environ.get("JOURNAL_STREAM"):
        handler.setFormatter(_JournalFormatter("%(name)s: %(message)s"))
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=logging.DEBUG if verbose else logging.INFO, handlers=[handler], force=True)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="launcherd", description="The card launcher daemon: owns the pins, serves the API.")
    parser.add_argument("--sim", action="store_true", help="run on mock GPIO with a simulated mechanism")
    parser.add_argument("--seed", type=int, help="make a simulated run repeatable (policy and mechanism)")
    parser.add_argument("--config", metavar="FILE", help=f"TOML configuration (default: {DEFAULT_PATH} if present)")
    parser.add_argument("--socket", metavar="PATH", help="API socket path")
    parser.add_argument("--state-dir", metavar="DIR", help="where game and score state is kept")
    parser.add_argument("--check-config", nargs="?", const="", metavar="FILE",
                        help="check a configuration file and exit 0 (valid) or 1")
    parser.add_argument("--safe-off", action="store_true", help="drive the motor pins low and exit")
    parser.add_argument("--demo", action="store_true", help="with --sim: a live terminal view")
    parser.add_argument("--no-game", action="store_true",
                        help="with --sim: do not start launcher-game beside launcherd (one may still register)")
    parser.add_argument("--game-state-dir", metavar="DIR",
                        help="with --sim: launcher-game's state dir (default: <state-dir>/game)")
    parser.add_argument("--verbose", "-v", action="store_true", help="debug logging")
    parser.add_argument("--version", action="version", version=f"launcherd {__version__}")
    return parser


def freeze_startup_heap() -> None:
    """Once READY: what the start built (imports, catalogues, the device) is left out of every
    later garbage collection. Measured on launcherd alone (no game in it): a full collection walked
    its ~30,000 start-up objects in 10-11 ms on an x86 laptop (several times that on a Pi), at
    whatever moment it fell, the motor running or not; frozen, 0.0 ms. The one piece of the old
    heap keeper (collections held for the motor's rest) launcherd alone still needs."""
    import gc

    gc.freeze()


def _config_path(args: argparse.Namespace) -> str | None:
    if args.check_config:
        return args.check_config
    if args.config:
        return args.config
    if not args.sim and DEFAULT_PATH.exists():
        return str(DEFAULT_PATH)
    return None


def main(argv: list[str] | None = None) -> int:
    # asyncio imports ssl (OpenSSL, about 2 MB of resident memory) for TLS that launcherd never
    # speaks: its API is a Unix socket and its unit forbids the network. Without ssl, asyncio
    # simply has no TLS. A layer that needs TLS would have to be run in a process of its own.
    sys.modules.setdefault("ssl", None)
    import asyncio

    from firmware.daemon.driver import Daemon
    from firmware.daemon.motorloop import precise_event_loop
    from firmware.daemon.notify import Notifier

    args = build_parser().parse_args(argv)
    setup_logging(args.verbose)
    if args.safe_off:
        # Before any check of the rest of the config: safe-off drives the pins low whatever else
        # in it is refused (a pwm_frequency over lgpio's limit, a timing), as long as the pins
        # themselves can be read.
        from firmware.board.safe_off import run_safe_off
        return run_safe_off(_config_path(args))
    try:
        config = load_config(_config_path(args))
        if not args.sim:
            # What the backend that will drive the pins refuses is refused now, by the config
            # check too, not when the motor first runs.
            check_backend(config, requested_backend())
    except ConfigError as exc:
        print(f"launcherd: {exc}", file=sys.stderr)
        return 1
    if args.check_config is not None:
        print(f"{config.source}: configuration is valid")
        return 0
    daemon = Daemon(config, sim=args.sim, seed=args.seed, socket_path=args.socket,
                    state_dir=args.state_dir, notifier=Notifier.from_environ(),
                    spawn_game=args.sim and not args.no_game, game_state_dir=args.game_state_dir)
    try:
        with asyncio.Runner(loop_factory=precise_event_loop) as runner:
            if args.demo:
                from firmware.tools.demo import run_demo
                return runner.run(run_demo(daemon))
            return runner.run(daemon.run(ready=lambda _: freeze_startup_heap()))
    except HardwareError as exc:
        print(f"launcherd: {exc}", file=sys.stderr)
        if not args.sim:
            print("launcherd: not on a Raspberry Pi? `launcherd --sim` runs on simulated pins."
                  " On a Pi: is lgpio installed, and is GPIOZERO_PIN_FACTORY right?", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"launcherd: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0


if __name__ == "__main__":
    sys.exit(main())
