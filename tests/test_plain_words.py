"""Plain words wherever a person reads or hears (#40): no card id, ruleset id, ``key=value`` or
header name reaches the table, in English or in French.

Two walks. Every message the table can be shown (tests/test_table_texts.py's walk: the game's and
the launcher's, all but the command-line tools' own lines) rendered with a value of each kind; and
the texts a played game produces (replies, game/message events, the log's lines, undo lines,
refusals) through the game service, for an UNO Attack, a classic and a Blast game. The ids stay in
the API's objects and in ``--json``: only what is rendered is checked.
"""

from __future__ import annotations

import asyncio
import re

import pytest

from controller.rules import game
from controller.text import advice
from controller.text.messages import CATALOGUE, LANGUAGES, render
from firmware import i18n
from firmware.errors import ApiError
from test_game_dealer import new, settle, table
from test_messages import sample
from test_table_texts import table_ids

# What a person must never read: an id with a hyphen of a card ("hit-2", "wild-attack", "draw-two"),
# a ruleset's id, a key=value pair, a header's name.
CARD_IDS = sorted({card for rules in game.FLOWS for card in game.ruleset(rules).cards if "-" in card}, key=len,
                  reverse=True)
# ("blast" and "classic" are words too: the hyphenated ids are what leaks.)
RULESET_IDS = sorted((rules for rules in game.FLOWS if "-" in rules), key=len, reverse=True)
LEAK = re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, CARD_IDS + RULESET_IDS)) + r")(?![\w-])"
                  r"|\b[a-z_]+=[\w\"']|\bX-[A-Z][\w-]+")
# Texts that echo what a person typed (a card or a ruleset the game does not know) are shown as given.
ECHOED = frozenset({"not_a_card", "not_a_card_of", "unknown_ruleset", "hand_not_a_card"})


def leaks(text: str) -> list[str]:
    return [found.group(0) for found in LEAK.finditer(text)]


def test_the_check_catches_ids_and_pairs_and_spares_plain_words():
    for text in ("Mum plays hit-1 (red)", "wild-attack", "draw-two turned up", "round 1 of attack-mega-hit",
                 "undone: Dad: play card=3 color=green", "refused (X-Join-Code)", "UNO despicable-me-4"):
        assert leaks(text), text
    for text in ("Mum plays Hit 1 (red)", "round 1 of UNO Attack Mega Hit", "undone: Dad plays 3 (green)",
                 "Wild Attack-Attack turned up", "Double attaque (rouge)", "a well-known rule"):
        assert not leaks(text), text


@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_text_for_the_table_leaks_an_id_or_a_pair(lang):
    leaking = {message_id: text for message_id in table_ids() if message_id not in ECHOED
               if leaks(text := render(sample(message_id), lang))}
    assert leaking == {}


# ---- texts a played game produces ------------------------------------------------------------------

ATTACK_STEPS = [
    ("act", {"type": "play", "card": "hit-1", "color": "red"}),
    ("act", {"type": "press", "cards": 2, "ended": "jam"}),
    ("undo", None),
    ("act", {"type": "press", "cards": 0}),
    ("act", {"type": "play", "card": "wild-attack", "color": "green", "target": "Ann"}),
    ("undo", None),
    ("act", {"type": "play", "card": "3", "color": "green"}),
    ("undo", None),
    ("act", {"type": "play", "card": "draw-two", "color": "red"}),  # not an Attack card: refused
    ("act", {"type": "uno", "player": "Cy"}),
    ("undo", None),
    ("act", {"type": "catch", "player": "Ann"}),
    ("act", {"type": "end_round", "winner": "Bob"}),  # refused: Bob holds cards
]
CLASSIC_STEPS = [
    ("act", {"type": "play", "card": "draw-two", "color": "red"}),
    ("undo", None),
    ("act", {"type": "play", "card": "wild-draw-four", "color": "green"}),
    ("act", {"type": "challenge"}),
    ("undo", None),
    ("act", {"type": "accept"}),
    ("undo", None),
    ("act", {"type": "play", "card": "hit-2", "color": "red"}),  # not a classic card: refused
]


def _unechoed(message: dict) -> dict:
    """A refusal that echoes what was typed (ECHOED) with the typed text left out."""
    if message.get("id") not in ECHOED:
        return message
    return {**message, **{name: "X" for name, kind in CATALOGUE[message["id"]].params.items() if kind == "raw"}}


def _said(reply_or_exc) -> list:
    if isinstance(reply_or_exc, ApiError):
        # Its message is the rendered text; the message object is what the table reads in either language.
        assert reply_or_exc.message_object is not None, reply_or_exc.message
        return [reply_or_exc.message_object]
    return list(reply_or_exc.get("message_objects") or ())


def _walk(tmp_path, rules: str, steps) -> list:
    """Every message object the table hears as ``steps`` are played: replies, refusals, game/message
    events, the log's lines and what now."""
    async def scenario():
        launcher, service = table(tmp_path)
        if rules == "classic":
            service.start(new("classic"))
        else:
            service.start({"type": "new", "rules": rules, "players": ["Ann", "Bob", "Cy"]})
        await settle()
        said = []
        for kind, action in steps:
            try:
                reply = service.undo() if kind == "undo" else service.act(dict(action))
            except ApiError as exc:
                reply = exc
            said += _said(reply)
            await settle()
            if service.table is not None:
                said.append(service.status()["what_now_object"])
        said += [p["message"] for name, p in launcher.events if name == "game/message"]
        said += [advice.action_said(record.action)
                 for record in service.store.actions(service.match_id, include_undone=True)]
        return said

    return asyncio.run(scenario())


@pytest.mark.parametrize("rules,steps", [("attack-mega-hit", ATTACK_STEPS), ("classic", CLASSIC_STEPS),
                                         ("attack-2005", ATTACK_STEPS[:3])], ids=["attack", "classic", "2005"])
def test_a_played_game_says_every_card_ruleset_and_action_in_words(tmp_path, rules, steps):
    said = _walk(tmp_path, rules, steps)
    assert len(said) > len(steps)
    for lang in LANGUAGES:
        with i18n.speaking(lang):
            texts = [render(_unechoed(message), lang) for message in said if isinstance(message, dict)]
        leaking = [text for text in texts if leaks(text)]
        assert leaking == [], lang


def test_undo_lines_and_log_lines_say_the_card_and_the_colour():
    play = {"type": "play", "card": "3", "color": "green", "by": "Dad"}
    assert render(advice.undone(play, "Dad"), "en") == "undone: Dad plays 3 (green)"
    assert render(advice.undone(play, "Dad"), "fr") == "annulé : Dad joue 3 (vert)"
    wild = {"type": "play", "card": "wild", "color": "red", "by": "Mum"}
    assert render(advice.action_said(wild), "en") == "Mum plays Wild (red)"
    cut = {"type": "press", "cards": 2, "ended": "jam", "by": "Tom"}
    assert render(advice.action_said(cut), "en") == "Tom pressed: 2 cards, cut short by a jam (the stuck card counted)"
