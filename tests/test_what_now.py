"""game/status says who moves and what they may do, in plain words (#24): ``what_now`` (the text in the
request's language, ``what_now_object`` the message), the colour a Wild named, where play resumes after
a Mega Hit, and whom a catch makes sense against (``catchable_players``). Through a real launcherd --sim.
"""

from __future__ import annotations

from harness.deck import new_with_deck
from harness.launcherd import ThreadDaemon

P3 = ["Ann", "Bob", "Cy"]
HOPPER = "[sim]\nhopper = 300\n"
CLASSIC = {"rules": "classic", "players": P3, "options": {"deal_pause_s": "0"}, "first_card": "5", "color": "red"}


def dealt(running) -> dict:
    return running.wait_for(lambda s: s["game"] and s["game"]["owed"] is None and s["dealer"]["current"] is None,
                            timeout=60)["game"]


def what_now(running, lang: str | None = None) -> str:
    return running.call("game/status", lang=lang)["what_now"]


def test_attack_names_the_player_and_the_choice_in_english_and_french(tmp_path):
    with ThreadDaemon(tmp_path, HOPPER) as running:
        new_with_deck(running.call, {"rules": "attack-mega-hit", "players": P3})
        assert what_now(running) == "Ann: play a card, or press the button"
        assert what_now(running, "fr") == "Ann : jouez une carte, ou appuyez sur le bouton"
        running.call("game/play", {"card": "hit-2", "color": "red"})
        assert what_now(running) == "Bob: press the button, 2 presses, or answer with a Hit card"
        assert what_now(running, "fr") == "Bob : appuyez sur le bouton, 2 appuis, ou répondez avec une carte Appuyer"
        running.call("game/uno", {"player": "Cy"})
        new_with_deck(running.call, {"rules": "attack-mega-hit", "players": P3, "force": True})
        for _ in range(15):  # five plays each: everyone holds two
            running.call("game/play", {"card": "5", "color": "red"})
        running.call("game/play", {"card": "hit-2", "color": "red"})  # Ann's next-to-last card, no Uno
        running.call("game/catch", {"player": "Ann"})  # an Uno penalty goes first
        assert what_now(running) == "Ann: press the button, 2 presses, for the penalty"


def test_after_a_mega_hit_the_table_hears_where_play_resumes_and_why(tmp_path):
    dry = HOPPER + "[ejection]\nprofile = \"fixed\"\nsequence = [0]\n"
    with ThreadDaemon(tmp_path, dry) as running, running.client() as events:
        new_with_deck(running.call, {"rules": "attack-mega-hit", "players": ["Dad", "Mum", "Tom", "Lea"]})
        running.call("game/play", {"card": "hit-1", "color": "red"})  # Dad starts it at Mum
        running.call("game/play", {"card": "hit-2", "color": "red"})  # Mum stacks: 3 hits at Tom
        status = running.call("game/status")
        assert status["resumes"] == {"player": "Mum", "first_attacker": "Dad"}
        assert status["what_now"] == ("Tom: press the button, 3 presses, or answer with a Hit card; play resumes"
                                      " with Mum, after Dad who started the Mega Hit")
        events.call("events/subscribe")
        for _ in range(3):
            running.call("launcher/launch")
        said = next(m["params"] for m in events.messages() if m.get("event") == "game/message"
                    and m["params"]["message"]["id"] == "resumes_after_first_attacker")
        assert said["text"] == "play resumes with Mum, after Dad who started the Mega Hit"
        status = running.wait_for(lambda s: s["game"]["owed"] is None)["game"]
        assert status["turn"] == "Mum" and status["resumes"] is None


def test_classic_says_every_moment_of_a_wild_draw_four_and_the_colour_it_named(tmp_path):
    with ThreadDaemon(tmp_path, HOPPER) as running:
        new_with_deck(running.call, CLASSIC)
        running.wait_for(lambda s: s["game"] and s["game"]["owed"] is not None)
        assert what_now(running).startswith("the launcher deals 7 cards to ")
        dealt(running)
        assert what_now(running) == "Ann: play a card, or press to draw one"
        assert what_now(running, "fr") == "Ann : jouez une carte, ou appuyez pour en piocher une"
        status = running.call("game/play", {"card": "wild-draw-four", "color": "blue"})
        assert (status["named_color"], status["color"]) == ("blue", "blue")
        assert status["what_now"] == "Bob: accept 4 cards, or challenge Ann"
        assert status["what_now_object"] == {"id": "what_now_challenge", "player": "Bob", "cards": 4,
                                             "challenged": "Ann"}
        assert what_now(running, "fr") == "Bob : acceptez 4 cartes, ou contestez Ann"
        running.call("game/challenge")
        assert what_now(running) == ("Ann shows their hand to Bob: was the Wild Draw Four legal (Bob is dealt 6)"
                                     " or not (Ann is dealt 4)?")
        running.call("game/challenge-result", {"result": "legal"})
        assert what_now(running) == "the launcher deals 6 cards to Bob first"
        dealt(running)
        assert what_now(running) == "Cy: play a card, or press to draw one"
        status = running.call("game/play", {"card": "5", "color": "blue"})
        assert status["named_color"] is None  # a number names no colour
        running.call("launcher/launch")  # Ann draws one
        running.wait_for(lambda s: s["game"]["awaiting"] == "play_or_pass")
        assert what_now(running) == "Ann: play the card just drawn, or pass"


def test_a_round_won_and_a_match_over_say_what_comes_next(tmp_path):
    with ThreadDaemon(tmp_path, HOPPER) as running:
        new_with_deck(running.call, {"rules": "attack-mega-hit", "players": ["Ann", "Bob"], "target": 10})
        running.call("game/play", {"card": "discard-all", "color": "red", "last": True})  # all seven red
        assert what_now(running) == "Ann won round 1: enter everyone's hands to score it"
        running.call("game/end-round", {"winner": "Ann", "hands": {"Bob": 30}})
        assert what_now(running) == "Ann won the match: start a new game"
        assert what_now(running, "fr") == "partie gagnée par Ann : commencez une nouvelle partie"


def test_blast_says_insert_in_the_blaster(tmp_path):
    with ThreadDaemon(tmp_path, HOPPER) as running:
        new_with_deck(running.call, {"rules": "blast", "players": P3, "first_card": "5", "color": "red"})
        assert what_now(running) == "Ann: play a card, or insert one in the blaster"
        running.call("game/play", {"card": "draw-one", "color": "red"})
        assert what_now(running) == "Bob: insert in the blaster, 1 insertion"


def test_catch_is_offered_only_for_a_player_who_may_be_on_their_last_card(tmp_path):
    with ThreadDaemon(tmp_path, HOPPER) as running:
        new_with_deck(running.call, {"rules": "attack-mega-hit", "players": P3})
        status = running.call("game/play", {"card": "5", "color": "red"})
        # A first card of seven: six left, no catch (#39).
        assert status["catchable_players"] == [] and status["catchable"] is None
        for turn in range(1, 16):  # Ann plays at every third turn: her sixth card is the last of these
            status = running.call("game/play", {"card": "5", "color": "red"})
            if turn == 12:
                assert status["catchable_players"] == []  # two left
        # Ann played six of her seven and took nothing: on her last card, no Uno called.
        assert status["catchable_players"] == ["Ann"]
        new_with_deck(running.call, {"rules": "attack-mega-hit", "players": P3, "force": True})
        status = running.call("game/play", {"card": "discard-all", "color": "red"})
        assert status["catchable_players"] == ["Ann"]  # a colour discarded: she may hold one card
        assert status["players"][0]["hand_min"] == 1 and status["players"][0]["hand_max"] == 6

        new_with_deck(running.call, {**CLASSIC, "force": True})
        dealt(running)
        status = running.call("game/play", {"card": "7", "color": "red"})
        assert status["catchable_players"] == [] and status["catchable"] is None  # six in hand


def test_choices_list_what_the_moment_allows_and_only_that(tmp_path):
    from firmware.errors import ApiError
    import pytest

    def refused(method, params=None):
        with pytest.raises(ApiError) as error:
            running.call(method, params or {})
        assert error.value.code == ApiError.REFUSED, error.value

    with ThreadDaemon(tmp_path, HOPPER) as running:
        new_with_deck(running.call, {"rules": "attack-mega-hit", "players": ["Ann", "Bob"], "target": 10})
        assert running.call("game/status")["choices"] == ["play", "press"]
        assert running.call("game/play", {"card": "hit-1", "color": "red"})["choices"] == ["press", "play"]

        new_with_deck(running.call, {**CLASSIC, "rules": "despicable-me-4", "color": "orange", "force": True})
        assert running.call("game/status")["choices"] == []  # the launcher deals: nothing to do but wait
        assert dealt(running)["choices"] == ["play", "draw"]
        assert running.call("game/play", {"card": "wild-draw-four", "color": "blue"})["choices"] == [
            "accept", "challenge"]
        refused("game/play", {"card": "5", "color": "blue"})
        refused("game/pass")
        assert running.call("game/challenge")["choices"] == ["challenge_result"]
        refused("game/accept")
        running.call("game/challenge-result", {"result": "legal"})
        assert dealt(running)["choices"] == ["play", "draw"]
        assert running.call("game/play", {"card": "wild-mega-minions", "color": "blue"})["choices"] == ["minions"]
        running.call("game/minions", {"counts": {"Ann": 0, "Bob": 0}})
        assert running.call("game/status")["choices"] == ["play", "draw"]
        running.call("launcher/launch")  # Ann draws
        status = running.wait_for(lambda s: s["game"]["awaiting"] == "play_or_pass")
        assert status["game"]["choices"] == ["play", "pass"]
        refused("game/draw")
