"""A game layer that dies mid-deal loses no card of it (#19): each run of the deal's dispense is
logged from its launch outcome (with its seq), and a restarted layer catches up on the runs it did
not log, counted for the deal owed, each once; then it deals only what is still owed, after a
person's press (#20)."""

from __future__ import annotations

import pytest

from harness.deck import new_with_deck
from harness.launcherd import ThreadDaemon, game_dies
from controller.layer.service import GameService

P3 = ["Ann", "Bob", "Cy"]
CLASSIC = {"rules": "classic", "players": P3, "options": {"deal_pause_s": "0"}, "first_card": "5", "color": "red"}


def die_at_first(monkeypatch, wanted) -> None:
    """The game layer's loop raises out at the first launcher event ``wanted(name, params)`` picks."""
    original = GameService.on_event
    died = []

    def listener(self, name, params):
        if not died and wanted(name, params):
            died.append(name)
            game_dies(self.daemon)
        original(self, name, params)

    monkeypatch.setattr(GameService, "on_event", listener)


def deals(running) -> list[tuple]:
    return [(a["action"]["by"], a["action"]["cards"]) for a in running.call("game/log")["actions"]
            if a["action"]["type"] == "press"]


def layer_up_again(running, held_restart) -> None:
    running.wait_for(lambda s: s["game_layer"]["state"] == "down")
    held_restart.set()
    running.wait_for(lambda s: s["game_layer"]["state"] == "up")


def test_a_game_layer_that_dies_mid_deal_catches_up_on_its_cards_once(tmp_path, monkeypatch, held_restart):
    die_at_first(monkeypatch, lambda name, params: name == "launched" and params.get("source") == "dispense")
    with ThreadDaemon(tmp_path, "[sim]\nhopper = 200\n") as running:
        new_with_deck(running.call, CLASSIC)  # Ann's 7 come out; the layer dies as it hears them
        layer_up_again(running, held_restart)
        status = running.wait_for(lambda s: s["pending"] is not None, timeout=30)  # the rest waits
        # What came out while the game was away (Ann's pile, and Bob's if the dead game had asked
        # it already) is caught up on from the outcome record, each card once.
        status = running.wait_for(lambda s: s["pending"] is not None and not s["motor"]["on"])
        logged = deals(running)
        assert logged[0] == ("Ann", 7) and sum(cards for _, cards in logged) == status["sim"]["cards_out"]
        assert running.call("launcher/press")["event"] == "resume"
        status = running.wait_for(lambda s: s["game"]["owed"] is None and s["dealer"]["current"] is None,
                                  timeout=60)
        assert [p["cards_taken"] for p in status["game"]["players"]] == [7, 7, 7]
        assert status["sim"]["cards_out"] == 21


def test_a_dispense_left_running_by_a_dead_layer_is_cancelled_and_its_cards_counted_once(
        tmp_path, monkeypatch, held_restart):
    slow = "[sim]\nhopper = 200\ncards_per_second = 2.0\n[timing]\nfeed_timeout_ms = 1500\n"
    die_at_first(monkeypatch, lambda name, params: name == "card")  # Ann's first card: her pile goes on
    with ThreadDaemon(tmp_path, slow) as running:
        new_with_deck(running.call, CLASSIC)
        layer_up_again(running, held_restart)  # while Ann's dispense still runs: the new layer cancels it
        status = running.wait_for(lambda s: s["pending"] is not None, timeout=30)
        first = status["sim"]["cards_out"]
        assert 0 < first < 7 and deals(running) == [("Ann", first)]
        assert status["game"]["owed"] == {**status["game"]["owed"], "player": "Ann", "cards": 7 - first}
        running.in_loop(running.daemon.sim.set_feed_rate, 200.0)  # what is left of the deal, quickly
        running.call("launcher/resume")
        status = running.wait_for(lambda s: s["game"]["owed"] is None and s["dealer"]["current"] is None,
                                  timeout=60)
        assert [p["cards_taken"] for p in status["game"]["players"]] == [7, 7, 7]
        assert status["sim"]["cards_out"] == 21
