"""The game layer end to end: launcherd in this process (sim), driven over its socket and launcherctl."""

from __future__ import annotations

import json
import subprocess
import threading
from pathlib import Path

import pytest

from harness.launcherd import ThreadDaemon
from harness.waits import HANG_S
from firmware.client import Client
from firmware.errors import ApiError

# Press outcomes are known: the n-th press gives SEQUENCE[n - 1] cards.
SEQUENCE = [0, 3, 0, 2, 1, 0, 0, 4]
CONFIG = f"""
[ejection]
profile = "fixed"
sequence = {SEQUENCE}
[sim]
cards_per_second = 50.0
"""
THREE = {"rules": "attack-mega-hit", "players": ["Ann", "Bob", "Cy"]}


class Running(ThreadDaemon):
    """conftest's daemon in a thread, with the fixed press outcomes above."""

    def __init__(self, run_dir: Path, seed: int = 1, config: str = CONFIG):
        super().__init__(run_dir, config, seed=seed)
        self.socket = self.daemon.socket_path
        self.__enter__()

    def client(self) -> Client:
        return Client(self.socket, timeout=15)

    def stop(self) -> None:
        self.__exit__(None, None, None)
        assert not self._thread.is_alive()


@pytest.fixture
def run_dir(tmp_path):
    return tmp_path


@pytest.fixture
def launcherd(run_dir):
    running = Running(run_dir)
    yield running
    running.stop()


def ctl(running: Running, *args: str) -> subprocess.CompletedProcess:
    return running.ctl("game", *args)


def players(status: dict) -> dict[str, tuple[int, int]]:
    """name -> (cards taken, presses)."""
    return {p["name"]: (p["cards_taken"], p["presses"]) for p in status["players"]}


def live_actions(client: Client) -> list[dict]:
    return [r["action"] for r in client.call("game/log")["actions"] if not r["undone"]]


def test_presses_from_button_and_api_are_the_moves_of_whose_turn_it_is(launcherd):
    with launcherd.client() as c:
        with pytest.raises(ApiError) as no_game:
            c.call("game/status")
        assert no_game.value.code == ApiError.NOT_FOUND
        status = c.call("game/new", THREE)
        assert status["turn"] == "Ann" and status["dealer"] == "Cy"
        c.call("game/play", {"card": "7", "color": "red"})
        assert c.call("launcher/press")["outcome"] == "dry"  # press 1: 0 cards, from the button
        status = c.call("game/status")
        assert players(status)["Bob"] == (0, 1) and status["turn"] == "Cy"
        status = c.call("game/play", {"card": "hit-2", "color": "red"})
        assert status["owed"]["player"] == "Ann" and status["owed"]["presses"] == 2
        assert c.call("launcher/launch")["cards"] == 3  # press 2: a burst of 3, from the API
        status = c.call("game/status")
        assert players(status)["Ann"] == (3, 1)
        assert status["owed"] is None and status["turn"] == "Bob"  # early stop: cards came out
        c.call("launcher/dispense", {"count": 2})  # dealing, not a move
        after = c.call("game/status")
        assert players(after) == players(status)
        assert [a["type"] for a in live_actions(c)] == ["new", "play", "press", "play", "press"]
        assert live_actions(c)[4] == {"type": "press", "cards": 3, "press_id": 2, "by": "Ann"}
        expected = {"ruleset", "players", "turn", "direction", "owed", "chain", "aim", "round",
                    "round_over", "winner", "color", "options", "dealer", "match", "reload_advice",
                    "match_id", "last_card_attack"}
        assert expected <= set(after)
        assert after["reload_advice"] == {"hopper": 107, "reload": False,
                                          "text": "the launcher holds about 107 cards",
                                          "text_object": {"id": "hopper_holds", "hopper": 107}}
        launcher = c.call("status/get")
        assert launcher["game"]["turn"] == "Bob"
        assert launcher["aim"] == pytest.approx(0.0)  # Bob: chair 1 of 3, the middle


def test_launcherctl_game_commands_and_bad_input(launcherd):
    done = ctl(launcherd, "new", "--players", "Ann,Bob", "--first-card", "5", "--color", "red",
               "--option", "early_stop=false")
    assert done.returncode == 0, done.stderr
    assert "Ann's move - play a card or press" in done.stdout
    with launcherd.client() as c:
        logged = live_actions(c)
        assert logged[0]["options"] == {"early_stop": "false"}
        for args in (("play", "3", "--by", "Bob"), ("play", "purple"), ("uno", "Zed"),
                     ("edit-round", "1", "Ann=3"), ("end-round", "--winner", "Zed", "Ann=3")):
            refused = ctl(launcherd, *args)
            assert refused.returncode == 1, (args, refused.stdout, refused.stderr)
            assert refused.stderr.startswith("launcherctl: ")
        for args in (("play",), ("new", "--players", "Ann,Bob", "--color", "red"),
                     ("end-round", "--winner", "Ann", "Bob"), ("play", "5", "--color", "pink")):
            assert ctl(launcherd, *args).returncode == 2, args
        for params in ({"card": 7}, {"card": "7", "colour": "red"}, {}):
            with pytest.raises(ApiError) as bad:
                c.call("game/play", params)
            assert bad.value.code == ApiError.INVALID_PARAMS
        assert live_actions(c) == logged
    as_json = ctl(launcherd, "play", "skip", "--color", "red", "--json")
    assert as_json.returncode == 0
    result = json.loads(as_json.stdout)
    assert result["turn"] == "Ann" and "Ann plays again (two players)" in result["messages"]
    shown = ctl(launcherd, "status")
    assert shown.returncode == 0 and "Ann's move" in shown.stdout and "Bob " in shown.stdout
    assert ctl(launcherd, "log").stdout.count("\n") == 3  # heading, new, play


def test_round_end_scores_edit_and_undo(launcherd):
    with launcherd.client() as c, launcherd.client() as events:
        events.call("events/subscribe")
        c.call("game/new", THREE)
        over = c.call("game/play", {"card": "discard-all", "color": "red", "last": True})  # seven red
        assert over["round_over"] and over["winner"] == "Ann"
        before = live_actions(c)
        c.call("launcher/press")  # the round is over: not a move, nothing logged
        assert live_actions(c) == before
        message = next(m for m in events.messages() if m.get("event") == "game/message"
                       and "not counted" in m["params"]["text"])
        assert "round 1 is over" in message["params"]["text"]

    ended = ctl(launcherd, "end-round", "--winner", "Ann", "Bob=7,hit-2,1,2,3,4,5", "cy=12")
    assert ended.returncode == 0, ended.stderr
    assert "round 1: Ann scores 74 (74 in all)" in ended.stdout
    scores = json.loads(ctl(launcherd, "scores", "--json").stdout)
    assert scores["totals"] == {"Ann": 74, "Bob": 0, "Cy": 0} and scores["round"] == 2
    assert scores["rounds"][0]["hands"]["Bob"]["cards"] == ["7", "hit-2", "1", "2", "3", "4", "5"]
    table = ctl(launcherd, "scores")
    assert "next: round 2, dealer Ann" in table.stdout
    csv = ctl(launcherd, "scores", "--csv").stdout.splitlines()
    assert csv == ["round,winner,dealer,Ann points,Ann total,Bob points,Bob total,Cy points,Cy total",
                   "1,Ann,Cy,74,74,0,0,0,0"]
    assert ctl(launcherd, "edit-round", "1", "Cy=20").returncode == 0
    with launcherd.client() as c:
        assert c.call("game/scores")["totals"]["Ann"] == 82
        undone = c.call("game/undo")
        assert undone["undone"]["type"] == "edit_round" and undone["match"]["totals"]["Ann"] == 74
        undone = c.call("game/undo")
        assert undone["undone"]["type"] == "end_round"
        assert undone["round"] == 1 and undone["round_over"]
        log = c.call("game/log")["actions"]
        assert [r["undone"] for r in log] == [False, False, True, True]
        c.call("game/undo")
        with pytest.raises(ApiError) as nothing:
            c.call("game/undo")
        assert nothing.value.code == ApiError.REFUSED
        c.call("game/new", {**THREE, "scoring": "lowest", "target": 100, "force": True})
        history = c.call("game/history")
        assert [(m["id"], m["rounds"], m["finished"]) for m in history] == [(1, 0, None), (2, 0, None)]
    assert "2 " in ctl(launcherd, "history").stdout


def test_a_restarted_daemon_resumes_the_game_exactly(run_dir):
    first = Running(run_dir)
    try:
        with first.client() as c:
            c.call("game/new", {**THREE, "first_card": "hit-2", "color": "blue"})
            c.call("launcher/press")  # Ann owes 2 (turned-up Hit 2): dry
            c.call("launcher/launch")  # 3 cards, still Ann's: a press from the API is a move too
            c.call("game/play", {"card": "wild-attack", "color": "green", "target": "Ann"})
            c.call("game/play", {"card": "hit-1", "color": "green"})  # Ann stacks: Mega Hit
            c.call("game/uno", {"player": "Ann"})
            before = c.call("game/status")
            log = c.call("game/log")
    finally:
        first.stop()
    again = Running(run_dir, seed=2)
    try:
        with again.client() as c:
            after = c.call("game/status")
            assert c.call("game/log") == log
    finally:
        again.stop()
    assert before["chain"] is not None and before["owed"]["player"] == "Bob"
    assert {k: v for k, v in after.items() if k != "reload_advice"} == \
        {k: v for k, v in before.items() if k != "reload_advice"}


def test_reload_advice_and_an_empty_launcher(run_dir):
    config = """
[ejection]
profile = "fixed"
sequence = [3, 5]
[sim]
cards_per_second = 50.0
hopper = 14
[timing]
feed_timeout_ms = 300
"""
    running = Running(run_dir, config=config)
    try:
        with running.client() as c, running.client() as events:
            events.call("events/subscribe")
            c.call("game/new", THREE)
            assert c.call("launcher/launch")["cards"] == 3
            status = c.call("game/status")
            assert status["reload_advice"]["reload"] and status["reload_advice"]["hopper"] == 11
            texts = (m["params"]["text"] for m in events.messages() if m.get("event") == "game/message")
            assert next(t for t in texts if "left in the launcher" in t).startswith("about 11 cards")
            c.call("launcher/reload", {"cards": 0})
            assert c.call("launcher/launch")["ended"] == "empty"  # the feed ran dry: no card
            assert "the launcher is empty" in next(t for t in texts if "press 2" in t)
            status = c.call("game/status")  # a press that gave nothing for want of cards is no move
            assert players(status)["Bob"] == (0, 0) and status["turn"] == "Bob"
            c.call("launcher/reload", {"cards": 60})
            assert not c.call("game/status")["reload_advice"]["reload"]
            c.call("launcher/reload", {"cards": 5})  # while ready: no state change to hear of
            assert c.call("game/status")["reload_advice"]["hopper"] == 5
    finally:
        running.stop()


def test_a_card_that_falls_out_after_its_press_is_the_pressers(launcherd):
    loop = launcherd.daemon.loop
    beam = launcherd.daemon.pin_factory.pin(launcherd.daemon.config.pins.beam)
    with launcherd.client() as c:
        c.call("game/new", THREE)
        assert c.call("launcher/launch")["cards"] == 0  # Ann presses: dry, her turn is over
        crossed = threading.Event()

        def card_crosses():  # the beam (active low) blocked for 50 ms: one real card, late
            beam.drive_low()
            loop.call_later(0.05, lambda: (beam.drive_high(), crossed.set()))

        loop.call_soon_threadsafe(card_crosses)
        assert crossed.wait(HANG_S)
        # The clear edge was posted into the loop before this request arrives, so it is handled first.
        assert players(c.call("game/status"))["Ann"] == (1, 1)
        assert live_actions(c)[-1] == {"type": "cards", "cards": 1, "press_id": 1, "by": "Ann"}
        assert c.call("status/get")["cards_ejected"] == 1


def test_launcher_events_do_not_rebuild_the_table_status(launcherd, mocker):
    from controller.match import table

    with launcherd.client() as c:
        c.call("game/new", THREE)
        built = mocker.spy(table, "status")
        c.call("launcher/launch")  # one press: launched, card and state events, status/get calls
        c.call("status/get")
        assert built.call_count == 1  # once for the table the press made, then served from the cache
