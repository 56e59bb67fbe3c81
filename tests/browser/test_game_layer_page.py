"""The page's banner when launcherd's game layer is not up (status/get's ``game_layer``, the helpers'
shared contract): a real launcher-web process and headless Chromium, against a stand-in for
launcherd whose game layer is down, then starting, then up."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest

from stack import free_port, wait_until
from test_table_page import ARTIFACTS, CHROMIUM, TIMEOUT_MS, browser_context, shot  # noqa: F401

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"{CHROMIUM} is absent (apt install chromium)")
REASON = {"id": "log_not_open", "path": "/var/lib/card-launcher/game.sqlite"}


class LayerDaemon:
    """Answers status/get with a launcher that is ready and a game layer in ``self.layer``."""

    def __init__(self, path: Path):
        self.path = path
        self.layer = {"state": "down", "reason": "the game log is not open", "reason_object": REASON}
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
            if request["method"] == "events/subscribe":
                reply = {"result": {"subscribed": True}}
            elif request["method"] == "status/get":
                status = {"state": "ready", "hopper": 80, "reason": None, "daemon": {"sim": True},
                          "game_layer": dict(self.layer)}
                if self.layer["state"] == "up":
                    status["game"] = None
                reply = {"result": status}
            else:
                reply = {"error": {"code": 3, "message": "the game layer is not up"}}
            writer.write(json.dumps({"id": request["id"], **reply}).encode() + b"\n")
            await writer.drain()

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)


@pytest.fixture
def page_on_a_layer_that_is_down():
    directory = Path(tempfile.mkdtemp(prefix="web-layer-", dir="/tmp"))
    daemon = LayerDaemon(directory / "launcher.sock")
    port = free_port()
    web = subprocess.Popen([sys.executable, "-m", "controller.web.server", "--socket", str(daemon.path),
                            "--listen", f"127.0.0.1:{port}"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        import urllib.request

        def answers() -> bool:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=5) as response:
                    return response.status == 200
            except OSError:
                return False
        wait_until(answers, 15, "launcher-web never answered")
        yield daemon, f"http://127.0.0.1:{port}"
    finally:
        web.kill()
        web.wait(10)
        daemon.close()
        shutil.rmtree(directory, ignore_errors=True)


def test_a_game_layer_that_is_not_up_is_a_banner_with_its_reason_in_the_pages_language(
        page_on_a_layer_that_is_down, browser_context):  # noqa: F811
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
