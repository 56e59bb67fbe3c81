"""A full state dir is no damage (#36, finding 4): real launcherd --sim processes and launcherctl,
the state dir on a small tmpfs. A restart on a full state dir refuses, as a first start does, and
starts once there is room, the match as it was; a disk that fills during a match stays "cannot be
written" (also across a repair, which moves nothing aside) and ends when space returns; a repair
never moves aside a log that passes its integrity check."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import tempfile
from pathlib import Path

import pytest

from harness.launcherd import DaemonProcess, ThreadDaemon, game_dies
from harness.waits import wait_until
from controller.layer.service import GameService
from firmware.client import Client
from firmware.errors import ApiError

THREE = {"rules": "attack-mega-hit", "players": ["Ann", "Bob", "Cy"]}
PLAY = {"card": "7", "color": "red"}


@pytest.fixture
def small_disk():
    """A 3 MB tmpfs for the state dir; mounting one needs root (CI runs the suite as root)."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs for the state dir needs root (CI runs the suite as root)")
    mount = Path(tempfile.mkdtemp(prefix="full-state-", dir="/tmp"))
    result = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", str(mount)],
                            capture_output=True, text=True)
    if result.returncode:
        mount.rmdir()
        pytest.skip(f"cannot mount a tmpfs here ({result.stderr.strip()})")
    try:
        yield mount
    finally:
        # Lazily: a daemon of this process (ThreadDaemon) may hold a file there a moment longer.
        subprocess.run(["umount", "--lazy", str(mount)], check=False)
        mount.rmdir()


def fill(mount: Path) -> Path:
    """Fill the disk to the last byte, with a file that can be taken away again."""
    filler = mount / "filler"
    with open(filler, "wb", buffering=0) as out:
        try:
            while out.write(bytes(4096)):
                pass
        except OSError:
            pass
    return filler


def raw(daemon: DaemonProcess, method: str, params: dict | None = None) -> dict:
    """The whole reply line, error data included."""
    with Client(daemon.socket, timeout=30) as client:
        request_id = client.send(method, params)
        return next(m for m in client.messages() if m.get("id") == request_id)


def actions(daemon: DaemonProcess) -> list[dict]:
    return [a["action"] for a in daemon.call("game/log")["actions"]]


def test_a_restart_on_a_full_state_dir_refuses_and_starts_once_there_is_room(tmp_path, small_disk):
    state = small_disk / "state"
    with DaemonProcess(tmp_path, state_dir=state) as first:
        first.call("game/new", THREE)
        for _ in range(3):
            first.call("game/play", PLAY)
        played = actions(first)
    filler = fill(small_disk)

    refused = DaemonProcess(tmp_path, state_dir=state).run_to_exit()
    assert refused.returncode == 1, refused.stderr
    assert f"cannot use the state dir {state} (No space left on device)" in refused.stderr
    assert "free some space" in refused.stderr and "Traceback" not in refused.stderr
    assert not (tmp_path / "launcher.sock").exists()

    filler.unlink()
    with DaemonProcess(tmp_path, state_dir=state) as again:
        status = again.call("game/status")
        assert "damage" not in status and status["match_id"] == 1
        assert actions(again) == played
        assert again.call("game/play", PLAY)
    assert not list(state.glob("**/*.damaged-*"))


def test_a_disk_that_fills_mid_match_is_no_damage_and_a_repair_moves_nothing(tmp_path, small_disk):
    state = small_disk / "state"
    with DaemonProcess(tmp_path, state_dir=state, log_file=True) as running:
        running.call("game/new", THREE)
        running.call("game/play", PLAY)
        filler = fill(small_disk)
        for _ in range(40):  # the write-ahead log may hold a few more rows in pages it has
            reply = raw(running, "game/play", PLAY)
            if "error" in reply:
                break
        assert reply["error"]["data"]["damage"]["kind"] == "unwritable", reply
        kept = actions(running)

        # A repair (the page's button too) while the disk is full: refused, saying so; nothing moved,
        # and the log is still read as it was.
        for _ in range(2):
            repair = running.ctl("game", "repair")
            assert repair.returncode != 0 and "cannot be written" in repair.stderr, repair
            damage = running.call("game/status")["damage"]
            assert damage["kind"] == "unwritable", damage
        assert not list(state.glob("**/*.damaged-*")) and (state / "game" / "game.sqlite3").exists()
        assert actions(running) == kept
        history = running.ctl("game", "history")
        assert history.returncode == 0 and re.search(r"^\s*1 .*Ann, Bob, Cy", history.stdout, re.M), history

        filler.unlink()  # space again: the next action is written, the state ends
        assert running.call("game/play", PLAY)
        assert "damage" not in running.call("game/status")
        assert len(actions(running)) == len(kept) + 1
        assert "Traceback" not in running.log()
    assert not list(state.glob("**/*.damaged-*"))


def test_a_log_opened_on_a_full_disk_is_unwritable_and_opens_once_there_is_room(small_disk, monkeypatch,
                                                                                held_restart):
    """The game layer opens its log when the disk is full already (here: the layer died and is
    restarted; or a disk that filled between launcherd's start and the log's open): "cannot be
    written", never "damaged"; a repair moves nothing; the first request after space returns opens
    the log, with the match as it was and the press made meanwhile in it once."""
    original = GameService.on_event
    died = []

    def dies_at_the_first_press(self, name, params):
        if name == "launched" and not died:
            died.append(params["seq"])
            game_dies(self.daemon)
        original(self, name, params)

    monkeypatch.setattr(GameService, "on_event", dies_at_the_first_press)
    home = small_disk / "home"
    home.mkdir()
    with ThreadDaemon(home, '[ejection]\nprofile = "fixed"\nsequence = [2]\n') as running:
        running.call("game/new", THREE)
        running.call("game/play", PLAY)
        played = [a["action"] for a in running.call("game/log")["actions"]]
        filler = fill(small_disk)
        assert running.call("launcher/press")["cards"] == 2  # Bob's; the game dies on it
        running.wait_for(lambda s: s["game_layer"]["state"] == "down")
        assert died
        held_restart.set()
        running.wait_for(lambda s: s["game_layer"]["state"] == "up")
        for method in ("game/play", "game/log", "game/history", "game/repair"):
            with pytest.raises(ApiError) as refused:
                running.call(method, PLAY if method == "game/play" else None)
            assert "cannot be written" in refused.value.message, (method, refused.value.message)
        assert running.call("game/status")["damage"]["kind"] == "unwritable"
        assert running.call("status/get")["game"]["damage"]["kind"] == "unwritable"
        assert not list((home / "state" / "game").glob("*.damaged-*"))

        filler.unlink()
        status = running.call("game/status")
        assert "damage" not in status and status["match_id"] == 1
        logged = [a["action"] for a in running.call("game/log")["actions"]]
        assert logged[:len(played)] == played
        assert [(a["type"], a["by"]) for a in logged[len(played):]] == [("press", "Bob")]
        assert running.call("game/play", PLAY)


def test_a_repair_keeps_a_log_that_passes_its_integrity_check(tmp_path):
    """A log found damaged, then sound again by the time the table repairs it (a backup put back,
    a disk whose fault passed): the repair opens it again first, and keeps it."""
    with DaemonProcess(tmp_path) as first:
        first.call("game/new", THREE)
        first.call("game/play", PLAY)
        played = actions(first)
    log = tmp_path / "state" / "game" / "game.sqlite3"
    backup = log.read_bytes()
    log.write_bytes(b"not a database, " * 100)
    with DaemonProcess(tmp_path, log_file=True) as running:
        assert running.call("game/status")["damage"]["kind"] == "damaged"
        log.write_bytes(backup)
        sound = sqlite3.connect(log)
        assert sound.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        sound.close()
        repaired = json.loads(running.ctl("--json", "game", "repair", check=True).stdout)
        assert repaired["moved_to"] is None, repaired
        assert "passes its integrity check" in " ".join(repaired["messages"])
        assert not list(log.parent.glob("*.damaged-*"))
        assert actions(running) == played and "damage" not in running.call("game/status")
        assert running.call("game/play", PLAY)
