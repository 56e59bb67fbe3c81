"""The press rule's keeper (firmware/daemon/keeper.py, issue #36) holds what a game bug asks.

The game of these tests has its bugs of the attack back (the hold an undo left is dropped by
``game uno``; a resumed match deals at once), put in with monkeypatch on a launcherd --sim in a
thread; the keeper, on the motor's side of the door, still holds the deal for a press, and says
after what. Then the keeper's judgement itself, case by case.
"""

from __future__ import annotations

import pytest

from controller.layer import service as game_service
from firmware.daemon.keeper import PressKeeper
from harness.launcherd import ThreadDaemon
from test_press_rule import SLOW, ctl, ctl_classic, dealt, draw_two_undone, settled


def held_after(status: dict) -> dict:
    current = status["dealer"]["current"]
    assert current is not None and current["state"] == "waiting_press", current
    assert status["motor"]["on"] is False and status["pending"] is not None
    return status["pending"]["after"]


def test_a_game_that_deals_after_an_unrelated_action_is_held_for_a_press(tmp_path, monkeypatch):
    act = game_service.GameService.act

    def clearing_the_hold(self, action, outcome_seq=None):  # the bug of finding 1: any action lets
        self._deal_held = False                             # a held deal go on
        return act(self, action, outcome_seq)

    monkeypatch.setattr(game_service.GameService, "act", clearing_the_hold)
    with ThreadDaemon(tmp_path) as running:
        socket = running.daemon.socket_path
        ctl_classic(socket)
        dealt(running.call)
        out = draw_two_undone(socket, running.call)
        ctl(socket, "game", "uno", "Ann")
        status = settled(running.call)
        assert held_after(status) == {"id": "after_unrelated"} and status["sim"]["cards_out"] == out
        assert status["pending_text"].startswith("nothing at the table asked for these cards: press the button")
        assert running.call("launcher/press")["event"] == "resume"
        assert dealt(running.call)["sim"]["cards_out"] == out + 2


def test_a_game_that_deals_a_resumed_match_at_once_is_held_for_a_press(tmp_path, monkeypatch):
    resume_match = game_service.GameService.resume_match

    def dealing_at_once(self, match_id):  # the bug of finding 2
        reply = resume_match(self, match_id)
        self._deal_held = False
        self._follow_deals()
        return reply

    monkeypatch.setattr(game_service.GameService, "resume_match", dealing_at_once)
    with ThreadDaemon(tmp_path, SLOW) as running:
        from test_press_rule import _abandoned_mid_deal

        match = _abandoned_mid_deal(running.daemon.socket_path, running.call)
        out = settled(running.call)["sim"]["cards_out"]
        ctl(running.daemon.socket_path, "game", "resume", str(match))
        status = settled(running.call)
        assert held_after(status) == {"id": "after_resume"} and status["sim"]["cards_out"] == out
        french = running.call("status/get", lang="fr")["pending_text"]
        assert french.startswith("une partie a été reprise"), french


# ---- the judgement -------------------------------------------------------------------------------


def test_an_action_whose_effect_is_a_deal_moves_and_an_unrelated_one_does_not():
    keeper = PressKeeper()
    keeper.started()
    new = keeper.request("game/new")
    uno = keeper.request("game/uno")
    assert keeper.judge(new) is None
    assert keeper.judge(uno) == "unrelated"
    assert keeper.judge(None) == "unrelated"


@pytest.mark.parametrize("method, after", [("game/undo", "undo"), ("game/resume", "resume"),
                                           ("game/abandon", "abandon"), ("game/repair", "repair")])
def test_an_interruption_ends_every_cause_before_it_and_is_no_cause_itself(method, after):
    keeper = PressKeeper()
    play = keeper.request("game/play")
    press = keeper.event("resume", {"source": "button"})
    interruption = keeper.request(method)
    assert keeper.judge(play) == after and keeper.judge(press) == after and keeper.judge(interruption) == after
    later = keeper.request("game/accept")
    assert keeper.judge(later) is None, "an action after the interruption is fresh"


def test_a_press_after_an_interruption_answers_what_was_pending_not_what_comes_after():
    keeper = PressKeeper()
    deal = keeper.started()  # the setup's deal of what the log owes
    assert keeper.judge(deal) == "restart"
    keeper.event("launched", {"source": "dispense"})  # a run of a dispense: no press
    assert keeper.judge(deal) == "restart"
    keeper.event("resume", {"source": "button"})
    assert keeper.judge(deal) is None, "the rest of the deal goes on, pile after pile"
    uno = keeper.request("game/uno")
    assert keeper.judge(uno) == "unrelated", "a press answers only what came before it"
    keeper.event("halted", {"reason": "estop"})
    assert keeper.judge(deal) == "reset", "a halt ends it again: a reset is no press"
    assert keeper.started() and keeper.judge(deal) == "layer_restart"


def test_which_launcher_events_are_a_persons_press():
    keeper = PressKeeper()
    keeper.started()
    for name, params, press in [
            ("resume", {"source": "api"}, True),
            ("ignored", {"source": "button", "reason": "decision_pending"}, True),
            ("ignored", {"source": "button", "reason": "launching"}, False),
            ("ignored", {"source": "dispense", "reason": "decision_pending"}, False),
            ("launched", {"source": "button"}, True), ("launched", {"source": "api"}, True),
            ("launched", {"source": "dispense"}, False), ("state", {"state": "ready"}, False)]:
        cause = keeper.event(name, params)
        assert (cause.kind == "press") is press, (name, params)
