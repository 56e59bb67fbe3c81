"""Power loss: launcherd killed with SIGKILL at a random moment of a game, again and again.

One long life of the table: every trial restarts launcherd on the same state directory, plays a
scripted stretch of game with score entry (moves, Uno calls, presses of the launcher, rounds scored,
undos, now and then a new match), pipelined so that several requests are in flight, and kills the
process after a random delay. Then:

- a copy of the database as the kill left it (main file and WAL, no shared-memory index: the
  recovery a restart does) passes SQLite's ``integrity_check``;
- launcherd is started again on the same state dir and its game layer comes up, which catches up
  on the launch outcomes it had not logged (``outcomes.jsonl``, firmware/daemon/outcomes.py): a press is
  answered by the motor's loop once its outcome is on disk, and logged by the game's thread after
  that reply (issue 19), so at the kill an acknowledged launch may be in the outcome record only;
- the log's rows are then exactly the rows of the previous trial, every action acknowledged in
  this one, in order (each acknowledged launch once: its press with its cards and press id), then
  at most the actions of requests that were in flight (sent, not yet answered), in their order:
  nothing acknowledged is lost, nothing is logged twice, nothing unsent appears;
- the rows the kill left are the start of those: what the restart adds is presses caught up on,
  so every acknowledged game action (not a launch) was on disk before its reply;

and the daemon serves that same log (``game/log``) and a table that is its replay
(``game/status``), and the game goes on in the next trial. A trial runs with every commit of the
game log slowed (``LAUNCHER_TEST_COMMIT_DELAY_MS``) and the kill right after a launch's reply, so
that the press is certainly not yet in SQLite when the process dies.

SIGKILL ends the process, not the machine: what it proves is that an acknowledged action has been
committed before its reply leaves. That a commit survives a real power cut rests on
``synchronous=FULL`` in WAL mode (controller/log/store.py), and the outcome record's on its fsync,
which these tests cannot cut the power on.

``make test`` runs 5 trials and 4 slowed ones; ``make soak`` runs 50 (``RELIABILITY_SEED`` changes
the script).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import sqlite3
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from harness.launcherd import DaemonProcess
from controller.match import table as match_table
from controller.rules import hands
from controller.rules import state as rules_state
from controller.rules.points import POINTS
from firmware.client import Client

SEED = int(os.environ.get("RELIABILITY_SEED", "20240611"))
FIXED = """
[ejection]
profile = "fixed"
sequence = [0, 2, 0, 0, 1, 3, 0]
"""
PLAYERS = ["Ann", "Bob", "Cy", "Dee"]
# Never reached, so that no match ends in the middle of a pipelined script.
NEW = {"rules": "attack-mega-hit", "players": PLAYERS, "target": 1_000_000}
CARDS = ["1", "5", "7", "9", "reverse", "skip"]
# One colour: every play then matches the top card, so the game's colour rule accepts every one
# (this test is about the log surviving a power cut, not about the rules).
COLOR = "red"
# The kill comes this long after the first request: most scripts are still running then.
KILL_AFTER_S = (0.0, 0.5)


@dataclass
class Row:
    match_id: int
    action: dict
    undone: bool = False


@dataclass
class Request:
    method: str
    params: dict


@dataclass
class Trial:
    script: list[Request]
    replies: dict[int, dict] = field(default_factory=dict)  # index in script -> reply message
    sent: int = 0


def make_script(rng: random.Random, live: list[dict], new_match: bool, length: int) -> list[Request]:
    """Requests the table accepts whatever the launcher gives: nobody ever owes presses here.

    ``live``: the live actions of the current match. The script follows the table they build
    (``controller.match.table``, the daemon's own reducer) through its own requests, so that every
    one is legal (#39, controller/rules/hands.py): plays by whoever's turn it is, and a round ended
    by the player who laid their last card (a Discard All lays its colour beneath it: any hand may
    end on one), the others' hands entered as points their cards can make. A launch's cards are
    known only once it is answered: the script counts none, so the table holds at least the cards
    it counts, and a play is scripted only from a hand it counts at 2 or more (a hand of one would
    end the round on its play, told or not).
    """
    script: list[Request] = []
    actions = [{"type": "new", **NEW}] if new_match else list(live)
    if new_match:
        script.append(Request("game/new", dict(NEW)))
    with rules_state.replaying():  # (each was accepted when it was logged)
        tables = [match_table.new_table(actions[0])[0]]
        for action in actions[1:]:
            tables.append(match_table.apply(tables[-1], action)[0])

    def add(request: Request, action: dict) -> None:
        tables.append(match_table.apply(tables[-1], action)[0])  # raises if the script is wrong
        script.append(request)

    while len(script) < length:
        game = tables[-1].game
        over = game.round_over
        seat = rules_state.turn_seat(game)
        roll = rng.random()
        if roll < 0.25:
            if over or hands.bounds(game, seat)[1] < 2:
                continue
            card = rng.choice(CARDS)
            add(Request("game/play", {"card": card, "color": COLOR}),
                {"type": "play", "card": card, "color": COLOR})
        elif roll < 0.35:
            if over:
                continue
            player = rng.choice(PLAYERS)
            add(Request("game/uno", {"player": player}), {"type": "uno", "player": player})
        elif roll < 0.75:
            if over:
                continue
            add(Request("launcher/launch", {}), {"type": "press", "cards": 0})
        elif roll < 0.9:
            if not over:  # the player whose turn it is lays their last cards under a Discard All
                last = {"card": "discard-all", "color": COLOR, "last": True}
                add(Request("game/play", last), {"type": "play", **last})
                game = tables[-1].game
            points = POINTS[game.ruleset]
            least = 0 if "0" in points else 1  # no 0 card: a hand that holds one scores
            held = {name: rng.randint(least, min(40, hands.bounds(game, other)[1] * max(points.values())))
                    for other, name in enumerate(game.players) if other != game.winner}
            params = {"winner": game.players[game.winner], "hands": held}
            add(Request("game/end-round", params), {"type": "end_round", **params})
        elif len(tables) > 1:  # never the match's opening
            tables.pop()
            script.append(Request("game/undo", {}))
    return script


def logged(request: Request, result: dict) -> dict | None:
    """The action the game layer logs for an acknowledged request (None: nothing new is logged)."""
    if request.method == "launcher/launch":
        assert result.get("outcome") != "empty", ("the hopper ran out: make the script shorter", result)
        return {"type": "press", "cards": result["cards"], "press_id": result["press_id"]}
    if request.method == "game/undo":
        return None
    kind = request.method.split("/")[1].replace("-", "_")
    action = {"type": kind, **request.params}
    if kind == "new":
        action.setdefault("scoring", "standard")
    return action


def apply_request(rows: list[Row], match_id: int | None, request: Request, result: dict | None
                  ) -> int | None:
    """Fold one request into the expected rows; ``result`` None: not answered (press unknown)."""
    if request.method == "game/undo":
        live = [row for row in rows if row.match_id == match_id and not row.undone]
        assert len(live) >= 2, "the script undid the opening of a match"
        live[-1].undone = True
        if result is not None:
            assert comparable(result["undone"]) == comparable(live[-1].action)
        return match_id
    if request.method == "game/new":
        match_id = result["match_id"] if result is not None else max(
            (row.match_id for row in rows), default=0) + 1
    if result is None and request.method == "launcher/launch":
        action = {"type": "press"}  # cards and press_id unknown: compared by type only
    else:
        action = logged(request, result)
    rows.append(Row(match_id, action))
    return match_id


def comparable(action: dict) -> dict:
    """An action as the script can predict it: who acted (``by``, logged by the game) is the
    game's call, not the script's, unless the script named the player itself."""
    return {k: v for k, v in action.items() if k != "by"}


def same_rows(expected: list[Row], actual: list[Row]) -> bool:
    if len(expected) != len(actual):
        return False
    for want, got in zip(expected, actual):
        if (want.match_id, want.undone) != (got.match_id, got.undone):
            return False
        if want.action == {"type": "press"}:
            if got.action.get("type") != "press":
                return False
        elif comparable(want.action) != comparable(got.action):
            return False
    return True


def read_rows(database: Path) -> tuple[str, list[Row]]:
    """The integrity verdict and every row of a database file."""
    db = sqlite3.connect(database)
    try:
        verdict = "; ".join(row[0] for row in db.execute("PRAGMA integrity_check"))
        rows = [Row(match_id, json.loads(action), bool(undone)) for match_id, action, undone in
                db.execute("SELECT match_id, action, undone FROM actions ORDER BY seq")]
    finally:
        db.close()
    return verdict, rows


def snapshot(state_dir: Path, into: Path) -> Path:
    """Copy what the kill left on disk: the database and its WAL, as a power cut would leave them.

    The -shm index is left behind (it is memory, rebuilt from the WAL on opening), and the
    daemon's own files stay untouched for its restart.
    """
    shutil.rmtree(into, ignore_errors=True)
    into.mkdir(parents=True)
    for suffix in ("", "-wal", "-journal"):
        source = state_dir / "game" / f"game.sqlite3{suffix}"
        if source.exists():
            shutil.copyfile(source, into / source.name)
    return into / "game.sqlite3"


def run_until_killed(daemon: DaemonProcess, trial: Trial, rng: random.Random, at_launch: bool = False) -> float:
    """Send the script pipelined (a random window), collect replies, SIGKILL at a random moment
    (``at_launch``: after that, as soon as the next launch is answered)."""
    window = rng.randint(1, 8)
    delay = rng.uniform(*KILL_AFTER_S)
    client = Client(daemon.socket, timeout=30)
    started = threading.Event()
    launched = threading.Event()

    def talk() -> None:
        ids: dict[int, int] = {}
        try:
            for message in _pump(client, trial, window, ids, started):
                index = ids.get(message.get("id"))
                if index is not None:
                    trial.replies[index] = message
                    if trial.script[index].method == "launcher/launch":
                        launched.set()
                if len(trial.replies) == len(trial.script):
                    return
        except (OSError, ConnectionError, ValueError):
            return  # killed: EOF, reset, or half a line

    talker = threading.Thread(target=talk, daemon=True)
    talker.start()
    started.wait(10)
    time.sleep(delay)
    if at_launch:  # the next launch's reply, then at once
        launched.clear()
        launched.wait(10)
    daemon.power_cut()  # launcherd and its game at once
    daemon.process.wait(10)
    talker.join(30)
    client.close()
    assert not talker.is_alive()
    return delay


def _pump(client: Client, trial: Trial, window: int, ids: dict[int, int], started: threading.Event):
    messages = client.messages()
    while True:
        while trial.sent < len(trial.script) and trial.sent - len(trial.replies) < window:
            request = trial.script[trial.sent]
            # Each request is its own task in the daemon: a launch is answered when its cards are
            # out, and what was sent behind it would overtake it. Launches go alone, as a player's.
            in_flight = trial.sent - len(trial.replies)
            if in_flight and (request.method == "launcher/launch"
                              or trial.script[trial.sent - 1].method == "launcher/launch"):
                break
            ids[client.send(request.method, request.params)] = trial.sent
            trial.sent += 1
            started.set()
        yield next(messages)


def check_trial(known: list[Row], match_id: int | None, trial: Trial, on_disk: list[Row]
                ) -> tuple[int | None, int]:
    """The rows on disk are ``known``, the acknowledged ones, then some of the in-flight ones.

    Returns the current match id and how many unanswered requests had been committed.
    """
    expected = [Row(r.match_id, dict(r.action), r.undone) for r in known]
    answered = 0
    while answered in trial.replies:
        reply = trial.replies[answered]
        assert "error" not in reply, f"request {trial.script[answered]} refused: {reply['error']}"
        match_id = apply_request(expected, match_id, trial.script[answered], reply["result"])
        answered += 1
    assert len(trial.replies) == answered, "replies came out of order"
    in_flight = trial.script[answered:trial.sent]
    candidates = [([Row(r.match_id, dict(r.action), r.undone) for r in expected], match_id)]
    for request in in_flight:
        rows, current = candidates[-1]
        rows = [Row(r.match_id, dict(r.action), r.undone) for r in rows]
        current = apply_request(rows, current, request, None)
        candidates.append((rows, current))
    for committed, (rows, current) in enumerate(candidates):
        if same_rows(rows, on_disk):
            return current, committed
    raise AssertionError(
        f"the log is not the acknowledged actions plus some in-flight ones:\n"
        f" known before: {len(known)} rows, acknowledged now: {answered}, in flight: "
        f"{[r.method for r in in_flight]}\n on disk (new rows): {[r.action for r in on_disk[len(known):]]}")


def read_live_rows(state_dir: Path) -> list[Row]:
    """Every row of the log of a running daemon (a reader beside it: WAL lets it)."""
    db = sqlite3.connect(f"file:{state_dir / 'game' / 'game.sqlite3'}?mode=ro", uri=True)
    try:
        return [Row(match_id, json.loads(action), bool(undone)) for match_id, action, undone in
                db.execute("SELECT match_id, action, undone FROM actions ORDER BY seq")]
    finally:
        db.close()


def start_caught_up(tmp_path: Path, seed: int, env: dict | None) -> DaemonProcess:
    """launcherd on the trials' state dir, not halted, its game layer up (caught up on outcomes)."""
    daemon = DaemonProcess(tmp_path, FIXED, seed=seed, env=env).start()
    launcher = daemon.call("status/get")
    if launcher["state"] == "halted":
        # Killed while the motor ran: the latch holds it halted until a person resets it.
        assert launcher["reason_object"] == {"id": "halted_after_crash"}, launcher
        daemon.call("system/reset")
    deadline = time.monotonic() + 60
    while daemon.call("status/get")["game_layer"]["state"] != "up":
        assert time.monotonic() < deadline, daemon.call("status/get")["game_layer"]
        time.sleep(0.05)
    return daemon


def power_loss_trials(tmp_path: Path, trials: int, seed: int, env: dict | None = None,
                      at_launch: bool = False) -> dict:
    rng = random.Random(seed)
    known: list[Row] = []
    match_id: int | None = None
    killed: tuple[Trial, list[Row]] | None = None  # the last trial and the rows its kill left
    stats = {"trials": trials, "acknowledged": 0, "in_flight": 0, "committed_unanswered": 0,
             "rows": 0, "max_delay_s": 0.0, "killed_mid_script": 0, "caught_up": 0, "rounds_ended": 0}
    for number in range(trials + 1):
        daemon = start_caught_up(tmp_path, seed + number, env)
        try:
            if killed is not None:
                trial, at_kill = killed
                after = read_live_rows(daemon.state_dir)
                match_id, committed = check_trial(known, match_id, trial, after)
                # What the restart added to what the kill left is presses caught up on, once each.
                assert after[:len(at_kill)] == at_kill, f"trial {number - 1}: the restart changed the log"
                caught_up = after[len(at_kill):]
                assert all(row.action["type"] == "press" for row in caught_up), [r.action for r in caught_up]
                press_ids = [row.action["press_id"] for row in after[len(known):] if row.action["type"] == "press"]
                assert len(press_ids) == len(set(press_ids)), f"trial {number - 1}: a launch logged twice"
                stats["caught_up"] += len(caught_up)
                stats["committed_unanswered"] += committed
                known = after
            if known:
                # The restart serves the log, and the table is its replay.
                log = daemon.call("game/log")
                current = [r for r in known if r.match_id == match_id]
                assert [(r["action"], r["undone"]) for r in log["actions"]] == \
                    [(r.action, r.undone) for r in current], f"trial {number}: game/log after restart"
                status = daemon.call("game/status")
                live = [r.action for r in current if not r.undone]
                replayed = json.loads(json.dumps(match_table.status(match_table.replay(live))))
                shown = {k: v for k, v in status.items() if k not in ("reload_advice", "match_id", "state_dir",
                                                                     "what_now", "what_now_object", "press_means",
                                                                     "load_deck")}
                assert shown == replayed, f"trial {number}: the table is not the replay of its log"
                assert status["match_id"] == match_id
            if number == trials:
                break
            live = [r.action for r in known if r.match_id == match_id and not r.undone]
            trial = Trial(make_script(rng, live, new_match=not known or number % 10 == 9,
                                      length=rng.randint(40, 120)))
            delay = run_until_killed(daemon, trial, rng, at_launch)
        finally:
            daemon.kill()
        assert daemon.process.returncode == -signal.SIGKILL

        verdict, at_kill = read_rows(snapshot(daemon.state_dir, tmp_path / "snapshot"))
        assert verdict == "ok", f"trial {number}: integrity_check: {verdict}"
        killed = (trial, at_kill)
        stats["acknowledged"] += len(trial.replies)
        stats["rounds_ended"] += sum(trial.script[i].method == "game/end-round" for i in trial.replies)
        stats["in_flight"] += trial.sent - len(trial.replies)
        stats["killed_mid_script"] += len(trial.replies) < len(trial.script)
        stats["max_delay_s"] = max(stats["max_delay_s"], round(delay, 3))
    stats["rows"] = len(known)
    return stats


def report(stats: dict) -> None:
    print(f"\npower loss: {stats}")


def test_power_loss_quick(tmp_path):
    """make test: five kills of a game in progress, each restart with every acknowledged action."""
    stats = power_loss_trials(tmp_path, 5, SEED)
    report(stats)
    assert stats["acknowledged"] > 0
    assert stats["rounds_ended"] > 0, stats  # score entry among what the kills cut into


def test_power_loss_right_after_a_launch_with_slow_commits(tmp_path):
    """Every commit of the game log takes 150 ms (a slow SD card) and the kill comes as soon as a
    launch is answered: its press is in the outcome record, not yet in SQLite, and the restart
    puts it in the game, once."""
    stats = power_loss_trials(tmp_path, 4, SEED + 2, env={"LAUNCHER_TEST_COMMIT_DELAY_MS": "150"},
                              at_launch=True)
    report(stats)
    assert stats["caught_up"] > 0, stats


@pytest.mark.soak
def test_power_loss_fifty_trials(tmp_path):
    """make soak: the issue's 50 trials of SIGKILL at a random moment of a game and score entry."""
    stats = power_loss_trials(tmp_path, 50, SEED + 1)
    report(stats)
    # Most kills land while requests are in flight, not after the script has ended.
    assert stats["killed_mid_script"] >= 35
    assert stats["in_flight"] > 0
