"""A press in a dealer game (classic, Despicable Me 4) is the draw of exactly one card (#24).

Through the socket API of a real launcherd --sim (in a thread) whose ejection profile would fire 6
cards at every press: the game layer tells the core what a press means (``launcher/press-means``),
and the core applies it at the press. While a decision is pending, a press deals nothing and the
table is told what to settle first.
"""

from __future__ import annotations

import asyncio

import pytest

from harness.waits import HANG_S, wait_until

from harness.deck import new_with_deck
from harness.launcherd import ThreadDaemon, game_dies
from controller.layer.service import GameService
from firmware.tools.cli import format_outcome
from test_game_dealer import new, settle, table

P3 = ["Ann", "Bob", "Cy"]
CLASSIC = {"rules": "classic", "players": P3, "options": {"deal_pause_s": "0"}, "first_card": "5", "color": "red"}
# Every press the policy answers fires 6 cards: what a press in a dealer game must never do.
BURSTS = "[sim]\nhopper = 200\n[ejection]\nprofile = \"fixed\"\nsequence = [6]\n"


def dealt(running) -> dict:
    """The status once the opening deal is out and the launcher knows a press is a draw."""
    return running.wait_for(lambda s: s["game"] and s["game"]["owed"] is None and s["dealer"]["current"] is None
                            and s["press_means"] == "cards", timeout=60)


def hands(status) -> dict:
    return {p["name"]: p["hand"] for p in status["game"]["players"]}


def draws(running) -> list[tuple]:
    return [(a["action"]["by"], a["action"]["cards"]) for a in running.call("game/log")["actions"][1:]
            if a["action"]["type"] == "press" and not a["undone"]][3:]  # after the three piles of 7


def test_a_press_in_a_classic_game_is_the_draw_of_exactly_one_card_whatever_the_profile(tmp_path):
    with ThreadDaemon(tmp_path, BURSTS) as running:
        new_with_deck(running.call, CLASSIC)
        status = dealt(running)
        assert (status["press_means"], status["press_cards"], status["press_for"]) == ("cards", 1, "Ann")
        out = status["sim"]["cards_out"]
        presses = status["presses"]

        outcome = running.call("launcher/press")  # the physical button, simulated
        assert (outcome["event"], outcome["outcome"], outcome["cards"]) == ("launched", "draw", 1)
        status = running.wait_for(lambda s: s["game"]["awaiting"] == "play_or_pass")
        assert status["sim"]["cards_out"] == out + 1
        assert status["presses"] == presses + 1  # a person's press, counted as one
        assert hands(status) == {"Ann": 8, "Bob": 7, "Cy": 7}
        assert draws(running) == [("Ann", 1)]

        running.call("game/pass")
        running.wait_for(lambda s: s["press_for"] == "Bob")
        outcome = running.call("launcher/launch")  # a press from software is the same
        assert (outcome["outcome"], outcome["cards"]) == ("draw", 1)
        status = running.wait_for(lambda s: s["game"]["awaiting"] == "play_or_pass")
        assert hands(status) == {"Ann": 8, "Bob": 8, "Cy": 7}
        assert status["sim"]["cards_out"] == out + 2
        assert draws(running) == [("Ann", 1), ("Bob", 1)]


def test_a_press_in_despicable_me_4_is_a_draw_of_one_too(tmp_path):
    with ThreadDaemon(tmp_path, BURSTS) as running:
        new_with_deck(running.call, {**CLASSIC, "rules": "despicable-me-4", "color": "orange"})
        out = dealt(running)["sim"]["cards_out"]
        assert running.call("launcher/press")["cards"] == 1
        status = running.wait_for(lambda s: s["game"]["awaiting"] == "play_or_pass")
        assert status["sim"]["cards_out"] == out + 1 and hands(status)["Ann"] == 8


def test_a_press_while_a_wild_draw_four_waits_deals_nothing_and_names_who_settles_what(tmp_path):
    with ThreadDaemon(tmp_path, BURSTS) as running, running.client() as events:
        events.call("events/subscribe")
        new_with_deck(running.call, CLASSIC)
        dealt(running)
        running.call("game/play", {"card": "wild-draw-four", "color": "blue"})
        status = running.wait_for(lambda s: s["press_means"] == "nothing")
        out, presses = status["sim"]["cards_out"], status["presses"]
        settle = {"id": "press_settles_first",
                  "what": [{"id": "what_now_challenge", "player": "Bob", "cards": 4, "challenged": "Ann"}]}
        assert status["press_reason"] == settle
        assert status["press_reason_text"] == "a press draws no card now: Bob: accept 4 cards, or challenge Ann"

        outcome = running.call("launcher/press")
        assert (outcome["event"], outcome["reason"]) == ("ignored", "decision_pending")
        assert outcome["message_object"] == settle
        assert outcome["message"] == "a press draws no card now: Bob: accept 4 cards, or challenge Ann"
        # launcherctl press says it too, not only "press ignored: decision_pending"
        assert format_outcome(outcome) == "a press draws no card now: Bob: accept 4 cards, or challenge Ann"
        status = running.call("status/get")
        assert (status["sim"]["cards_out"], status["presses"], status["motor"]["on"]) == (out, presses, False)
        assert status["game"]["what_now"] == "Bob: accept 4 cards, or challenge Ann"
        told = next(m["params"]["message"] for m in events.messages()
                    if m.get("event") == "game/message" and m["params"]["message"]["id"] == "press_settles_first")
        assert told == settle

        running.call("game/challenge")
        status = running.wait_for(lambda s: s["press_reason"] and s["press_reason"]["what"][0]["id"]
                                  == "what_now_challenge_result")
        assert running.call("launcher/press")["event"] == "ignored"
        running.call("game/challenge-result", {"result": "illegal"})  # Ann is dealt 4, Bob plays
        status = running.wait_for(lambda s: s["game"]["owed"] is None and s["dealer"]["current"] is None
                                  and s["press_for"] == "Bob")
        assert hands(status) == {"Ann": 10, "Bob": 7, "Cy": 7}
        assert running.call("launcher/press")["cards"] == 1
        running.wait_for(lambda s: s["game"]["awaiting"] == "play_or_pass")
        assert draws(running) == [("Ann", 4), ("Bob", 1)]


def test_minions_counts_pending_say_who_discards(tmp_path):
    with ThreadDaemon(tmp_path, BURSTS) as running:
        new_with_deck(running.call, {**CLASSIC, "rules": "despicable-me-4", "color": "orange"})
        dealt(running)
        running.call("game/play", {"card": "wild-mega-minions", "color": "blue"})
        status = running.wait_for(lambda s: s["press_means"] == "nothing")
        assert status["press_reason"]["what"] == [{"id": "what_now_minions", "players": ["Bob", "Cy"]}]
        assert status["game"]["what_now"] == "Wild Mega Minions Power: say how many cards were discarded by Bob and Cy"
        out = status["sim"]["cards_out"]
        assert running.call("launcher/press")["event"] == "ignored"
        assert running.call("status/get")["sim"]["cards_out"] == out


def test_with_no_dealer_match_a_press_is_the_policys_burst(tmp_path):
    with ThreadDaemon(tmp_path, BURSTS) as running:
        status = running.call("status/get")
        assert (status["press_means"], status["press_cards"], status["press_reason"]) == ("policy", None, None)
        assert running.call("launcher/press")["cards"] == 6
        new_with_deck(running.call, {"rules": "attack-mega-hit", "players": P3})
        assert running.call("status/get")["press_means"] == "policy"
        new_with_deck(running.call, {**CLASSIC, "force": True})
        dealt(running)
        running.call("game/abandon")  # no match at the table: the launcher is a launcher again
        running.wait_for(lambda s: s["press_means"] == "policy")
        assert running.call("launcher/press")["cards"] == 6


def test_a_restarted_launcherd_serves_once_the_game_said_what_a_press_means(tmp_path):
    with ThreadDaemon(tmp_path, BURSTS) as running:
        new_with_deck(running.call, CLASSIC)
        dealt(running)
    with ThreadDaemon(tmp_path, BURSTS) as running:
        # The very first request: the core has the game's meaning before the socket serves.
        status = running.call("status/get")
        assert (status["press_means"], status["press_for"]) == ("cards", "Ann")


def test_a_draw_made_as_the_game_dies_is_attributed_once_when_it_comes_back(tmp_path, monkeypatch, held_restart):
    original = GameService.on_event
    died = []

    def dies_at_the_draw(self, name, params):
        if not died and name == "launched" and params.get("outcome") == "draw":
            died.append(params["seq"])
            game_dies(self.daemon)
        original(self, name, params)

    monkeypatch.setattr(GameService, "on_event", dies_at_the_draw)
    with ThreadDaemon(tmp_path, BURSTS) as running:
        new_with_deck(running.call, CLASSIC)
        dealt(running)
        assert running.call("launcher/press")["cards"] == 1  # heard by the game, which dies
        running.wait_for(lambda s: s["game_layer"]["state"] == "down")
        # The game is away: a press means nothing (never the profile's burst of 6) until it is back.
        status = running.call("status/get")
        assert (status["press_means"], status["press_reason"]) == ("nothing", {"id": "press_game_away"})
        assert running.call("launcher/press")["event"] == "ignored"
        held_restart.set()
        status = running.wait_for(lambda s: s["game_layer"]["state"] == "up" and s.get("game")
                                  and s["game"]["awaiting"] == "play_or_pass", timeout=30)
        assert died and draws(running) == [("Ann", 1)]
        assert hands(status)["Ann"] == 8
        # Caught up on once: a status, an action and another restart add nothing.
        running.call("game/pass")
        running.call("status/get")  # waits for the game to take in everything sent before it
        assert draws(running) == [("Ann", 1)]


def test_between_piles_a_press_ignored_as_pending_hands_the_next_pile_on(tmp_path):
    # Without an aim servo (the simulation always fits one), on the game layer's stand-in launcher.
    async def scenario():
        launcher, service = table(tmp_path)
        service.start(new(deal_pause="press"))
        await settle()
        before = launcher.dispensed()
        meaning = launcher.meanings[-1]
        service.on_event("ignored", {"source": "button", "reason": "decision_pending", "message": "..."})
        await settle()
        return before, meaning, launcher.dispensed()

    before, meaning, after = asyncio.run(scenario())
    assert before == [7] and after == [7, 7]
    assert meaning == {"means": "nothing", "reason": {"id": "press_settles_first", "what": [
        {"id": "what_now_dealt", "player": "Bob", "cards": 7}]}}


def test_a_press_deals_a_deal_an_undo_held(tmp_path):
    with ThreadDaemon(tmp_path, BURSTS) as running:
        new_with_deck(running.call, CLASSIC)
        dealt(running)
        running.call("game/play", {"card": "draw-two", "color": "red"})  # Bob is dealt 2
        running.wait_for(lambda s: s["game"]["owed"] is None and s["dealer"]["current"] is None, timeout=30)
        undone = running.call("game/undo")  # Bob's 2 no longer counted: owed again, held
        assert undone["owed"]["player"] == "Bob"
        status = running.wait_for(lambda s: s["press_means"] == "nothing")
        out = status["sim"]["cards_out"]
        assert running.call("launcher/press")["reason"] == "decision_pending"
        status = running.wait_for(lambda s: s["game"]["owed"] is None and s["dealer"]["current"] is None,
                                  timeout=30)
        assert status["sim"]["cards_out"] == out + 2


def test_a_second_press_while_the_draws_card_comes_out_deals_nothing_more(tmp_path):
    waits = BURSTS + "[timing]\nfeed_timeout_ms = 1500\n"  # longer than a slow card's way out
    with ThreadDaemon(tmp_path, waits) as running, running.client() as events, running.client() as presser:
        new_with_deck(running.call, CLASSIC)
        out = dealt(running)["sim"]["cards_out"]
        running.in_loop(running.daemon.sim.set_feed_rate, 2.0)  # the opening deal was quick; the draw is not
        events.call("events/subscribe")
        presser.send("launcher/launch")  # Ann's draw: its card takes half a second to come out
        running.wait_for(lambda s: s["state"] == "launching")
        assert running.call("launcher/press")["reason"] == "launching"
        said = next(m["params"] for m in events.messages() if m.get("event") == "game/message"
                    and m["params"]["message"]["id"] == "press_while_dealing")
        assert said["message"] == {"id": "press_while_dealing", "player": "Ann"}
        status = running.wait_for(lambda s: s["game"]["awaiting"] == "play_or_pass", timeout=30)
        assert status["sim"]["cards_out"] == out + 1 and hands(status)["Ann"] == 8


def test_at_start_a_press_means_nothing_until_the_game_layer_says_what_it_means(tmp_path, monkeypatch):
    import threading

    opened = threading.Event()
    release = threading.Event()
    original = GameService.open

    def slow_open(self):  # a long log being replayed at start
        opened.set()
        release.wait(HANG_S)
        original(self)

    monkeypatch.setattr(GameService, "open", slow_open)
    starting = ThreadDaemon(tmp_path, BURSTS)
    starting._thread.start()
    try:
        assert starting._ready.wait(HANG_S)  # launcherd serves at once: it never waits for the game
        starting.start_game(wait=False)
        assert opened.wait(HANG_S)
        status = starting.call("status/get")
        assert (status["press_means"], status["press_reason"]) == ("nothing", {"id": "press_game_starting"})
        assert starting.call("launcher/press")["event"] == "ignored"  # taken as nothing while the game sets up
        status = starting.call("status/get")
        assert (status["presses"], status["cards_ejected"], status["motor"]["on"]) == (0, 0, False)
        release.set()
        starting.wait_for_game()
        starting.wait_for(lambda s: s["press_means"] == "policy")  # no match at the table
    finally:
        release.set()
        starting.__exit__(None, None, None)


def test_a_game_that_fails_to_set_up_leaves_the_launcher_a_launcher_whose_press_means_nothing(tmp_path, monkeypatch):
    def broken(self):
        raise RuntimeError("a broken game layer")

    monkeypatch.setattr(GameService, "open", broken)
    starting = ThreadDaemon(tmp_path, BURSTS)
    starting._thread.start()
    try:
        assert starting._ready.wait(HANG_S)
        game = starting.start_game(wait=False)
        wait_until(lambda: game.exit_code is not None, what="the game's failed start")
        status = starting.call("status/get")
        assert status["game_layer"]["state"] != "up" and status["press_means"] == "nothing"
        assert starting.call("launcher/press")["event"] == "ignored"  # never a burst nobody asked
        assert starting.call("launcher/dispense", {"count": 2})["cards"] == 2  # the launcher works
    finally:
        starting.__exit__(None, None, None)


def test_a_finished_dealer_match_deals_nothing_at_a_press_and_says_to_start_a_new_game(tmp_path):
    with ThreadDaemon(tmp_path, BURSTS) as running:
        new_with_deck(running.call, {**CLASSIC, "target": 10})
        dealt(running)
        for _ in range(19):  # six red 3s each, then Ann's last card (a winner empties their hand, #39)
            running.call("game/play", {"card": "3", "color": "red"})
        running.call("game/end-round", {"winner": "Ann", "hands": {"Bob": 30, "Cy": 0}})
        status = running.call("status/get")
        assert status["game"]["match"]["match_over"] and status["press_means"] == "nothing"
        assert status["press_reason_text"] == "a press draws no card now: Ann won the match: start a new game"
        out = status["sim"]["cards_out"]
        assert running.call("launcher/press")["reason"] == "decision_pending"
        assert running.call("status/get")["sim"]["cards_out"] == out
