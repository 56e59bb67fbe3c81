"""The page's banner when launcherd's game layer is not up (status/get's ``game_layer``, the helpers'
shared contract): a real launcher-web process and headless Chromium, against a stand-in for
launcherd whose game layer is down, then starting, then up."""

from __future__ import annotations

import re

import pytest

from harness.browser import TIMEOUT_MS, shot
from harness.web import Stack, StandIn

REASON = {"id": "log_not_open", "path": "/var/lib/card-launcher/game.sqlite"}


class LayerDaemon(StandIn):
    """Answers status/get with a launcher that is ready and a game layer in ``self.layer``."""

    def __init__(self, path):
        self.layer = {"state": "down", "reason": "the game log is not open", "reason_object": REASON}
        super().__init__(path)

    def answer(self, method: str, params: dict) -> dict:
        if method != "status/get":
            return {"error": {"code": 3, "message": "the game layer is not up"}}
        status = {"state": "ready", "hopper": 80, "reason": None, "daemon": {"sim": True},
                  "game_layer": dict(self.layer)}
        if self.layer["state"] == "up":
            status["game"] = None
        return {"result": status}


@pytest.fixture
def page_on_a_layer_that_is_down():
    web = Stack()
    daemon = LayerDaemon(web.socket)
    try:
        web.start_web()
        yield daemon, web.url
    finally:
        web.close()
        daemon.close()


def test_a_game_layer_that_is_not_up_is_a_banner_with_its_reason_in_the_pages_language(
        page_on_a_layer_that_is_down, browser_context):
    from playwright.sync_api import expect

    daemon, url = page_on_a_layer_that_is_down
    page = browser_context.new_page()
    page.goto(url + "/")
    banner = page.locator("#game-layer")
    page.click("[data-lang=fr]")
    expect(banner).to_have_text(re.compile(
        r"le jeu n'est pas disponible : le journal de jeu /var/lib/card-launcher/game.sqlite n'est pas ouvert"),
        timeout=TIMEOUT_MS)
    shot(page, "20-game-layer-down-fr")
    page.click("[data-lang=en]")
    expect(banner).to_have_text(re.compile(r"the game is not available: the game log .* is not open"),
                                timeout=TIMEOUT_MS)
    daemon.layer = {"state": "starting", "reason": None, "reason_object": None}
    page.reload()
    expect(banner).to_have_text(re.compile(r"the game is starting"), timeout=TIMEOUT_MS)
    daemon.layer = {"state": "up", "reason": None, "reason_object": None}
    page.reload()
    expect(banner).to_be_hidden(timeout=TIMEOUT_MS)
    expect(page.locator("#turn-name")).to_have_text(re.compile("No game"), timeout=TIMEOUT_MS)
