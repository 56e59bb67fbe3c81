"""What the game layer says to the table, one function per message (#10).

Every sentence the service sends (replies, ``game/message`` events, refusals of its own) is built
here, so that moving them to message ids (``controller.messages``) changes one function each.
"""

from __future__ import annotations

from typing import Any

from . import classic
from .rulesets import RULESETS, deck_size
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
    """How to deal, so that the launcher's count (and the reload advice) is right."""
    dealt = HAND * players
    if ruleset not in RULESETS:  # blast and classic: their flows' decks are all known
        flow = classic.get(ruleset)
        if flow.device == "blaster":
            return (f"deal {HAND} cards each by hand ({dealt}) and turn one up: the other"
                    f" {flow.deck_size - dealt - 1} are the draw pile, from which each insertion is taken")
        return (f"the launcher deals {HAND} to each seat ({dealt}) from the whole shuffled deck of"
                f" {flow.deck_size} (loaded and told, launcherctl reload {flow.deck_size}: a deal waits for"
                " cards); after the deal turn up the first card with launcherctl dispense 1 (an action card is ignored: dispense another)")
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


def uncounted_insert(insert_id: Any, cards: int, why: str) -> str:
    return f"insertion {insert_id} ({cards} card(s) blasted) is not counted in the game: {why}"


def deal_waits(player: str, why: str) -> str:
    return f"dealing to {player} waits: {why}; it goes on by itself"


def deal_short(player: str, cards: int, count: int, ended: Any) -> str:
    return (f"{player} was dealt {cards} of {count} card(s) ({ended}); the rest comes once the launcher"
            " is ready (pull out a stuck card, or reload: launcherctl reload N)")


def dealt_too_many(player: str, cards: int, count: int) -> str:
    return (f"{cards} cards came out for {player}, who was owed {count}: {cards - count} go back in the"
            " hopper (launcherctl reload N)")


def deal_pause_press(player: str) -> str:
    return f"hand the pile over, then press the button to deal to {player}"


def dealt_after_stop(cards: int) -> str:
    return (f"{cards} card(s) came out after the deal was stopped and are not counted: put them back in"
            " the hopper and tell the launcher: launcherctl reload N")


def uncounted_deal(cards: int, player: str, why: str) -> str:
    return f"{cards} card(s) dealt to {player} are not counted in the game, and dealing stops: {why}"


def draw_failed(player: str | None, why: str) -> str:
    return f"{player} draws no card: {why}; reload if the launcher is empty, then draw again"


def no_draw(ruleset: str) -> str:
    return f"{ruleset} is not played with the launcher as dealer: press the button instead"


def busy_dealing() -> str:
    return "the launcher is dealing: draw once the cards owed are dealt"


def deals_again() -> str:
    return "the launcher deals again what the round now owes"
