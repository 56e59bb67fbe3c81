"""The outcome record lost or damaged while launcherd was stopped (#36, finding 3): real launcherd
--sim processes, presses through the CLI. The game's log knows the last outcome it took in; the
record never numbers below it, says what happened in status and the journal, and every press it
acknowledges after that reaches the game's log."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from harness.launcherd import DaemonProcess
from firmware.daemon import outcomes

# Every press launches 2 cards; UNO Attack logs each one as the presser's move.
FIXED = '[ejection]\nprofile = "fixed"\nsequence = [2]\n'
PLAYERS = {"rules": "attack-mega-hit", "players": ["Ann", "Bob", "Cy"]}


def logged_presses(daemon: DaemonProcess) -> list[tuple]:
    return [(a["action"]["press_id"], a["action"]["by"]) for a in daemon.call("game/log")["actions"]
            if a["action"]["type"] == "press"]


def press(daemon: DaemonProcess) -> dict:
    """The button pressed through launcherctl, its outcome as the CLI prints it."""
    result = daemon.ctl("--json", "press", check=True)
    return json.loads(result.stdout)


def removed(record: Path, older: bytes) -> None:
    record.unlink()


def overwritten(record: Path, older: bytes) -> None:
    record.write_bytes(b"\x00garbage\xff" * 40 + b"\n")


def emptied(record: Path, older: bytes) -> None:
    record.write_bytes(b"")


def an_older_copy(record: Path, older: bytes) -> None:
    record.write_bytes(older)  # a backup put back: it ends before what the game took in


@pytest.mark.parametrize("damage", [removed, overwritten, emptied, an_older_copy])
def test_presses_after_the_outcome_record_was_lost_reach_the_game_log(tmp_path, damage):
    record = tmp_path / "state" / outcomes.FILENAME
    with DaemonProcess(tmp_path, FIXED, log_file=True) as first:
        first.call("game/new", PLAYERS)
        press(first)
        older = record.read_bytes()
        press(first)
        press(first)
        assert [who for _, who in logged_presses(first)] == ["Ann", "Bob", "Cy"]
    damage(record, older)

    with DaemonProcess(tmp_path, FIXED, log_file=True) as second:
        seqs = [press(second)["seq"] for _ in range(2)]
        assert min(seqs) > 3, f"numbered below what the game took in: {seqs}"
        assert [who for _, who in logged_presses(second)] == ["Ann", "Bob", "Cy", "Ann", "Bob"]
        # Said in status (the API and launcherctl's text) and in the journal.
        said = second.call("status/get")["outcome_record"]
        assert said["state"] != "ok" and said["message"], said
        assert said["message"] in second.ctl("status").stdout
        assert "outcome record" in second.log()
    with DaemonProcess(tmp_path, FIXED, log_file=True) as third:  # the next start counts on
        assert press(third)["seq"] > max(seqs)
        assert [who for _, who in logged_presses(third)] == ["Ann", "Bob", "Cy", "Ann", "Bob", "Cy"]
        assert third.call("status/get")["outcome_record"]["state"] == "ok"


def test_a_first_start_and_an_intact_record_say_nothing(tmp_path):
    with DaemonProcess(tmp_path, FIXED, log_file=True) as first:
        assert first.call("status/get")["outcome_record"] == {"state": "ok"}
        first.call("game/new", PLAYERS)
        assert press(first)["seq"] == 1
    with DaemonProcess(tmp_path, FIXED, log_file=True) as second:
        assert press(second)["seq"] == 2
        assert second.call("status/get")["outcome_record"] == {"state": "ok"}
        assert "outcome record" not in second.log()
    assert [who for _, who in logged_presses_after(tmp_path)] == ["Ann", "Bob"]


def logged_presses_after(tmp_path: Path) -> list[tuple]:
    with DaemonProcess(tmp_path, FIXED) as again:
        return logged_presses(again)


# ---- the record file as launcherd finds it at start (firmware/daemon/outcomes.py) -------------


def record_in(state: Path, *lines: bytes) -> Path:
    state.mkdir(parents=True, exist_ok=True)
    path = state / outcomes.FILENAME
    path.write_bytes(b"".join(lines))
    return path


def written(record: outcomes.OutcomeRecord, outcome: dict) -> dict:
    """``outcome`` numbered and on disk."""
    numbered = record.number(outcome)
    done = threading.Event()
    record.append(numbered, done.set)
    assert done.wait(10)
    return numbered


def test_a_line_cut_by_a_crash_is_no_damage_and_loses_no_later_outcome(tmp_path):
    path = record_in(tmp_path, b'{"outcome_record":"abc","after":0}\n{"seq":1,"event":"launched"}\n',
                     b'{"seq":2,"ev')
    record = outcomes.OutcomeRecord(tmp_path)
    try:
        assert record.status() == {"state": "ok"} and record.identity == "abc"
        assert written(record, {"cards": 2})["seq"] == 2
    finally:
        record.close()
    assert [e["seq"] for e in outcomes.read_record(path)] == [1, 2]


def test_a_record_whose_header_is_whole_keeps_its_identity_and_what_reads(tmp_path):
    path = record_in(tmp_path, b'{"outcome_record":"abc","after":0}\n{"seq":1}\n', b"\x00garbage\n", b'{"seq":3}\n')
    record = outcomes.OutcomeRecord(tmp_path)
    try:
        said = record.status()
        assert said["state"] == "damaged" and "1 line(s)" in said["message"], said
        assert (record.identity, record.last_seq) == ("abc", 3)
        assert [e["seq"] for e in record.after(1, "abc")] == [3]
    finally:
        record.close()
    assert [p.name.split(".damaged-")[0] for p in tmp_path.glob("*.damaged-*")] == [outcomes.FILENAME]
    again = outcomes.OutcomeRecord(tmp_path)  # what was written afresh is a sound record
    try:
        assert again.status() == {"state": "ok"} and (again.identity, again.last_seq) == ("abc", 3)
    finally:
        again.close()
    assert [e["seq"] for e in outcomes.read_record(path)] == [1, 3]


def test_a_record_written_before_identities_is_kept_and_given_one(tmp_path):
    path = record_in(tmp_path, b'{"seq":4,"event":"launched"}\n{"seq":5,"event":"launched"}\n')
    record = outcomes.OutcomeRecord(tmp_path)
    try:
        assert record.status() == {"state": "ok"} and record.last_seq == 5
        # A log from before identities that took in up to 4: only 5 is new to it.
        assert [(e["seq"], e["record"]) for e in record.after(4, None)] == [(5, record.identity)]
        assert written(record, {"cards": 1}) == {"cards": 1, "seq": 6, "record": record.identity}
    finally:
        record.close()
    assert path.read_bytes().startswith(b'{"outcome_record":')
