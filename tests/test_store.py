"""The SQLite game log: append, undo, history, durability across connections and a kill."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap

import pytest

from controller.log.store import FILENAME, Store
from firmware.errors import NotFound, Refused

NEW = {"type": "new", "rules": "attack-mega-hit", "players": ["Ann", "Bob", "Cy"]}


@pytest.fixture
def store(tmp_path):
    store = Store.in_dir(tmp_path)
    yield store
    store.close()


def test_settings_wal_and_full_sync(store):
    db = store._db
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    assert store.path.name == FILENAME


def test_start_and_append_are_read_back_in_order(store):
    match_id = store.start_match(NEW)
    seqs = [store.append(match_id, {"type": "play", "card": str(n)}) for n in range(1, 4)]
    assert seqs == sorted(seqs)
    actions = store.actions(match_id)
    assert [a.action for a in actions] == [NEW] + [{"type": "play", "card": str(n)} for n in range(1, 4)]
    current = store.current_match()
    assert (current.id, current.rules, current.players, current.finished) == (
        match_id, "attack-mega-hit", ["Ann", "Bob", "Cy"], None)


def test_undo_marks_the_last_live_action_and_keeps_it(store):
    match_id = store.start_match(NEW)
    first = store.append(match_id, {"type": "play", "card": "1"})
    second = store.append(match_id, {"type": "play", "card": "2"})
    store.undo(match_id, second)
    assert [a.seq for a in store.actions(match_id)][1:] == [first]
    everything = store.actions(match_id, include_undone=True)
    assert [(a.seq, a.undone) for a in everything][1:] == [(first, False), (second, True)]
    store.undo(match_id, first)
    with pytest.raises(Refused):
        store.undo(match_id, store.actions(match_id)[-1].seq)  # the "new" action stays
    with pytest.raises(Refused):
        store.undo(match_id, 999)


def test_result_follows_append_and_undo(store):
    match_id = store.start_match(NEW)
    seq = store.append(match_id, {"type": "end_round"}, over=True, winner="Bob")
    finished = store.match(match_id)
    assert finished.winner == "Bob" and finished.finished is not None
    store.undo(match_id, seq)
    reopened = store.match(match_id)
    assert reopened.winner is None and reopened.finished is None
    with pytest.raises(NotFound):
        store.match(match_id + 1)


def test_history_keeps_every_match_and_undone_action(store):
    first = store.start_match(NEW)
    store.append(first, {"type": "end_round"}, over=True, winner="Ann")
    undone = store.append(first, {"type": "uno", "player": "Ann"}, over=True, winner="Ann")
    store.undo(first, undone, over=True, winner="Ann")
    second = store.start_match({**NEW, "players": ["Dee", "Eve"]})
    assert store.current_match().id == second
    assert [m.id for m in store.matches()] == [first, second]
    assert store.matches()[0].winner == "Ann"
    lines = [r.to_json() for m in store.matches() for r in store.actions(m.id, include_undone=True)]
    assert [line["match_id"] for line in lines] == [first, first, first, second]
    assert [line["undone"] for line in lines] == [False, False, True, False]
    assert lines[2]["action"] == {"type": "uno", "player": "Ann"}


def test_reopening_reads_what_was_committed(tmp_path):
    store = Store.in_dir(tmp_path)
    match_id = store.start_match(NEW)
    store.append(match_id, {"type": "hint", "player": "Cy"})
    store.close()
    store.close()  # idempotent
    again = Store.in_dir(tmp_path)
    try:
        assert [a.action["type"] for a in again.actions(match_id)] == ["new", "hint"]
        assert again.integrity_check() == "ok"
    finally:
        again.close()


def test_a_newer_schema_is_refused(tmp_path):
    path = tmp_path / FILENAME
    db = sqlite3.connect(path)
    db.execute("PRAGMA user_version=99")
    db.close()
    with pytest.raises(sqlite3.DatabaseError, match="newer version"):
        Store(path)


def test_kill_after_append_loses_nothing(tmp_path):
    """A process killed right after append returned (no close, no checkpoint) kept every action."""
    script = textwrap.dedent(f"""
        import os, signal, sys
        from controller.log.store import Store
        store = Store.in_dir({str(tmp_path)!r})
        match_id = store.start_match({NEW!r})
        for n in range(50):
            store.append(match_id, {{"type": "press", "cards": n, "press_id": n + 1}})
        print(match_id, flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
    """)
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=30)
    assert run.returncode == -9
    match_id = int(run.stdout)
    assert (tmp_path / (FILENAME + "-wal")).exists()  # the data is still only in the WAL
    store = Store.in_dir(tmp_path)
    try:
        assert store.integrity_check() == "ok"
        presses = [a.action for a in store.actions(match_id)][1:]
        assert [p["press_id"] for p in presses] == list(range(1, 51))
    finally:
        store.close()
