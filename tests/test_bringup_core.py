"""Bring-up in the core (issue #13), on the fake clock: jog within the motor's limits, bench mode
(traces, presses that launch nothing, a hand in the slot that is no card), identify, and a
dispense at a chosen duty without the kick (what calibration runs)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware.launcher.core import IDENTIFY_FLASH
from firmware.events import (
    BeamLevel, Bench, ButtonLevel, Chime, Dispense, DriverEnable, EStop, Emit, Identify, Jog, Led,
    LidLevel, Motor, Reset, SleepNow,
)
from firmware.i18n import render
from test_core import Rig


def refusal(actions) -> dict:
    names = [a.name for a in actions if hasattr(a, "name")]
    assert names == ["refused"], actions
    return actions[0].params


# ---- jog --------------------------------------------------------------------------------------


def test_a_jog_runs_the_motor_for_its_time_then_stops_and_says_so():
    rig = Rig()
    mark = rig.mark()
    rig.send(Jog("reverse", 300, 0.3, request="j1"))
    assert rig.motors(mark) == [Motor("reverse", 0.3)]
    assert rig.status["motor"] == {"on": True, "direction": "reverse", "duty": 0.3}
    rig.wait(299)
    assert rig.emits("jogged", mark) == []
    rig.wait(1)
    assert rig.motors(mark)[-1] == Motor("stop")
    assert rig.emits("jogged", mark) == [{"request": "j1", "direction": "reverse", "ms": 300, "duty": 0.3,
                                           "standby": False, "ended": "done"}]
    assert rig.state == "ready" and rig.status["presses"] == 0


@pytest.mark.parametrize("jog, reason", [
    (Jog("sideways", 100, 0.3), "direction"),
    (Jog("forward", 0, 0.3), "ms must be"),
    (Jog("forward", 100, 0.01), "duty must be"),
    (Jog("forward", 100, 1.5), "duty must be"),
    (Jog("forward", 100, True), "duty must be"),
    (Jog("forward", 20_001, 0.3), "max_on_ms (20000)"),
    (Jog("forward", 100, 0.3, standby=True), "no standby pin"),
])
def test_a_jog_outside_the_limits_is_refused_and_nothing_moves(jog, reason):
    rig = Rig(pins={"motor_enable": False})
    actions = rig.send(jog)
    assert reason in render(refusal(actions)["reason"], "en")
    assert rig.motors() == []


def test_a_jog_is_refused_in_every_state_but_ready_and_empty():
    rig = Rig(script=[3], pins={"lid": 22})
    rig.send(LidLevel(True))
    assert refusal(rig.send(Jog("forward", 100, 0.3)))["reason"] == {"id": "refused_jog_state"}
    rig.send(LidLevel(False))
    rig.send(EStop("test"))
    assert refusal(rig.send(Jog("forward", 100, 0.3)))["state"] == "halted"
    rig.send(Reset())
    rig.send(SleepNow())
    assert refusal(rig.send(Jog("forward", 100, 0.3)))["state"] == "sleeping"
    assert not [m for m in rig.motors() if m.direction != "stop"]


def test_a_second_jog_while_one_runs_is_refused_and_a_press_is_ignored():
    rig = Rig(script=[3])
    rig.send(Jog("forward", 500, 0.3))
    assert refusal(rig.send(Jog("forward", 100, 0.3)))
    mark = rig.mark()
    rig.press(hold_ms=50)
    assert rig.emits("ignored", mark)[0]["reason"] == "jogging"
    assert rig.status["presses"] == 0


def test_the_lid_stops_a_jog_at_once():
    rig = Rig(pins={"lid": 22})
    rig.send(Jog("forward", 2000, 0.5, request=3))
    mark = rig.mark()
    rig.send(LidLevel(True), 100)
    assert rig.motors(mark) == [Motor("stop")]
    assert rig.emits("jogged", mark)[0]["ended"] == "lid"


def test_a_jam_during_a_jog_stops_it():
    rig = Rig()
    rig.send(Jog("forward", 5000, 0.5))
    mark = rig.mark()
    rig.send(BeamLevel(True), 100)
    rig.wait(400)
    assert rig.motors(mark) == [Motor("stop")]
    assert rig.emits("jogged", mark)[0]["ended"] == "jam" and rig.state == "jammed"


def test_estop_ends_a_jog_and_the_driver_stays_off():
    rig = Rig()
    rig.send(Jog("forward", 5000, 0.5, standby=True))
    mark = rig.mark()
    rig.send(EStop("stop"), 10)
    assert rig.emits("jogged", mark)[0]["ended"] == "halt"
    assert DriverEnable(True) not in rig.actions(mark) and rig.status["driver_enabled"] is False


def test_a_standby_jog_drives_the_pins_with_the_driver_off_then_enables_it_again():
    rig = Rig()
    mark = rig.mark()
    rig.send(Jog("forward", 200, 0.3, standby=True))
    assert rig.actions(mark)[:2] == [DriverEnable(False), Motor("forward", 0.3)]
    assert rig.status["driver_enabled"] is False
    mark = rig.mark()
    rig.wait(200)
    assert rig.actions(mark)[:2] == [Motor("stop"), DriverEnable(True)]
    assert rig.status["driver_enabled"] is True


def test_jogs_count_towards_the_chain_limit_and_are_refused_with_the_rest_needed():
    rig = Rig(timing={"max_on_ms": 1000, "launch_timeout_ms": 500, "feed_timeout_ms": 300,
                      "motor_rest_ms": 2000, "jam_ms": 200}, motor={"kick_ms": 0})
    rig.send(Jog("forward", 700, 0.3))
    rig.wait(700)
    params = refusal(rig.send(Jog("forward", 400, 0.3), 100))
    assert params["retry_after_s"] == pytest.approx(1.9) and params["reason"]["id"] == "motor_needs_rest"
    rig.wait(1900)
    rig.send(Jog("forward", 400, 0.3))
    assert rig.status["motor"]["on"]


def test_jogs_count_towards_the_duty_share():
    rig = Rig(timing={"duty_window_s": 10, "max_duty": 0.2, "launch_timeout_ms": 1500, "max_on_ms": 1800,
                      "motor_rest_ms": 100, "feed_timeout_ms": 1000})
    rig.send(Jog("forward", 1500, 0.3))
    rig.wait(1600)
    params = refusal(rig.send(Jog("forward", 1000, 0.3)))
    assert "20%" in render(params["reason"], "en") and params["retry_after_s"] > 0


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 3000), st.integers(0, 3000)), min_size=1, max_size=25))
def test_whatever_jogs_are_asked_the_chain_never_exceeds_max_on(jogs):
    rig = Rig(timing={"max_on_ms": 2000, "launch_timeout_ms": 1500, "feed_timeout_ms": 1000,
                      "motor_rest_ms": 1000, "jam_ms": 200})
    for ms, pause in jogs:
        rig.send(Jog("forward", ms, 0.5))
        rig.wait(pause)
    rig.wait(5000)
    runs, start = [], None
    for at, action in rig.log:
        if isinstance(action, Motor):
            if action.direction != "stop" and start is None:
                start = at
            elif action.direction == "stop" and start is not None:
                runs.append((start, at))
                start = None
    chain, last_end = 0.0, None
    for a, b in runs:
        if last_end is not None and a - last_end >= 1.0:
            chain = 0.0
        chain += b - a
        last_end = b
        assert chain <= 2.0 + 1e-6


# ---- bench mode ---------------------------------------------------------------------------------


def test_bench_mode_traces_edges_and_the_motor_with_their_times():
    rig = Rig()
    rig.send(Bench(60))
    mark = rig.mark()
    rig.send(ButtonLevel(True), 10)
    rig.send(Jog("forward", 100, 0.4), 10)
    rig.wait(100)
    traces = rig.emits("trace", mark)
    t0 = 1000.0
    assert traces[0] == {"t": pytest.approx(t0 + 0.01), "what": "button", "level": True}
    assert {"t": pytest.approx(t0 + 0.02), "what": "motor", "direction": "forward", "duty": 0.4} in traces
    assert {"t": pytest.approx(t0 + 0.12), "what": "motor", "direction": "stop", "duty": 0.0} in traces


def test_an_input_edge_handed_over_late_is_traced_at_its_own_time():
    """What calibration measures a crossing and a card's period on: the beam's edges at the pin
    backend's times, not when a late loop got to them (a loaded make test measured 22 cards a
    second of a mechanism's 20, cards' edges learned late and together)."""
    rig = Rig(script=[5])
    rig.send(Bench(60))
    t0 = rig.now
    traces = []
    for event, learned, at in [(BeamLevel(True), 0.300, 0.100), (BeamLevel(False), 0.300, 0.120),
                               (LidLevel(True), 0.300, 0.150), (LidLevel(False), 0.400, 0.390),
                               (ButtonLevel(True), 0.500, 0.450)]:
        actions = rig.core.handle(event, t0 + learned, at=t0 + at)
        traces += [a.params for a in actions if isinstance(a, Emit) and a.name == "trace"]
    assert [(t["what"], t["level"], round(t["t"] - t0, 6)) for t in traces] == [
        ("beam", True, 0.1), ("beam", False, 0.12), ("lid", True, 0.15), ("lid", False, 0.39),
        ("button", True, 0.45)]


def test_a_press_in_bench_mode_is_traced_and_launches_nothing():
    rig = Rig(script=[5])
    rig.send(Bench(60))
    mark = rig.mark()
    rig.press(hold_ms=100)
    assert [t["what"] for t in rig.emits("trace", mark)] == ["button", "press", "button"]
    assert rig.emits("ignored", mark)[0]["reason"] == "bench"
    assert rig.motors(mark) == [] and rig.status["presses"] == 0 and rig.policy.script == [5]


def test_a_hand_in_the_slot_in_bench_mode_is_no_card_and_no_jam():
    rig = Rig(script=[2], hopper=20)
    rig.press()
    rig.card()
    rig.card()
    rig.wait(1000)
    rig.send(Bench(60))
    cards = rig.status["cards_ejected"]
    rig.send(BeamLevel(True))
    rig.wait(5000)
    assert rig.state == "ready"
    rig.send(BeamLevel(False))
    assert rig.status["cards_ejected"] == cards and rig.status["hopper"] == 18
    # While the hand is there, nothing may start the motor.
    rig.send(BeamLevel(True))
    assert refusal(rig.send(Jog("forward", 100, 0.3)))
    assert rig.send(Dispense(1))[-1].params["reason"] == "beam_blocked"


def test_bench_mode_lapses_by_itself_and_the_button_works_again():
    rig = Rig(script=[0])
    rig.send(Bench(30))
    mark = rig.mark()
    rig.wait(29_000)
    rig.send(Bench(30))  # renewed
    rig.wait(29_999)
    assert rig.emits("bench", mark) == []
    rig.wait(1)
    assert rig.emits("bench", mark) == [{"on": False}] and not rig.core.bench
    rig.press()
    assert rig.status["presses"] == 1 and rig.emits("trace", rig.mark()) == []


def test_bench_zero_ends_it_and_bad_seconds_are_refused():
    rig = Rig()
    assert rig.send(Bench(10))[0].params == {"on": True} and rig.core.bench
    assert rig.send(Bench(0))[0].params == {"on": False} and not rig.core.bench
    assert rig.send(Bench(0)) == []
    for bad in (-1, 4000, True, "5"):
        assert refusal(rig.send(Bench(bad)))


def test_cards_are_counted_and_jams_found_in_bench_mode_while_the_motor_runs():
    rig = Rig(hopper=10)
    rig.send(Bench(60))
    rig.send(Dispense(2, "calibrate", "c1", duty=0.3, kick=False))
    rig.card(after_ms=50)
    rig.card(after_ms=50)
    rig.wait(100)  # the reverse pulse
    assert rig.emits("launched")[-1]["cards"] == 2 and rig.status["cards_ejected"] == 2
    rig.send(Dispense(1))
    rig.send(BeamLevel(True), 50)
    rig.wait(500)
    assert rig.state == "jammed"


# ---- dispense at a duty, identify ---------------------------------------------------------------


def test_a_dispense_at_a_chosen_duty_without_kick_runs_at_that_duty_only():
    rig = Rig(hopper=10, motor={"duty": 0.7, "kick_below": 0.6, "kick_ms": 80})
    mark = rig.mark()
    rig.send(Dispense(1, "calibrate", duty=0.3, kick=False))
    assert rig.motors(mark) == [Motor("forward", 0.3)]
    mark = rig.mark()
    rig.card(after_ms=50)
    rig.wait(500)
    mark = rig.mark()
    rig.send(Dispense(1, "calibrate", duty=0.3), 4000)  # with the kick, as [motor] says below kick_below
    assert rig.motors(mark) == [Motor("forward", 1.0)]
    rig.wait(80)
    assert rig.motors(mark) == [Motor("forward", 1.0), Motor("forward", 0.3)]
    assert refusal(rig.send(Dispense(1, duty=0.0)))


def test_identify_flashes_and_chimes_then_the_state_led_comes_back():
    rig = Rig(feedback={"chime": False, "led_brightness": 0.5})
    mark = rig.mark()
    rig.send(Identify(led=True, chime=True))
    assert IDENTIFY_FLASH in rig.actions(mark)
    assert [a for a in rig.actions(mark) if isinstance(a, Chime)]  # the buzzer is checked even if muted
    rig.wait(IDENTIFY_FLASH.period_ms * IDENTIFY_FLASH.count)
    assert [a for a in rig.actions(mark) if isinstance(a, Led)][-1] == Led("on", 0.5)
    mark = rig.mark()
    rig.send(Identify(led=False, chime=True))
    assert not [a for a in rig.actions(mark) if isinstance(a, Led)]
