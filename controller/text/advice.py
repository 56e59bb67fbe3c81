"""What the game layer says to the table, one builder of a message object per message (#10, #14).

Every sentence the service sends (replies, ``game/message`` events, refusals of its own) is built
here as a message object (``controller.text.messages``); whoever shows it renders it in its reader's
language.
"""

from __future__ import annotations

from typing import Any

from firmware.i18n import message

from controller.match.scores import scores
from controller.rules import classic, game
from controller.rules.attack import resumes_after_mega_hit
from controller.rules.rulesets import deck_size
from controller.rules.state import HAND, next_seat
from controller.text.messages import CATALOGUE
from controller.text.wording import text

Message = dict[str, Any]

# Bursts of up to 12 cards have been seen (rules.md §2): below that, the next press may run dry.
RELOAD_BELOW = 12


def reload_advice(hopper: int | None) -> dict[str, Any]:
    """When to reshuffle the discard pile into the launcher, from its estimate of the hopper.

    ``text`` in the language of the request, ``text_object`` the message it renders.
    """
    if hopper is None:
        said, reload = message("hopper_unknown"), False
    elif hopper == 0:
        said, reload = message("hopper_empty"), True
    elif hopper < RELOAD_BELOW:
        said, reload = message("hopper_low", hopper=hopper), True
    else:
        said, reload = message("hopper_holds", hopper=hopper), False
    return {"hopper": hopper, "reload": reload, "text": text(said), "text_object": said}


def dealing_advice(ruleset: str, players: int) -> Message:
    """How to deal, so that the launcher's count (and the reload advice) is right."""
    dealt = HAND * players
    rs = game.ruleset(ruleset)
    size = deck_size(rs)
    if rs.blaster:
        return message("dealing_advice_blast", hand=HAND, dealt=dealt, rest=size - dealt - 1)
    if rs.dealer:
        return message("dealing_advice_dealer", hand=HAND, dealt=dealt, deck=size)
    if size is None:
        return message("dealing_advice_any_deck", hand=HAND, dealt=dealt)
    return message("dealing_advice", hand=HAND, dealt=dealt, rest=size - dealt - 1)


def undone(action: dict[str, Any], who: str | None) -> Message:
    """The undo reply: what was taken back and, for cards that came out, who holds them now."""
    cards = action.get("cards") if action["type"] in ("press", "cards") else None
    if cards:
        return message("undone_cards", action=action_said(action), cards=cards, player=str(who))
    return message("undone", action=action_said(action))


# Action types the table hears by a word of their own (``action:TYPE``, controller/text/table_texts.py).
ACTION_WORDS = ("new", "uno", "catch", "hint", "first_attack", "end_round", "edit_round", "insert", "pass",
                "challenge", "challenge-result", "accept", "minions", "turn_up", "draw")


def action_said(action: dict[str, Any]) -> Message:
    """An action of the log in words, as the box names cards and colours ("Dad plays 3 (green)"):
    for undo lines and the log (#40); the ids stay in the action itself."""
    kind = str(action.get("type"))
    who = action.get("by") or action.get("player")
    if kind == "play" and isinstance(action.get("card"), str) and who:
        color, target = action.get("color"), action.get("target")
        said = "plays" + ("_color" if color else "") + ("_at" if target else "")
        params = {"player": who, "card": action["card"]}
        if color:
            params["color"] = color
        if target:
            params["target"] = target
        return message(said, **params)
    if kind in ("press", "cards") and isinstance(action.get("cards"), int) and who:
        ended = action.get("ended")
        if ended in ("jam", "empty", "lid"):
            return message(f"action_press_cut_{ended}", player=who, cards=action["cards"])
        return message("action_press" if kind == "press" else "action_late_cards", player=who, cards=action["cards"])
    if kind in ACTION_WORDS:
        what = {"id": f"action:{kind}"}
        if kind in ("catch", "uno", "hint") and action.get("player"):
            return message(f"action_{kind}", player=action["player"])
        return message("action_by", player=who, action=what) if isinstance(who, str) else what
    return message("action_other")


def still_running(match_id: int, players: list[str], round_no: int) -> Message:
    return message("still_running", match=match_id, players=players, round=round_no)


def set_aside(match_id: int) -> Message:
    return message("set_aside", match=match_id)


def no_game(log_path: Any) -> Message:
    return message("no_game", path=str(log_path))


def describe(action: dict[str, Any]) -> str:
    """One line for an action, who acted first: "Ann: play card=hit-1 color=red" (as the log shows it)."""
    who = action.get("by")
    rest = " ".join(f"{key}={value}" for key, value in action.items()
                    if key not in ("type", "by") and value is not None)
    line = f"{action['type']} {rest}".strip()
    return f"{who}: {line}" if who else line


def nothing_to_repair(log_path: Any) -> Message:
    return message("nothing_to_repair", path=str(log_path))


def moved_aside(path: Any) -> Message:
    return message("log_moved_aside", path=str(path))


def writable_again() -> Message:
    return message("log_writable_again")


def kept_sound(path: Any) -> Message:
    return message("log_kept_sound", path=str(path))


def goes_on(match_id: int) -> Message:
    return message("match_id_goes_on", match=match_id)


def written_back(path: Any) -> Message:
    return message("log_written_back", path=str(path))


def found_moved_aside(path: Any) -> Message:
    return message("found_moved_aside", path=str(path))


def already_current(match_id: int) -> Message:
    return message("already_current", match=match_id)


def cannot_replay(match_id: int, why: str | Message) -> Message:
    return message("cannot_replay", match=match_id, reason=why)


def resumed(match_id: int) -> Message:
    return message("resumed", match=match_id)


def nothing_to_undo() -> Message:
    return message("nothing_to_undo")


def empty_press(press_id: int) -> Message:
    return message("press_empty_not_counted", press_id=press_id)


def uncounted_press(press_id: int, cards: int, why: str | Message) -> Message:
    return message("press_not_counted", press_id=press_id, cards=cards, reason=why)


def uncounted_late_card(why: str | Message) -> Message:
    return message("late_card_not_counted", reason=why)


def uncounted_insert(insert_id: int, cards: int, why: str | Message) -> Message:
    return message("insert_not_counted", insert_id=insert_id, cards=cards, reason=why)


def deal_waits(player: str, why: str | Message) -> Message:
    return message("deal_waits", player=player, reason=why)


def _ended(ended: Any) -> str | Message:
    """How a dispense ended, as a word of the language when the catalogue has it."""
    return message(f"ended:{ended}") if f"ended:{ended}" in CATALOGUE else str(ended)


def deal_short(player: str, cards: int, count: int, ended: Any) -> Message:
    return message("deal_short", player=player, cards=cards, count=count, ended=_ended(ended))


def dealt_too_many(player: str, cards: int, count: int) -> Message:
    return message("dealt_too_many", cards=cards, player=player, count=count, extra=cards - count)


def deal_pause_press(player: str) -> Message:
    return message("deal_pause_press", player=player)


def dealt_after_stop(cards: int) -> Message:
    return message("dealt_after_stop", cards=cards)


def uncounted_deal(cards: int, player: str, why: str | Message) -> Message:
    return message("deal_not_counted", cards=cards, player=player, reason=why)


def draw_failed(player: str | None, why: str | Message) -> Message:
    return message("draw_failed", player=str(player), reason=why)


def no_card_came_out(ended: Any) -> Message:
    return message("no_card_came_out", ended=_ended(ended))


def no_draw(ruleset: str) -> Message:
    return message("no_draw", ruleset=ruleset)


def draw_pile(ruleset: str, players: int, turned: int) -> Message:
    """The draw pile once ``turned`` cards were turned up to start the pile (blast: dealt by hand)."""
    dealt = HAND * players
    return message("draw_pile_now", rest=deck_size(game.ruleset(ruleset)) - dealt - turned, turned=turned)


def press_while_dealing(player: str | None) -> Message:
    return message("press_while_dealing", player=str(player))


def tell_turned_up() -> Message:
    return message("tell_turned_up")


def no_draw_blast() -> Message:
    return message("no_draw_blast", ruleset="blast")


def blaster_counts_inserts() -> Message:
    return message("blaster_counts_inserts")


def busy_dealing() -> Message:
    return message("busy_dealing")


def deal_held(player: str, cards: int, undone: dict[str, Any] | None = None) -> Message:
    """What an undo leaves owed: "again" only where the undo took back cards dealt to that player."""
    if undone is None or (undone.get("type") == "press" and undone.get("by") == player):
        return message("deal_held", player=player, cards=cards)
    return message("deal_still_held", player=player, cards=cards)


def deal_held_first(player: str, cards: int) -> Message:
    """An action owes cards of its own while an undo holds a deal: that comes first, both wait."""
    return message("deal_held_first", player=player, cards=cards)


def burst_cut(player: str, cards: int, ended: str, owed: int | None) -> Message:
    """A press's burst cut short (a jam, the launcher empty, the lid): what came out and is
    ``player``'s, what is stuck (a jam: theirs too), and what they still owe (#40)."""
    if owed == 0:
        still = message("burst_owes_nothing", player=player)
    else:
        still = message("burst_still_owes", player=player, presses=owed)
    return message(f"burst_cut_{ended}", player=player, cards=cards, owed=still)


def press_ignored(said: str, player: str | None, owner: str | None) -> Message:
    """A press the launcher ignored in a game of bursts: why, and nothing counted (#40)."""
    if said == "press_ignored_jammed" and owner is not None:
        return message("press_ignored_jammed_owner", owner=owner)
    return message(said)


def load_deck(deck: int, hopper: int | None) -> Message:
    """The opening deal waits for the whole deck of ``deck`` cards; the launcher counts ``hopper``."""
    if hopper is None:
        return message("load_deck_unknown", deck=deck)
    return message("load_deck", deck=deck, hopper=hopper)


def press_deals_deck(deck: int) -> Message:
    """What a press does while the opening deal waits for the deck: it deals once the deck is in."""
    return message("press_deals_deck", deck=deck)


def press_deals_held(player: str, cards: int) -> Message:
    """What a press does while the deal owed waits for one: it deals it, ``player`` first."""
    return message("press_deals_held", player=player, cards=cards)


def deal_waits_resumed(player: str, cards: int) -> Message:
    return message("deal_waits_resumed", player=player, cards=cards)


def reason(error: Any) -> str | Message:
    """Why an ``ApiError`` refused: its message object when it has one, else its text."""
    return error.message_object or error.message


# ---- what now: whose move it is and the choices, in plain words (#24) ------------------------


def what_now(table: Any) -> Message | None:
    """One sentence for the table: who moves now and what they may do ("Bob: accept 4 cards, or
    challenge Lea"), for every state of every ruleset. None without a table."""
    if table is None:
        return None
    if table.match_over:
        winner = scores(table.match)["winner"]
        return message("what_now_match_over", winners=winner if isinstance(winner, list) else [str(winner)])
    return round_what_now(table.game)


def round_what_now(state: Any) -> Message:
    """``what_now`` of a round whose match goes on."""
    rs = game.ruleset(state.ruleset)
    owed = state.queue[0] if state.queue else None
    if owed is not None:
        player = state.players[owed.seat]
        if rs.dealer:
            return message("what_now_dealt", player=player, cards=owed.presses)
        if rs.blaster:
            if owed.presses is None:
                return message("what_now_insert_until_blast", player=player)
            return message("what_now_insert", player=player, inserts=owed.presses)
        return _attack_owed(state, owed)
    if state.round_over:
        return message("what_now_round_over", winner=state.players[state.winner], round=state.round_no)
    player = state.players[state.active]
    if not (rs.dealer or rs.blaster):  # an Attack edition
        if state.awaiting == "first_attack":
            return message("what_now_first_attack", player=player)
        if state.awaiting == "first_discard" and state.color is not None:
            return message("what_now_first_discard", player=player, color=state.color)
        if state.awaiting == "first_discard":
            return message("what_now_first_discard_any", player=player)
        return message("what_now_play_or_press", player=player)
    if state.top_card is None:
        return message("what_now_turn_up_dealer" if rs.dealer else "what_now_turn_up", player=player)
    if rs.blaster:
        return message("what_now_play_or_insert", player=player)
    return _dealer_awaiting(state, player)


def _attack_owed(game: Any, owed: Any) -> Message:
    player = game.players[owed.seat]
    if owed.presses is None:
        said = message("what_now_press_until_cards", player=player)
    elif owed.reason in ("uno", "hint"):
        said = message("what_now_penalty", player=player, presses=owed.presses)
    elif owed.chain is not None:
        said = message("what_now_press_or_stack", player=player, presses=owed.presses)
    else:
        said = message("what_now_press", player=player, presses=owed.presses)
    if owed.started_by is not None and len(game.queue) == 1:
        return message("joined", messages=[said, resumes_after_mega_hit(game, owed)])
    return said


def _dealer_awaiting(game: Any, player: str) -> Message:
    played = next_seat(game, game.active, -1)  # who played the Wild Draw Four, or the Minions card
    if game.awaiting == classic.CHALLENGE:
        return message("what_now_challenge", player=player, cards=4, challenged=game.players[played])
    if game.awaiting == classic.RESULT:
        return message("what_now_challenge_result", player=player, challenged=game.players[played])
    if game.awaiting == classic.MINIONS:
        others = [game.players[next_seat(game, played, i)] for i in range(1, len(game.players))]
        return message("what_now_minions", players=others)
    if game.awaiting == classic.DRAWN:
        return message("what_now_drawn", player=player)
    return message("what_now_play_or_draw", player=player)


def press_settles_first(table: Any) -> Message:
    """Why a press deals nothing now in a dealer game: what to settle first, and by whom."""
    return message("press_settles_first", what=[what_now(table)])
