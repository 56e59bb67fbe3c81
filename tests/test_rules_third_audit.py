"""Issue #39, the third rules audit: each divergence played through a real ``launcherd --sim`` (the
socket API, and ``launcherctl`` where the table types it), as in tests/test_rules_audit.py."""

from __future__ import annotations

import pytest

from firmware.errors import ApiError
from harness.deck import new_with_deck
from harness.launcherd import ThreadDaemon
from harness.waits import wait_until
from test_rules_audit import (
    HOPPER, HOPPER_SLOW_JAM, NO_PAUSE, P3, cards_out, classic, jammed_deal, play, refused, settled,
)


def attack(running, players=P3, **params) -> dict:
    return new_with_deck(running.call, {"rules": "attack-mega-hit", "players": players, "force": True, **params})


def blast(running, players=P3, **params) -> dict:
    params.setdefault("first_card", "5")
    params.setdefault("color", "red")
    return new_with_deck(running.call, {"rules": "blast", "players": players, "force": True, **params})


def hand(status, name) -> tuple[int, int]:
    player = next(p for p in status["players"] if p["name"] == name)
    return player["hand_min"], player["hand_max"]


def pressed_out(running, presses: int) -> dict:
    """``game/status`` once ``presses`` launches this round are taken in (they are logged as they come)."""
    def taken_in():
        status = running.call("game/status")
        return status if sum(p["presses"] for p in status["players"]) == presses else None
    return wait_until(taken_in, 30, "the launches taken in")


def everyone_down_to_two(running) -> dict:
    """Five red 5s each, in turn: every player of three holds two cards; Ann's move."""
    for _ in range(15):
        status = play(running, "5")
    return status


# ---- what the controller knows of every hand ------------------------------------------------------


@pytest.mark.parametrize("rules", ["attack-mega-hit", "attack-2005", "blast"])
def test_a_player_who_played_one_card_of_seven_is_neither_caught_nor_out(tmp_path, rules):
    with ThreadDaemon(tmp_path, HOPPER) as running:
        (blast if rules == "blast" else attack)(running, rules=rules)
        status = play(running, "5")
        assert status["catchable"] is None and status["catchable_players"] == []
        assert hand(status, "Ann") == (6, 6)
        error = refused(running.call, "game/catch", {"player": "Ann"})
        assert error.message.startswith("Ann holds 6 cards by the count (the 7 dealt, plus the cards that came"
                                        " out for them, less the cards they played): only a player left with"
                                        " one card can be caught")
        error = refused(lambda: play(running, "5", last=True))
        assert error.data["message_object"]["id"] == "last_needs_one"
        assert "Bob holds 7 cards" in error.message
        error = refused(running.call, "game/end-round", {"winner": "Bob", "hands": {"Ann": 30, "Cy": 40}})
        assert error.message.startswith("Bob holds 7 cards by the count")
        assert "Bob cannot have emptied their hand. Record the cards Bob played that were not recorded (the last" \
               " one as the last card), or name the player who played their last card" in error.message
        assert running.call("game/scores")["rounds"] == []


def test_a_hand_of_one_is_caught_wins_and_ends_the_round_on_its_card(tmp_path):
    with ThreadDaemon(tmp_path, HOPPER) as running:
        attack(running, options={"early_stop": "false"})
        everyone_down_to_two(running)
        status = play(running, "5")  # Ann's next-to-last, no Uno
        assert status["catchable"] == "Ann" and hand(status, "Ann") == (1, 1)
        running.call("game/catch", {"player": "Ann"})
        running.call("launcher/launch")  # the penalty's two presses: whatever comes out is Ann's
        running.call("launcher/launch")
        status = pressed_out(running, 2)
        assert hand(status, "Ann")[0] >= 1 and status["turn"] == "Bob", status
        play(running, "5")  # Bob: one left
        play(running, "5")  # Cy: one left
        running.call("launcher/launch")  # Ann presses
        pressed_out(running, 3)
        status = play(running, "5")  # Bob's last: the round ends though --last was not said
        assert status["round_over"] and status["winner"] == "Bob"


def test_a_discard_all_leaves_a_hand_that_may_be_one_card(tmp_path):
    with ThreadDaemon(tmp_path, HOPPER) as running:
        attack(running)
        status = play(running, "discard-all")
        assert hand(status, "Ann") == (1, 6) and status["catchable_players"] == ["Ann"]
        play(running, "5")
        play(running, "5")
        status = play(running, "7", last=True)  # her last red card
        assert status["winner"] == "Ann"


def test_hands_that_cannot_be_are_refused_at_the_end_of_a_round(tmp_path):
    with ThreadDaemon(tmp_path, HOPPER) as running:
        attack(running)
        play(running, "discard-all", last=True)  # Ann lays seven red cards at once
        for hands, said in (
                ({"Bob": 0, "Cy": 40}, "Bob's hand: 0 points, but only the winner emptied their hand and"
                                       " UNO Attack Mega Hit has no 0 card"),
                ({"Bob": "7,7,7,7,7,1,2", "Cy": "7,7,7,7,3,4,5"}, "9 copies of 7 entered, but the"
                                                               " UNO Attack Mega Hit box holds 8"),
                ({"Bob": "7,7", "Cy": 40}, "Bob's hand: 2 cards entered, but Bob holds 7 cards by the count"),
                ({"Bob": 400, "Cy": 40}, "Bob's hand: 400 points is more than the cards can make")):
            ended = running.ctl("game", "end-round", "--winner", "Ann",
                                *(f"{name}={value}" for name, value in hands.items()))
            assert ended.returncode == 1 and said in ended.stderr, ended.stderr
        assert running.call("game/scores")["rounds"] == []
        ended = running.ctl("game", "end-round", "--winner", "Ann", "Bob=7,7,7,7,1,2,3", "Cy=40")
        assert ended.returncode == 0, ended.stderr


def test_a_correction_of_an_ended_round_is_held_to_the_same_hands(tmp_path):
    """game edit-round enters hands too: what end-round refuses, it refuses, against the count of the
    round it corrects (the round in play since holds other hands)."""
    with ThreadDaemon(tmp_path, HOPPER) as running:
        attack(running)
        play(running, "discard-all", last=True)  # Ann lays her seven cards; Bob and Cy hold 7 each
        ended = running.ctl("game", "end-round", "--winner", "Ann", "Bob=7,7,7,7,1,2,3", "Cy=40")
        assert ended.returncode == 0, ended.stderr
        play(running, "5", color="blue")  # round 2 goes on: Bob holds 6 in it
        for hands, said in (
                (["Bob=0"], "Bob's hand: 0 points, but only the winner emptied their hand and UNO Attack Mega Hit"
                            " has no 0 card"),
                (["Cy=7,7,7,7,7,1,2"], "9 copies of 7 entered, but the UNO Attack Mega Hit box holds 8"),
                (["Cy=1,2,3,4,5,6"], "Cy's hand: 6 cards entered, but Cy holds 7 cards by the count")):
            edited = running.ctl("game", "edit-round", "1", *hands)
            assert edited.returncode == 1 and said in edited.stderr, (hands, edited.stderr)
        edited = running.ctl("--lang", "fr", "game", "edit-round", "1", "Cy=7,7,7,7,7,1,2")
        assert edited.returncode == 1 and "9 exemplaires" in edited.stderr, edited.stderr
        assert running.call("game/scores")["rounds"][0]["points"]["Ann"] == 74
        edited = running.ctl("game", "edit-round", "1", "Cy=1,2,3,4,5,6,7")
        assert edited.returncode == 0, edited.stderr
        assert running.call("game/scores")["rounds"][0]["points"]["Ann"] == 62


def test_a_classic_round_is_not_ended_for_a_winner_who_holds_seven(tmp_path):
    with ThreadDaemon(tmp_path, HOPPER) as running:
        classic(running)
        error = refused(running.call, "game/end-round", {"winner": "Ann", "hands": {"Bob": 0, "Cy": 0}})
        assert error.message.startswith("Ann holds 7 cards by the count (the cards the launcher dealt them")


# ---- one catch window -------------------------------------------------------------------------------


def test_presses_owed_for_someone_elses_card_leave_the_catch_window_open(tmp_path):
    with ThreadDaemon(tmp_path, HOPPER) as running:
        attack(running, options={"early_stop": "false"})
        everyone_down_to_two(running)
        play(running, "hit-2")  # Ann's next-to-last card, at Bob
        running.call("launcher/launch")
        running.call("launcher/launch")
        status = pressed_out(running, 2)
        assert status["turn"] == "Cy" and status["catchable"] == "Ann"  # Bob missed his turn
        running.call("game/catch", {"player": "Ann"})


def test_a_wild_draw_four_accepted_or_challenged_leaves_the_window_open(tmp_path):
    with ThreadDaemon(tmp_path, HOPPER) as running:
        for answer in ("accept", "challenge"):
            classic(running, force=True)
            for _ in range(15):
                play(running, "5")
            running.call("game/play", {"card": "wild-draw-four", "color": "blue"})
            running.call(f"game/{answer}")
            status = running.call("game/status")
            assert status["catchable"] == "Ann", answer
            running.call("game/catch", {"player": "Ann"})
            settled(running)  # its cards are out before the next game's deck is loaded


def test_a_player_caught_and_penalised_is_not_caught_again_for_that_card(tmp_path):
    """The penalty's presses (or deal) are no turn, so the window is still open once they are made:
    a second catch is refused for what it is, not as "too late", in both languages."""
    with ThreadDaemon(tmp_path, HOPPER) as running:
        attack(running, options={"early_stop": "false"})
        everyone_down_to_two(running)
        play(running, "5")  # Ann's next-to-last, no Uno
        running.call("game/catch", {"player": "Ann"})
        error = refused(running.call, "game/catch", {"player": "Ann"})
        assert error.message == "Ann was caught already and owes the penalty"
        running.call("launcher/launch")
        running.call("launcher/launch")
        status = pressed_out(running, 2)
        assert status["turn"] == "Bob" and status["catchable"] is None
        error = refused(running.call, "game/catch", {"player": "Ann"})
        assert error.message == "Ann was caught already for that card and has taken the penalty: one catch per card"
        said = running.ctl("--lang", "fr", "game", "catch", "Ann")
        assert said.returncode == 1
        assert "Ann a déjà été pris pour cette carte et a subi la pénalité : une seule prise par carte" in said.stderr
        play(running, "5")  # Bob's turn closes the window
        error = refused(running.call, "game/catch", {"player": "Ann"})
        assert error.message.startswith("too late to catch Ann: the next player has taken their turn since")
    (tmp_path / "classic").mkdir()
    with ThreadDaemon(tmp_path / "classic", HOPPER) as running:
        classic(running)
        for _ in range(15):
            play(running, "5")
        play(running, "5")
        running.call("game/catch", {"player": "Ann"})
        status = settled(running)  # Ann's two cards dealt; Bob has not moved
        assert status["turn"] == "Bob" and [p["hand"] for p in status["players"]] == [3, 2, 2]
        error = refused(running.call, "game/catch", {"player": "Ann"})
        assert error.message == "Ann was caught already for that card and has taken the penalty: one catch per card"


def test_blasts_draw_one_insertion_is_its_victims_turn(tmp_path):
    with ThreadDaemon(tmp_path, HOPPER) as running:
        blast(running)
        everyone_down_to_two(running)
        play(running, "draw-one")
        running.call("game/insert", {"blast": False, "cards": 0})  # "this counts as their turn" (002)
        error = refused(running.call, "game/catch", {"player": "Ann"})
        assert error.message.startswith("too late to catch Ann: the next player has taken their turn since")


# ---- the first card ---------------------------------------------------------------------------------


def test_classic_waits_for_its_first_card_before_any_draw_or_play(tmp_path):
    with ThreadDaemon(tmp_path, HOPPER) as running:
        new_with_deck(running.call, {"rules": "classic", "players": P3, "options": NO_PAUSE})
        status = settled(running)
        assert status["top_card"] is None and status["choices"] == ["turn_up"]
        out = cards_out(running)
        for method, params in (("game/draw", {}), ("game/play", {"card": "5", "color": "red"})):
            error = refused(running.call, method, params)
            assert error.message.startswith("the first card is not turned up yet: nobody plays or draws before"
                                            " it"), error.message
        status = running.call("game/status")
        assert [p["hand"] for p in status["players"]] == [7, 7, 7] and cards_out(running) == out
        shown = running.ctl("game", "status")
        assert ("Ann starts once the first card is turned up: nobody plays, presses or draws before it (at a"
                " terminal: launcherctl dispense 1, launcherctl game turn-up CARD --color C)") in shown.stdout
        shown = running.ctl("--lang", "fr", "game", "status")
        assert ("Ann commence une fois la première carte retournée : personne ne joue, n'appuie ni ne pioche"
                " avant (dans un terminal : launcherctl dispense 1, launcherctl game turn-up") in shown.stdout
        started = new_with_deck(running.call, {"rules": "classic", "players": P3, "options": NO_PAUSE, "force": True})
        said = " ".join(started["messages"])
        assert "after the deal the launcher turns up the first card" not in said
        assert "then have it deal one more card (the page's Turn up button)" in said
        started = running.ctl("game", "new", "--rules", "classic", "--players", "Ann,Bob,Cy", "--option",
                              "deal_pause_s=0", "--force")
        assert ("(at a terminal: launcherctl reload 108; launcherctl dispense 1, launcherctl game turn-up CARD"
                " --color C)") in started.stdout, started


def test_a_turned_up_discard_all_is_discarded_or_pressed(tmp_path):
    with ThreadDaemon(tmp_path, HOPPER) as running:
        attack(running, first_card="discard-all", color="red")
        assert running.call("game/status")["what_now"] == ("Ann: discard all your red cards (the Discard All"
                                                           " turned up), or press the button")
        for card, color in (("5", "blue"), ("wild", "red"), ("hit-2", "blue")):
            error = refused(running.call, "game/play", {"card": card, "color": color})
            assert error.message == ("Discard All turned up: Ann discards the red cards (say the last one laid,"
                                     " with its colour) or presses; no other card"), error.message
        shown = running.ctl("game", "status")
        assert "Ann's move - discard all your red cards (the Discard All turned up) or press" in shown.stdout
        shown = running.ctl("--lang", "fr", "game", "status")
        assert "À Ann - poser toutes ses cartes de couleur rouge (la Poser tout retournée) ou appuyer" in shown.stdout
        played = running.ctl("--lang", "fr", "game", "play", "7", "--color", "rouge")
        assert "Ann pose ses cartes de couleur rouge ; tour fini" in played.stdout, played
        status = running.call("game/status")
        assert status["turn"] == "Bob" and hand(status, "Ann") == (1, 6) and status["owed"] is None
        attack(running, first_card="discard-all")  # its colour not said
        shown = running.ctl("game", "status")
        assert "Ann's move - discard all your cards of the Discard All's colour or press" in shown.stdout
        error = refused(lambda: play(running, "wild"))  # no colour known: a wild is still refused, said
        assert error.message == ("Discard All turned up: Ann discards the cards of its colour (say the last one"
                                 " laid, with its colour) or presses; no wild, no other card"), error.message
        said = running.ctl("--lang", "fr", "game", "play", "wild", "--color", "vert")
        assert "ni joker ni autre carte" in said.stderr, said
        status = play(running, "7", color="green")  # the colour it had, by the card laid on top
        assert status["turn"] == "Bob" and status["color"] == "green"
        attack(running, first_card="discard-all", color="red")
        running.call("launcher/launch")  # or she presses
        status = pressed_out(running, 1)
        assert status["turn"] == "Bob" and status["awaiting"] is None


# ---- Blast's last slot ------------------------------------------------------------------------------


def test_blast_without_a_blaster_fires_on_its_last_empty_slot(tmp_path):
    with ThreadDaemon(tmp_path, HOPPER) as running:
        blast(running)
        for _ in range(3):
            running.call("game/insert", {"blast": False, "cards": 0})
        error = refused(running.call, "game/insert", {"blast": False, "cards": 0})
        assert error.message == ("the blaster holds 3 cards: the last empty slot always fires. Record the"
                                 " blast: Ann takes 4 cards")
        status = running.call("game/insert", {"blast": True, "cards": 4})
        assert status["blaster_cards"] == 0 and hand(status, "Ann") == (11, 11)
        running.call("game/insert", {"blast": False, "cards": 0})  # an empty blaster again


# ---- wording ----------------------------------------------------------------------------------------


def test_the_wording_of_the_third_audit(tmp_path):
    with ThreadDaemon(tmp_path, HOPPER) as running, running.client() as events:
        attack(running, players=["Ann", "Bob"])
        said = play(running, "hit-2")["messages"]
        assert "Ann plays again once Bob has pressed (two players)" in said
        assert "Ann plays again (two players)" not in said
        attack(running, rules="attack-2005", options={"early_stop": "false"})
        play(running, "hit-2")
        running.call("game/hint", {"player": "Cy"})  # Cy's advice: four presses, before Bob's two
        events.call("events/subscribe")
        for _ in range(4):
            running.call("launcher/launch")
        told = next(m["params"]["text"] for m in events.messages() if m.get("event") == "game/message"
                    and m["params"]["message"]["id"] == "then_owes")
        assert told == "then Bob owes 2 presses"
        error = refused(running.call, "game/catch", {"player": "Cy"})
        assert error.message == "Cy has played no card this round: a catch is of the player who played last," \
                                " before the next player takes their turn"


def test_an_undo_says_a_deal_happened_only_where_one_did(tmp_path):
    with ThreadDaemon(tmp_path, HOPPER_SLOW_JAM) as running:
        classic(running)
        running.call("sim/jam")
        play(running, "draw-two")
        jammed_deal(running)  # a card of Bob's two sticks: what is left of his deal waits
        running.call("game/uno", {"player": "Cy"})
        undone = running.call("game/undo")
        assert undone["undone"] == {"type": "uno", "player": "Cy"}
        owed = undone["owed"]["cards"]
        said = [text for text in undone["messages"] if text.startswith("Bob is ")]
        them = "it" if owed == 1 else "them"
        assert said == [f"Bob is still owed {owed} card{'s' if owed > 1 else ''}, not dealt yet: nothing is dealt"
                        f" after an undo. Undo again to take back what caused {them}; a press of the button"
                        f" deals {them}"]  # not "owed again": the undo took back no card of his
        running.call("sim/clear")
