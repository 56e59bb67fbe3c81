"""game/stats and game/history cost the same at any log length (issue 19): each match's figures
are kept in the log until its actions change, the table's own match is kept up in memory as its
actions come in (an undo goes back to a mark), so a reading replays only what changed, and the
history comes a page at a time. A log of 100,000 actions took 5.6 s (stats) and 10-14 s (history)
to read before, and one match of 100,000 actions was replayed in full at every reading; the
behaviour is asserted by counting the actions replayed, the time bounds are loose (a shared,
loaded machine)."""

from __future__ import annotations

import asyncio
import json
import logging
import random
import sys
import tempfile
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from harness.launcherd import ThreadDaemon

from controller.match import stats as stats_module
from controller.match import table as match_table
from controller.match.stats import OneReplay, match_stats, stats_of
from controller.layer.reading import Reading
from controller.log.store import Store
from firmware.errors import ApiError

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import long_log  # noqa: E402

ACTIONS = 100_000
PER_MATCH = 400
MATCHES = ACTIONS // PER_MATCH


class Reads:
    """Counts the action rows the store hands out: the work a reading does over the log."""

    def __init__(self, monkeypatch):
        self.rows = 0
        actions = Store.actions

        def counted(store, *args, **kwargs):
            rows = actions(store, *args, **kwargs)
            self.rows += len(rows)
            return rows
        monkeypatch.setattr(Store, "actions", counted)


class Fed:
    """Counts the actions fed to the statistics' replay (the first, ``new``, is not fed)."""

    def __init__(self, monkeypatch):
        self.actions = 0
        feed = stats_module._Tally.feed

        def counted(tally, *args, **kwargs):
            self.actions += 1
            return feed(tally, *args, **kwargs)
        monkeypatch.setattr(stats_module._Tally, "feed", counted)


@pytest.fixture(scope="module")
def long_log_dir(tmp_path_factory):
    state = tmp_path_factory.mktemp("state")
    long_log.build(state, ACTIONS, PER_MATCH)
    return state


def test_stats_replay_only_the_matches_changed_since_the_last_reading(tmp_path, monkeypatch):
    path = long_log.build(tmp_path, 20 * PER_MATCH, PER_MATCH)
    reads = Reads(monkeypatch)
    fed = Fed(monkeypatch)
    store = Store(path)
    first = stats_of(store, None)
    assert reads.rows == 20 * PER_MATCH and first["history"]["matches"] == 20
    reads.rows = fed.actions = 0
    assert stats_of(store, None) == first
    assert reads.rows == 0 and fed.actions == 0
    # One more action in match 7: only match 7 is replayed, and its figures follow.
    store.append(7, {"type": "press", "cards": 3, "press_id": 10_000})
    fed.actions = 0
    again = stats_of(store, 7)
    assert fed.actions == PER_MATCH  # its 400 actions (the new one included), its "new" opening it
    assert cards(again) == cards(first) + 3
    # Match 7 is the table's: another action is fed alone.
    store.append(7, {"type": "press", "cards": 2, "press_id": 10_001})
    fed.actions = 0
    assert cards(stats_of(store, 7)) == cards(first) + 5
    assert fed.actions == 1
    # The table moves to another match: match 7's figures are kept on disk as they were kept up.
    store.undo(7, store.actions(7)[-1].seq)
    fed.actions = 0
    again = stats_of(store, 8)
    # Match 8 is kept; match 7 goes back to its latest mark for the undo, not to its start.
    assert 0 < fed.actions <= stats_module.MARK_EVERY
    assert cards(again) == cards(first) + 3
    assert stats_of(store, None, 7)["match"] == replayed(store, 7)
    store.close()
    # Kept on disk: a restart reads nothing again.
    reads.rows = 0
    reopened = Store(path)
    try:
        assert stats_of(reopened, None)["history"] == again["history"]
    finally:
        reopened.close()
    assert reads.rows == 0


def replayed(store: Store, match_id: int) -> dict:
    """A match's figures replayed from its whole log, as game/stats shows them."""
    figures = match_stats([r.to_json() for r in store.actions(match_id)])
    record = store.match(match_id)
    figures.update(id=match_id, winner=stats_module._winners(record.winner), started=record.started,
                   finished=record.finished)
    return figures


def cards(stats: dict) -> int:
    return sum(player["cards"] for player in stats["history"]["players"].values())


def test_an_undone_action_changes_the_kept_figures(tmp_path):
    path = long_log.build(tmp_path, 2 * PER_MATCH, PER_MATCH)
    store = Store(path)
    try:
        before = stats_of(store, 2)
        seq = store.append(2, {"type": "press", "cards": 6, "press_id": 10_000})
        assert cards(stats_of(store, 2)) == cards(before) + 6
        store.undo(2, seq)
        assert stats_of(store, 2) == before
    finally:
        store.close()


def test_stats_and_history_of_100000_actions_through_the_socket(long_log_dir, tmp_path, monkeypatch):
    # The daemon reads the long log as its own (a copy: the module's other tests read it too).
    state = tmp_path / "state" / "game"  # the game's own state dir
    state.mkdir(parents=True)
    (state / long_log.FILENAME).write_bytes((long_log_dir / long_log.FILENAME).read_bytes())
    fed = Fed(monkeypatch)
    with ThreadDaemon(tmp_path, "") as running:
        # The daemon serves once the layer is up or after START_WAIT_S: a busy machine replays longer.
        running.wait_for(lambda status: status["game_layer"]["state"] == "up", timeout=120)
        with running.client(timeout=120) as client:
            cold = client.call("game/stats")  # computes and keeps every match's figures once
            assert cold["history"]["matches"] == MATCHES
            client.call("game/history")
            costs, work = {}, {}
            for method, params in (("game/stats", {}), ("game/history", {}),
                                   ("game/history", {"limit": 20})):
                fed.actions = 0
                started = time.perf_counter()
                reply = client.call(method, params)
                costs[method, len(params)] = time.perf_counter() - started
                work[method, len(params)] = fed.actions
            page = client.call("game/history", {"limit": 20, "before": 11})
    assert reply[-1]["id"] == MATCHES and len(reply) == 20
    assert [entry["id"] for entry in page] == list(range(1, 11))
    # Replaying 100,000 actions took seconds; a kept reading replays nothing (its time is a figure,
    # printed, not a verdict: a busy machine's would differ).
    assert set(work.values()) == {0}, work
    print(f"\n{MATCHES} matches, readings (s): {costs}")


# ---- the table's match: kept up as its actions come in ------------------------------------


def read(store: Store, fed: Fed, match_id: int = 1) -> int:
    """game/stats of the table's match equals a full replay; how many actions the reading fed."""
    fed.actions = 0
    figures = stats_of(store, match_id)["match"]
    work = fed.actions
    assert figures == replayed(store, match_id)
    return work


def test_the_tables_match_is_fed_only_what_is_new_and_an_undo_goes_back_to_a_mark(tmp_path, monkeypatch):
    path = long_log.build(tmp_path, 2_000, 2_000)  # one match of 2,000 actions, the table's
    monkeypatch.setattr(stats_module, "MARK_EVERY", 64)  # each undo is a commit:
    monkeypatch.setattr(stats_module, "MARKS", 4)  # 4 marks of 64 actions, an undo past them in 320 undos
    fed = Fed(monkeypatch)
    store = Store(path)
    store._db.execute("PRAGMA synchronous=OFF")  # over a thousand undos, each a commit: no disk flush each
    try:
        assert read(store, fed) == 1_999
        assert read(store, fed) == 0
        seqs = [store.append(1, {"type": "press", "cards": n, "press_id": 10_000 + n}) for n in (4, 0, 2)]
        assert read(store, fed) == 3
        for seq in reversed(seqs[1:]):
            store.undo(1, seq)
        assert read(store, fed) <= stats_module.MARK_EVERY
        # Undos reaching back past every mark kept: the match is replayed from its start, right.
        reach = (stats_module.MARKS + 1) * stats_module.MARK_EVERY
        for record in reversed(store.actions(1)[-reach:]):
            store.undo(1, record.seq)
        assert read(store, fed) == 2_000 - reach
    finally:
        store.close()


def _action(rng: random.Random, table, press_ids: list[int]) -> dict | None:
    """An action the game accepts at ``table`` (None: the one drawn was refused)."""
    roll = rng.random()
    if roll < 0.45:
        press_ids.append(len(press_ids) + 1)
        action = {"type": "press", "cards": rng.choice([0, 0, 1, 2, 5]), "press_id": press_ids[-1]}
    elif roll < 0.55 and press_ids:  # cards that fell out late: the last press's, now and then an older one's
        action = {"type": "cards", "cards": rng.randint(1, 3), "press_id": rng.choice(press_ids[-3:])}
    elif roll < 0.95:
        action = {"type": "play", "card": rng.choice(["hit-1", "hit-2", "skip", "reverse", "7", "wild-all-hit"]),
                  "color": "red"}
    else:
        winner = rng.choice(long_log.PLAYERS)
        action = {"type": "end_round", "winner": winner,
                  "hands": {name: rng.randint(0, 30) for name in long_log.PLAYERS if name != winner}}
    try:
        match_table.apply(table, action)
    except ApiError:
        return None
    return action


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10_000), steps=st.lists(st.sampled_from("aaaaaaauur"), min_size=1, max_size=80))
def test_kept_up_figures_are_those_of_a_replay_whatever_the_actions_and_undos(monkeypatch, seed, steps):
    """Property: figures kept up action by action (with undos, marks dropped and gone back to) are
    always the figures of a full replay of what the log holds."""
    monkeypatch.setattr(stats_module, "MARK_EVERY", 3)
    monkeypatch.setattr(stats_module, "MARKS", 2)
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "game.sqlite3")
        store._db.execute("PRAGMA synchronous=OFF")  # thousands of commits: no disk flush each
        try:
            match_id = store.start_match(long_log.NEW)
            table, press_ids, live = match_table.new_table(long_log.NEW)[0], [], []
            for step in steps:
                if step == "a":
                    action = _action(rng, table, press_ids)
                    if action is not None:
                        live.append((store.append(match_id, action), table))
                        table = match_table.apply(table, action)[0]
                elif step == "u" and live:
                    seq, table = live.pop()
                    store.undo(match_id, seq)
                elif step == "r":
                    assert stats_of(store, match_id)["match"] == replayed(store, match_id)
            assert stats_of(store, match_id)["match"] == replayed(store, match_id)
        finally:
            store.close()


class TableReading(Reading):
    """game/history's reading as the service has it: a store, the table's match and its state."""

    def __init__(self, store: Store, match_id: int | None, table) -> None:
        self.store, self.match_id, self.table = store, match_id, table
        self._keeping_summaries = OneReplay()

    def history_text(self, limit: int | None = None, before: int | None = None) -> list:
        """The API's reply (JSON text, each kept line's text kept), as a client decodes it."""
        return json.loads(asyncio.run(self.history_in_turns(limit, before)))

    @contextmanager
    def _reading(self):
        yield self.store


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10_000), steps=st.lists(st.sampled_from("aaaaaauccrrn"), min_size=1, max_size=60))
def test_readings_kept_for_the_other_matches_are_those_of_a_fresh_reading(seed, steps):
    """Property: whatever is written to whichever match, and whichever is the table's, game/stats
    and game/history (every match kept in memory but the table's) say what a store just opened on
    the same log says."""
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "game.sqlite3"
        store = Store(path)
        store._db.execute("PRAGMA synchronous=OFF")  # hundreds of commits: no disk flush each
        try:
            matches: dict[int, list] = {}  # id: [table, press ids, (seq, table before) of live actions]

            def new_match() -> None:
                matches[store.start_match(long_log.NEW)] = [match_table.new_table(long_log.NEW)[0], [], []]
            for _ in range(3):
                new_match()
            current = max(matches)
            for step in steps:
                match_id = rng.choice(sorted(matches))
                played = matches[match_id]
                if step == "a":
                    action = _action(rng, played[0], played[1])
                    if action is not None:
                        after = match_table.apply(played[0], action)[0]
                        played[2].append((store.append(match_id, action, over=after.match_over), played[0]))
                        played[0] = after
                elif step == "u" and played[2]:
                    seq, played[0] = played[2].pop()
                    store.undo(match_id, seq, over=played[0].match_over)
                elif step == "c":
                    current = rng.choice([None, match_id])
                elif step == "n":
                    new_match()
                    current = max(matches)
                else:
                    fresh = Store(path)
                    try:
                        chosen = rng.choice([None, match_id])
                        assert stats_of(store, current, chosen) == stats_of(fresh, current, chosen)
                        table = None if current is None else matches[current][0]
                        before = rng.choice([None, match_id + 1])
                        kept, anew = TableReading(store, current, table), TableReading(fresh, current, table)
                        assert kept.history_text(2, before) == anew.history_text(2, before)
                        assert kept.history_text() == anew.history_text()
                    finally:
                        fresh.close()
        finally:
            store.close()


@pytest.fixture(scope="module")
def one_long_match_dir(tmp_path_factory):
    state = tmp_path_factory.mktemp("one-match")
    long_log.build(state, ACTIONS, ACTIONS)  # one match of 100,000 actions, the table's
    return state


def test_stats_and_history_of_one_match_of_100000_actions_through_the_socket(one_long_match_dir, tmp_path,
                                                                              monkeypatch):
    state = tmp_path / "state" / "game"  # the game's own state dir
    state.mkdir(parents=True)
    (state / long_log.FILENAME).write_bytes((one_long_match_dir / long_log.FILENAME).read_bytes())
    fed = Fed(monkeypatch)
    with ThreadDaemon(tmp_path, "") as running:
        # The daemon serves once the layer is up or after START_WAIT_S: a busy machine replays longer.
        running.wait_for(lambda status: status["game_layer"]["state"] == "up", timeout=120)
        with running.client(timeout=120) as client:
            cold = client.call("game/stats")  # catches the match up once, a slice at a time
            assert cold["match_id"] == 1 and cold["history"]["matches"] == 1
            assert fed.actions == ACTIONS - 1
            costs, work = {}, {}
            for method in ("game/stats", "game/history", "game/stats"):
                fed.actions = 0
                started = time.perf_counter()
                client.call(method)
                costs[method] = time.perf_counter() - started
                work[method] = fed.actions
            client.call("game/uno", {"player": "Ann"})
            fed.actions = 0
            started = time.perf_counter()
            after = client.call("game/stats")
            costs["game/stats after an action"] = time.perf_counter() - started
            work["game/stats after an action"] = fed.actions
    # The behaviour: nothing replayed again at a reading, one action fed after one action.
    assert work == {"game/stats": 0, "game/history": 0, "game/stats after an action": 1}, work
    assert after["match"]["players"] == cold["match"]["players"]  # an Uno call is no press
    # Replaying the match took 3-14 s; a reading is a few ms: a figure, not a verdict.
    print(f"\none match of {ACTIONS} actions, readings (s): {costs}")


def test_a_long_match_set_aside_is_replayed_a_slice_at_a_time(tmp_path, monkeypatch):
    """A match not kept yet and not the table's (set aside before its figures were read, or a log
    of an older version) is replayed 2,000 actions per turn of the game loop, not in one go, and
    its figures are those of a full replay."""
    import asyncio

    path = long_log.build(tmp_path, 5_000, 5_000)
    store = Store(path)
    turns = []
    real_sleep = asyncio.sleep

    async def counted(delay, *args):
        turns.append(delay)
        await real_sleep(delay, *args)
    monkeypatch.setattr(stats_module.asyncio, "sleep", counted)
    try:
        asyncio.run(stats_module.keep_missing_figures(store, current=None))
        assert len(turns) >= 5_000 // stats_module._CHUNK
        assert store.figures("stats", [1])[1] == match_stats([r.to_json() for r in store.actions(1)])
    finally:
        store.close()


def test_a_reading_asked_again_while_the_log_is_unchanged_is_not_computed_again(tmp_path, monkeypatch):
    # Four clients reading in a loop kept the game thread busy decoding the kept figures for every
    # request, and the motor's thread waited for the GIL behind it (bench/loaded.py, "readers").
    state = tmp_path / "state" / "game"  # the game's own state dir
    state.mkdir(parents=True)
    long_log.build(state, 4 * PER_MATCH, PER_MATCH)
    listed = []
    matches = Store.matches

    def counted(store, *args, **kwargs):
        listed.append(args)
        return matches(store, *args, **kwargs)
    monkeypatch.setattr(Store, "matches", counted)
    with ThreadDaemon(tmp_path, "") as running:
        with running.client(timeout=60) as client:
            for _ in range(2):  # the first readings keep every match's figures in the log: a write
                stats, history = client.call("game/stats"), client.call("game/history")
                page = client.call("game/history", {"limit": 2})
            listed.clear()
            for _ in range(3):
                assert client.call("game/stats") == stats
                assert client.call("game/history") == history
                assert client.call("game/history", {"limit": 2}) == page
            assert listed == []
            client.call("game/new", {"rules": "attack-mega-hit", "players": ["Ann", "Bob"], "force": True})
            now_history = client.call("game/history")
            now_stats = client.call("game/stats")
            assert listed, "an action was logged: the readings are computed afresh"
    assert [entry["id"] for entry in now_history] == [entry["id"] for entry in history] + [5]
    assert now_history[-1]["current"] and not any(entry["current"] for entry in now_history[:-1])
    assert now_stats["history"]["matches"] == stats["history"]["matches"] + 1


def test_a_reading_after_an_action_reads_the_tables_match_alone(tmp_path, monkeypatch):
    # Every action of a match in play changes the log, and the readings after it were computed
    # again over every match: 250 matches' kept figures listed, decoded and added up, 15-25 ms on
    # the game thread per action, which four readers then made the motor's thread wait behind.
    state = tmp_path / "state" / "game"  # the game's own state dir
    state.mkdir(parents=True)
    long_log.build(state, 20 * PER_MATCH, PER_MATCH)
    listed, decoded = [], []
    matches, figures = Store.matches, Store.figures

    def counted_matches(store, *args, **kwargs):
        listed.append(args)
        return matches(store, *args, **kwargs)

    def counted_figures(store, kind, match_ids):
        kept = figures(store, kind, match_ids)
        decoded.extend(kept)
        return kept
    monkeypatch.setattr(Store, "matches", counted_matches)
    monkeypatch.setattr(Store, "figures", counted_figures)
    # And encoded again: 250 lines after each press, 2.4 ms of a 100,000-action log's reading.
    encoded_lines, encode = [], json.JSONEncoder.encode

    def counted_encode(encoder, value):
        encoded_lines.extend(line["id"] for line in (value if isinstance(value, list) else [value])
                             if isinstance(line, dict) and "rounds" in line and "current" in line)
        return encode(encoder, value)
    monkeypatch.setattr(json.JSONEncoder, "encode", counted_encode)
    with ThreadDaemon(tmp_path, "") as running:
        with running.client(timeout=60) as client:
            client.call("game/new", {"rules": "attack-mega-hit", "players": ["Ann", "Bob"], "force": True})
            stats, history = client.call("game/stats"), client.call("game/history")
            page = client.call("game/history", {"limit": 3, "before": 21})
            listed.clear(), decoded.clear(), encoded_lines.clear()
            client.call("game/play", {"card": "5", "color": "red"})
            after = client.call("game/stats"), client.call("game/history")
            after_page = client.call("game/history", {"limit": 3, "before": 21})
    assert listed == [] and len(decoded) <= 2, (listed, decoded)
    assert encoded_lines == [21], encoded_lines  # the table's line, once; the page has none
    # And what they say is what a reading over the whole log says.
    assert after[0]["history"] == stats["history"] and after[0]["match"]["id"] == 21
    assert after[1][:-1] == history[:-1] and after[1][-1]["current"] and after[1][-1]["id"] == 21
    assert after_page == page == history[17:20]
    with ThreadDaemon(tmp_path, "") as again:  # a fresh daemon: nothing kept in memory
        with again.client(timeout=60) as client:
            assert client.call("game/stats") == after[0] and client.call("game/history") == after[1]


def test_the_figures_an_older_log_lacks_are_kept_after_the_start_before_anyone_reads(tmp_path, monkeypatch,
                                                                                      caplog):
    # A long log written by an older version kept no figures: the first reading replayed every
    # match (4 s at 100,000 actions). The game side now replays them after the start, on its loop.
    state = tmp_path / "state" / "game"  # the game's own state dir
    state.mkdir(parents=True)
    long_log.build(state, 8 * PER_MATCH, PER_MATCH)
    reads = Reads(monkeypatch)
    ready = threading.Event()

    class Ready(logging.Handler):
        def emit(self, record):
            if "statistics and history are ready" in record.getMessage():
                ready.set()
    handler = Ready()
    caplog.set_level(logging.INFO, logger="launcherd.game")
    logging.getLogger("launcherd.game").addHandler(handler)
    try:
        with ThreadDaemon(tmp_path, "") as running:
            assert ready.wait(60), "the figures were not kept after the start"
            reads.rows = 0
            with running.client(timeout=60) as client:
                stats, history = client.call("game/stats"), client.call("game/history")
    finally:
        logging.getLogger("launcherd.game").removeHandler(handler)
    assert reads.rows < PER_MATCH  # the table's match at most: no match was replayed for the reading
    assert stats["history"]["matches"] == 8 and all(entry["rounds"] is not None for entry in history)
