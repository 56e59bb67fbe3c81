"""The page uses game/status's ``choices`` and ``what_now`` when launcherd says them (issue #24: the
game side may list the actions legal now): a real launcher-web process and headless Chromium against
a stand-in for launcherd whose classic game lists only ``draw`` and says its own "what now"."""

from __future__ import annotations

import pytest

from controller.rules.ruledoc import rules_data
from harness.browser import TIMEOUT_MS, expect_text, shot
from harness.web import Stack, StandIn

GAME = {
    "ruleset": "classic", "device": "dealer", "round": 1, "dealer": "Cy", "turn": "Bob", "aim": "Bob",
    "players": [{"name": n, "seat": i, "cards_taken": 7, "presses": 0, "hand": 7} for i, n in enumerate(["Ann", "Bob", "Cy"])],
    "direction": "clockwise", "owed": None, "queue": [], "awaiting": None, "top_card": "5", "color": "red",
    "catchable": None, "colors": ["red", "yellow", "green", "blue"], "uno_called": [], "round_over": False,
    "winner": None, "options": {}, "first_card": "5", "match_id": 1,
    "match": {"scoring": "standard", "target": 500, "totals": {"Ann": 0, "Bob": 0, "Cy": 0}, "match_over": False,
              "winner": None, "players": ["Ann", "Bob", "Cy"], "rounds_played": 0},
    "reload_advice": None,
    "choices": ["draw", "uno"],
    "what_now": {"text": "Bob: nothing to play on the red 5, draw a card"},
}


class ChoicesDaemon(StandIn):
    """Answers status/get and game/status with :data:`GAME`, game/rules with the real rules."""

    def answer(self, method: str, params: dict) -> dict:
        if method == "status/get":
            return {"result": {"state": "ready", "hopper": 80, "reason": None, "daemon": {"sim": True},
                               "device": "launcher", "pending": None, "game": GAME}}
        if method == "game/status":
            return {"result": GAME}
        if method == "game/rules":
            return {"result": rules_data(None)}
        if method == "game/history":
            return {"result": []}
        return {"error": {"code": 3, "message": f"{method} is not in this stand-in"}}


@pytest.fixture
def page_on_a_daemon_with_choices():
    web = Stack()
    daemon = ChoicesDaemon(web.socket)
    try:
        web.start_web()
        yield web.url
    finally:
        web.close()
        daemon.close()


def test_the_page_offers_only_the_choices_launcherd_lists(page_on_a_daemon_with_choices, browser_context):
    from playwright.sync_api import expect

    page = browser_context.new_page()
    page.goto(page_on_a_daemon_with_choices + "/")
    expect_text(page, "#now-what", "^nothing to play on the red 5, draw a card$")  # launcherd's words
    expect_text(page, "#now-who", "^Bob$")
    expect(page.locator("#draw")).to_be_visible(timeout=TIMEOUT_MS)
    # In a dealer game a draw is also the button's press (the simulated button, on the sim).
    expect(page.locator("#press")).to_be_visible()
    assert page.locator("#cards button").count() == 0  # "play" is not listed
    for hidden in ("#pass", "#accept", "#challenge", "#turn-up", "#catch"):
        expect(page.locator(hidden)).to_be_hidden()
    expect(page.locator("#uno")).to_be_visible()
    shot(page, "43-choices-from-launcherd")
