"""What the game layer says to the table, one function per message (#10).

Every sentence the service sends (replies, ``game/message`` events, refusals of its own) is built
here, so that moving them to message ids (``controller.messages``) changes one function each.
"""

from __future__ import annotations

from typing import Any

from .rulesets import deck_size
from .rulesets import get as get_ruleset

# Bursts of up to 12 cards have been seen (rules.md §2): below that, the next press may run dry.
RELOAD_BELOW = 12
RELOAD_HOW = ("shuffle the discard pile (all but its top card) into the hopper, then tell the"
              " launcher how many cards it holds: launcherctl reload N")
HAND = 7  # cards dealt to each player (rules.md §1)


def reload_advice(hopper: int | None) -> dict[str, Any]:
    """When to reshuffle the discard pile into the launcher, from its estimate of the hopper."""
    if hopper is None:
        return {"hopper": None, "reload": False,
                "text": "the launcher does not know how many cards it holds: after loading it,"
                        " launcherctl reload N"}
    if hopper == 0:
        return {"hopper": 0, "reload": True, "text": "the launcher is empty: " + RELOAD_HOW}
    if hopper < RELOAD_BELOW:
        return {"hopper": hopper, "reload": True,
                "text": f"about {hopper} card(s) left in the launcher: " + RELOAD_HOW}
    return {"hopper": hopper, "reload": False, "text": f"the launcher holds about {hopper} cards"}


def dealing_advice(ruleset: str, players: int) -> str:
    """What to do after dealing by hand, so that the launcher's count (and the reload advice) is right."""
    dealt = HAND * players
    size = deck_size(get_ruleset(ruleset))
    if size is None:
        return (f"deal {HAND} cards each by hand ({dealt}), turn one up, load the rest into the launcher"
                " and tell it how many: launcherctl reload N")
    rest = size - dealt - 1
    return (f"deal {HAND} cards each by hand ({dealt}), turn one up, load the other {rest} into the"
            f" launcher and tell it: launcherctl reload {rest}")


def undone_text(action: dict[str, Any], who: str | None) -> str:
    """The undo reply: what was taken back and, for cards that came out, who holds them now."""
    text = f"undone: {describe(action)}"
    cards = action.get("cards") if action["type"] in ("press", "cards") else None
    if cards:
        text += (f". Those {cards} card(s) did come out of the launcher and {who} holds them: they are no"
                 f" longer counted for {who}, who keeps them in hand, or puts them back in the hopper"
                 " and tells the launcher: launcherctl reload N")
    return text


def still_running_text(match_id: int, players: list[str], round_no: int) -> str:
    return (f"match {match_id} ({', '.join(players)}, round {round_no}) is still being played: finish it,"
            f" start another anyway with game new --force (match {match_id} stays in game history and"
            f" game resume {match_id} brings it back), or set it aside with game abandon")


def set_aside_text(match_id: int) -> str:
    return f"match {match_id} is set aside: game resume {match_id} brings it back"


def no_game_text(log_path: Any) -> str:
    return (f"no game yet (the game log is {log_path}): start one with"
            " launcherctl game new --players A,B,...")


def describe(action: dict[str, Any]) -> str:
    """One line for an action, who acted first: "Ann: play card=hit-1 color=red"."""
    who = action.get("by")
    rest = " ".join(f"{key}={value}" for key, value in action.items()
                    if key not in ("type", "by") and value is not None)
    line = f"{action['type']} {rest}".strip()
    return f"{who}: {line}" if who else line


def write_failed(exc: BaseException) -> str:
    return f"the game log cannot be written ({exc}); nothing was changed"


def nothing_to_repair(log_path: Any) -> str:
    return f"the game log {log_path} is sound: nothing to repair"


def moved_aside(path: Any) -> str:
    return f"the game log was moved aside to {path}; a fresh one is started"


def writable_again() -> str:
    return "the game log can be written again"


def goes_on(match_id: int) -> str:
    return f"match {match_id} goes on"


def written_back(path: Any) -> str:
    return f"the game log is written back to {path}, every acknowledged action included"


def found_moved_aside(path: Any) -> str:
    return f"the file found there was moved aside to {path}"


def already_current(match_id: int) -> str:
    return f"match {match_id} is already the table's"


def cannot_replay(match_id: int, why: str) -> str:
    return f"match {match_id} cannot be replayed ({why})"


def resumed(match_id: int) -> str:
    return f"match {match_id} resumed"


def empty_press(press_id: int) -> str:
    return (f"press {press_id} gave nothing: the launcher is empty and the press does not count;"
            " reload it and press again")


def uncounted_press(press_id: int, cards: int, why: str) -> str:
    return f"press {press_id} ({cards} card(s)) is not counted in the game: {why}"


def uncounted_late_card(why: str) -> str:
    return f"a card that came out late is not counted: {why}"
