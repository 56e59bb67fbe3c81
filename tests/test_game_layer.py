"""The game beside the motor (issues 19, 38): slow, raising or dead, the launcher goes on.

Each test makes the game layer misbehave the way a slow SD card or a bug would (a listener, a
reading or a commit held until the test lets it go, a loop that dies) in a daemon running in this
process, and checks what the motor did meanwhile through the mock pins: the jam stop not before
the core's deadline (the beam's block plus ``jam_ms``), the retraction pulse not shorter than
``retract_ms``. Then the game layer's availability in ``status/get`` and the game's log: every
launch in it exactly once.
"""

from __future__ import annotations

import contextlib
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from harness.launcherd import BLASTER, ThreadDaemon, game_dies
from harness.waits import HANG_S, wait_until
from controller.layer import reading
from controller.layer.service import GameService
from controller.log.store import Store
from controller.match import stats
from firmware.daemon import outcomes
from firmware.errors import ApiError
from firmware import i18n

FIXED = '[ejection]\nprofile = "fixed"\nsequence = {seq}\n'
PLAYERS = {"rules": "attack-mega-hit", "players": ["Ann", "Bob", "Cy"]}
MOTOR_FORWARD, MOTOR_REVERSE, BEAM = 12, 13, 27  # firmware/launcher.toml's pins
JAM_MS, RETRACT_MS = 150, 10  # conftest's FAST_SIM
# The motor's loop never waits for the game layer: each test below holds the game's loop (a
# listener, a reading, a commit) until the test lets it go, and the launch must end meanwhile; a
# game layer on the motor's loop would hold the launch too, and the test would wait out its bound
# on a hang. How late a busy machine's loop runs a stop is bench/loaded.py's figure, not a verdict.


def change_times(pin) -> list[tuple[float, float]]:
    """(monotonic time, state) of every change of a mock pin, oldest first."""
    times, at = [], pin._last_change
    for change in reversed(pin.states):
        times.append((at, change.state))
        at -= change.timestamp
    return times[::-1]


def last_change(running: ThreadDaemon, bcm: int, to=None) -> float:
    changes = running.in_loop(lambda: change_times(running.daemon.pin_factory.pin(bcm)))
    return [at for at, state in changes if to is None or state == to][-1]


def jam_at_its_deadline(running: ThreadDaemon) -> None:
    """A press whose card sticks: the motor stops at the core's jam deadline (the block + jam_ms),
    never before it."""
    running.call("sim/jam")
    assert running.call("launcher/press")["ended"] == "jam"
    lateness = last_change(running, MOTOR_FORWARD, to=0) - (last_change(running, BEAM) + JAM_MS / 1000)
    assert lateness > -0.005
    assert running.call("status/get")["state"] == "jammed"


def presses_logged(running: ThreadDaemon) -> list[dict]:
    return [a["action"] for a in running.call("game/log")["actions"] if a["action"]["type"] == "press"]


def layer_state(running: ThreadDaemon, state: str, timeout: float = HANG_S) -> dict:
    return running.wait_for(lambda s: s["game_layer"]["state"] == state, timeout)["game_layer"]



def hold_listener(monkeypatch, on: str, hold) -> None:
    """The game layer's listener runs ``hold()`` on the first ``on`` event, then goes on."""
    original = GameService.on_event
    held = []

    def listener(self, name, params):
        if name == on and not held:
            held.append(name)
            hold(self.daemon) if hold is game_dies else hold()
        original(self, name, params)

    monkeypatch.setattr(GameService, "on_event", listener)


def test_a_jam_stops_while_the_game_layer_is_held(tmp_path, monkeypatch):
    held, release = threading.Event(), threading.Event()
    hold_listener(monkeypatch, "press", lambda: (held.set(), release.wait(HANG_S)))
    with ThreadDaemon(tmp_path, FIXED.format(seq="[0, 3]")) as running:
        running.call("game/new", PLAYERS)
        running.call("launcher/press")  # a dry press: the game's loop is held on its event
        assert held.wait(HANG_S)
        jam_at_its_deadline(running)
        assert not release.is_set()  # the game's loop is held still
        release.set()
        running.call("sim/clear")
        running.wait_for(lambda s: s["state"] == "ready")
        assert [p["cards"] for p in presses_logged(running)] == [0, 1]  # the stuck card is the presser's


READ_STATS_FOREVER = """
import sys
from firmware.client import Client
with Client(sys.argv[1], timeout=600) as client:
    while True:
        client.call("game/stats")
"""


def test_a_jam_stops_while_stats_readers_hold_the_game_layer(tmp_path, monkeypatch):
    """Four readers of game/stats in processes of their own, as launcher-web's clients would be,
    and the reading held (a long log's took most of a second): the jam stops the motor meanwhile."""
    held, release = threading.Event(), threading.Event()
    original = stats.stats_of

    def held_reading(*args):
        held.set()
        release.wait(HANG_S)
        return original(*args)

    monkeypatch.setattr(stats, "stats_of", held_reading)
    with ThreadDaemon(tmp_path, FIXED.format(seq="[3]")) as running:
        running.call("game/new", PLAYERS)
        readers = [subprocess.Popen([sys.executable, "-c", READ_STATS_FOREVER, str(running.daemon.socket_path)])
                   for _ in range(4)]
        try:
            assert held.wait(HANG_S)
            jam_at_its_deadline(running)
            assert not release.is_set()
        finally:
            release.set()
            for reader in readers:
                reader.kill()
                reader.wait(HANG_S)


def test_a_commit_held_mid_launch_neither_halts_the_launcher_nor_delays_its_stops(tmp_path, monkeypatch):
    """A commit on a tired SD card, held until the launch is over: the motor stops as the eighth
    card clears the beam, and its reverse pulse is its full length, while the commit waits."""
    append = Store.append
    armed, held, release = threading.Event(), threading.Event(), threading.Event()

    def held_append(self, *args, **kwargs):
        if armed.is_set():
            held.set()
            release.wait(HANG_S)
        return append(self, *args, **kwargs)

    monkeypatch.setattr(Store, "append", held_append)
    # Eight cards at ten a second: the motor runs for most of a second.
    with ThreadDaemon(tmp_path, FIXED.format(seq="[8]") + "[sim]\ncards_per_second = 10.0\n") as running:
        running.call("game/new", PLAYERS)
        armed.set()
        uno = threading.Thread(target=running.call, args=("game/uno", {"player": "Bob"}))
        with running.client() as presser:
            request = presser.send("launcher/press")
            running.wait_for(lambda s: s["motor"]["on"])
            uno.start()  # committed while the motor runs, or the press's own entry is: either waits
            assert held.wait(HANG_S)
            outcome = next(m for m in presser.messages() if m.get("id") == request)["result"]
        assert not release.is_set()
        assert (outcome["ended"], outcome["cards"]) == ("done", 8)
        assert running.call("status/get")["state"] == "ready"
        assert running.call("status/get")["sim"]["cards_out"] == 8  # it stopped as the eighth card cleared
        assert last_change(running, MOTOR_FORWARD, to=0) >= last_change(running, BEAM)
        changes = running.in_loop(lambda: change_times(running.daemon.pin_factory.pin(MOTOR_REVERSE)))
        (started, on), (ended, off) = changes[-2:]
        assert on > 0 and off == 0
        assert ended - started > RETRACT_MS / 1000 - 0.002  # never cut short
        release.set()
        uno.join(HANG_S)
        assert wait_until(lambda: [p["cards"] for p in presses_logged(running)] == [8], what="the press logged")


def test_the_commit_delay_hook_slows_every_game_commit(tmp_path, monkeypatch):
    monkeypatch.setenv("LAUNCHER_TEST_COMMIT_DELAY_MS", "200")  # a commit takes milliseconds without it
    with ThreadDaemon(tmp_path) as running:
        started = time.monotonic()
        running.call("game/new", PLAYERS)
        assert time.monotonic() - started >= 0.2  # a lower bound: never flaky
        assert running.call("status/get")["state"] == "ready"



def test_a_game_layer_that_dies_mid_launch_is_restarted_and_catches_up_once(tmp_path, monkeypatch, held_restart):
    hold_listener(monkeypatch, "press", game_dies)
    with ThreadDaemon(tmp_path, FIXED.format(seq="[2]")) as running:
        running.call("game/new", PLAYERS)
        assert running.call("launcher/press")["cards"] == 2
        down = layer_state(running, "down")
        assert down["reason_object"]["id"] == "game_layer_died"
        with pytest.raises(ApiError) as refused:
            running.call("game/status", lang="fr")
        assert refused.value.code == ApiError.UNAVAILABLE and "couche du jeu" in refused.value.message
        held_restart.set()
        assert layer_state(running, "up")["reason_object"] is None
        assert [(p["press_id"], p["cards"], p["by"]) for p in presses_logged(running)] == [(1, 2, "Ann")]



def test_every_launch_outcome_carries_a_seq_that_survives_a_restart(tmp_path):
    for expected in ([1, 2, 3], [4, 5]):
        with ThreadDaemon(tmp_path, FIXED.format(seq="[0]"), load_layers=False) as running:
            with running.client() as watcher:
                watcher.call("events/subscribe")
                assert [running.call("launcher/press")["seq"] for _ in expected] == expected
                heard = []
                for message in watcher.messages():
                    if message.get("event") == "launched":
                        heard.append(message["params"]["seq"])
                    if len(heard) == len(expected):
                        break
            assert heard == expected


def test_the_outcome_record_keeps_only_what_the_game_has_not_logged(tmp_path, monkeypatch):
    monkeypatch.setattr(outcomes, "KEEP", 2)
    with ThreadDaemon(tmp_path, FIXED.format(seq="[0]")) as running:
        running.call("game/new", PLAYERS)
        for _ in range(8):
            running.call("launcher/press")
        record = tmp_path / "state" / outcomes.FILENAME
        deadline = time.monotonic() + 10
        while len(entries := outcomes.read_record(record)) > 3:
            assert time.monotonic() < deadline, entries
            time.sleep(0.05)
        assert entries[-1]["seq"] == 8
        assert len(presses_logged(running)) == 8


def test_both_catalogues_are_compiled_before_ready(tmp_path, monkeypatch):
    for catalogue in i18n.catalogues():  # firmware's and the game's, as in a fresh launcherd
        monkeypatch.setattr(catalogue, "_compiled", {})

    class Notifier:
        compiled_at_ready: dict[str, list[str]] | None = None

        def ready(self, status=None):
            Notifier.compiled_at_ready = {c.domain: sorted(c._compiled) for c in i18n.catalogues()}
            return True

        def status(self, text):
            return True

        def stopping(self):
            return True

        def watchdog(self):
            return True

        def watchdog_interval(self):
            return None

    with ThreadDaemon(tmp_path, notifier=Notifier()) as running:
        assert Notifier.compiled_at_ready == {"firmware": ["en", "fr"], "launcher": ["en", "fr"]}
        assert running.call("status/get", lang="fr")["state"] == "ready"


def test_a_launch_heard_before_the_game_logged_it_is_in_the_game_after_kill_9(tmp_path, daemon_process):
    with ThreadDaemon(tmp_path, FIXED.format(seq="[2]")) as running:  # the match, before the slow log
        running.call("game/new", PLAYERS)
    slow = daemon_process(FIXED.format(seq="[2]"), env={"LAUNCHER_TEST_COMMIT_DELAY_MS": "1500"})
    heard = slow.call("launcher/press")  # on disk in the outcome record; the game's commit waits 1.5 s
    assert heard["cards"] == 2
    slow.process.kill()  # SIGKILL while the game layer waits to commit the press
    slow.process.wait(HANG_S)
    with ThreadDaemon(tmp_path, FIXED.format(seq="[2]")) as again:  # its successor on the same state dir
        log = [a["action"] for a in again.call("game/log")["actions"]]
        assert [(a["press_id"], a["cards"], a["by"]) for a in log if a["type"] == "press"] == [(1, 2, "Ann")]
        assert again.call("launcher/press")["seq"] == heard["seq"] + 1


def test_an_outcome_record_that_cannot_be_written_holds_no_launch_up(tmp_path):
    (tmp_path / "state" / outcomes.FILENAME).mkdir(parents=True)  # not a file: every write fails
    with ThreadDaemon(tmp_path, FIXED.format(seq="[1]"), load_layers=False) as running:
        assert [running.call("launcher/press")["seq"] for _ in range(2)] == [1, 2]
        assert running.call("status/get")["state"] == "ready"


def test_a_blasters_insertions_are_outcomes_too_caught_up_once_after_the_layer_dies(
        tmp_path, monkeypatch, held_restart):
    """An insertion made while the game layer is dead is in the game once it is back: a blaster's
    ``insert`` and ``blast`` are numbered and recorded as a launcher's ``launched`` is."""
    hold_listener(monkeypatch, "insert", game_dies)
    with ThreadDaemon(tmp_path, BLASTER + 'profile = "rising"\n', seed=2) as running:
        running.call("game/new", {"rules": "blast", "players": ["Ann", "Bob", "Cy"],
                                  "first_card": "5", "color": "red"})
        first = running.call("sim/insert", {"slot": 2})  # the layer dies on it
        assert (first["outcome"], first["seq"]) == ("safe", 1)
        layer_state(running, "down")
        held_restart.set()
        layer_state(running, "up")
        second = running.call("sim/insert", {"slot": 3})
        assert second["seq"] == 2
        running.wait_for(lambda s: s["game"]["turn"] == "Cy")
        inserts = [(a["action"]["by"], a["action"]["insert_id"]) for a in running.call("game/log")["actions"]
                   if a["action"]["type"] == "insert"]
    assert inserts == [("Ann", first["insert_id"]), ("Bob", second["insert_id"])]




def wakeups(pid: int) -> int:
    """Every thread's voluntary context switches so far: how often the process woke from a wait."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(FileNotFoundError):
            for line in (task / "status").read_text().splitlines():
                if line.startswith("voluntary_ctxt_switches:"):
                    total += int(line.split()[1])
    return total


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="counts wake-ups in /proc (Linux)")
def test_an_idle_launcher_with_a_game_does_not_wake_up(daemon_process):
    """The game layer's heartbeat runs while something posted to it is not through yet, not
    forever: at 2 beats a second it was 40 wake-ups of each loop in 20 s (target: at most 10)."""
    running = daemon_process(FIXED.format(seq="[0]"))
    running.call("game/new", PLAYERS)
    running.call("launcher/press")
    # Counted every quarter second; judged over the last 2 s, which start once the beats after the
    # press have died down (within a second or two) rather than at the next whole 2 s.
    counts, window = [wakeups(running.process.pid)], 8
    for _ in range(40):
        time.sleep(0.25)
        counts.append(wakeups(running.process.pid))
        if len(counts) > window and counts[-1] - counts[-1 - window] <= 1:
            break
    assert len(counts) > window and counts[-1] - counts[-1 - window] <= 1, (
        f"wake-ups in each quarter second of idling: {[b - a for a, b in zip(counts, counts[1:])]}")

