"""The game layer says message objects (#14): effects, refusals, replies and events carry them; their
English is the text the game said before, their French the catalogue's; card and colour names are
read in either language."""

from __future__ import annotations

import pytest

from harness.launcherd import ThreadDaemon
from controller.layer import cli
from controller.rules import game
from controller.match import table
from controller.text.messages import render
from firmware import i18n
from firmware.client import Client
from firmware.errors import ApiError, Refused

THREE = {"rules": "attack-mega-hit", "players": ["Ann", "Bob", "Cy"]}


def said(effects: list[dict]) -> list[str]:
    return [effect["text"] for effect in effects if effect["type"] == "message"]


def objects(effects: list[dict]) -> list[dict]:
    return [effect["message"] for effect in effects if effect["type"] == "message"]


def play_a_mega_hit() -> list[list[dict]]:
    """A round with a Mega Hit: the effects of each step."""
    state, effects = game.new_game("attack-mega-hit", ["Ann", "Bob", "Cy"])
    steps = [effects]
    for action in ({"type": "play", "card": "hit-1", "color": "red"},
                   {"type": "play", "card": "hit-2", "color": "red"},
                   {"type": "press", "cards": 0},
                   {"type": "press", "cards": 2},
                   {"type": "uno", "player": "Ann"},
                   {"type": "play", "card": "wild-attack", "color": "blue", "target": "Cy"}):
        state, effects = game.apply(state, action)
        steps.append(effects)
    return steps


def test_the_english_of_the_objects_is_the_text_the_game_said_before():
    with i18n.speaking("en"):
        steps = play_a_mega_hit()
    assert [said(effects) for effects in steps] == [
        ["round 1 of UNO Attack Mega Hit: Cy deals"],
        ["Ann plays Hit 1 (red)", "Bob owes 1 press or answers with a Hit card"],
        ["Bob plays Hit 2 (red)", "Mega Hit: 3 hits pass to Cy, who presses or stacks a Hit card"],
        ["Cy pressed: 0 cards, still owes 2 presses"],
        ["Cy pressed: 2 cards, done", "play resumes with Bob, after Ann who started the Mega Hit"],
        ["Ann calls Uno"],
        ["Bob plays Wild Attack-Attack (blue) at Cy", "Cy owes 2 presses or answers with a Hit card"],
    ]
    for effects in steps:
        for effect in effects:
            if effect["type"] == "message":
                assert render(effect["message"], "en") == effect["text"]


def test_the_same_round_in_french_has_the_same_objects_and_french_texts():
    with i18n.speaking("en"):
        english = play_a_mega_hit()
    with i18n.speaking("fr"):
        french = play_a_mega_hit()
    assert [objects(effects) for effects in french] == [objects(effects) for effects in english]
    assert said(french[1]) == ["Ann joue Appuyer 1 fois (rouge)",
                               "Bob doit 1 appui ou répond avec une carte Appuyer"]
    assert said(french[2])[1] == "Méga appuyer : 3 appuis passent à Cy, qui appuie ou pose une carte Appuyer"
    assert said(french[6])[0] == "Bob joue Double attaque (bleu) contre Cy"


def test_a_refusal_is_a_message_object_rendered_in_the_language_spoken():
    state, _ = game.new_game("attack-mega-hit", ["Ann", "Bob", "Cy"])
    for lang, text in (("en", "it is Ann's move, not Bob's"), ("fr", "c'est à Ann de jouer, pas à Bob")):
        with i18n.speaking(lang), pytest.raises(Refused) as refused:
            game.apply(state, {"type": "play", "card": "7", "color": "red", "by": "Bob"})
        assert refused.value.message == text
        assert refused.value.message_object == {"id": "not_your_move", "player": "Ann", "by": "Bob"}


def test_round_summaries_of_the_table_are_objects_too():
    board, _ = table.new_table({"type": "new", **THREE})
    board, _ = table.apply(board, {"type": "play", "card": "discard-all", "color": "red", "last": True})
    with i18n.speaking("fr"):
        _, effects = table.apply(board, {"type": "end_round", "winner": "Ann", "hands": {"Bob": 7, "Cy": 12}})
    assert objects(effects)[0] == {"id": "round_scores", "round": 1, "winner": "Ann", "points": 19, "total": 19}
    assert said(effects)[0] == "manche 1 : Ann marque 19 (19 en tout)"


def test_the_status_line_of_launcherctl_speaks_its_language():
    status = {"turn": "Bob", "owed": {"player": "Bob", "presses": 2, "until_cards": True, "reason": "hit"},
              "chain": {"target": "Bob"}, "match": {}}
    reply = {**status, "messages": ["Ann plays hit-2"],
             "message_objects": [{"id": "plays", "player": "Ann", "card": "hit-2"}]}
    with i18n.speaking("en"):
        assert cli.format_reply(reply) == ("Ann plays Hit 2\nBob's move - owes 2 presses or stacks a Hit card"
                                           " (stops when cards come out)")
    with i18n.speaking("fr"):
        assert cli.format_reply(reply) == ("Ann joue Appuyer 2 fois\nÀ Bob - doit 2 appuis ou pose une carte"
                                           " Appuyer (s'arrête dès que des cartes sortent)")


# ---- through launcherd ------------------------------------------------------------------------


def test_a_game_in_french_through_the_api_with_french_card_names(tmp_path):
    with ThreadDaemon(tmp_path) as running:
        with Client(running.daemon.socket_path, timeout=30, lang="fr") as french:
            started = french.call("game/new", THREE)
            assert started["messages"][0] == "manche 1 de UNO Attack Mega Hit : Cy distribue"
            assert started["message_objects"][0] == {"id": "round_deals", "round": 1,
                                                     "ruleset": "attack-mega-hit", "dealer": "Cy"}
            played = french.call("game/play", {"card": "Double attaque", "color": "rouge", "target": "Cy"})
            assert played["messages"][:2] == ["Ann joue Double attaque (rouge) contre Cy",
                                              "Cy doit 2 appuis ou répond avec une carte Appuyer"]
            assert len(played["message_objects"]) == len(played["messages"])
            with pytest.raises(ApiError) as refused:
                french.call("game/play", {"card": "Appuyer 1 fois", "color": "rouge", "by": "Bob"})
            assert refused.value.message == "c'est à Cy de jouer, pas à Bob"
        logged = running.call("game/log")["actions"][-1]["action"]
        assert (logged["card"], logged["color"], logged["target"]) == ("wild-attack", "red", "Cy")
        # The same reply in English for a request that does not ask for French.
        assert running.call("game/status")["turn"] == "Cy"
        stacked = running.call("game/play", {"card": "appuyer 2 fois", "color": "green"})
        assert stacked["messages"][0] == "Cy plays Hit 2 (green)"


def test_the_game_message_event_carries_the_object_and_the_daemons_text(tmp_path):
    with ThreadDaemon(tmp_path) as running, running.client() as events:
        events.call("events/subscribe")
        with Client(running.daemon.socket_path, timeout=30, lang="fr") as french:
            french.call("game/new", THREE)
            french.call("game/uno", {"player": "Ann"})
        event = next(m for m in events.messages() if m.get("event") == "game/message"
                     and m["params"]["message"]["id"] == "calls_uno")
        # The daemon speaks the locale's language (English here), whatever the request asked for.
        assert event["params"] == {"message": {"id": "calls_uno", "player": "Ann"}, "text": "Ann calls Uno",
                                   "match_id": 1}


def test_hands_name_their_cards_in_either_language(tmp_path):
    with ThreadDaemon(tmp_path) as running:
        running.call("game/new", THREE)
        running.call("game/play", {"card": "discard-all", "color": "vert", "last": True})  # seven green
        running.call("game/end-round", {"winner": "Ann", "hands": {"Bob": "7, Appuyer 2 fois, 1, 2, 3, 4, 5",
                                                                 "Cy": "12"}})
        played = running.call("game/scores")["rounds"][0]
        assert played["hands"]["Bob"]["cards"] == ["7", "hit-2", "1", "2", "3", "4", "5"]
        assert played["points"]["Ann"] == 74
