"""What the launcher and the game say, as data: a message id and its parameters, rendered at the edge.

A message is a JSON object ``{"id": "mega_hit_passes", "hits": 5, "player": "Cy"}``: the game, the
daemon and the event stream carry it as it is, and whoever shows or speaks it calls
:func:`render` in the language its reader asked for. The texts are gettext catalogues
(``locale/<lang>/LC_MESSAGES/launcher.po``); each entry's ``msgctxt`` is the message id and its
``msgid`` the English source text below, so a translator sees both.

The .po files are compiled with Babel in memory the first time a language is used: nothing
compiled is kept in the repository or needs a build step, and a read-only install works.

Parameters have kinds, which say how a value is shown (see :data:`KINDS`): counts of presses and
cards become "1 press" / "2 presses" through ngettext; card ids, colours and directions become the
language's words; a list of names becomes "Ann, Bob and Cy". A message with a plural has a
``count`` parameter that picks the form.

Maintenance (docs/voice.md): after changing :data:`CATALOGUE`, regenerate the template with
``python -m controller.text.messages > controller/locale/launcher.pot``, merge it into the languages with
``pybabel update``, and translate what is new; ``tests/test_messages.py`` fails until every id is
translated in every language.
"""

from __future__ import annotations

import gettext
import io
import os
import re
import sys
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Mapping

from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po
from babel.numbers import format_decimal, format_percent

from firmware.errors import InvalidParams, LauncherError

DOMAIN = "launcher"
LANGUAGES = ("en", "fr")
DEFAULT_LANGUAGE = "en"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"


class MessageError(LauncherError, ValueError):
    """A message that cannot be rendered: unknown id, a parameter missing or of the wrong kind."""


@dataclass(frozen=True)
class Text:
    """One entry of the catalogue: the English source, its plural, and its parameters' kinds."""

    singular: str
    params: Mapping[str, str] = field(default_factory=dict)
    plural: str | None = None
    count: str | None = None  # the parameter whose number picks the plural form


def _t(singular: str, plural: str | None = None, count: str | None = None, /, **params: str) -> Text:
    return Text(singular, MappingProxyType(params), plural, count)


# Words that are parameters of other messages. Card ids stay as players type them in English
# (rulesets name them so); French uses the French rule book's names (seed 001), which
# :func:`card_id` also accepts as input.
_WORDS: dict[str, Text] = {
    "n_presses": _t("%(count)d press", "%(count)d presses", "count", count="int"),
    "presses_until_cards": _t("presses until cards come out"),
    "n_cards": _t("%(count)d card", "%(count)d cards", "count", count="int"),
    "n_insertions": _t("%(count)d insertion", "%(count)d insertions", "count", count="int"),
    "insertions_until_blast": _t("insertions until the blast"),
    "names_and": _t("%(names)s and %(last)s", names="raw", last="raw"),
    "direction:clockwise": _t("clockwise"),
    "direction:counterclockwise": _t("counterclockwise"),
    "color:red": _t("red"),
    "color:yellow": _t("yellow"),
    "color:green": _t("green"),
    "color:blue": _t("blue"),
    "color:orange": _t("orange"),
    "color:purple": _t("purple"),
    # What a classic round waits for before anything else (controller/rules/classic.py).
    "awaiting:play_or_pass": _t("play or pass"),
    "awaiting:challenge_or_accept": _t("challenge or accept"),
    "awaiting:challenge_result": _t("challenge result"),
    "awaiting:minions": _t("minions"),
    "ended:timeout": _t("timeout"),
    "ended:jam": _t("jam"),
    "ended:lid": _t("lid"),
    "ended:empty": _t("empty"),
    "ended:done": _t("done"),
    "ended:halt": _t("halt"),
    "ended:refused": _t("refused"),
    "ended:motor_limit": _t("motor_limit"),
    "ended:sleep": _t("sleep"),
    "ended:cancelled": _t("cancelled"),
    # The launcher's states, and why a press was ignored (a state, or one of these).
    **{f"state:{state}": _t(state) for state in (
        "ready", "launching", "jammed", "empty", "lid_open", "sleeping", "halted", "bench", "jogging",
        "beam_blocked", "firing", "starting", "decision_pending")},
    # How a press or an insertion came out, and which way the motor turns (launcherctl status).
    **{f"outcome:{outcome}": _t(outcome) for outcome in ("dry", "burst", "dispense", "draw", "empty", "safe", "blast")},
    "motor_direction:forward": _t("forward"),
    "motor_direction:reverse": _t("reverse"),
    **{
        f"card:{card}": _t(card)
        for card in (
            "reverse", "skip", "hit-1", "hit-2", "discard-all", "wild", "wild-attack",
            "trade-hands", "wild-all-hit", "wild-hit-fire", "draw-one", "discard-color",
            "wild-blast", "draw-two", "wild-draw-four", "wild-mega-minions",
        )
    },
}

# What the game layer says (controller/rules/game.py, table.py, scores.py, service.py).
_GAME: dict[str, Text] = {
    "round_deals": _t("round %(round)d of %(ruleset)s: %(dealer)s deals",
                      round="int", ruleset="name", dealer="name"),
    "first_reverse": _t("Reverse turned up: %(dealer)s (the dealer) starts, play goes %(direction)s",
                        dealer="name", direction="direction"),
    "first_skip": _t("Skip turned up: %(player)s is skipped", player="name"),
    "first_hit": _t("%(card)s turned up: %(player)s owes %(presses)s and misses the turn",
                    card="card", player="name", presses="presses"),
    "first_wild": _t("Wild turned up: %(player)s names the colour", player="name"),
    "first_discard_all": _t("Discard All turned up: %(player)s discards that colour or presses",
                            player="name"),
    "first_wild_attack": _t(
        "Wild Attack-Attack turned up: %(player)s names a colour and a player to attack", player="name"),
    "first_wild_all_hit": _t("Wild All Hit turned up: %(players)s press once each", players="list"),
    "first_wild_hit_fire": _t(
        "Wild Hit-Fire turned up: %(player)s presses until cards come out, loses the turn",
        player="name"),
    "direction_now": _t("play now goes %(direction)s", direction="direction"),
    "skipped": _t("%(player)s is skipped", player="name"),
    "owes": _t("%(player)s owes %(presses)s", player="name", presses="presses"),
    "owes_or_stack": _t("%(player)s owes %(presses)s or answers with a Hit card",
                        player="name", presses="presses"),
    "all_hit": _t("each other player presses once: %(players)s", players="list"),
    "hit_fire": _t("%(player)s presses until cards come out", player="name"),
    "swap_hands": _t("%(player)s and %(target)s swap hands", player="name", target="name"),
    "plays_again": _t("%(player)s plays again (two players)", player="name"),
    "mega_hit_passes": _t(
        "Mega Hit: %(hits)d hit passes to %(player)s, who presses or stacks a Hit card",
        "Mega Hit: %(hits)d hits pass to %(player)s, who presses or stacks a Hit card",
        "hits", hits="int", player="name"),
    "wins_round": _t("%(player)s plays the last card and wins round %(round)d",
                     player="name", round="int"),
    "last_card_attack": _t(
        "the attack still happens: %(player)s owes %(presses)s; those cards count in the score",
        player="name", presses="presses"),
    "plays": _t("%(player)s plays %(card)s", player="name", card="card"),
    "plays_color": _t("%(player)s plays %(card)s (%(color)s)", player="name", card="card",
                      color="color"),
    "plays_at": _t("%(player)s plays %(card)s at %(target)s", player="name", card="card",
                   target="name"),
    "plays_color_at": _t("%(player)s plays %(card)s (%(color)s) at %(target)s", player="name",
                         card="card", color="color", target="name"),
    "pressed_turn_over": _t("%(player)s pressed: %(cards)s, turn over", player="name", cards="cards"),
    "pressed_done": _t("%(player)s pressed: %(cards)s, done", player="name", cards="cards"),
    "pressed_still_owes": _t("%(player)s pressed: %(cards)s, still owes %(presses)s",
                             player="name", cards="cards", presses="presses"),
    "late_cards": _t("%(player)s also takes %(cards)s that came out late", player="name",
                     cards="cards"),
    "no_uno": _t("%(player)s did not call Uno: %(player)s owes %(presses)s", player="name",
                 presses="presses"),
    "gave_advice": _t("%(player)s gave advice: %(player)s owes %(presses)s", player="name",
                      presses="presses"),
    "calls_uno": _t("%(player)s calls Uno", player="name"),
    "names_color_target": _t("%(player)s names %(color)s and %(target)s", player="name",
                             color="color", target="name"),
    "pressed_still_names": _t(
        "%(player)s pressed: %(cards)s; %(player)s still names a colour and a player to attack",
        player="name", cards="cards"),
    # refusals of controller/rules/game.py that players meet while playing
    "no_player": _t("no player '%(name)s' at the table; players: %(players)s", name="name",
                    players="list"),
    "round_is_over": _t("round %(round)d is over (%(winner)s won); start a new round", round="int",
                        winner="name"),
    "not_your_move": _t("it is %(player)s's move, not %(by)s's", player="name", by="name"),
    "names_another_player": _t("%(card)s names another player, not %(player)s", card="card",
                               player="name"),
    "first_names_color_target": _t(
        "%(player)s first names the colour and target of the turned-up wild-attack", player="name"),
    "owes_first": _t("%(player)s owes %(presses)s first", player="name", presses="presses"),
    "owes_first_no_mega_hit": _t("%(player)s owes %(presses)s first; %(ruleset)s has no Mega Hit stacking",
                                 player="name", presses="presses", ruleset="name"),
    "only_hit_answers": _t("only a Hit card (%(cards)s) answers a Mega Hit; or %(player)s presses",
                           cards="card_list", player="name"),
    "cannot_end_on": _t("a round cannot end on %(card)s", card="card"),
    "pile_mismatch": _t(
        "a %(color)s %(card)s does not go on the %(pile_color)s %(pile_card)s: play a %(pile_color)s"
        " card, a %(pile_card)s or a wild, or press",
        color="color", card="card", pile_color="color", pile_card="card"),
    "pile_mismatch_wild": _t(
        "a %(color)s %(card)s does not go on the %(pile_color)s %(pile_card)s: play a %(pile_color)s"
        " card or a wild, or press",
        color="color", card="card", pile_color="color", pile_card="card"),
    "nobody_pressed": _t("nobody has pressed yet this round: the cards belong to no one"),
    "last_press_was": _t("the last press was %(player)s's, not %(by)s's", player="name", by="name"),
    "no_advice_penalty": _t("%(ruleset)s has no advice penalty (the 2005 and 2010 boxes only)",
                            ruleset="name"),
    "catch_only_after_play": _t(
        "%(player)s can be caught only after playing a card, before the next turn", player="name"),
    "called_uno": _t("%(player)s called Uno", player="name"),
    "no_first_attack_waiting": _t("no turned-up wild-attack waits for a colour and a target"),
    "unknown_colour": _t("unknown colour '%(color)s'; colours: %(colors)s", color="raw",
                         colors="color_list"),
    "unknown_colour_of": _t("unknown colour '%(color)s'; colours of %(ruleset)s: %(colors)s",
                            color="raw", ruleset="name", colors="color_list"),
    "minions_count": _t("minions: %(player)s's count is a whole number of 0 or more, not %(count)s",
                        player="name", count="raw"),
    "minions_twice": _t("minions: %(player)s is named twice", player="name"),
    "minions_missing": _t("minions: give the count of every other player; missing: %(players)s",
                          players="list"),
    "not_a_card": _t("'%(card)s' is not a card of %(ruleset)s; cards: %(cards)s", card="raw",
                     ruleset="name", cards="card_list"),
    "names_a_color": _t("%(card)s names a colour: give color, one of %(colors)s", card="card",
                        colors="color_list"),
    "names_a_target": _t("%(card)s names another player: give target", card="card"),
    "takes_no_target": _t("%(card)s takes no target; only %(cards)s", card="card", cards="card_list"),
    # controller/rules/rulesets.py: the table as a game is started
    "players_not_list": _t("players must be a list of names in seat order"),
    "players_count": _t("%(minimum)d to %(maximum)d players, not %(count)d", minimum="int",
                        maximum="int", count="int"),
    "player_name_bad": _t("a name is 1 to %(maximum)d characters, with no control characters, no '='"
                          " and no spaces around it: %(name)s", maximum="int", name="raw"),
    "players_same_name": _t("two players are named %(name)s (names ignore case)", name="raw"),
    "unknown_ruleset": _t("unknown ruleset %(ruleset)s; rulesets: %(rulesets)s", ruleset="raw",
                          rulesets="list"),
    "unknown_option": _t("unknown option %(option)s for %(ruleset)s; options: %(options)s",
                         option="raw", ruleset="name", options="list"),
    "unknown_option_none": _t("unknown option %(option)s for %(ruleset)s; options: none",
                              option="raw", ruleset="name"),
    "option_not_allowed": _t("option %(option)s=%(value)s is not allowed; choices: %(choices)s",
                             option="raw", value="raw", choices="list"),
    # several messages as one: "a; b", or one per line
    "joined": _t("%(messages)s", messages="messages"),
    "lines": _t("%(lines)s", lines="lines"),
    # controller/rules/classic.py and controller/rules/blast.py: the UNO flows
    "round_deals_each": _t("round %(round)d of %(ruleset)s: %(dealer)s deals %(hand)d to each seat",
                           round="int", ruleset="name", dealer="name", hand="int"),
    "first_ignored": _t("%(card)s turned up: ignored; turn up another card and say which it is",
                        card="card"),
    "first_ignored_dealer": _t("%(card)s turned up: ignored; deal another card from the launcher, then say which"
                                " it is",
                               card="card"),
    "pile_started": _t("the pile already shows %(card)s (%(color)s): turning up is only for the first"
                        " card, before anyone plays",
                       card="card", color="raw"),
    "pile_starts": _t("the pile starts with %(card)s (%(color)s)", card="card", color="color"),
    "not_a_move_of": _t("%(move)s is not a move of %(ruleset)s; its moves: %(moves)s",
                        move="raw", ruleset="name", moves="list"),
    "not_a_move_of_or_press": _t("%(move)s is not a move of %(ruleset)s; its moves: %(moves)s, and a press of the"
                                  " launch button",
                                 move="raw", ruleset="name", moves="list"),
    "needs_its_color": _t("%(card)s has a colour: give color, one of %(colors)s", card="card",
                          colors="color_list"),
    "catch_holds": _t("%(player)s holds %(cards)s: only a player left with one card can be caught",
                      player="name", cards="cards"),
    "holds_no_card": _t("%(player)s holds no card: nothing to play", player="name"),
    "last_from_one": _t("%(player)s holds %(cards)s: the last card is played from a hand of one; play it"
                         " as any other card",
                        player="name", cards="cards"),
    "minions_more_than_held": _t("%(player)s cannot discard %(count)d: %(player)s holds %(cards)s",
                                 player="name", count="int", cards="cards"),
    "skipped_plays_again": _t("%(player)s is skipped; %(again)s plays again", player="name",
                              again="name"),
    "pile_mismatch_uno": _t(
        "a %(color)s %(card)s does not go on the %(pile_color)s %(pile_card)s: play a %(pile_color)s"
        " card, a %(pile_card)s or a wild",
        color="color", card="card", pile_color="color", pile_card="card"),
    "no_uno_cards": _t("%(player)s did not call Uno: %(player)s owes %(cards)s", player="name",
                       cards="cards"),
    "no_uno_inserts": _t("%(player)s did not call Uno: %(player)s owes %(inserts)s", player="name",
                         inserts="inserts"),
    "is_dealt_first": _t("%(player)s is dealt %(cards)s first", player="name", cards="cards"),
    "settles_first": _t("%(player)s first settles the %(card)s: %(awaiting)s", player="name",
                        card="card", awaiting="awaiting"),
    "dealt_two_loses_turn": _t("%(player)s is dealt 2 and loses the turn", player="name"),
    "accept_or_challenge": _t("%(player)s: accept (dealt 4, turn lost) or challenge", player="name"),
    "minions_discard": _t("every other player discards Draw Two, Reverse and Skip cards; enter how"
                          " many each discarded"),
    "still_dealt": _t("%(player)s is still dealt %(cards)d; they count in the score", player="name",
                      cards="int"),
    "has_drawn": _t("%(player)s has drawn: play that card or pass", player="name"),
    "draw_is_one": _t("a draw is exactly 1 card, not %(cards)d: %(player)s is owed nothing",
                      cards="int", player="name"),
    "draws_one": _t("%(player)s draws 1 card: play it if it matches, or pass", player="name"),
    "owed_never_more": _t("%(player)s is owed %(owed)s, not %(cards)d: never more", player="name",
                          owed="cards", cards="int"),
    "dealt_done": _t("%(player)s is dealt %(cards)s, done", player="name", cards="cards"),
    "dealt_to_come": _t("%(player)s is dealt %(cards)s, %(left)d to come", player="name",
                        cards="cards", left="int"),
    "pass_after_draw": _t("pass only after drawing a card; a player who will not play draws first"),
    "keeps_card": _t("%(player)s keeps the card; turn over", player="name"),
    "no_challenge_now": _t("no wild-draw-four to challenge now"),
    "no_accept_now": _t("no wild-draw-four to accept now"),
    "challenges": _t("%(player)s challenges: %(challenged)s shows the hand; give the result, legal"
                     " or illegal", player="name", challenged="name"),
    "accepts": _t("%(player)s accepts: dealt 4, turn lost", player="name"),
    "no_challenge_waiting": _t("no challenge waits for its result"),
    "challenge_legal": _t("the Wild Draw Four was legal: %(player)s is dealt 6 and loses the turn",
                          player="name"),
    "challenge_illegal": _t("the Wild Draw Four was illegal: %(player)s is dealt 4; %(challenger)s"
                            " plays", player="name", challenger="name"),
    "no_minions_waiting": _t("no Wild Mega Minions Power waits for its counts"),
    "discards_nothing": _t("%(player)s played the card and discards nothing", player="name"),
    "is_dealt_n": _t("%(player)s is dealt %(cards)d", player="name", cards="int"),
    "owes_inserts": _t("%(player)s owes %(inserts)s", player="name", inserts="inserts"),
    "owes_inserts_then": _t("%(player)s owes %(inserts)s; then %(again)s plays again", player="name",
                            inserts="inserts", again="name"),
    "owes_inserts_first": _t("%(player)s owes %(inserts)s first; nothing answers it", player="name",
                             inserts="inserts"),
    "blast_turn_over": _t("the blast: %(player)s takes %(cards)s; turn over", player="name",
                          cards="cards"),
    "blast_done": _t("the blast: %(player)s takes %(cards)s, done", player="name", cards="cards"),
    "blast_still_owes": _t("the blast: %(player)s takes %(cards)s, still owes %(inserts)s",
                           player="name", cards="cards", inserts="inserts"),
    "safe_turn_over": _t("%(player)s is safe; turn over", player="name"),
    "safe_done": _t("%(player)s is safe, done", player="name"),
    "safe_still_owes": _t("%(player)s is safe, still owes %(inserts)s", player="name",
                          inserts="inserts"),
    # controller/match/table.py
    "round_scores": _t("round %(round)d: %(winner)s scores %(points)d (%(total)d in all)",
                       round="int", winner="name", points="int", total="int"),
    "round_points": _t("round %(round)d: %(points)s", round="int", points="items"),
    "player_points": _t("%(player)s %(points)d (%(total)d)", player="name", points="int",
                        total="int"),
    "leave_table": _t("%(players)s reached the target and leaves the table",
                      "%(players)s reached the target and leave the table", "players",
                      players="list"),
    "match_winner": _t("%(winners)s wins the match", "%(winners)s win the match", "winners",
                       winners="names"),
    "round_corrected": _t("round %(round)d corrected", round="int"),
    "match_goes_on": _t("the match goes on: round %(round)d", round="int"),
    "round_dealt_again": _t("round %(round)d is dealt again", round="int"),
    "match_is_over": _t("the match is over (%(winners)s won): start a new game", winners="names"),
    "last_card_was": _t(
        "%(winner)s played the last card of round %(round)d, not %(player)s; undo that play first"
        " to change it", winner="name", round="int", player="name"),
    "draw_still_owed": _t(
        "%(player)s is still to be dealt %(cards)s of the last Draw card: those cards count in the"
        " score, deal them first", player="name", cards="cards"),
    "deal_still_owed": _t("the round cannot end while the launcher deals: %(player)s is still owed %(cards)d"
                           " card. End it once it is dealt (where the launcher waits, a press of the button"
                           " goes on), or undo what owes it",
                          "the round cannot end while the launcher deals: %(player)s is still owed %(cards)d"
                           " cards. End it once they are dealt (where the launcher waits, a press of the"
                           " button goes on), or undo what owes them",
                          "cards",
                          player="name", cards="int"),
    "attack_still_owed": _t(
        "%(player)s still owes %(presses)s of the last-card attack: those cards count in the score,"
        " press them first", player="name", presses="presses"),
    # controller/match/scores.py
    "last_attack_reminder": _t(
        "Round %(round)d ended on a last-card attack: the cards it ejected count in the victim's"
        " hand; check they were included, edit the round if not.", round="int"),
    "ejected_cards": _t("%(player)s: %(cards)s ejected (launcher count)", player="name",
                        cards="cards"),
    "ejected_cards_short": _t(
        "%(player)s: %(cards)s ejected (launcher count); the hand entered lists only %(listed)s",
        player="name", cards="cards", listed="cards"),
    "rule_note": _t("round %(round)d: %(note)s", round="int", note="messages"),
    "reached_same_round": _t("%(players)s reached %(target)d in the same round: the fewest points win",
                             players="names", target="int"),
    "tie_fewest": _t("%(players)s tie for the fewest points (%(points)d): a shared win",
                     players="names", points="int"),
    "only_room_leave": _t(
        "%(players)s reached %(target)d, only %(room)d may leave (two stay): most points leave first",
        "%(players)s reached %(target)d, only %(room)d may leave (two stay): most points leave first",
        "room", players="names", target="int", room="int"),
    "tie_stay": _t("%(players)s tie with %(points)d and all stay", players="names", points="int"),
    "match_over_edit": _t("the match is over (%(winners)s won); edit a round to correct it",
                          winners="names"),
    "hand_points_whole": _t("points must be a whole number, not %(points)s: enter a total of 0 or more"
                            " (digits 0-9), or the cards, e.g. 7,hit-2,wild", points="raw"),
    "hand_points_negative": _t("points cannot be negative (%(points)d): enter a total of 0 or more, or"
                               " the cards, e.g. 7,hit-2,wild", points="int"),
    "empty_hand": _t("empty hand: enter a total (0 for none) or cards, e.g. 7,hit-2,wild"),
    "hand_card_missing": _t("a card is missing between two commas in '%(hand)s': name each card once,"
                            " separated by commas, e.g. 7,hit-2,wild", hand="raw"),
    "hand_card_not_a_name": _t("%(card)s is not a card's name: name the cards as text, e.g."
                               " [\"7\", \"hit-2\", \"wild\"], or enter a total", card="raw"),
    "not_a_card_in_hand": _t("'%(card)s' is not a card of %(ruleset)s; its cards are: %(cards)s",
                             card="raw", ruleset="name", cards="card_list"),
    "hand_of": _t("%(player)s's hand: %(reason)s", player="name", reason="text"),
    "no_player_in_match": _t("no player '%(name)s'; players: %(players)s", name="name", players="list"),
    "winner_not_seated": _t("%(player)s is no longer seated; seated: %(seated)s", player="name",
                            seated="list"),
    "hand_not_seated": _t("%(player)s is no longer seated: no hand; seated: %(seated)s", player="name",
                          seated="list"),
    "missing_hands": _t("missing hand of %(players)s", players="names"),
    "winner_hand_empty": _t("%(player)s won the round: their hand is empty (0), not %(points)d",
                            player="name", points="int"),
    "elimination_three": _t("elimination needs 3 players or more: with 2 the first hand is the duel"),
    "no_next_round": _t("the match is over: there is no next round to turn a card up for"),
    "round_already_ended": _t("round %(round)d has already ended; the round in play is %(current)d",
                              round="int", current="int"),
    "round_not_started": _t("round %(round)d has not started; the round in play is %(current)d",
                            round="int", current="int"),
    "no_round": _t("no round %(round)d; rounds ended: %(ended)d", round="int", ended="int"),
    "correction_ends_match": _t(
        "with this correction round %(round)d ends the match, but round %(later)d was played after it",
        round="int", later="int"),
    "correction_changes_round": _t("this correction changes who played round %(round)d: %(reason)s",
                                   round="int", reason="text"),
    # controller/text/advice.py, controller/layer/service.py
    "dealing_advice_blast": _t(
        "deal %(hand)d cards each by hand (%(dealt)d) and turn one up: the other %(rest)d are the draw"
        " pile, from which each insertion is taken", hand="int", dealt="int", rest="int"),
    "dealing_advice_dealer": _t("the launcher deals %(hand)d to each seat (%(dealt)d) from the whole shuffled deck"
                                 " of %(deck)d (load it and reload the hopper: %(deck)d cards; a deal waits for"
                                 " cards); after the deal the launcher turns up the first card: say which it is (an"
                                 " action card is ignored: turn up another)",
                                hand="int", dealt="int", deck="int"),
    "nothing_to_undo": _t("nothing to undo: the match has only just started (a new game starts another)"),
    "dealing_advice": _t("deal %(hand)d cards each by hand (%(dealt)d), turn one up, load the other"
                          " %(rest)d into the launcher and reload the hopper: %(rest)d cards",
                         hand="int", dealt="int", rest="int"),
    "dealing_advice_any_deck": _t("deal %(hand)d cards each by hand (%(dealt)d), turn one up, load the rest into the"
                                   " launcher and reload the hopper with how many they are",
                                  hand="int", dealt="int"),
    "undone_cards": _t("undone: %(action)s. That card did come out of the launcher and %(player)s holds"
                        " it: it is no longer counted for %(player)s, who puts it back on the draw pile"
                        " (the launcher's hopper); then reload the hopper with how many it holds",
                       "undone: %(action)s. Those %(cards)d cards did come out of the launcher and"
                        " %(player)s holds them: they are no longer counted for %(player)s, who puts them"
                        " back on the draw pile (the launcher's hopper); then reload the hopper with how"
                        " many it holds",
                       "cards",
                       action="text", cards="int", player="name"),
    "still_running": _t("match %(match)d (%(players)s, round %(round)d) is still being played: finish it,"
                         " start a new game anyway (match %(match)d stays in the history, from where it can"
                         " be resumed), or set it aside",
                        match="int", players="list", round="int"),
    "set_aside": _t("match %(match)d is set aside: resume it from the history to bring it back",
                    match="int"),
    "no_game": _t("no game yet (the game log is %(path)s): start a new game",
                  path="text"),
    "nothing_to_repair": _t("the game log %(path)s is sound: nothing to repair", path="text"),
    "log_moved_aside": _t("the game log was moved aside to %(path)s; a fresh one is started",
                          path="text"),
    "log_writable_again": _t("the game log can be written again"),
    "match_id_goes_on": _t("match %(match)d goes on", match="int"),
    "log_written_back": _t(
        "the game log is written back to %(path)s, every acknowledged action included", path="text"),
    "found_moved_aside": _t("the file found there was moved aside to %(path)s", path="text"),
    "already_current": _t("match %(match)d is already the table's", match="int"),
    "cannot_replay": _t("match %(match)d cannot be replayed (%(reason)s)", match="int", reason="text"),
    "resumed": _t("match %(match)d resumed", match="int"),
    "no_match": _t("no match %(match)d", match="int"),
    "no_match_stats": _t("no match %(match)d with statistics; see the history of matches",
                         match="int"),
    "log_not_open": _t("the game log %(path)s is not open: see the game's status",
                       path="text"),
    "log_unreadable": _t("the game log cannot be read (%(reason)s): see the game's status",
                         reason="text"),
    # controller/log/damage.py: what happened to the game log, and what to do
    "damage": _t("%(what)s: %(todo)s", what="text", todo="text"),
    "log_damaged": _t("the game log %(path)s is damaged (%(reason)s)", path="text", reason="text"),
    "log_damaged_todo": _t("repair the game log: it is moved aside (nothing is deleted) and a fresh log is"
                            " started; the launcher works meanwhile"),
    "match_unreplayable": _t("match %(match)d in %(path)s cannot be replayed (%(reason)s)",
                             match="int", path="text", reason="text"),
    "match_unreplayable_todo": _t("the match's log shows its actions; a new game starts another match in the same"
                                   " log, or repairing the game log moves the whole log aside"),
    "log_unwritable": _t("the game log %(path)s cannot be written since %(since)s (%(reason)s): actions"
                         " are refused and presses are not recorded", path="text", since="text",
                         reason="text"),
    "log_unwritable_todo": _t("free space on the disk of %(dir)s; the next action writes the log again",
                              dir="text"),
    "log_read_only": _t("the game log %(path)s cannot be written (%(reason)s)", path="text",
                        reason="text"),
    "log_read_only_todo": _t("the log itself is not the problem, do not move it: let the user launcherd runs as"
                              " (%(user)s) write %(dir)s and the files in it, then repair the game log",
                             user="text", dir="text"),
    "log_gone": _t(
        "the game log %(path)s was deleted or replaced while launcherd was running; nothing more is"
        " written there", path="text"),
    "log_gone_todo": _t("repair the game log: launcherd writes back the log it still holds, with every"
                         " action it acknowledged"),
    # controller/layer/cli.py: the status line
    "cli_at_a_terminal": _t("%(said)s (at a terminal: %(command)s)", said="text", command="raw"),
    "status_match_over": _t("Match over - %(winners)s wins", "Match over - %(winners)s win", "winners",
                            winners="names"),
    "status_owes": _t("%(player)s's move - owes %(presses)s%(details)s", player="name",
                      presses="presses", details="parts"),
    "status_or_stacks": _t(" or stacks a Hit card"),
    "status_stops_early": _t(" (stops when cards come out)"),
    "status_uno_penalty": _t(" - Uno penalty"),
    "status_advice_penalty": _t(" - advice penalty"),
    "status_last_card_attack": _t(" - last-card attack, the cards count in the score"),
    "status_round_won": _t("Round %(round)d won by %(winner)s - enter the hands: game end-round",
                           round="int", winner="name"),
    "status_first_attack": _t(
        "%(player)s's move - name a colour and a player to attack: game first-attack", player="name"),
    "status_play_or_press": _t("%(player)s's move - play a card or press", player="name"),
    # the game status and scores tables
    "status_head": _t("%(ruleset)s - round %(round)d - dealer %(dealer)s", ruleset="name", round="int",
                      dealer="name"),
    "status_on_card": _t("on %(color)s %(card)s", color="color", card="card"),
    "status_on_color": _t("on %(color)s", color="color"),
    "status_on_top": _t("on %(card)s", card="card"),
    "status_catchable": _t("%(player)s can be caught without Uno", player="name"),
    "status_out": _t("(out)"),
    "status_scoring": _t("scoring %(scoring)s to %(target)d", scoring="name", target="int"),
    "status_match_log": _t("match %(match)s, game log in %(dir)s", match="raw", dir="raw"),
    "label_player": _t("player"),
    "label_cards_taken": _t("cards taken"),
    "label_presses": _t("presses"),
    "label_score": _t("score"),
    "label_round": _t("round"),
    "label_winner": _t("winner"),
    "label_total": _t("total"),
    "scores_head": _t("%(scoring)s scoring, target %(target)d", scoring="name", target="int"),
    "scores_out": _t("out: %(players)s", players="list"),
    "scores_winner": _t("winner: %(winners)s", winners="names"),
    "scores_next": _t("next: round %(round)d, dealer %(dealer)s", round="int", dealer="name"),
    "status_owes_inserts": _t("%(player)s's move - inserts %(cards)s in the blaster%(details)s",
                              player="name", cards="cards", details="parts"),
    "status_inserts_until": _t("%(player)s's move - inserts until the blast in the blaster%(details)s",
                               player="name", details="parts"),
    "status_dealt": _t("%(player)s is dealt %(cards)s by the launcher (%(reason)s)", player="name",
                       cards="cards", reason="raw"),
    "status_play_or_draw": _t("%(turn)s's move - play the card drawn if it matches (game play) or keep"
                              " it: game pass", turn="name"),
    "status_challenge_or_accept": _t(
        "%(turn)s's move - game accept (dealt 4, turn lost) or game challenge", turn="name"),
    "status_challenge_result": _t(
        "%(turn)s's move - the challenged hand is shown: game challenge-result legal|illegal",
        turn="name"),
    "status_minions": _t(
        "%(turn)s's move - how many cards each other player discarded: game minions NAME=N ...",
        turn="name"),
    "status_play_or_insert": _t("%(player)s's move - play a card or insert one in the blaster",
                                player="name"),
    "status_play_or_draw_one": _t("%(player)s's move - play a card or draw one (press, or game draw)",
                                  player="name"),
    # controller/layer/service.py
    "undone": _t("undone: %(action)s", action="text"),
    "hopper_unknown": _t("the launcher does not know how many cards it holds: after loading it, reload the"
                          " hopper with how many they are"),
    "hopper_empty": _t("the launcher is empty: shuffle the discard pile (all but its top card) into the"
                        " hopper, then reload the hopper with how many cards it holds"),
    "hopper_low": _t("about %(hopper)d card left in the launcher: shuffle the discard pile (all but its"
                      " top card) into the hopper, then reload the hopper with how many cards it holds",
                     "about %(hopper)d cards left in the launcher: shuffle the discard pile (all but"
                      " its top card) into the hopper, then reload the hopper with how many cards it"
                      " holds",
                     "hopper",
                     hopper="int"),
    "hopper_holds": _t("the launcher holds about %(hopper)d card",
                       "the launcher holds about %(hopper)d cards", "hopper", hopper="int"),
    "press_empty_not_counted": _t(
        "press %(press_id)d gave nothing: the launcher is empty and the press does not count;"
        " reload it and press again", press_id="int"),
    "press_not_counted": _t("press %(press_id)d (%(cards)s) is not counted in the game: %(reason)s",
                            press_id="int", cards="cards", reason="text"),
    "late_card_not_counted": _t("a card that came out late is not counted: %(reason)s", reason="text"),
    "insert_not_counted": _t(
        "insertion %(insert_id)d (%(cards)s blasted) is not counted in the game: %(reason)s",
        insert_id="int", cards="cards", reason="text"),
    "deal_waits": _t("dealing to %(player)s waits: %(reason)s; it goes on by itself", player="name",
                     reason="text"),
    "deal_short": _t("%(player)s was dealt %(cards)d of %(count)d card (%(ended)s); the rest comes once"
                      " the launcher is ready (pull out a stuck card, or reload the hopper)",
                     "%(player)s was dealt %(cards)d of %(count)d cards (%(ended)s); the rest comes"
                      " once the launcher is ready (pull out a stuck card, or reload the hopper)",
                     "count",
                     player="name", cards="int", count="int", ended="text"),
    "dealt_too_many": _t("%(cards)d cards came out for %(player)s, who was owed %(count)d: %(extra)d go"
                          " back in the hopper (then reload the hopper with how many it holds)",
                         cards="int", player="name", count="int", extra="int"),
    "deal_pause_press": _t("hand the pile over, then press the button to deal to %(player)s",
                           player="name"),
    "dealt_after_stop": _t("%(cards)d card came out after the deal was stopped and is not counted: put it"
                            " back in the hopper, then reload the hopper with how many it holds",
                           "%(cards)d cards came out after the deal was stopped and are not counted: put them"
                            " back in the hopper, then reload the hopper with how many it holds",
                           "cards",
                           cards="int"),
    "deal_not_counted": _t(
        "%(cards)s dealt to %(player)s are not counted in the game, and dealing stops: %(reason)s",
        cards="cards", player="name", reason="text"),
    "draw_failed": _t("%(player)s draws no card: %(reason)s; reload if the launcher is empty, then draw"
                      " again", player="name", reason="text"),
    "no_card_came_out": _t("no card came out (%(ended)s)", ended="text"),
    "no_draw": _t("%(ruleset)s is not played with the launcher as dealer: press the button instead",
                  ruleset="name"),
    "draw_pile_now": _t("the draw pile now holds %(rest)d cards (%(turned)d turned up to start the pile)",
                        rest="int", turned="int"),
    "tell_turned_up": _t("a card was dealt to start the pile: say which it is"),
    "press_while_dealing": _t("the launcher is already dealing, %(player)s: this press deals nothing more (a"
                               " draw is one card; then play it or pass)",
                              player="name"),
    "no_draw_blast": _t("blast has no draw: a player who cannot or will not play takes the top card of the"
                        " draw pile and inserts it in the blaster, and the turn is over"),
    "blaster_counts_inserts": _t("the blaster is fitted and counts every insertion itself: put the card in an empty"
                                  " slot; an insertion is told by hand only at a table without a blaster"),
    "busy_dealing": _t("the launcher is dealing: draw once the cards owed are dealt"),
    "deal_held": _t("%(player)s is owed %(cards)d card again: nothing is dealt after an undo. Undo"
                     " again to take back what caused it; a press of the button deals it",
                    "%(player)s is owed %(cards)d cards again: nothing is dealt after an undo. Undo"
                     " again to take back what caused them; a press of the button deals them",
                    "cards",
                    player="name", cards="int"),
    # Where play goes after a stacked Mega Hit is pressed out (rules option "resume").
    "resumes_with_first_attacker": _t("play resumes with %(player)s, who started the Mega Hit", player="name"),
    "resumes_after_first_attacker": _t("play resumes with %(player)s, after %(attacker)s who started the Mega Hit",
                                       player="name", attacker="name"),
    # What now: who moves and what they may do (game/status what_now), every ruleset (#24).
    "what_now_match_over": _t("%(winners)s won the match: start a new game", winners="names"),
    "what_now_round_over": _t("%(winner)s won round %(round)d: enter everyone's hands to score it",
                              winner="name", round="int"),
    "what_now_play_or_press": _t("%(player)s: play a card, or press the button", player="name"),
    "what_now_first_attack": _t("%(player)s: name a colour and a player to attack", player="name"),
    "what_now_press": _t("%(player)s: press the button, %(presses)s", player="name", presses="presses"),
    "what_now_press_or_stack": _t("%(player)s: press the button, %(presses)s, or answer with a Hit card",
                                  player="name", presses="presses"),
    "what_now_press_until_cards": _t("%(player)s: press the button until cards come out", player="name"),
    "what_now_penalty": _t("%(player)s: press the button, %(presses)s, for the penalty", player="name",
                           presses="presses"),
    "what_now_dealt": _t("the launcher deals %(cards)s to %(player)s first", player="name", cards="cards"),
    "what_now_turn_up_dealer": _t("%(player)s starts once the first card is turned up: the launcher deals it,"
                                  " then say which card it is", player="name"),
    "what_now_turn_up": _t("%(player)s starts once the first card is turned up: say which card it is",
                           player="name"),
    "what_now_play_or_draw": _t("%(player)s: play a card, or press to draw one", player="name"),
    "what_now_drawn": _t("%(player)s: play the card just drawn, or pass", player="name"),
    "what_now_challenge": _t("%(player)s: accept %(cards)s, or challenge %(challenged)s", player="name",
                             cards="cards", challenged="name"),
    "what_now_challenge_result": _t(
        "%(challenged)s shows their hand to %(player)s: was the Wild Draw Four legal (%(player)s is dealt 6)"
        " or not (%(challenged)s is dealt 4)?", player="name", challenged="name"),
    "what_now_minions": _t("Wild Mega Minions Power: say how many cards were discarded by %(players)s",
                           players="names"),
    "what_now_play_or_insert": _t("%(player)s: play a card, or insert one in the blaster", player="name"),
    "what_now_insert": _t("%(player)s: insert in the blaster, %(inserts)s", player="name", inserts="inserts"),
    "what_now_insert_until_blast": _t("%(player)s: insert cards in the blaster until it fires", player="name"),
    "press_settles_first": _t("a press draws no card now: %(what)s", what="messages"),
}

# What the launcher says (firmware/launcher/core.py, firmware/tools/cli.py).
_LAUNCHER: dict[str, Text] = {
    "no_card_hopper_empty": _t("no card came out: the hopper is empty, reload it"),
    "halted_beam_sees_no_cards": _t(
        "the exit sensor sees no cards: %(runs)d motor run counted none with cards in the hopper;"
        " check the break-beam's wiring, then reset",
        "the exit sensor sees no cards: %(runs)d motor runs in a row counted none with cards in the"
        " hopper; check the break-beam's wiring, then reset", "runs", runs="int"),
    "stalled": _t("the daemon was stalled for %(seconds)s s; motor stopped", seconds="seconds"),
    "motor_needs_rest": _t("the motor needs %(seconds)s s of rest", seconds="seconds"),
    "motor_duty_window": _t("the motor may run %(share)s of any %(window)s s; wait %(seconds)s s",
                            share="percent", window="seconds", seconds="seconds"),
    "refused_count": _t("count must be a whole number of at least 1"),
    "refused_press_means": _t("a press means policy, cards (with their count) or nothing (with a message saying why)"),
    "press_game_starting": _t("the game is starting: a press does nothing until it says what a press means"),
    "refused_cards": _t("cards must be a whole number of at least 0"),
    "refused_cards_or_unknown": _t("cards must be a whole number of at least 0, or None (unknown)"),
    "refused_duty": _t("duty must be a number from %(minimum)s to 1", minimum="number"),
    "refused_direction": _t("direction must be forward or reverse"),
    "refused_ms": _t("ms must be a whole number of at least 1"),
    "refused_seconds": _t("seconds must be a number from 0 to 3600"),
    "refused_sleep": _t("sleep only from ready or empty"),
    "refused_not_sleeping": _t("not sleeping"),
    "refused_not_halted": _t("not halted"),
    "refused_nothing_pending": _t("nothing waits for a press"),
    "refused_resume_state": _t("the launcher cannot go on yet: clear the jam, close the lid or reset it first"),
    "refused_retract": _t("a reverse pulse needs the launcher ready and the motor still"),
    "refused_no_retract": _t("[motor] retract_ms is 0"),
    "refused_jog_state": _t("a jog needs the launcher ready (or empty) and the motor still"),
    "refused_beam_blocked": _t("the beam is blocked: clear the slot first"),
    "refused_no_standby": _t("no standby pin is fitted ([pins] motor_enable = false)"),
    "refused_jog_too_long": _t("longer than [timing] max_on_ms (%(ms)d)", ms="int"),
    "refused_in_state": _t("%(reason)s (state %(state)s)", reason="text", state="state"),
    "refused_unknown_event": _t("unknown event"),
    # firmware/blaster/core.py
    "refused_sleep_blaster": _t("sleep only from ready"),
    "refused_slot_number": _t("slots are numbered 1 to %(slots)d", slots="int"),
    "refused_slot_levels": _t("%(slots)d slot levels expected, not %(levels)d", slots="int",
                              levels="int"),
    # firmware/daemon/driver.py, firmware/daemon/methods.py
    "halted_internal_error": _t("internal error: %(error)s", error="raw"),
    "halted_device_error": _t("device error: %(error)s", error="raw"),
    "halted_after_crash": _t("launcherd ended while the motor may have been running: check the launcher,"
                             " then reset"),
    "halted_latch_damaged": _t("the latch file in the state dir was damaged, so the last faults are unknown:"
                               " check the launcher, then reset"),
    "no_outcome": _t("no outcome from the launcher in time"),
    # firmware/daemon/gamehost.py: the game layer's own thread, as the launcher sees it
    "game_layer_starting": _t("the game layer is starting"),
    "game_layer_hung": _t("the game layer stopped answering for %(seconds)s s: it is being restarted;"
                          " the launcher works meanwhile", seconds="seconds"),
    "game_layer_died": _t("the game layer stopped (%(error)s): it is being restarted; the launcher"
                          " works meanwhile", error="raw"),
    "game_layer_failed": _t("the game layer could not start (%(error)s): it is tried again; the"
                            " launcher works meanwhile", error="raw"),
    "game_layer_stopping": _t("launcherd is stopping: the game layer no longer answers"),
    "game_layer_abandoned": _t("this game layer was replaced after it stopped answering: it may no"
                               " longer write"),
    "press_needs_sim": _t("launcher/press drives the simulated button; on a Pi press the real one or"
                          " use launcher/launch"),
    "blaster_no_aim": _t("the card blaster has no aim servo"),
    "no_aim_servo": _t("no aim servo is configured ([pins] servo)"),
    "aim_needs_angle_or_seat": _t("launcher/aim needs angle, or seat < seats"),
    # firmware/extras/dealer.py: what a dispense waits for, and why it ended
    "dispense_waiting_jam": _t("a card is stuck in the slot: pull it out"),
    "dispense_waiting_lid": _t("the lid is open"),
    "dispense_waiting_empty": _t("the hopper is empty: reload it"),
    "dispense_waiting_busy": _t("the launcher is busy"),
    "dispense_busy_because": _t("the launcher is busy (%(reason)s)", reason="state"),
    "dispense_cancelled": _t("cancelled: what it was dealing for is over"),
    "dispense_waiting_press": _t(
        "%(after)s: press the button to go on (%(count)d card left to deal)",
        "%(after)s: press the button to go on (%(count)d cards left to deal)", "count",
        after="text", count="int"),
    "after_jam": _t("the jam is cleared"),
    "after_lid": _t("the lid is closed"),
    "after_reload": _t("the hopper is reloaded"),
    "after_rest": _t("the motor has rested"),
    "after_restart": _t("the launcher has restarted"),
    "after_reset": _t("the launcher was reset"),
    "after_beam": _t("the slot is clear"),
    "dispense_no_card_timeout": _t("no card came out before the launch timeout"),
    "dispense_misfeed_retry": _t("misfeed: retry %(retry)d of %(retries)d", retry="int", retries="int"),
    "dispense_reload": _t("no card came out: reload the hopper"),
    "dispense_misfeeds": _t("no card came out %(times)d times in a row: check the hopper, reload",
                            times="int"),
    "dispense_halted": _t("the launcher halted: %(reason)s", reason="text"),
    "dispense_launcher_halted": _t("the launcher halted"),
    "dispense_is_halted": _t("the launcher is halted"),
    "daemon_stopping": _t("launcherd is stopping"),
    # firmware/extras/bringup.py
    "still_starting": _t("launcherd is still starting"),
    "no_answer_in_time": _t("no answer from the launcher in time"),
    "not_fitted": _t("no %(name)s is fitted ([pins] %(name)s = false)", name="raw"),
    "no_aim_servo_fitted": _t("no aim servo is fitted ([pins] servo = false)"),
    "calibration_not_started": _t("calibration feed not started: %(reason)s", reason="text"),
    "press_woke": _t("the launcher was asleep: that press woke it (press again to launch)"),
    "press_resumed": _t("that press let what was waiting go on (no cards of its own)"),
    "press_ignored": _t("press ignored: %(reason)s", reason="state"),
    "press_dry": _t("press %(press_id)d: nothing came out", press_id="int"),
    "press_empty": _t("press %(press_id)d: the hopper is empty: reload it (launcherctl reload N)",
                      press_id="int"),
    "press_out": _t("press %(press_id)d: %(cards)d card out", "press %(press_id)d: %(cards)d cards out",
                    "cards", press_id="int", cards="int"),
    "press_out_asked": _t(
        "press %(press_id)d: %(cards)d card out (asked for %(requested)d)",
        "press %(press_id)d: %(cards)d cards out (asked for %(requested)d)",
        "cards", press_id="int", cards="int", requested="int"),
    "press_out_ended": _t(
        "press %(press_id)d: %(cards)d card out; ended by %(ended)s",
        "press %(press_id)d: %(cards)d cards out; ended by %(ended)s",
        "cards", press_id="int", cards="int", ended="ended"),
    "press_out_asked_ended": _t(
        "press %(press_id)d: %(cards)d card out (asked for %(requested)d); ended by %(ended)s",
        "press %(press_id)d: %(cards)d cards out (asked for %(requested)d); ended by %(ended)s",
        "cards", press_id="int", cards="int", requested="int", ended="ended"),
    "aimed": _t("aimed at %(angle)d degrees", angle="int"),
    "not_running": _t(
        "launcherd is not running (no answer on %(path)s).\n  Start the simulator with"
        " `launcherd --sim` (or `make demo`), or on a Pi: `sudo systemctl start launcherd`.",
        path="text"),
    "permission_denied": _t(
        "permission denied on %(path)s: add yourself to the card-launcher group"
        " (sudo usermod -aG card-launcher $USER, then log in again).", path="text"),
    "lost_connection": _t("lost the connection to launcherd: %(reason)s", reason="text"),
    # launcherctl status: one line each, the label padded to the values' column
    "status_state": _t("state      %(state)s", state="state"),
    "status_state_reason": _t("state      %(state)s (%(reason)s)", state="state", reason="text"),
    "status_profile": _t("profile    %(profile)s", profile="raw"),
    "status_presses": _t("presses    %(presses)d   dry streak %(streak)d", presses="int", streak="int"),
    "status_ejected": _t("ejected    %(cards)d card   hopper %(hopper)d",
                         "ejected    %(cards)d cards   hopper %(hopper)d", "cards", cards="int", hopper="int"),
    "status_ejected_unknown": _t("ejected    %(cards)d card   hopper unknown",
                                 "ejected    %(cards)d cards   hopper unknown", "cards", cards="int"),
    "status_last_press": _t("last       press %(press_id)d: %(outcome)s, %(cards)d card",
                            "last       press %(press_id)d: %(outcome)s, %(cards)d cards", "cards",
                            press_id="int", outcome="outcome", cards="int"),
    "status_last_none": _t("last       -"),
    "status_motor_on": _t("motor      %(direction)s at %(duty)d%%", direction="motor_direction", duty="int"),
    "status_motor_off": _t("motor      off"),
    "status_aim": _t("aim        %(angle)d degrees", angle="int"),
    "status_sim": _t("sim        hopper %(hopper)d, cards out %(out)d", hopper="int", out="int"),
    "status_sim_stuck": _t("sim        hopper %(hopper)d, cards out %(out)d, a card is stuck", hopper="int",
                           out="int"),
    "status_pending": _t("waiting    %(what)s", what="text"),
    "status_reset_how": _t("reset      hold the launch button %(seconds)s s, or launcherctl reset", seconds="seconds"),
    # the blaster's status: each slot's part begins with the space between two slots
    "status_slots": _t("slots     %(slots)s", slots="parts"),
    "status_slot_full": _t(" %(slot)d:full", slot="int"),
    "status_slot_empty": _t(" %(slot)d:empty", slot="int"),
    "status_inserts": _t("inserts    %(inserts)d   ejected %(cards)d card",
                         "inserts    %(inserts)d   ejected %(cards)d cards", "cards", inserts="int", cards="int"),
    "status_last_insert": _t("last       insert %(insert_id)d, slot %(slot)d: %(outcome)s", insert_id="int",
                             slot="int", outcome="outcome"),
    "status_last_blast": _t("last       insert %(insert_id)d, slot %(slot)d: blast, %(cards)d card",
                            "last       insert %(insert_id)d, slot %(slot)d: blast, %(cards)d cards", "cards",
                            insert_id="int", slot="int", cards="int"),
    "status_sim_stuck_slot": _t("sim        a card is stuck in slot %(slot)d", slot="int"),
    # launcherctl insert
    "insert_not_judged": _t("card in slot %(slot)d, not judged: the blaster is %(reason)s", slot="int",
                            reason="state"),
    "insert_outcome": _t("insert %(insert_id)d, slot %(slot)d: %(outcome)s", insert_id="int", slot="int",
                         outcome="outcome"),
    "insert_blast": _t("insert %(insert_id)d, slot %(slot)d: blast: every loaded card is shot out",
                       insert_id="int", slot="int"),
    "retry_after": _t("the launcher will take it in %(seconds)s s: try again then", seconds="number"),
    "dispense_progress": _t("%(reason)s (%(cards)d of %(count)d out)", reason="text", cards="int",
                            count="int"),
    "not_answering": _t("launcherd on %(path)s accepted the connection but did not answer in time",
                        path="text"),
}

# The bring-up dialogues of launcherctl (firmware/tools/bringup_cli.py): selftest, jog and inputs.
_BRINGUP: dict[str, Text] = {
    "selftest_title_led": _t("button LED"),
    "selftest_title_chime": _t("chime"),
    "selftest_title_motor": _t("motor %(direction)s", direction="motor_direction"),
    "selftest_title_standby": _t("driver standby"),
    "selftest_title_beam": _t("break-beam"),
    "selftest_title_button": _t("button"),
    "selftest_title_lid": _t("lid switch"),
    "selftest_title_servo": _t("aim servo"),
    "selftest_say_led": _t("LED: it flashes 4 times, then shows the launcher's state again."),
    "selftest_say_chime": _t("Chime: 3 beeps."),
    "selftest_say_motor": _t("Motor: the wheel must be free (no cards against it). It turns forward, then"
                             " reverse, %(ms)d ms each at %(duty)s.", ms="int", duty="percent"),
    "selftest_say_standby": _t("Standby: the driver is put in standby and the motor driven forward; the"
                               " wheel must NOT turn."),
    "selftest_say_act": _t("%(title)s: %(act)s now (within %(seconds)d s).", title="raw", act="text",
                           seconds="int"),
    "selftest_say_undo": _t("  seen. Now %(undo)s.", undo="text"),
    "selftest_act_beam": _t("block the beam at the exit slot (a card or a finger)"),
    "selftest_undo_beam": _t("clear it"),
    "selftest_act_button": _t("press the launch button"),
    "selftest_undo_button": _t("let go"),
    "selftest_act_lid": _t("open the hopper lid"),
    "selftest_undo_lid": _t("close it"),
    "selftest_say_servo": _t("Servo: it turns to one end, the other, then the middle."),
    "selftest_ask": _t("%(question)s [y]es / [n]o / [s]kip: ", question="text"),
    "selftest_ask_led": _t("Did the button LED flash 4 times?"),
    "selftest_ask_chime": _t("Did you hear 3 beeps?"),
    "selftest_ask_wheel_free": _t("Is the wheel free?"),
    "selftest_ask_motor": _t("Did the wheel turn %(direction)s (it feeds cards out when forward)?",
                             direction="motor_direction"),
    "selftest_ask_standby": _t("Did the wheel stay still?"),
    "selftest_ask_servo": _t("Did the launcher turn to both ends and back to the middle?"),
    "selftest_nobody": _t(" (nobody to look: run it at a terminal, or with --yes to take the daemon's word)"),
    "selftest_flashed": _t("flashed 4 times"),
    "selftest_beeps": _t("3 beeps sent"),
    "selftest_wheel_not_free": _t("nobody said the wheel is free"),
    "selftest_jog_refused": _t("the launcher refused the jog: %(reason)s", reason="text"),
    "selftest_jogged": _t("%(direction)s %(ms)d ms at %(duty)s: %(ended)s", direction="motor_direction",
                          ms="int", duty="percent", ended="ended"),
    "selftest_no_standby": _t("no standby pin fitted ([pins] motor_enable = false)"),
    "selftest_not_fitted": _t("no %(name)s fitted ([pins] %(name)s = false)", name="raw"),
    "selftest_active_before": _t("the %(title)s reads active before anyone touched it", title="raw"),
    "selftest_seen_back": _t("seen active, then back"),
    "selftest_seen_not_back": _t("seen active, but it never came back"),
    "selftest_nothing_seen": _t("nothing seen in %(seconds)d s", seconds="int"),
    "selftest_no_servo": _t("no servo fitted ([pins] servo = false)"),
    "selftest_angles": _t("angles %(angles)s", angles="raw"),
    "selftest_servo_refused": _t("refused: %(reason)s", reason="text"),
    "selftest_pin_not_fitted": _t("[pins] %(function)s: not fitted", function="raw"),
    "selftest_pin": _t("[pins] %(function)s = GPIO %(gpio)s (header pin %(header)s)", function="raw",
                       gpio="raw", header="raw"),
    "selftest_pin_reads": _t(
        "[pins] %(function)s = GPIO %(gpio)s (header pin %(header)s), reads %(reads)s now (active"
        " %(active)s, internal pull-%(pull)s)", function="raw", gpio="raw", header="raw", reads="raw",
        active="raw", pull="raw"),
    "selftest_check_led": _t("the LED's series resistor, its polarity (long leg towards the GPIO), its GND"),
    "selftest_check_chime": _t("an active buzzer (it beeps on DC), its transistor, base resistor and 5 V"
                               " supply"),
    "selftest_check_motor_supply": _t("the motor supply, its fuse and the driver's VM, VCC and GND; the"
                                      " grounds joined"),
    "selftest_check_motor_driver": _t("TB6612FNG: PWMA tied to 3V3 and STBY high; DRV8833: nSLEEP high"),
    "selftest_check_motor_swapped": _t("forward and reverse swapped? swap the two motor wires (or the two"
                                       " [pins])"),
    "selftest_check_standby_pin": _t("%(pin)s to the driver's STBY (TB6612FNG) or nSLEEP (DRV8833)",
                                     pin="text"),
    "selftest_check_standby_breakout": _t("a breakout that pulls nSLEEP high on the board: see"
                                          " wiring/README.md"),
    "selftest_check_beam": _t(
        "the emitter powered (its LED glows in a phone camera), the receiver aligned across the slot,"
        " its open-collector output to the GPIO; [sensor] beam_blocked"),
    "selftest_check_button": _t("the button between the GPIO and the rail opposite its pull; [sensor]"
                                " button_active"),
    "selftest_check_lid": _t("the lid switch closed while the lid is shut; [sensor] lid_open"),
    "selftest_check_servo": _t("the servo's own 5 V supply and the common ground; [aim] min_pulse_ms /"
                               " max_pulse_ms"),
    "selftest_report_line": _t("[%(mark)s] %(title)s: %(detail)s", mark="text", title="raw", detail="raw"),
    "selftest_mark_pass": _t("pass"),
    "selftest_mark_fail": _t("FAIL"),
    "selftest_mark_skipped": _t("skip"),
    "selftest_report_check": _t("       check: %(hint)s", hint="raw"),
    "selftest_summary": _t("%(passed)d passed, %(failed)d failed, %(skipped)d skipped", passed="int",
                           failed="int", skipped="int"),
    "selftest_not_ready": _t("launcherctl selftest: the launcher is %(state)s; it must be ready"
                             " (launcherctl reset, clear the slot, close the lid)", state="state"),
    "jog_run": _t("%(direction)s %(ms)d ms at %(duty)s", direction="motor_direction", ms="int",
                  duty="percent"),
    "jog_standby": _t(" (driver in standby)"),
    "jog_done": _t(": done"),
    "jog_stopped": _t(": stopped early (%(ended)s)", ended="ended"),
    "input:button": _t("button"),
    "input:beam": _t("beam"),
    "input:lid": _t("lid"),
    "input:press": _t("press"),
    "input_level:pressed": _t("pressed"),
    "input_level:released": _t("released"),
    "input_level:blocked": _t("blocked"),
    "input_level:clear": _t("clear"),
    "input_level:open": _t("open"),
    "input_level:closed": _t("closed"),
    "input_level:press": _t("press (debounced)"),
    "inputs_not_fitted": _t("%(name)s not fitted", name="raw"),
    "inputs_line": _t("%(name)s %(level)s GPIO %(gpio)s (header pin %(header)s) reads %(reads)s (active"
                      " %(active)s, pull-%(pull)s)", name="raw", level="raw", gpio="raw", header="raw",
                      reads="raw", active="raw", pull="raw"),
    # launcherctl calibrate (firmware/extras/calibrate.py, firmware/tools/bringup_cli.py)
    "n_misfeeds": _t("%(count)d misfeed", "%(count)d misfeeds", "count", count="int"),
    "n_jams": _t("%(count)d jam", "%(count)d jams", "count", count="int"),
    "calibrate_warn_duty": _t("duty %(duty)s: %(misfeeds)s, %(jams)s: not used", duty="number",
                              misfeeds="text", jams="text"),
    "calibrate_warn_jam_half": _t("jam_ms %(jam)d would exceed half of launch_timeout_ms (%(launch)d); kept"
                                  " at that half", jam="int", launch="int"),
    "calibrate_warn_no_crossing": _t("no card crossed the beam cleanly: nothing to propose for the beam"
                                     " timings"),
    "calibrate_warn_feed_slow": _t("feed_timeout_ms %(feed)d is not below launch_timeout_ms (%(launch)d): the"
                                   " feed is too slow at duty %(duty)s", feed="int", launch="int", duty="number"),
    "calibrate_warn_no_duty": _t("no duty fed every card without a misfeed or a jam: try higher duties"
                                 " (--duties)"),
    "margin_card_crossing_ms": _t("x%(factor)s the longest crossing seen, at least +%(plus)d ms", factor="raw",
                                  plus="int"),
    "margin_jam_ms": _t("x%(factor)s the longest crossing seen, at least card_crossing_ms + %(plus)d ms",
                        factor="raw", plus="int"),
    "margin_feed_timeout_ms": _t("x%(factor)s the longest wait for a card at the proposed duty (the first card"
                                 " or between cards), at least +%(plus)d ms", factor="raw", plus="int"),
    "margin_duty": _t("one tested step above the lowest duty that fed every card with no misfeed and no jam"
                      " (the lowest clean duty when it is the highest tried)"),
    "margin_kick_duty": _t("the highest clean duty tried"),
    "margin_kick_ms": _t("%(share)s of the first-card time at kick_duty, from %(least)d to %(most)d ms; used"
                         " only while duty is below kick_below", share="percent", least="int", most="int"),
    "calibrate_not_toml": _t("%(source)s: not valid TOML, not edited: %(error)s", source="raw", error="raw"),
    "calibrate_would_break": _t("%(source)s: the edit would break the file (%(error)s); not edited",
                                source="raw", error="raw"),
    "calibrate_cannot_change": _t("%(source)s: the file is written in a way this editor cannot change safely"
                                  " (dotted keys or inline tables?); not edited: paste the snippet by hand",
                                  source="raw"),
    "calibrate_cannot_read": _t("%(path)s: cannot read the file: %(error)s", path="raw", error="raw"),
    "calibrate_cannot_write": _t("%(path)s: cannot write next to the file: %(error)s (the configuration in"
                                 " /etc needs sudo)", path="raw", error="raw"),
    "calibrate_fails_check": _t("%(path)s: not written, the result would not pass --check-config:\n%(error)s",
                                path="raw", error="raw"),
    "calibrate_defaults": _t("launcherctl calibrate: launcherd runs on the built-in defaults: give --config"
                             " FILE to write"),
    "calibrate_start": _t("calibrating: %(cards)d cards at each duty of %(duties)s", cards="int",
                          duties="raw"),
    "calibrate_start_load": _t("calibrating: %(cards)d cards at each duty of %(duties)s; load at least"
                               " %(need)d cards and catch them", cards="int", duties="raw", need="int"),
    "calibrate_run": _t("  duty %(duty)s: %(cards)d of %(requested)d cards (%(ended)s)", duty="raw",
                        cards="int", requested="int", ended="ended"),
    "calibrate_stuck": _t("  a card is stuck: calibration stops here (clear the slot and run it again)"),
    "calibrate_nothing": _t("launcherctl calibrate: nothing to write"),
    "calibrate_header": _t("duty  cards  crossing ms (max)  gap ms (max)  first card ms  cards/s  misfeeds"
                           "  jam"),
    "calibrate_yes": _t("yes"),
    "calibrate_no": _t("no"),
    "calibrate_warning": _t("warning: %(warning)s", warning="raw"),
    "calibrate_proposed": _t("proposed (margins used):"),
    "calibrate_written": _t("written to %(path)s; `launcherd --check-config %(path)s` passes; restart"
                            " launcherd to use it", path="raw"),
    "inputs_watching": _t("watching (bench mode: the button launches nothing meanwhile); Ctrl-C to stop"),
}

# What launcher-voice says: short, to be heard across a table.
_VOICE: dict[str, Text] = {
    "voice_turn": _t("%(player)s's move", player="name"),
    "voice_press": _t("%(player)s, press once", "%(player)s, press %(presses)d times", "presses",
                      player="name", presses="int"),
    "voice_press_twice": _t("%(player)s, press twice", player="name"),
    "voice_press_until": _t("%(player)s, press until cards come out", player="name"),
    "voice_mega_hit": _t("Mega Hit! %(hits)d hit for %(player)s", "Mega Hit! %(hits)d hits for %(player)s",
                         "hits", hits="int", player="name"),
    "voice_takes": _t("%(player)s takes one", "%(player)s takes %(cards)d", "cards",
                      player="name", cards="int"),
    "voice_nothing": _t("Nothing for %(player)s", player="name"),
    "voice_empty": _t("The launcher is empty"),
    "voice_jam": _t("A card is stuck"),
    "voice_halted": _t("The launcher has stopped: see the table page"),
    "voice_log_trouble": _t("Trouble with the game log: see the table page"),
    "voice_round_won": _t("%(player)s wins round %(round)d", player="name", round="int"),
}

CATALOGUE: Mapping[str, Text] = MappingProxyType({**_WORDS, **_GAME, **_LAUNCHER, **_BRINGUP, **_VOICE})

# How a parameter's value is checked and shown.
KINDS = MappingProxyType({
    "int": "a whole number",
    "name": "a player's (or ruleset's) name, shown as it is",
    "raw": "text already in the language, shown as it is",
    "text": "free text or a message object (rendered in the same language)",
    "list": "a list of names, shown 'A, B, C'",
    "names": "a list of names, shown 'A, B and C' (a single name is allowed)",
    "items": "a list of message objects, shown 'x, y'",
    "messages": "a list of message objects, shown 'x; y'",
    "parts": "a list of message objects, shown one after the other",
    "lines": "a list of message objects, one per line",
    "card_list": "a list of card ids, shown by their names 'x, y'",
    "color_list": "a list of colours, shown by their names 'x, y'",
    "inserts": "a count of insertions ('2 insertions'), or null: until the blast",
    "awaiting": "what a classic round waits for: play_or_pass, challenge_or_accept, ...",
    "presses": "a count of presses ('2 presses'), or null: until cards come out",
    "cards": "a count of cards ('2 cards')",
    "card": "a card id ('hit-2'), shown by its name in the language",
    "color": "red, yellow, green or blue",
    "direction": "clockwise or counterclockwise",
    "ended": "how a launch ended: timeout, jam, lid, empty (a dispense: done, halt, refused)",
    "state": "a launcher state (ready, jammed, ...) or why a press was ignored (bench, ...)",
    "outcome": "how a press or an insertion came out: dry, burst, dispense, empty, safe, blast",
    "motor_direction": "which way the motor turns: forward or reverse",
    "seconds": "a duration in seconds, shown with one decimal below 100",
    "percent": "a share from 0 to 1, shown as a percentage",
    "number": "a number, shown in the language's way",
})
_PLACEHOLDER = re.compile(r"%\((\w+)\)([sd])")


# ---- languages --------------------------------------------------------------------------------


def default_language(environ: Mapping[str, str] | None = None) -> str:
    """The language of the locale (LC_ALL, then LC_MESSAGES, then LANG), English unless French."""
    environ = os.environ if environ is None else environ
    for variable in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = environ.get(variable)
        if value:
            return "fr" if value.lower().startswith("fr") else DEFAULT_LANGUAGE
    return DEFAULT_LANGUAGE


def language(lang: str | None) -> str:
    """A language asked for (None: the locale's), checked."""
    if lang is None:
        return default_language()
    if lang not in LANGUAGES:
        raise InvalidParams(f"unknown language {lang!r}; languages: " + ", ".join(LANGUAGES))
    return lang


def po_path(lang: str) -> Path:
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


_translations: dict[str, gettext.GNUTranslations] = {}


def translations(lang: str) -> gettext.GNUTranslations:
    """The compiled catalogue of a language, compiled once per process."""
    if lang not in _translations:
        with po_path(lang).open("rb") as po:
            catalog = read_po(po, locale=lang, domain=DOMAIN)
        compiled = io.BytesIO()
        write_mo(compiled, catalog)
        compiled.seek(0)
        _translations[lang] = gettext.GNUTranslations(compiled)
    return _translations[lang]


# ---- rendering ------------------------------------------------------------------------------


def _word(key: str, lang: str) -> str:
    return translations(lang).pgettext(key, CATALOGUE[key].singular)


def _count(key: str, n: int, lang: str) -> str:
    entry = CATALOGUE[key]
    return translations(lang).npgettext(key, entry.singular, entry.plural, n) % {"count": n}


def _names(names: list[str], lang: str) -> str:
    if len(names) == 1:
        return names[0]
    form = translations(lang).pgettext("names_and", CATALOGUE["names_and"].singular)
    return form % {"names": ", ".join(names[:-1]), "last": names[-1]}


def _bad(message_id: str, name: str, kind: str, value: Any) -> MessageError:
    return MessageError(f"{message_id}: {name} must be {KINDS[kind]}, not {value!r}")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _shown(message_id: str, name: str, kind: str, value: Any, lang: str) -> Any:
    """A parameter's value as the text (or number) the template takes."""
    if kind == "int":
        if not _is_int(value):
            raise _bad(message_id, name, kind, value)
        return value
    if kind in ("name", "raw"):
        if not isinstance(value, str):
            raise _bad(message_id, name, kind, value)
        return value
    if kind == "text":
        if isinstance(value, dict):
            return render(value, lang)
        if not isinstance(value, str):
            raise _bad(message_id, name, kind, value)
        return value
    if kind in ("list", "names"):
        if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
            raise _bad(message_id, name, kind, value)
        return ", ".join(value) if kind == "list" else _names(value, lang)
    if kind in ("items", "messages", "parts", "lines"):
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            raise _bad(message_id, name, kind, value)
        separator = {"items": ", ", "messages": "; ", "parts": "", "lines": "\n"}[kind]
        return separator.join(render(v, lang) for v in value)
    if kind in ("card_list", "color_list"):
        if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
            raise _bad(message_id, name, kind, value)
        one = kind.removesuffix("_list")
        return ", ".join(_shown(message_id, name, one, item, lang) for item in value)
    if kind == "presses":
        if value is None:
            return _word("presses_until_cards", lang)
        if not _is_int(value):
            raise _bad(message_id, name, kind, value)
        return _count("n_presses", value, lang)
    if kind == "cards":
        if not _is_int(value):
            raise _bad(message_id, name, kind, value)
        return _count("n_cards", value, lang)
    if kind == "inserts":
        if value is None:
            return _word("insertions_until_blast", lang)
        if not _is_int(value):
            raise _bad(message_id, name, kind, value)
        return _count("n_insertions", value, lang)
    if kind in ("seconds", "percent", "number"):
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise _bad(message_id, name, kind, value)
        if kind == "percent":
            return format_percent(value, locale=lang)
        if kind == "seconds":
            return format_decimal(value, format="0.0" if value < 100 else "0", locale=lang)
        return format_decimal(value, locale=lang)
    if kind == "card":
        if not isinstance(value, str):
            raise _bad(message_id, name, kind, value)
        # Numbers are the same in every language; an unknown card is shown as it was given.
        return _word(f"card:{value}", lang) if f"card:{value}" in CATALOGUE else value
    key = f"{kind}:{value}"
    if key not in CATALOGUE:
        raise _bad(message_id, name, kind, value)
    return _word(key, lang)


def render(message: Mapping[str, Any], lang: str | None = None) -> str:
    """The text of a message object in a language ("en" or "fr"; None: the locale's)."""
    lang = language(lang)
    if not isinstance(message, Mapping) or message.get("id") not in CATALOGUE:
        raise MessageError(f"not a known message: {message!r}")
    message_id = message["id"]
    entry = CATALOGUE[message_id]
    values = {}
    for name, kind in entry.params.items():
        if name not in message:
            raise MessageError(f"{message_id}: parameter {name} is missing")
        values[name] = _shown(message_id, name, kind, message[name], lang)
    catalogue = translations(lang)
    if entry.plural is None:
        template = catalogue.pgettext(message_id, entry.singular)
    else:
        count = message[entry.count]
        template = catalogue.npgettext(
            message_id, entry.singular, entry.plural, count if _is_int(count) else len(count))
    return template % values


def placeholders(text: str) -> set[tuple[str, str]]:
    """The ``%(name)s`` / ``%(name)d`` placeholders of a template."""
    return set(_PLACEHOLDER.findall(text))


# ---- card and colour names as input --------------------------------------------------------------------


def _folded(name: str) -> str:
    """A card name as compared: no case, no accents, one kind of apostrophe and spacing."""
    decomposed = unicodedata.normalize("NFKD", name.replace("\u2019", "'"))
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(plain.casefold().replace("-", " ").split())


def card_id(name: str) -> str:
    """The internal card id of a card named by its id or by its name in any language.

    "Appuyer 2 fois", "appuyer 2 fois" and "hit-2" all give "hit-2"; a number is itself. Whether
    the ruleset has the card is the game's business.
    """
    if not isinstance(name, str) or not name.strip():
        raise InvalidParams(f"a card name is a non-empty text, not {name!r}")
    wanted = _folded(name)
    if wanted.isdigit():
        return wanted
    for key in CATALOGUE:
        if not key.startswith("card:"):
            continue
        card = key.removeprefix("card:")
        if wanted in {_folded(_word(key, lang)) for lang in LANGUAGES} | {_folded(card)}:
            return card
    known = [_word(key, "fr") for key in CATALOGUE if key.startswith("card:")]
    raise InvalidParams(f"unknown card {name!r}; cards: " + ", ".join(known))


def color_id(name: str) -> str:
    """The internal colour ("red") of a colour named in any language ("rouge", "Rouge", "red")."""
    wanted = _folded(name) if isinstance(name, str) else None
    for key in CATALOGUE:
        if key.startswith("color:"):
            color = key.removeprefix("color:")
            if wanted in {_folded(_word(key, lang)) for lang in LANGUAGES} | {color}:
                return color
    known = [f"{_word(key, 'en')} / {_word(key, 'fr')}" for key in CATALOGUE if key.startswith("color:")]
    raise InvalidParams(f"unknown colour {name!r}; colours: " + ", ".join(known))


# ---- the template ---------------------------------------------------------------------------


def template() -> Catalog:
    """The .pot catalogue of :data:`CATALOGUE`: what ``locale/launcher.pot`` must hold."""
    catalog = Catalog(domain=DOMAIN, project="card-launcher", fuzzy=False)
    for message_id, entry in CATALOGUE.items():
        text = entry.singular if entry.plural is None else (entry.singular, entry.plural)
        comment = ", ".join(f"{name}: {KINDS[kind]}" for name, kind in entry.params.items())
        catalog.add(text, context=message_id, auto_comments=[comment] if comment else [],
                    flags=["python-format"] if entry.params else [])
    return catalog


def main() -> None:
    """Print the template (``python -m controller.text.messages > controller/locale/launcher.pot``)."""
    write_po(sys.stdout.buffer, template(), omit_header=False, sort_output=False,
             include_previous=False, width=100)


if __name__ == "__main__":
    main()
