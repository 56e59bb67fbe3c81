"""A launch whose commit failed stays owed to the game (#19, at most once): its outcome is not
marked logged, the outcome record keeps it, and it is taken in, in order and exactly once, as soon
as the log takes a write again, or by the next start."""

from __future__ import annotations

import sqlite3

from harness.launcherd import ThreadDaemon
from controller.log.store import Store
from firmware.daemon import outcomes

FIXED = '[ejection]\nprofile = "fixed"\nsequence = [2]\n'
PLAYERS = {"rules": "attack-mega-hit", "players": ["Ann", "Bob", "Cy"]}


def presses(running) -> list[tuple]:
    return [(a["action"]["press_id"], a["action"]["by"]) for a in running.call("game/log")["actions"]
            if a["action"]["type"] == "press"]


def fail_first_press_commit(monkeypatch) -> list:
    original = Store.append
    failed = []

    def append(self, match_id, action, **kwargs):
        if action.get("type") == "press" and not failed:
            failed.append(action)
            raise sqlite3.OperationalError("database or disk is full")
        return original(self, match_id, action, **kwargs)

    monkeypatch.setattr(Store, "append", append)
    return failed


def test_a_press_whose_commit_failed_is_logged_before_the_next_and_only_once(tmp_path, monkeypatch):
    monkeypatch.setattr(outcomes, "KEEP", 0)  # what the game says it logged is trimmed at once
    failed = fail_first_press_commit(monkeypatch)
    with ThreadDaemon(tmp_path, FIXED) as running:
        running.call("game/new", PLAYERS)
        assert running.call("launcher/press")["cards"] == 2  # Ann's: the disk is full
        status = running.call("game/status")
        assert failed and status["damage"]["kind"] == "unwritable" and presses(running) == []
        assert [e["seq"] for e in outcomes.read_record(tmp_path / "state" / outcomes.FILENAME)] == [1]
        assert running.call("launcher/press")["cards"] == 2  # there is room again: Bob's
        assert presses(running) == [(1, "Ann"), (2, "Bob")]
        assert running.call("game/status")["turn"] == "Cy"
    with ThreadDaemon(tmp_path, FIXED) as running:  # a restart catches up on nothing more
        assert presses(running) == [(1, "Ann"), (2, "Bob")]


def test_a_press_whose_commit_failed_is_caught_up_on_after_a_restart(tmp_path, monkeypatch):
    monkeypatch.setattr(outcomes, "KEEP", 0)
    fail_first_press_commit(monkeypatch)
    with ThreadDaemon(tmp_path, FIXED) as running:
        running.call("game/new", PLAYERS)
        assert running.call("launcher/press")["cards"] == 2
        assert presses(running) == []
    with ThreadDaemon(tmp_path, FIXED) as running:
        assert presses(running) == [(1, "Ann")]
        assert running.call("game/status")["turn"] == "Bob"
