"""The table's join code (#12): kept by the game layer, persisted, rotated, checked; launcherctl game code."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from harness.launcherd import ThreadDaemon
from controller.log.joincode import JoinCode
from firmware.errors import ApiError

LAUNCHERCTL = str(Path(sys.executable).with_name("launcherctl"))


def ctl(running: ThreadDaemon, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([LAUNCHERCTL, "--socket", str(running.daemon.socket_path), "game", *args],
                          capture_output=True, text=True, timeout=30)


def test_the_code_is_eight_digits_kept_across_restarts_and_rotated_on_request(tmp_path):
    with ThreadDaemon(tmp_path) as running:
        code = running.call("game/code")["code"]
        assert len(code) == 8 and code.isdigit()
        assert running.call("game/code", {"new": False}) == {"code": code}
        assert running.call("game/code/check", {"code": code}) == {"valid": True}
    with ThreadDaemon(tmp_path) as running:
        assert running.call("game/code")["code"] == code  # the table's, not the process's
        rotated = running.call("game/code", {"new": True})["code"]
        assert rotated != code and len(rotated) == 8
        assert running.call("game/code/check", {"code": code}) == {"valid": False}
        assert running.call("game/code/check", {"code": rotated}) == {"valid": True}
        for wrong in ("", " " + rotated, rotated + "0", "1234567a", "１２３４５６７８"):
            assert running.call("game/code/check", {"code": wrong}) == {"valid": False}
        with pytest.raises(ApiError) as bad:
            running.call("game/code/check", {"code": int(rotated)})
        assert bad.value.code == ApiError.INVALID_PARAMS


def test_the_code_works_without_a_game_and_with_a_damaged_log(tmp_path):
    state = tmp_path / "state" / "game"
    state.mkdir(parents=True)
    (state / "game.sqlite3").write_bytes(b"not a database, " * 100)
    with ThreadDaemon(tmp_path) as running:
        code = running.call("game/code")["code"]
        assert running.call("game/code/check", {"code": code}) == {"valid": True}


def test_a_damaged_code_file_gets_a_new_code_and_an_unwritable_dir_keeps_it_in_memory(tmp_path):
    (tmp_path / "join-code").write_text("12ab56\n")
    codes = JoinCode(tmp_path, randbelow=lambda n: 42)
    assert codes.code == "00000042" and (tmp_path / "join-code").read_text() == "00000042\n"
    values = iter([7, 7, 9])  # a rotation that draws the same code draws again
    gone = JoinCode(tmp_path / "deleted", randbelow=lambda n: next(values))  # root writes anywhere else
    assert gone.code == "00000007"
    assert gone.rotate() == "00000009" and gone.check("00000009") and not gone.check("00000007")
    assert not (tmp_path / "deleted").exists()


def test_a_rotation_never_gives_the_same_code(tmp_path):
    values = iter([5, 5, 5, 6])
    codes = JoinCode(tmp_path, randbelow=lambda n: next(values))
    assert codes.code == "00000005" and codes.rotate() == "00000006"


def test_launcherctl_game_code_prints_rotates_and_draws_the_page_address(tmp_path):
    with ThreadDaemon(tmp_path) as running:
        shown = ctl(running, "code")
        assert shown.returncode == 0, shown.stderr
        code = shown.stdout.strip()
        assert len(code) == 8 and code == running.call("game/code")["code"]
        rotated = ctl(running, "code", "--new", "--json")
        assert rotated.returncode == 0
        new = json.loads(rotated.stdout)["code"]
        assert new != code and running.call("game/code/check", {"code": new})["valid"]
        qr = ctl(running, "code", "--qr", "--url", "http://table.local:8080/")
        assert qr.returncode == 0, qr.stderr
        lines = qr.stdout.splitlines()
        assert lines[-2:] == [f"http://table.local:8080/?code={new}", f"join code {new}"]
        assert len(lines) > 12 and "█" in qr.stdout  # the QR code is drawn above them
        as_json = json.loads(ctl(running, "code", "--qr", "--json").stdout)
        assert as_json["code"] == new
        assert as_json["url"].startswith("http://") and as_json["url"].endswith(f".local:8080/?code={new}")
        assert ctl(running, "code", "--url", "http://x/").returncode == 2  # --url without --qr
