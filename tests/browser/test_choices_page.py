"""The page uses game/status's ``choices`` and ``what_now`` when launcherd says them (issue #24: the
game side may list the actions legal now): a real launcher-web process and headless Chromium against
a stand-in for launcherd whose classic game lists only ``draw`` and says its own "what now"."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import urllib.request
from pathlib import Path

import pytest

from controller.rules.ruledoc import rules_data
from stack import free_port, wait_until
from test_table_page import CHROMIUM, TIMEOUT_MS, browser_context, expect_text, shot  # noqa: F401

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"{CHROMIUM} is absent (apt install chromium)")

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


class ChoicesDaemon:
    """Answers status/get and game/status with :data:`GAME`, game/rules with the real rules."""

    def __init__(self, path: Path):
        self.path = path
        self.loop = asyncio.new_event_loop()
        self.started = threading.Event()
        threading.Thread(target=self._run, daemon=True).start()
        self.started.wait(10)

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_until_complete(asyncio.start_unix_server(self._serve, str(self.path)))
        self.started.set()
        self.loop.run_forever()

    async def _serve(self, reader, writer) -> None:
        while line := await reader.readline():
            request = json.loads(line)
            method = request["method"]
            if method == "events/subscribe":
                reply = {"result": {"subscribed": True}}
            elif method == "status/get":
                reply = {"result": {"state": "ready", "hopper": 80, "reason": None, "daemon": {"sim": True},
                                    "device": "launcher", "pending": None, "game": GAME}}
            elif method == "game/status":
                reply = {"result": GAME}
            elif method == "game/rules":
                reply = {"result": rules_data(None)}
            elif method == "game/history":
                reply = {"result": []}
            else:
                reply = {"error": {"code": 3, "message": f"{method} is not in this stand-in"}}
            writer.write(json.dumps({"id": request["id"], **reply}).encode() + b"\n")
            await writer.drain()

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)


@pytest.fixture
def page_on_a_daemon_with_choices():
    directory = Path(tempfile.mkdtemp(prefix="web-choices-", dir="/tmp"))
    daemon = ChoicesDaemon(directory / "launcher.sock")
    port = free_port()
    web = subprocess.Popen([sys.executable, "-m", "controller.web.server", "--socket", str(daemon.path),
                            "--listen", f"127.0.0.1:{port}"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        def answers() -> bool:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=5) as response:
                    return response.status == 200
            except OSError:
                return False
        wait_until(answers, 15, "launcher-web never answered")
        yield f"http://127.0.0.1:{port}"
    finally:
        web.kill()
        web.wait(10)
        daemon.close()
        shutil.rmtree(directory, ignore_errors=True)


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
