"""The demo's screen follows every change, also those that emit no event."""

from __future__ import annotations

import asyncio
import io
import subprocess
import sys

from conftest import ThreadDaemon


class Screen(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_screen_shows_the_reloaded_hopper_without_another_event(tmp_path):
    from firmware.demo import DemoView

    with ThreadDaemon(tmp_path, "[sim]\nhopper = 40\n") as running:
        screen = Screen()
        view = DemoView(running.daemon, out=screen)
        running.in_loop(running.daemon.subscribe, view.on_event)
        running.call("launcher/dispense", {"count": 3})
        running.in_loop(view.on_key, "r")
        running.wait_for(lambda s: s["hopper"] == 40)
        running.in_loop(lambda: None)  # the request's done callback has run by the next turn
        last = screen.getvalue().rsplit("\x1b[H", 1)[-1]
    assert "hopper    40 (estimate)" in last


def test_demo_and_daemon_do_not_import_each_other():
    code = "import firmware.demo, sys; print('firmware.daemon' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"


def test_the_screen_shows_the_table_page_with_its_join_code_and_how_to_refill(tmp_path, monkeypatch):
    from firmware.demo import DemoView

    monkeypatch.setenv("LAUNCHER_WEB_URL", "http://127.0.0.1:8080/")
    monkeypatch.setenv("LAUNCHER_DEMO_VOICE", "voice: silent, no sound card")
    config = '[sim]\nhopper = 0\n[ejection]\nprofile = "fixed"\nsequence = [3]\n[timing]\nfeed_timeout_ms = 200\n'
    with ThreadDaemon(tmp_path, config) as running:
        screen = Screen()
        view = DemoView(running.daemon, out=screen)
        running.in_loop(running.daemon.subscribe, view.on_event)
        running.in_loop(view.fetch_join_code)
        code = running.call("game/code")["code"]
        running.call("launcher/launch")  # nothing in the hopper: the launcher says it is empty
        running.wait_for(lambda s: s["state"] == "empty")
        running.in_loop(view.draw)
        last = screen.getvalue().rsplit("\x1b[H", 1)[-1]
    assert f"table page: http://127.0.0.1:8080/   join code {code}" in last
    assert "l twice (lid open, lid closed)" in last
    assert "  voice: silent, no sound card" in last  # what make demo found about its voice
