"""``launcherctl game ...``'s command line: its subcommands and their arguments (the
``card_launcher.cli`` entry point ``game``).

launcherctl registers every entry point's commands before each call, ``launcherctl status`` too, so
registering imports none of the game: the rules, the scores and the catalogue (Babel) are imported
when a game command runs (``controller/layer/cli.py``), or when argparse needs a registry's names
(:class:`Names`: a parse that uses the option, a help that lists them).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterator, Sequence
from functools import cached_property
from typing import Any

from firmware.errors import InvalidParams

Run = Callable[[argparse.Namespace, Any], int]
Params = Callable[[argparse.Namespace], dict[str, Any]]

# Colours and cards are named in English or French; launcherd reads either (controller.text.messages).
_COLOURS = "red, yellow, green, blue (orange, purple: despicable-me-4), or in French: rouge, vert, ..."


class Names(Sequence[str]):
    """The names a registry allows, read from it the first time argparse asks: as ``choices`` (a
    value checked, an error listing them) and as ``metavar`` (``{a,b,c}``, as argparse shows choices)."""

    def __init__(self, load: Callable[[], Sequence[str]]):
        self._load = load

    @cached_property
    def _names(self) -> tuple[str, ...]:
        return tuple(self._load())

    def __getitem__(self, index):  # type: ignore[override]
        return self._names[index]

    def __len__(self) -> int:
        return len(self._names)

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __contains__(self, name: object) -> bool:
        return name in self._names

    def __str__(self) -> str:
        return "{" + ",".join(self._names) + "}"


def _ruleset_ids() -> Sequence[str]:
    from controller.rules.game import RULESET_IDS
    return RULESET_IDS


def _scorings() -> Sequence[str]:
    from controller.match.scores import SCORINGS
    return SCORINGS


RULESETS = Names(_ruleset_ids)
SCORING_NAMES = Names(_scorings)


def _add_names(parser: argparse.ArgumentParser, option: str, names: Names) -> argparse.Action:
    """An option that takes one of a registry's ``names``, shown as ``{a,b,c}`` as argparse shows
    choices. The metavar is set once the option is added: ``add_argument`` formats it to check it,
    which would read the registry."""
    action = parser.add_argument(option, choices=names, metavar="NAME")
    action.metavar = names
    return action


# ---- argument types -----------------------------------------------------------------------------


def _names(text: str) -> list[str]:
    names = [name.strip() for name in text.split(",")]
    if not all(names):
        raise argparse.ArgumentTypeError(f"{text!r}: names separated by commas, e.g. Ann,Bob,Cy")
    return names


def _pair(text: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep or not name.strip() or not value.strip():
        raise argparse.ArgumentTypeError(f"{text!r}: expected NAME=VALUE")
    return name.strip(), value.strip()


def _count(text: str) -> tuple[str, int]:
    name, value = _pair(text)
    if not value.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r}: expected NAME=N, N a whole number, e.g. Bob=2")
    return name, int(value)


def _color(name: str) -> str:
    """A colour named in English or French ("rouge"), as launcherd's id ("red")."""
    from controller.text.messages import color_id

    try:
        return color_id(name)
    except InvalidParams as error:
        raise argparse.ArgumentTypeError(error.message) from None


def _hands(pairs: list[tuple[str, str]]) -> dict[str, str]:
    # Sent as typed: the counter reads "37" as a total and "7,hit-2,wild" as cards.
    return dict(pairs)


def _by(args: argparse.Namespace) -> dict[str, str]:
    return {"by": args.by} if args.by else {}


def _given(*pairs: tuple[str, Any]) -> dict[str, Any]:
    """The parameters given on the command line: those left out are the daemon's to choose."""
    return {key: value for key, value in pairs if value is not None}


def _end_round_params(args: argparse.Namespace) -> dict[str, Any]:
    if args.color is not None and args.first_card is None:
        args.parser.error("--color goes with --first-card (the colour of the card turned up)")
    return _given(("winner", args.winner), ("hands", _hands(args.hands)), ("first_card", args.first_card),
                  ("color", args.color))


# ---- what runs: imported when it runs ----------------------------------------------------------


def _command(name: str) -> Run:
    """The command ``name`` of ``controller/layer/cli.py``, which imports the game, imported when it runs."""
    def run(args: argparse.Namespace, client: Any) -> int:
        from controller.layer import cli
        return getattr(cli, name)(args, client)
    return run


def _action(method: str, params: Params) -> Run:
    """A game action: its reply says what happened and where the table stands."""
    def run(args: argparse.Namespace, client: Any) -> int:
        from controller.layer.cli import act
        return act(args, client, method, params(args))
    return run


def _plain(method: str) -> Run:
    """A command that changes the table but shows no move (abandon, repair): its reply's messages."""
    def run(args: argparse.Namespace, client: Any) -> int:
        from controller.layer.cli import change
        return change(args, client, method)
    return run


# ---- registration -------------------------------------------------------------------------------


Add = Callable[[str, Run, str], argparse.ArgumentParser]


def register(subparsers: argparse._SubParsersAction, parents: list[argparse.ArgumentParser]) -> None:
    """Add ``launcherctl game ...`` (the ``card_launcher.cli`` entry point)."""
    game = subparsers.add_parser("game", help="the game at the table: turns, presses, scores",
                                 description="Follow a game of UNO Attack: turns, presses and scores.")
    sub = game.add_subparsers(dest="game_command", metavar="COMMAND", required=True)

    def add(name: str, run: Run, help: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, parents=parents, help=help, description=help)
        p.set_defaults(func=run, parser=p)
        return p

    _add_match_commands(add)
    _add_move_commands(add)
    _add_round_commands(add)
    _add_table_commands(add)


def _add_match_commands(add: Add) -> None:
    """Starting, resuming and setting a match aside, and the rules it is played by."""
    p = add("new", _command("new"), "start a match (its first round is dealt)")
    _add_names(p, "--rules", RULESETS)  # left out: the default ruleset
    p.add_argument("--players", type=_names, required=True, metavar="A,B,...",
                   help="names in seat order, clockwise")
    p.add_argument("--dealer", metavar="NAME", help="who deals round 1 (default: the last name)")
    p.add_argument("--first-card", metavar="CARD", help="the card turned up to start the pile")
    p.add_argument("--color", type=_color, metavar="COLOUR",
                   help="its colour (for a wild: the colour named); " + _COLOURS)
    p.add_argument("--option", type=_pair, action="append", metavar="NAME=VALUE",
                   help="a ruleset option, e.g. early_stop=false")
    _add_names(p, "--scoring", SCORING_NAMES)
    p.add_argument("--target", type=int, metavar="N", help="points that end the match (default 500)")
    p.add_argument("--force", action="store_true",
                   help="start even while another match is being played (it stays resumable)")
    p.add_argument("--wait", action="store_true",
                   help="classic, despicable-me-4: return once the launcher has dealt the opening hands")

    p = add("resume", _action("game/resume", lambda a: {"match": a.match}),
            "make an earlier match the table's again (its number in game history)")
    p.add_argument("match", type=int, metavar="N")
    add("abandon", _plain("game/abandon"), "set the match aside (game resume brings it back)")
    add("repair", _plain("game/repair"),
        "fix what game status reports about the game log (a damaged log is moved aside, not deleted)")
    p = add("rules", _command("rules"), "card names, points and scoring variants of a ruleset (default: all)")
    p.add_argument("ruleset", nargs="?", choices=RULESETS, metavar="RULESET", help="%(choices)s")


def _add_move_commands(add: Add) -> None:
    """What a player does on their move, or to another's."""
    p = add("play", _command("play"), "the player whose move it is plays a card")
    p.add_argument("card", metavar="CARD",
                   help='e.g. 7, skip, hit-2, wild-attack, or its French name ("Double attaque")')
    p.add_argument("--color", type=_color, metavar="COLOUR",
                   help="its colour, or the colour a wild names (filled in when only one is legal); " + _COLOURS)
    p.add_argument("--target", metavar="NAME", help="the player a wild-attack (or trade-hands) names")
    p.add_argument("--last", action="store_true", help="it was the player's last card")
    p.add_argument("--by", metavar="NAME", help="refuse unless it is NAME's move")

    p = add("turn-up", _action("game/turn-up", lambda a: _given(("card", a.card), ("color", a.color))),
            "classic, despicable-me-4, blast: the card turned up after an ignored first card")
    p.add_argument("card", metavar="CARD", help="e.g. 7, or its French name")
    p.add_argument("--color", type=_color, metavar="COLOUR", help=_COLOURS)

    p = add("first-attack", _action("game/first-attack", lambda a: _given(
        ("color", a.color), ("target", a.target), ("by", a.by))),
        "name the colour and the victim of a turned-up wild-attack")
    p.add_argument("--color", type=_color, metavar="COLOUR", required=True, help=_COLOURS)
    p.add_argument("--target", metavar="NAME", required=True)
    p.add_argument("--by", metavar="NAME", help="refuse unless it is NAME's move")

    for name, help in (("uno", "NAME calls Uno"), ("catch", "NAME is caught without calling Uno"),
                       ("hint", "NAME gave advice (2005 and 2010 boxes)")):
        p = add(name, _action(f"game/{name}", lambda a: {"player": a.player}), help)
        p.add_argument("player", metavar="NAME")

    p = add("insert", _action("game/insert", lambda a: {
        "blast": a.blast is not None, "cards": a.blast or 0, **_by(a)}),
        "blast without a blaster fitted: the player whose move it is put a card in the blaster (a"
        " fitted blaster reports its insertions itself, and this is refused)")
    p.add_argument("--blast", type=int, metavar="N", help="it fired and N cards came out")
    p.add_argument("--by", metavar="NAME", help="refuse unless it is NAME's move")

    for name, help in (("draw", "classic: the player whose move it is draws one card (the launcher deals it)"),
                       ("pass", "classic: the player who drew keeps the card; turn over"),
                       ("challenge", "classic: challenge the Wild Draw Four just played"),
                       ("accept", "classic: accept the Wild Draw Four: dealt 4, turn lost")):
        p = add(name, _action(f"game/{name}", _by), help)
        p.add_argument("--by", metavar="NAME", help="refuse unless it is NAME's move")
    p = add("challenge-result", _action("game/challenge-result", lambda a: {"result": a.result}),
            "classic: the challenged hand is shown: legal (the challenger is dealt 6) or illegal (4 back)")
    p.add_argument("result", choices=("legal", "illegal"))
    p = add("minions", _action("game/minions", lambda a: {"counts": dict(a.counts)}),
            "despicable-me-4: cards each other player discarded for Wild Mega Minions Power")
    p.add_argument("counts", nargs="+", type=_count, metavar="NAME=N")

    add("undo", _action("game/undo", lambda a: {}), "take back the last action of the match")


def _add_round_commands(add: Add) -> None:
    """Where the round stands, and its end."""
    add("status", _command("status"), "whose move it is, presses owed, cards taken, scores")
    add("log", _command("log"), "the match's actions, undone ones included")

    p = add("end-round", _action("game/end-round", _end_round_params), "score the round and deal the next one")
    p.add_argument("--winner", required=True, metavar="NAME")
    p.add_argument("hands", nargs="+", type=_pair, metavar="NAME=POINTS|NAME=CARD,CARD,...")
    p.add_argument("--first-card", metavar="CARD", help="the card turned up for the next round")
    p.add_argument("--color", type=_color, metavar="COLOUR", help="its colour; " + _COLOURS)

    p = add("edit-round", _action("game/edit-round", lambda a: {"round": a.round, "hands": _hands(a.hands)}),
            "correct the hands of an ended round")
    p.add_argument("round", type=int, metavar="N")
    p.add_argument("hands", nargs="+", type=_pair, metavar="NAME=POINTS|NAME=CARD,CARD,...")


def _add_table_commands(add: Add) -> None:
    """The scores, the matches played, the join code and the statistics."""
    p = add("scores", _command("scores"), "the score table")
    p.add_argument("--csv", action="store_true", help="rounds x players as CSV")
    p = add("history", _command("history"), "every match played, oldest first")
    p.add_argument("--limit", type=int, metavar="N", help="only the last N matches (a page of a long history)")
    p.add_argument("--before", type=int, metavar="MATCH",
                   help="with --limit: the page of matches before match MATCH (its number in the list)")

    p = add("code", _command("code"), "the table's join code, which phones need to act on the game")
    p.add_argument("--new", action="store_true", help="a new code: the old one stops working")
    p.add_argument("--qr", action="store_true", help="also draw the table page's address as a QR code")
    p.add_argument("--url", metavar="URL",
                   help="the page's address for --qr (default http://HOSTNAME.local:8080/)")

    p = add("stats", _command("stats"), "statistics of the match and of every match")
    p.description = ("Presses, cards, bursts, dry streaks, hits, Mega Hit chains, rounds won and time per"
                     " round.")
    p.add_argument("--match", type=int, metavar="N", help="another match (its number in game history)")
