"""A full disk under the game log (issue 22): real launcherd --sim and launcher-web processes with
the state dir on a 3 MB tmpfs, filled up while a match is played."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import aiohttp
import pytest

from harness.waits import HANG_S, Lines, wait_until
from harness.web import Stack

from firmware.client import Client  # noqa: E402

LAUNCHERCTL = str(Path(sys.executable).with_name("launcherctl"))
ROOT = Path(__file__).resolve().parents[1]
FOUR = {"rules": "attack-mega-hit", "players": ["Ann", "Bob", "Cy", "Dee"]}


def _small_disk() -> Path:
    """A 3 MB tmpfs; mounting one needs root (CI runs as root), or the test cannot be made."""
    if os.geteuid() != 0:
        pytest.skip("mounting a 3 MB tmpfs for the state dir needs root (CI runs the suite as root)")
    mount = Path(tempfile.mkdtemp(prefix="full-disk-", dir="/tmp"))
    result = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", str(mount)],
                            capture_output=True, text=True)
    if result.returncode:
        mount.rmdir()
        pytest.skip(f"cannot mount a tmpfs here ({result.stderr.strip()}): a container without CAP_SYS_ADMIN")
    return mount


@pytest.fixture
def full():
    mount = _small_disk()
    stack = Stack()
    stack.state_dir = mount / "state"
    voice = None
    try:
        stack.start()
        # launcher-voice beside them, printing what it says: the table hears of the full disk too.
        voice = subprocess.Popen(
            [sys.executable, "-m", "controller.voice.service", "--mute", "--lang", "en", "--verbosity", "quiet",
             "--socket", str(stack.socket), "--max-age", "30"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
        stack.said = Lines(voice.stdout)
        Lines(voice.stderr).wait_for("listening to launcherd")
        yield stack, mount
    finally:
        if voice is not None:
            voice.terminate()
            voice.wait(10)
        stack.close()
        # launcherd --sim was killed: its game process ends on its own a moment later (the
        # parent's death signal), and holds the mount (its log there) until it has.
        wait_until(lambda: subprocess.run(["umount", str(mount)], capture_output=True).returncode == 0,
                   HANG_S, "the small disk unmounted (the game process gone)", 0.05)
        mount.rmdir()


def _fill(mount: Path) -> Path:
    """Fill the disk to the last byte, with a file that can be taken away again."""
    filler = mount / "filler"
    with open(filler, "wb", buffering=0) as out:
        try:
            while out.write(bytes(4096)):
                pass
        except OSError:
            pass
    return filler


def test_a_full_disk_is_told_at_once_and_a_press_is_reported_not_recorded(full):
    stack, mount = full
    code = stack.code()
    assert stack.post("/api/game/new", FOUR, code)[0] == 200
    assert stack.post("/api/reload", {"cards": 100}, code)[0] == 200

    async def press_while_full() -> tuple[list[dict], Path]:
        async with aiohttp.ClientSession() as session, session.ws_connect(stack.url + "/api/events") as ws:
            await ws.receive_json(timeout=10)  # the link's first word
            filler = await asyncio.to_thread(_fill, mount)
            messages = []
            with Client(stack.socket, timeout=30) as client:
                # The WAL may hold a few more rows in pages it has: press until a write fails.
                for _ in range(40):
                    await asyncio.to_thread(client.call, "launcher/press")
                    status = await asyncio.to_thread(client.call, "game/status")
                    if status.get("damage"):
                        break
            while len([m for m in messages if m["params"]["message"]["id"] == "press_not_counted"]) < 1:
                event = await ws.receive_json(timeout=10)
                if event["event"] == "game/message":
                    messages.append(event)
            return messages, filler

    messages, filler = asyncio.run(press_while_full())
    ids = [m["params"]["message"]["id"] for m in messages]
    assert "damage" in ids and "press_not_counted" in ids  # the table hears at once which press
    # And the voice says it at once, an alert even when quiet.
    stack.said.wait_for("Trouble with the game log: see the table page")
    # launcherctl game status, status/get's game part and the page say the log cannot be written.
    shown = subprocess.run([LAUNCHERCTL, "--socket", str(stack.socket), "game", "status"],
                           capture_output=True, text=True, timeout=30)
    assert "cannot be written since" in shown.stdout and "presses are not recorded" in shown.stdout
    status = json.loads(subprocess.run([LAUNCHERCTL, "--socket", str(stack.socket), "status", "--json"],
                                       capture_output=True, text=True, timeout=30).stdout)
    assert status["game"]["damage"]["kind"] == "unwritable"
    assert stack.get("/api/state")[1]["game"]["damage"]["kind"] == "unwritable"
    # An action meanwhile is refused, saying why; the log has one line about it, no traceback.
    status, reply = stack.post("/api/game/play", {"card": "skip", "color": "red"}, code)
    assert status == 409 and "cannot be written" in reply["error"]["message"]
    log = (stack.dir / "launcherd.log").read_text()
    assert "Traceback" not in log and log.count("cannot be written since") == 1, log
    # Space again: the next action is written and the damage is gone.
    filler.unlink()
    assert stack.post("/api/game/play", {"card": "skip", "color": "red"}, code)[0] == 200
    after = stack.get("/api/state")[1]["game"]
    assert "damage" not in after, after
