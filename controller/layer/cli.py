"""What each ``launcherctl game ...`` command does and prints; its command line is
``controller/layer/game_parser.py``, which imports this module only when a game command runs.

Each command is one ``game/...`` API call; the text printed is meant to be read aloud at the table
("Bob's move - owes 2 presses"), ``--json`` prints the result as it came. Errors are left to
``firmware.tools.cli.main`` (an ``ApiError`` is exit 1, argparse's usage errors exit 2).
"""

from __future__ import annotations

import argparse
import io
import socket
import time
from typing import Any, Callable

import segno

from firmware.client import Client
from firmware.errors import ApiError
from firmware.i18n import message
from firmware.tools.cli import print_result

from controller.text.advice import action_said
from controller.text.messages import CATALOGUE
from controller.text.wording import text
from controller.rules.ruledoc import format_rules
from controller.rules.rulesets import DEFAULT_RULESET
from controller.match.stats import format_stats


# ---- human output -------------------------------------------------------------------------------



# Why presses are owed, where the line would not say it by itself (message ids).
_OWED_BECAUSE = {"uno": "status_uno_penalty", "hint": "status_advice_penalty",
                 "last-card-attack": "status_last_card_attack"}

# What the classic flow waits for (controller/rules/classic.py), and the command that answers it.
_AWAITING = {
    "play_or_pass": "status_play_or_draw",
    "challenge_or_accept": "status_challenge_or_accept",
    "challenge_result": "status_challenge_result",
    "minions": "status_minions",
}


def _flow_owed(owed: dict[str, Any]) -> dict[str, Any] | None:
    """The obligation of a blast (insertions) or classic (cards dealt) round; None for Attack's."""
    details = [message("status_uno_penalty")] if owed.get("reason") == "uno" else []
    if "inserts" in owed:
        if owed["inserts"] is None:
            return message("status_inserts_until", player=owed["player"], details=details)
        return message("status_owes_inserts", player=owed["player"], cards=owed["inserts"], details=details)
    if "cards" in owed:
        reason = f"deal_reason:{owed['reason']}"  # in words; a reason this version has no word for, as it is
        reason = {"id": reason} if reason in CATALOGUE else owed["reason"]
        return message("status_dealt", player=owed["player"], cards=owed["cards"], reason=reason)
    return None


def move(status: dict[str, Any]) -> dict[str, Any]:
    """The one line the table needs, as a message object: whose move it is and what they must do."""
    owed, turn = status.get("owed"), status.get("turn")
    match = status.get("match") or {}
    if match.get("match_over"):
        winner = match.get("winner")
        return message("status_match_over", winners=winner if isinstance(winner, list) else [winner])
    if owed and _flow_owed(owed):
        return _flow_owed(owed)
    if owed:
        details = []
        chain = status.get("chain")
        if chain and chain.get("target") == owed["player"] and owed.get("reason") not in ("uno", "hint"):
            details.append(message("status_or_stacks"))
        if owed.get("until_cards") and owed["presses"] is not None:
            details.append(message("status_stops_early"))
        if owed.get("reason") in _OWED_BECAUSE:
            details.append(message(_OWED_BECAUSE[owed["reason"]]))
        return message("status_owes", player=owed["player"], presses=owed["presses"], details=details)
    if status.get("round_over"):
        return message("status_round_won", round=status["round"], winner=status["winner"])
    if status.get("awaiting") == "first_attack":
        return message("status_first_attack", player=turn)
    if status.get("awaiting") == "first_discard":  # a turned-up Discard All (rules.md §5)
        if status.get("color"):
            return message("status_first_discard", player=turn, color=status["color"])
        return message("status_first_discard_any", player=turn)
    if status.get("awaiting") in _AWAITING:
        return message(_AWAITING[status["awaiting"]], turn=turn)
    if status.get("choices") == ["turn_up"]:  # nothing before the first card (issue #39)
        return message("status_turn_up", player=turn)
    if status.get("device") == "blaster":
        return message("status_play_or_insert", player=turn)
    if status.get("ruleset") in ("classic", "despicable-me-4"):
        return message("status_play_or_draw_one", player=turn)
    return message("status_play_or_press", player=turn)


_TURN_UP = "launcherctl dispense 1, launcherctl game turn-up CARD --color C"  # the page's Turn up button


def _move(status: dict[str, Any]) -> str:
    """:func:`move` in the language launcherctl speaks; before a dealer game's first card, with the
    commands that turn it up (the launcher deals it)."""
    if status.get("load_deck") and status.get("what_now_object"):  # the opening deal waits for the deck
        return _with_command(status["what_now_object"])
    said = move(status)
    if said["id"] == "status_turn_up" and status.get("device") == "launcher":
        return text(message("cli_at_a_terminal", said=text(said), command=_TURN_UP))
    return text(said)


def _said(result: dict[str, Any], key: str) -> str | None:
    """A text field of a reply in launcherctl's language: its ``KEY_object`` rendered, else as sent."""
    said = result.get(f"{key}_object")
    return text(said) if said else result.get(key)


# The table's texts say an action in words (#24); at a terminal launcherctl adds the command for it.
_COMMANDS: dict[str, Callable[[dict[str, Any]], str]] = {
    "dealing_advice": lambda said: f"launcherctl reload {said['rest']}",
    "dealing_advice_dealer": lambda said: f"launcherctl reload {said['deck']}; {_TURN_UP}",
    "dealing_advice_any_deck": lambda said: "launcherctl reload N",
    "undone_cards": lambda said: "launcherctl reload N",
    "set_aside": lambda said: f"launcherctl game resume {said['match']}",
    "first_ignored": lambda said: "launcherctl game turn-up CARD --color C",
    "tell_turned_up": lambda said: "launcherctl game turn-up CARD --color C",
    "first_ignored_dealer": lambda said: _TURN_UP,
    "load_deck": lambda said: f"launcherctl reload {said['deck']}; launcherctl press",
    "load_deck_unknown": lambda said: f"launcherctl reload {said['deck']}; launcherctl press",
}


def _with_command(said: dict[str, Any]) -> str:
    """A message's text, with the command that does what it says at a terminal, if it names an action."""
    command = _COMMANDS.get(said.get("id"))
    if command is None:
        return text(said)
    return text(message("cli_at_a_terminal", said=text(said), command=command(said)))


def _texts(result: dict[str, Any]) -> list[str]:
    """A reply's messages in launcherctl's language: its ``message_objects`` (with the command doing
    what they say, where they say an action), else its texts."""
    said = result.get("message_objects")
    if said is not None:
        return [_with_command(message) for message in said]
    return list(result.get("messages") or ())


def format_damage(damage: dict[str, Any]) -> list[str]:
    """What is wrong with the game log, and what to do about it."""
    return [f"game log: {_said(damage, 'what')}", f"what to do: {_said(damage, 'todo')}"]


def _hand(size: list[int] | None) -> str:
    """A hand of ``hand_sizes``: one number when exact, "5-7" when a range, "?" when not counted."""
    if not size:
        return "?"
    low, high = size
    return str(low) if low == high else f"{low}-{high}"


def format_status(status: dict[str, Any]) -> str:
    """``game status``: the move, the round, a line per player, the standing, the hopper, the log."""
    if "ruleset" not in status:  # no table to show: only what is wrong and where
        return "\n".join(format_damage(status["damage"]) + [f"state dir: {status['state_dir']}"])
    match = status.get("match") or {}
    head = text(message("status_head", ruleset=status["ruleset"], round=status["round"], dealer=status["dealer"]))
    table = [head, _move(status)]
    detail = [text({"id": f"direction:{status['direction']}"})]
    color, top = status.get("color"), status.get("top_card")
    if color and top:
        detail.append(text(message("status_on_card", color=color, card=top)))
    elif color or top:
        detail.append(text(message("status_on_color", color=color) if color else message("status_on_top", card=top)))
    if status.get("catchable"):
        detail.append(text(message("status_catchable", player=status["catchable"])))
    table.append(", ".join(detail))
    totals = match.get("totals") or {}
    labels = [text({"id": f"label_{key}"}) for key in ("player", "hand", "cards_taken", "presses", "score")]
    widths = [max(width, len(label)) for width, label in zip((12, 5, 11, 8, 6), labels)]
    table.append(f"{labels[0]:<{widths[0]}} {labels[1]:>{widths[1]}} {labels[2]:>{widths[2]}} {labels[3]:>{widths[3]}}"
                 f" {labels[4]:>{widths[4]}}")
    sizes = status.get("hand_sizes") or []
    for seat, player in enumerate(status["players"]):
        hand = _hand(sizes[seat] if seat < len(sizes) else None)
        table.append(f"{player['name']:<{widths[0]}} {hand:>{widths[1]}} {player['cards_taken']:>{widths[2]}}"
                     f" {player['presses']:>{widths[3]}} {totals.get(player['name'], 0):>{widths[4]}}")
    out = text({"id": "status_out"})
    for name in match.get("eliminated") or ():
        table.append(f"{name:<{widths[0]}} {out:>{widths[1]}}")
    table.append(text(message("status_scoring", scoring=match.get("scoring"), target=match.get("target"))))
    advice = status.get("reload_advice") or {}
    if advice.get("text"):
        table.append(_said(advice, "text"))
    if status.get("damage"):
        table += format_damage(status["damage"])
    table.append(text(message("status_match_log", match=str(status.get("match_id")), dir=str(status.get("state_dir")))))
    return "\n".join(table)


def format_reply(result: dict[str, Any]) -> str:
    """An action's reply: what happened (the messages), then where the table stands."""
    lines = _texts(result)
    lines.append(_move(result))
    advice = result.get("reload_advice") or {}
    if advice.get("reload"):
        lines.append(_said(advice, "text"))
    return "\n".join(lines)


def format_log(result: dict[str, Any]) -> str:
    """``game log``: one line per action, undone ones marked."""
    match = result["match"]
    lines = [text(message("cli_log_head", match=match["id"], ruleset=str(match["rules"]), started=match["started"]))]
    for record in result["actions"]:
        # The action in words, as the box names cards and colours (#40); --json keeps the ids.
        line = text(action_said(record["action"]))
        mark = "  " + text(message("cli_log_undone")) if record["undone"] else ""
        lines.append(f"{record['seq']:>5} {record['ts'][11:19]} {line}".rstrip() + mark)
    return "\n".join(lines)


def format_scores(result: dict[str, Any]) -> str:
    """``game scores``: rounds by players, the totals, and what comes next."""
    players = result["players"]
    width = max(6, *(len(name) for name in players))
    round_label, winner_label, total_label = (text({"id": f"label_{key}"}) for key in ("round", "winner", "total"))
    first = max(5, len(round_label), len(total_label))
    lines = [text(message("scores_head", scoring=result["scoring"], target=result["target"])),
             f"{round_label:<{first}}  " + " ".join(f"{name:>{width}}" for name in players) + f"  {winner_label}"]
    for played in result["rounds"]:
        cells = [played["points"].get(name, "") for name in players]
        lines.append(f"{played['round']:>{first}}  " + " ".join(f"{str(c):>{width}}" for c in cells)
                     + f"  {played['winner']}")
    lines.append(f"{total_label:<{first}}  " + " ".join(f"{result['totals'][name]:>{width}}" for name in players))
    if result["eliminated"]:
        lines.append(text(message("scores_out", players=list(result["eliminated"]))))
    if result["match_over"]:
        winner = result["winner"]
        lines.append(text(message("scores_winner", winners=winner if isinstance(winner, list) else [winner])))
    else:
        lines.append(text(message("scores_next", round=result["round"], dealer=result["dealer"])))
    for key in ("tie_rule", "reminder"):
        if result.get(key):
            lines.append(_said(result, key))
    return "\n".join(lines)


def format_history(result: list[dict[str, Any]]) -> str:
    """``game history``: one line per match."""
    if not result:
        return text(message("cli_history_none"))
    lines = []
    for match in result:
        if match["finished"]:
            winner = match["winner"]
            state = message("cli_history_won", winner=winner if isinstance(winner, list) else [str(winner)])
        elif match.get("current"):
            state = message("cli_history_playing")
        else:
            state = message("cli_history_unfinished", match=match["id"])
        totals = ", ".join(f"{name} {points}" for name, points in (match.get("totals") or {}).items())
        # The ruleset by its box's name (#40); --json keeps the id.
        said = message("cli_history_line", started=match["started"][:16].replace("T", " "), ruleset=str(match["rules"]),
                       players=list(match["players"]), rounds=match["rounds"], state=state)
        lines.append(f"{match['id']:>4} {text(said)}" + (f" - {totals}" if totals else ""))
    return "\n".join(lines)


# ---- commands -----------------------------------------------------------------------------------


def format_messages(result: dict[str, Any]) -> str:
    """The reply of a command that changes the table but shows no move (abandon, repair)."""
    return "\n".join(_texts(result))


def page_url(code: str, url: str | None = None) -> str:
    """The table page's address with the join code; by default this host's mDNS name, launcher-web's port."""
    base = url or f"http://{socket.gethostname()}.local:8080/"
    return f"{base}{'&' if '?' in base else '?'}code={code}"


def format_code(result: dict[str, Any]) -> str:
    """``game code``: the code, and with ``--qr`` the page's address as a QR code for phones."""
    if "url" not in result:
        return result["code"]
    drawn = io.StringIO()
    segno.make(result["url"], error="m").terminal(out=drawn, compact=True)
    return f"{drawn.getvalue().rstrip()}\n{result['url']}\n{text(message('cli_join_code', code=result['code']))}"


def act(args: argparse.Namespace, client: Client, method: str, params: dict[str, Any]) -> int:
    """A game action: what happened, then where the table stands."""
    return print_result(args, client.call(method, params), format_reply)


def change(args: argparse.Namespace, client: Client, method: str) -> int:
    """A command that changes the table but shows no move (abandon, repair)."""
    return print_result(args, client.call(method), format_messages)


def play(args: argparse.Namespace, client: Client) -> int:
    """``game play``: a coloured card typed without its colour gets the only one it may have."""
    params = {key: value for key, value in (("card", args.card), ("color", args.color), ("target", args.target),
                                            ("last", args.last or None), ("by", args.by)) if value is not None}
    try:
        result = client.call("game/play", params)
    except ApiError as error:
        refusal = error.message_object or {}
        legal = refusal.get("colors") or []
        if args.color is not None or refusal.get("id") != "needs_its_color" or len(legal) != 1:
            raise
        result = client.call("game/play", {**params, "color": legal[0]})
    return print_result(args, result, format_reply)


def _new_params(args: argparse.Namespace) -> dict[str, Any]:
    if args.color is not None and args.first_card is None:
        args.parser.error("--color goes with --first-card (the colour of the card turned up)")
    params = {"rules": args.rules or DEFAULT_RULESET, "players": args.players, "dealer": args.dealer,
              "first_card": args.first_card, "color": args.color,
              "options": dict(args.option or ()), "scoring": args.scoring, "target": args.target,
              "force": args.force or None}
    return {key: value for key, value in params.items() if value is not None}


# How long `game new --wait` waits for the launcher to deal the opening hands at most.
DEAL_WAIT_S = 600.0


def new(args: argparse.Namespace, client: Client) -> int:
    result = client.call("game/new", _new_params(args))
    if args.wait:
        result = _dealt(client, result)
    return print_result(args, result, format_reply)


def _dealt(client: Client, result: dict[str, Any]) -> dict[str, Any]:
    """The reply of `game new`, once nothing is owed for the opening deal (the launcher dealt it)."""
    deadline = time.monotonic() + DEAL_WAIT_S
    status = result
    # A deal that waits for the deck to be loaded first (status load_deck) is not waited for: the
    # reply says what to load, and a press of the button deals once it is loaded.
    while (status.get("owed") or {}).get("reason") == "deal" and not status.get("load_deck"):
        if time.monotonic() > deadline:
            raise SystemExit(f"launcherctl: the deal is not finished after {DEAL_WAIT_S:.0f} s:"
                             " see launcherctl game status")
        time.sleep(0.2)
        status = client.call("game/status")
    return {**status, "messages": result.get("messages"), "message_objects": result.get("message_objects")}


def status(args: argparse.Namespace, client: Client) -> int:
    return print_result(args, client.call("game/status"), format_status)


def log(args: argparse.Namespace, client: Client) -> int:
    return print_result(args, client.call("game/log"), format_log)


def scores(args: argparse.Namespace, client: Client) -> int:
    if args.csv:
        result = client.call("game/scores", {"csv": True})
        return print_result(args, result, lambda r: r["csv"].rstrip("\n"))
    return print_result(args, client.call("game/scores"), format_scores)


def history(args: argparse.Namespace, client: Client) -> int:
    params = {key: value for key, value in (("limit", args.limit), ("before", args.before)) if value is not None}
    return print_result(args, client.call("game/history", params), format_history)


def rules(args: argparse.Namespace, client: Client) -> int:
    return print_result(args, client.call("game/rules", {"rules": args.ruleset}), format_rules)


def code(args: argparse.Namespace, client: Client) -> int:
    if args.url is not None and not args.qr:
        args.parser.error("--url goes with --qr (the address the QR code shows)")
    result = client.call("game/code", {"new": args.new})
    if args.qr:
        result = {**result, "url": page_url(result["code"], args.url)}
    return print_result(args, result, format_code)


def stats(args: argparse.Namespace, client: Client) -> int:
    params = {} if args.match is None else {"match": args.match}
    return print_result(args, client.call("game/stats", params), format_stats)
