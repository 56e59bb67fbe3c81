"""kill -9 launcherd in the middle of a game: after a restart the table is the replay of its log,
and the log holds every action that was acknowledged (and nothing that was not sent)."""

from __future__ import annotations

import json
import signal
import sqlite3
from collections import Counter

import pytest

from controller.match import table as match_table

# Known outcomes, on the fast simulated mechanism of conftest.py.
FIXED = """
[ejection]
profile = "fixed"
sequence = [0, 2, 0, 0, 1, 3, 0]
"""
NEW = {"rules": "attack-mega-hit", "players": ["Ann", "Bob", "Cy", "Dee"]}
# One lap of moves that are always allowed while nobody owes presses; launches are presses of
# whoever's turn it is (with nothing owed, a press ends the turn).
LAP = [
    ("game/play", {"card": "7", "color": "red"}),
    ("game/uno", {"player": "Cy"}),
    ("launcher/launch", {}),
    ("game/play", {"card": "reverse", "color": "red"}),
    ("game/play", {"card": "skip", "color": "red"}),
    ("launcher/launch", {}),
]


# Requests a connection may have running at once, well under the daemon's limit.
WINDOW = 8


def logged_action(method: str, params: dict, result: dict) -> dict | None:
    """The action the game layer logs for an acknowledged request (who acted aside), if any."""
    if method == "launcher/launch":
        if result.get("event") != "launched":  # ignored: another launch was still running
            return None
        return {"type": "press", "cards": result["cards"], "press_id": result["press_id"]}
    kind = method.split("/")[1]
    return {"type": kind, **params}


@pytest.mark.parametrize("acknowledged", [7, 20])
def test_kill_9_mid_game_keeps_every_acknowledged_action(daemon_process, acknowledged):
    daemon = daemon_process(FIXED, seed=3)
    try:
        with daemon.client() as c:
            c.call("game/new", NEW)
            script = LAP * 5
            # Pipelined: the daemon is working on the next requests when it is killed.
            ids = [c.send(method, params) for method, params in script[:WINDOW]]
            replies = {}
            for message in c.messages():
                if message.get("id") in ids:
                    assert "error" not in message, message
                    replies[message["id"]] = message["result"]
                    if len(replies) == acknowledged:
                        daemon.power_cut()  # launcherd and its game at once
                        break
                    if len(ids) < len(script):
                        ids.append(c.send(*script[len(ids)]))
    finally:
        daemon.kill()
    assert daemon.process.returncode == -signal.SIGKILL

    db = sqlite3.connect(daemon.state_dir / "game" / "game.sqlite3")
    try:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        db.close()

    def without_by(action: dict) -> dict:
        return {key: value for key, value in action.items() if key != "by"}

    acked = [logged_action(method, params, replies[i])
             for i, (method, params) in zip(ids, script) if i in replies]
    acked = [action for action in acked if action is not None]
    with daemon_process(FIXED, seed=4).client() as c:
        status = c.call("game/status")
        log = [r["action"] for r in c.call("game/log")["actions"] if not r["undone"]]
        c.call("game/uno", {"player": "Ann"})  # and the game goes on
    assert log[0] == {"type": "new", **NEW, "scoring": "standard", "target": 500}
    # Requests run side by side (a launch waits for its cards while a play is logged): every
    # acknowledged action is in the log, in whatever order the daemon took them.
    assert not Counter(json.dumps(a, sort_keys=True) for a in acked) - Counter(
        json.dumps(without_by(a), sort_keys=True) for a in log[1:])
    assert len(log) - 1 <= len(script)
    expected = json.loads(json.dumps(match_table.status(match_table.replay(log))))
    shown = {key: value for key, value in status.items()
             if key not in ("reload_advice", "match_id", "state_dir", "what_now", "what_now_object", "press_means",
                         "load_deck")}
    assert shown == expected
