"""The motor never starts while the beam is blocked or the lid is open (issue #20): ``Jog`` and
``Retract`` as well as presses, in every mode, on the fake clock."""

from __future__ import annotations

import pytest

from firmware.events import BeamLevel, Bench, Emit, Jog, LidLevel, Motor, Retract
from test_core import Rig

BEAM_BLOCKED = {"id": "refused_beam_blocked"}
REQUESTS = {"retract": lambda: Retract(), "jog": lambda: Jog("forward", 100, 0.3, request="j")}


def refusal(actions) -> dict:
    assert [a.name for a in actions if isinstance(a, Emit)] == ["refused"], actions
    assert not [a for a in actions if not isinstance(a, Emit)], "a refusal changes nothing"
    return actions[0].params


def starts(rig: Rig, since: int = 0) -> list[Motor]:
    return [m for m in rig.motors(since) if m.direction != "stop"]


@pytest.mark.parametrize("request_name", sorted(REQUESTS))
def test_a_jog_or_a_retract_is_refused_while_a_finger_blocks_the_beam(request_name):
    rig = Rig()
    rig.send(BeamLevel(True))
    rig.wait(rig.config.timing.jam_ms - 1)  # not yet a jam: the launcher is ready
    assert rig.state == "ready"
    refused = refusal(rig.send(REQUESTS[request_name]()))
    assert (refused["reason"], refused["state"]) == (BEAM_BLOCKED, "ready")
    assert starts(rig) == []
    rig.send(BeamLevel(False))  # the finger is gone
    rig.send(REQUESTS[request_name]())
    assert len(starts(rig)) == 1


@pytest.mark.parametrize("request_name", sorted(REQUESTS))
def test_in_bench_mode_a_hand_in_the_slot_refuses_a_jog_and_a_retract(request_name):
    rig = Rig()
    rig.send(Bench(60))
    rig.send(BeamLevel(True))
    rig.wait(2 * rig.config.timing.jam_ms)  # a hand in bench mode is no jam: still ready
    assert rig.state == "ready"
    assert refusal(rig.send(REQUESTS[request_name]()))["reason"] == BEAM_BLOCKED
    assert starts(rig) == []


@pytest.mark.parametrize("request_name", sorted(REQUESTS))
def test_with_the_lid_open_a_jog_and_a_retract_are_refused(request_name):
    rig = Rig(pins={"lid": 22})
    rig.send(LidLevel(True))
    refused = refusal(rig.send(REQUESTS[request_name]()))
    assert refused["state"] == "lid_open"
    assert starts(rig) == []


def test_a_jog_whose_coast_sees_the_beam_blocked_does_not_start():
    rig = Rig()
    rig.send(Jog("forward", 100, 0.3))
    rig.wait(100)
    mark = rig.mark()
    rig.send(Jog("reverse", 100, 0.3, request="back"))  # coasts dead_time_ms first
    assert rig.status["motor"]["on"] is False
    rig.send(BeamLevel(True), 10)
    rig.wait(rig.config.motor.dead_time_ms)
    assert starts(rig, mark) == []
    assert rig.emits("jogged", mark)[-1]["ended"] == "cancelled"
    assert rig.status["motor"]["on"] is False


def test_a_lone_retract_whose_coast_sees_the_beam_blocked_does_not_start():
    rig = Rig()
    rig.send(Jog("forward", 100, 0.3))
    rig.wait(100)
    mark = rig.mark()
    rig.send(Retract())  # reverse: coasts first
    rig.send(BeamLevel(True), 10)
    rig.wait(rig.config.motor.dead_time_ms)
    assert starts(rig, mark) == []
    assert rig.state == "ready" and rig.status["motor"]["on"] is False
    rig.send(BeamLevel(False), 10)
    rig.send(Retract(), 100)  # nothing left of the cancelled one: a new one runs
    assert starts(rig, mark) == [Motor("reverse", rig.config.motor.retract_duty)]
