"""The card blaster through launcherd in --sim (issue #11): the real daemon, its API and launcherctl.

The simulated blaster drives the slot sensor pins and watches the actuator pin, so these tests run
the daemon's own code from the pins up: insertions, blasts, jams, e-stop, halt and sleep.
"""

from __future__ import annotations

import json

import pytest

from harness.launcherd import BLASTER, ThreadDaemon
from firmware.errors import ApiError

# Its first insertion seldom fires (1 in 16): most tests see a card stay in its slot first.
RISING = BLASTER + 'profile = "rising"\n'
ACTUATOR = 22  # [blaster] actuator by default


def insert_until_blast(running, limit=4):
    """Insert into the first empty slot until one fires; the outcomes, in order."""
    outcomes = []
    for _ in range(limit):
        outcomes.append(running.call("sim/insert"))
        if outcomes[-1]["outcome"] == "blast":
            return outcomes
    raise AssertionError(f"no blast in {limit} insertions: {outcomes}")


def test_insertions_are_judged_and_a_blast_ejects_every_loaded_card(tmp_path):
    with ThreadDaemon(tmp_path, BLASTER, seed=5) as running, running.client() as watcher:
        watcher.call("events/subscribe")
        status = running.call("status/get")
        assert (status["device"], status["state"], status["slots"]) == ("blaster", "ready", [False] * 4)
        outcomes = insert_until_blast(running)
        assert [o["event"] for o in outcomes] == ["insert"] * len(outcomes)
        assert [o["slot"] for o in outcomes] == list(range(1, len(outcomes) + 1))
        assert all(o["outcome"] == "safe" for o in outcomes[:-1])
        blast = next(m["params"] for m in watcher.messages() if m.get("event") == "blast")
        status = running.wait_for(lambda s: s["state"] == "ready")
    assert (blast["cards"], blast["jammed"], blast["ended"]) == (len(outcomes), False, "done")
    assert blast["insert_id"] == outcomes[-1]["insert_id"]
    assert status["slots"] == [False] * 4 and status["cards_ejected"] == len(outcomes)
    assert status["last"] == {"insert_id": outcomes[-1]["insert_id"], "slot": len(outcomes),
                              "outcome": "blast", "cards": len(outcomes)}
    assert status["sim"] == {"slots": [False] * 4, "stuck": None}


def test_the_last_empty_slot_always_fires(tmp_path):
    with ThreadDaemon(tmp_path, BLASTER, seed=11) as running:
        for _ in range(5):
            outcomes = insert_until_blast(running)
            assert len(outcomes) <= 4
            running.wait_for(lambda s: s["state"] == "ready")


def test_a_full_or_unknown_slot_is_an_error(tmp_path):
    with ThreadDaemon(tmp_path, RISING, seed=2) as running:
        first = running.call("sim/insert", {"slot": 2})
        assert (first["slot"], first["outcome"]) == (2, "safe")  # this seed's first draw
        with pytest.raises(ApiError) as full:
            running.call("sim/insert", {"slot": 2})
        assert full.value.code == ApiError.REFUSED and "slot 2 is full" in full.value.message
        with pytest.raises(ApiError) as unknown:
            running.call("sim/insert", {"slot": 5})
        assert unknown.value.code == ApiError.INVALID_PARAMS


def test_a_card_stuck_after_the_release_is_a_jam_until_the_slot_empties(tmp_path):
    with ThreadDaemon(tmp_path, BLASTER, seed=5) as running, running.client() as watcher:
        watcher.call("events/subscribe")
        running.call("sim/jam")
        outcomes = insert_until_blast(running)
        status = running.wait_for(lambda s: s["state"] == "jammed")
        assert running.pin_state(ACTUATOR) == 0  # the actuator is off while jammed
        stuck = status["sim"]["stuck"]
        assert status["slots"][stuck - 1]
        running.call("sim/clear")
        status = running.wait_for(lambda s: s["state"] == "ready")
        blast = next(m["params"] for m in watcher.messages() if m.get("event") == "blast")
    assert (blast["cards"], blast["jammed"]) == (len(outcomes), True)  # the stuck card counts once
    assert status["cards_ejected"] == len(outcomes)


def test_estop_halts_and_an_insertion_while_halted_never_fires(tmp_path):
    with ThreadDaemon(tmp_path, RISING, seed=2) as running:
        assert running.call("system/estop", {"reason": "test"})["state"] == "halted"
        ignored = running.call("sim/insert", {"slot": 1})
        assert ignored == {**ignored, "event": "ignored", "reason": "halted", "slot": 1}
        assert running.pin_state(ACTUATOR) == 0
        assert running.call("system/reset")["state"] == "ready"
        status = running.call("status/get")
    # The card stays in its slot, loaded: it goes out with the next blast.
    assert status["slots"] == [True, False, False, False] and status["cards_ejected"] == 0


def test_an_estop_survives_a_restart_until_a_reset(tmp_path, daemon_process):
    first = daemon_process(RISING)
    first.call("system/estop", {"reason": "a hand at the slot"})
    first.process.terminate()
    assert first.process.wait(10) == 0
    again = daemon_process(RISING)
    status = again.call("status/get")
    assert (status["state"], status["reason"]) == ("halted", "a hand at the slot")
    assert again.call("sim/insert", {"slot": 1})["event"] == "ignored"
    assert again.call("system/reset")["state"] == "ready"
    again.process.terminate()
    assert again.process.wait(10) == 0
    third = daemon_process(RISING)
    assert third.call("status/get")["state"] == "ready"


def test_sleep_and_wake_and_an_insertion_wakes_it(tmp_path):
    with ThreadDaemon(tmp_path, BLASTER, seed=5) as running:
        assert running.call("launcher/sleep")["state"] == "sleeping"
        assert running.call("launcher/wake")["state"] == "ready"
        running.call("launcher/sleep")
        outcome = running.call("sim/insert")
        assert outcome["event"] == "insert"  # the card is in the slot: judged, not lost
        assert running.call("status/get")["state"] in ("ready", "firing")


def test_a_blaster_has_no_launcher_methods_and_no_aim(tmp_path):
    with ThreadDaemon(tmp_path, BLASTER) as running:
        methods = {m["method"] for m in running.call("list_methods")}
        # Answered as by a launcher without a servo: the game layer aims at whoever must insert.
        with pytest.raises(ApiError) as aim:
            running.call("launcher/aim", {"seat": 0, "seats": 2})
    assert aim.value.code == ApiError.UNAVAILABLE and "no aim servo" in aim.value.message
    assert {"sim/insert", "system/estop", "launcher/sleep"} <= methods
    assert not {"launcher/press", "launcher/dispense", "launcher/feed", "sim/lid"} & methods


def test_launcherctl_insert(daemon_process):
    proc = daemon_process(RISING)
    first = proc.ctl("insert", "--slot", "3", "--json", check=True)
    outcome = json.loads(first.stdout)
    assert outcome["slot"] == 3 and outcome["outcome"] in ("safe", "blast")
    human = proc.ctl("insert", check=True)
    assert human.stdout.startswith("insert ") and "slot 1" in human.stdout
    unknown = proc.ctl("insert", "--slot", "9")
    assert unknown.returncode == 1 and "slot" in unknown.stderr
    status = proc.ctl("status", check=True).stdout
    assert "slots      1:" in status and "inserts    2" in status and "press" not in status


def test_the_demo_shows_the_slots_and_a_key_inserts(tmp_path):
    from test_daemon_demo import Screen

    from firmware.tools.demo import DemoView

    with ThreadDaemon(tmp_path, RISING, seed=2) as running:
        screen = Screen()
        view = DemoView(running.daemon, out=screen)
        running.in_loop(running.daemon.subscribe, view.on_event)
        running.in_loop(view.on_key, "3")
        running.wait_for(lambda s: s["inserts"] == 1)
        running.in_loop(lambda: None)  # the request's done callback has run by the next turn
        running.in_loop(view.on_key, "9")  # no slot 9: said on the screen, the demo goes on
        running.in_loop(lambda: None)
        for key in "lrd":  # the launcher's keys do nothing on a blaster
            running.in_loop(view.on_key, key)
        running.in_loop(lambda: None)
        last = screen.getvalue().rsplit("\x1b[H", 1)[-1]
    assert "CARD BLASTER" in last and "slot 3: " in last
    assert "slots     [. . X .]" in last and "slot 3: safe" in last  # this seed's first draw
    assert "refused" in last and "slot" in last
