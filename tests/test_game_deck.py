"""A dealer game deals from its own deck only (#40): while the hopper does not hold the whole deck
(the launcher's count is not the deck's size, or is unknown), the opening deal waits for it, says
what to load (status ``load_deck``), and a person's press once it is loaded deals it. Loading the
deck never starts a deal by itself (the press rule, firmware/daemon/keeper.py).

Through the socket API and launcherctl of a real launcherd --sim (in a thread).
"""

from __future__ import annotations

import json

import pytest

from firmware.errors import ApiError

from harness.launcherd import ThreadDaemon

P3 = ["Ann", "Bob", "Cy"]
CLASSIC = {"rules": "classic", "players": P3, "options": {"deal_pause_s": "0"}, "first_card": "5", "color": "red"}


def dealt_cards(running) -> int:
    return sum(a["action"]["cards"] for a in running.call("game/log")["actions"]
               if a["action"]["type"] == "press" and not a["undone"])


def test_a_classic_game_after_an_attack_game_asks_for_its_deck_and_deals_at_the_press_after_the_reload(tmp_path):
    with ThreadDaemon(tmp_path) as running, running.events() as events:
        running.call("launcher/reload", {"cards": 90})  # what an UNO Attack game left in the hopper
        reply = running.call("game/new", CLASSIC)
        assert reply["load_deck"] == {"cards": 108, "hopper": 90}
        load = ("load the deck before the deal: the whole shuffled deck, 108 cards, in the hopper (it holds 90"
                " now) and tell the launcher so; then press the button to deal")
        assert load in reply["messages"]  # a message of its own, not the tail of another
        assert {"id": "load_deck", "deck": 108, "hopper": 90} in reply["message_objects"]
        status = running.call("status/get")
        assert status["game"]["what_now"] == load
        assert (status["press_means"], status["press_reason"]) == ("nothing", {"id": "press_deals_deck", "deck": 108})
        assert (status["sim"]["cards_out"], status["dealer"]["current"]) == (0, None)

        # A press before the deck is in: nothing moves, and the table hears again what to load.
        outcome = running.call("launcher/press")
        assert (outcome["event"], outcome["reason"]) == ("ignored", "decision_pending")
        events.wait_for("game/message", lambda p: p["message"] == {"id": "load_deck", "deck": 108, "hopper": 90})
        assert running.call("status/get")["sim"]["cards_out"] == 0

        # The deck loaded: still nothing moves (a reload is no press) ...
        running.call("launcher/reload", {"cards": 108})
        status = running.call("game/status")
        assert status["load_deck"] == {"cards": 108, "hopper": 108}  # still waiting for the press
        status = running.call("status/get")
        assert (status["sim"]["cards_out"], status["dealer"]["current"], status["motor"]["on"]) == (0, None, False)
        # ... until a person presses: the opening deal, 7 to each seat.
        assert running.call("launcher/press")["event"] == "ignored"
        status = running.wait_for(lambda s: s["game"]["owed"] is None and s["dealer"]["current"] is None)
        assert status["hopper"] == 108 - 21 and status["game"]["load_deck"] is None
        assert dealt_cards(running) == 21


def test_a_deck_already_loaded_is_dealt_at_once_and_an_unknown_count_is_asked_for(tmp_path):
    with ThreadDaemon(tmp_path) as running:
        running.call("launcher/reload", {"cards": 112})
        reply = running.call("game/new", {**CLASSIC, "rules": "despicable-me-4", "color": "orange"})
        assert reply["load_deck"] is None  # the 112 cards of Despicable Me 4 are in: dealt as asked
        running.wait_for(lambda s: s["game"]["owed"] is None and s["dealer"]["current"] is None)
        assert dealt_cards(running) == 21

        running.call("launcher/reload", {"cards": 112})
        reply = running.call("game/new", {**CLASSIC, "force": True})  # classic's deck is 108, not 112
        assert reply["load_deck"] == {"cards": 108, "hopper": 112}
        assert running.call("status/get")["dealer"]["current"] is None


def test_launcherctl_game_new_wait_says_to_load_the_deck_and_a_press_after_the_reload_deals(tmp_path):
    with ThreadDaemon(tmp_path) as running:
        running.ctl("reload", "90", check=True)
        new = running.ctl("game", "new", "--rules", "classic", "--players", "Ann,Bob,Cy",
                          "--option", "deal_pause_s=0", "--wait")  # answers at once: nothing to wait for yet
        assert new.returncode == 0, new.stderr
        assert "load the deck before the deal: the whole shuffled deck, 108 cards" in new.stdout
        shown = running.ctl("game", "status", check=True).stdout
        assert "108 cards, in the hopper (it holds 90 now)" in shown and "launcherctl reload 108; launcherctl press" in shown
        assert json.loads(running.ctl("game", "status", "--json", check=True).stdout)["load_deck"] == {
            "cards": 108, "hopper": 90}

        running.ctl("reload", "108", check=True)
        running.ctl("press", check=True)  # the person's press: the deal starts
        status = running.wait_for(lambda s: s["game"]["owed"] is None and s["dealer"]["current"] is None)
        assert status["hopper"] == 108 - 21
        french = running.call("game/status", lang="fr")
        assert french["load_deck"] is None and "paquet" not in french["what_now"]


def test_a_deal_waiting_for_its_deck_still_waits_after_the_game_restarts(tmp_path):
    with ThreadDaemon(tmp_path) as running:
        running.call("launcher/reload", {"cards": 90})
        assert running.call("game/new", CLASSIC)["load_deck"] == {"cards": 108, "hopper": 90}
        running.stop_game()
        running.start_game()  # a restart of the game process: nothing it asked is dealt by itself
        status = running.call("game/status")
        assert status["load_deck"] == {"cards": 108, "hopper": 90}
        assert running.call("status/get")["dealer"]["current"] is None
        assert running.call("launcher/press")["event"] == "ignored"  # the deck is not in yet
        assert running.call("status/get")["sim"]["cards_out"] == 0
        running.call("launcher/reload", {"cards": 108})
        running.call("launcher/press")
        status = running.wait_for(lambda s: s["game"]["owed"] is None and s["dealer"]["current"] is None)
        assert status["hopper"] == 108 - 21 and dealt_cards(running) == 21


def test_an_undo_while_the_deal_waits_for_its_deck_leaves_it_waiting(tmp_path):
    with ThreadDaemon(tmp_path) as running:
        running.call("launcher/reload", {"cards": 90})
        running.call("game/new", CLASSIC)
        running.call("game/uno", {"player": "Ann"})
        undone = running.call("game/undo")
        assert undone["load_deck"] == {"cards": 108, "hopper": 90}
        assert running.call("launcher/press")["event"] == "ignored"  # not the deal: the deck is not in
        with pytest.raises(ApiError) as refused:  # nor a draw, a card of the wrong deck
            running.call("game/draw")
        assert refused.value.data["message_object"] == {"id": "load_deck", "deck": 108, "hopper": 90}
        status = running.call("status/get")
        assert (status["sim"]["cards_out"], status["dealer"]["current"]) == (0, None)
