"""A game log that is damaged, unwritable or deleted under the daemon (#9): the launcher runs, the game
says what happened and what to do, refuses actions with a structured error, and repairs when asked."""

from __future__ import annotations

import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from harness.launcherd import BIN, ThreadDaemon, write_config
from harness.waits import wait_for_socket, wait_until
from firmware.client import Client
from firmware.errors import ApiError

LAUNCHERCTL = str(Path(sys.executable).with_name("launcherctl"))
THREE = {"rules": "attack-mega-hit", "players": ["Ann", "Bob", "Cy"]}


def raw_call(path: Path, method: str, params: dict | None = None) -> dict:
    """The whole reply line, error data included (Client.call keeps only code and message)."""
    with Client(path, timeout=15) as client:
        request_id = client.send(method, params)
        return next(m for m in client.messages() if m.get("id") == request_id)


def ctl(socket_path: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([LAUNCHERCTL, "--socket", str(socket_path), "game", *args],
                          capture_output=True, text=True, timeout=30)


def played_log(tmp_path: Path, plays: int = 3) -> Path:
    """A log with one match of a few plays, written by a daemon that has stopped."""
    with ThreadDaemon(tmp_path) as running:
        running.call("game/new", THREE)
        for n in range(plays):  # five plays each at most: nobody runs out of cards (#39); then Uno calls
            if n < 15:
                running.call("game/play", {"card": "7", "color": "red"})
            else:
                running.call("game/uno", {"player": "Ann"})
    return tmp_path / "state" / "game" / "game.sqlite3"


def random_bytes_mid_file(log: Path) -> None:
    data = bytearray(log.read_bytes())
    page = len(data) // 4096 // 2 * 4096  # SQLite's default page size: a page in the middle
    data[page:page + 512] = random.Random(4).randbytes(512)
    log.write_bytes(bytes(data))


def edited(log: Path, statement: str) -> None:
    db = sqlite3.connect(log)
    with db:
        db.execute(statement)
    db.close()  # the last connection to close folds the WAL into the file


def bad_json_row(log: Path) -> None:
    edited(log, "UPDATE actions SET action = '{\"type\": \"play\", \"card\"' WHERE seq = 2")


def dropped_column(log: Path) -> None:
    edited(log, "ALTER TABLE actions DROP COLUMN undone")


def not_a_database(log: Path) -> None:
    log.write_bytes(b"not a database, " * 100)


@pytest.mark.parametrize("damage", [random_bytes_mid_file, bad_json_row, dropped_column, not_a_database])
def test_a_damaged_log_leaves_the_launcher_running_and_is_moved_aside_only_when_asked(tmp_path, damage):
    log = played_log(tmp_path, plays=60)  # several pages: the random bytes land inside the data
    damage(log)
    damaged = log.read_bytes()
    with ThreadDaemon(tmp_path) as running:
        sock = running.daemon.socket_path
        status = running.call("game/status")
        assert status["damage"]["kind"] == "damaged" and "repair the game log" in status["damage"]["todo"]
        assert status["state_dir"] == str(tmp_path / "state" / "game")
        refused = raw_call(sock, "game/play", {"card": "7", "color": "red"})["error"]
        assert refused["code"] == ApiError.UNAVAILABLE
        assert refused["data"]["damage"]["kind"] == "damaged"
        assert running.call("status/get")["game"]["damage"]["kind"] == "damaged"
        assert running.call("launcher/launch")["event"] == "launched"  # the launcher works
        shown = ctl(sock, "status")
        assert shown.returncode == 0, shown.stderr
        assert "game log: the game log" in shown.stdout and "what to do: repair the game log" in shown.stdout
        assert log.read_bytes() == damaged  # nothing moved or rewritten until asked

        repaired = ctl(sock, "repair")
        assert repaired.returncode == 0, repaired.stderr
        aside = list(log.parent.glob("game.sqlite3.damaged-*"))
        assert len(aside) == 1 and aside[0].read_bytes() == damaged and aside[0].name in repaired.stdout
        assert running.call("game/new", THREE)["match_id"] == 1
        assert running.call("game/play", {"card": "7", "color": "red"})["turn"] == "Bob"
        with pytest.raises(ApiError) as sound:
            running.call("game/repair")
        assert sound.value.code == ApiError.REFUSED and "nothing to repair" in sound.value.message


def test_a_match_that_cannot_be_replayed_is_kept_and_another_may_start(tmp_path):
    log = played_log(tmp_path)
    edited(log, """INSERT INTO actions (match_id, ts, action) VALUES (1, 'now', '{"type":"deal"}')""")
    with ThreadDaemon(tmp_path) as running:
        status = running.call("game/status")
        assert status["damage"]["kind"] == "unreplayable" and "match 1" in status["damage"]["what"]
        assert len(running.call("game/log")["actions"]) == 5
        assert running.call("game/new", THREE)["match_id"] == 2  # no --force: nothing playable is lost
        assert "damage" not in running.call("game/status")
        assert [m.get("error") is not None for m in running.call("game/history")] == [True, False]


def test_a_state_dir_deleted_under_the_daemon_refuses_moves_and_writes_the_log_back(tmp_path):
    with ThreadDaemon(tmp_path) as running:
        sock = running.daemon.socket_path
        running.call("game/new", THREE)
        running.call("game/play", {"card": "7", "color": "red"})
        shutil.rmtree(tmp_path / "state")
        refused = raw_call(sock, "game/play", {"card": "5", "color": "red"})["error"]
        assert refused["code"] == ApiError.UNAVAILABLE and refused["data"]["damage"]["kind"] == "gone"
        status = running.call("game/status")  # the table is still shown, with what happened
        assert status["turn"] == "Bob" and status["damage"]["kind"] == "gone"
        assert running.call("launcher/launch")["event"] == "launched"  # the launcher keeps working
        assert running.call("game/status")["players"][1]["presses"] == 0  # that press was not taken
        repaired = ctl(sock, "repair")
        assert repaired.returncode == 0, repaired.stderr
        assert "written back" in repaired.stdout
        assert running.call("game/play", {"card": "5", "color": "red"})["turn"] == "Cy"
        logged = running.call("game/log")["actions"]
    with ThreadDaemon(tmp_path) as again:  # what was acknowledged is on disk
        assert again.call("game/log")["actions"] == logged
        assert again.call("game/status")["turn"] == "Cy"


def test_a_log_replaced_under_the_daemon_is_not_written_over(tmp_path):
    with ThreadDaemon(tmp_path) as running:
        running.call("game/new", THREE)
        log = tmp_path / "state" / "game" / "game.sqlite3"
        for part in log.parent.glob("game.sqlite3*"):
            part.unlink()
        log.write_bytes(b"someone else's file")
        with pytest.raises(ApiError) as gone:
            running.call("game/play", {"card": "7", "color": "red"})
        assert "deleted or replaced" in gone.value.message
        repaired = running.call("game/repair")
        assert repaired["repaired"] == "gone" and Path(repaired["moved_to"]).read_bytes() == b"someone else's file"
        assert running.call("game/play", {"card": "7", "color": "red"})["turn"] == "Bob"


def _unprivileged() -> list[str]:
    """A command prefix that makes permissions bind (root overrides them unless it drops the capability)."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: a read-only directory cannot be simulated")
    return [setpriv, "--bounding-set=-dac_override,-dac_read_search,-fowner", "--"]


def test_a_read_only_state_dir_gets_ownership_advice_and_its_log_is_kept(tmp_path):
    log = played_log(tmp_path)
    before = log.read_bytes()
    state = tmp_path / "state" / "game"  # the game's own state dir (launcherd's is beside it)
    state.chmod(0o555)
    sock = tmp_path / "ro.sock"
    process = subprocess.Popen(
        [*_unprivileged(), str(BIN / "launcherd"), "--sim", "--config", str(write_config(tmp_path)),
         "--socket", str(sock), "--state-dir", str(tmp_path / "state")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_for_socket(sock, process)
        with Client(sock, timeout=15) as client:
            wait_until(lambda: client.call("status/get")["game_layer"]["state"] == "up", what="the game")
            status = client.call("game/status")
            assert status["damage"]["kind"] == "read_only"
            assert "write" in status["damage"]["todo"] and "do not move it" in status["damage"]["todo"]
            with pytest.raises(ApiError) as still:
                client.call("game/repair")  # the directory is still read-only: nothing is moved
            assert "cannot be written" in still.value.message
            assert log.read_bytes() == before and not list(state.glob("**/*.damaged-*"))
            state.chmod(0o755)
            repaired = client.call("game/repair")
            assert repaired["moved_to"] is None and "match 1 goes on" in repaired["messages"]
            assert client.call("game/play", {"card": "7", "color": "red"})["match_id"] == 1
    finally:
        state.chmod(0o755)
        process.send_signal(signal.SIGTERM)
        process.wait(10)
