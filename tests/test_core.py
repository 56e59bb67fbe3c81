"""Scenario tests of the launcher core, driven through handle() with an explicit clock.

``Rig.wait`` advances time the way the daemon does: a Tick at every next_deadline() on the way.
The policy is a test double that plays back a list of card counts.
"""

from __future__ import annotations

import json

import pytest

from firmware.config import build_config
from firmware.launcher.core import Launcher
from firmware.launcher.states import STATES
from firmware.events import (
    BeamLevel, Bench, ButtonLevel, Chime, Dispense, DriverEnable, EStop, Emit, InputLevels, Jog, Launch, Led, LidLevel,
    Cancel, Hold, Motor, Persist, Reload, Reset, Resume, Retract, SleepNow, Tick, Wake,
)
from firmware.launcher.ejection import Outcome

T0 = 1000.0
ALL_IN = "all"


class ScriptedPolicy:
    """Plays back card counts (0 = dry, ALL_IN = empty the hopper); dry after the script ends."""

    name = "scripted"

    def __init__(self, script=(), tension=0.0):
        self.script = list(script)
        self.tension = tension
        self.dry_streak = 0
        self.decided: list[int | None] = []  # the hopper estimate given to each decision
        self.resets = 0

    def decide(self, hopper):
        self.decided.append(hopper)
        step = self.script.pop(0) if self.script else 0
        decision = Outcome(0, True) if step == ALL_IN else Outcome(step)
        self.dry_streak = self.dry_streak + 1 if decision.cards == 0 and not decision.all_in else 0
        return decision

    def reset(self):
        self.resets += 1
        self.dry_streak = 0


def refused(actions):
    """True when a request changed nothing and only said why."""
    return len(actions) == 1 and isinstance(actions[0], Emit) and actions[0].name == "refused" \
        and actions[0].params["reason"]


class Rig:
    """A launcher, its clock and everything it returned, as (time, action)."""

    def __init__(self, script=(), hopper=None, tension=0.0, **sections):
        self.config = build_config(sections)
        self.policy = ScriptedPolicy(script, tension)
        self.now = T0
        self.core = Launcher(self.config, self.policy, T0, hopper)
        self.log: list[tuple[float, object]] = []
        self.calls: list[list] = []  # what each handle() returned

    def send(self, event, after_ms: float = 0.0):
        self.wait(after_ms)
        return self._handle(event)

    def _handle(self, event):
        actions = self.core.handle(event, self.now)
        self.calls.append(actions)
        self.log += [(self.now, a) for a in actions]
        return actions

    def wait(self, ms: float):
        target = self.now + ms / 1000
        for _ in range(10_000):
            deadline = self.core.next_deadline()
            if deadline is None or deadline > target:
                break
            self.now = max(self.now, deadline)
            self._handle(Tick())
        else:
            pytest.fail("the core keeps asking for a Tick without getting anywhere")
        self.now = target

    def press(self, hold_ms: float = 100):
        """A clean button press: down, held, up."""
        self.send(ButtonLevel(True))
        self.wait(hold_ms)
        self.send(ButtonLevel(False))

    def card(self, block_ms: float = 10, after_ms: float = 0.0):
        self.send(BeamLevel(True), after_ms)
        self.send(BeamLevel(False), block_ms)

    def mark(self) -> int:
        return len(self.log)

    def actions(self, since: int = 0) -> list:
        return [a for _, a in self.log[since:]]

    def emits(self, name: str, since: int = 0) -> list[dict]:
        return [a.params for a in self.actions(since) if isinstance(a, Emit) and a.name == name]

    def motors(self, since: int = 0) -> list[Motor]:
        return [a for a in self.actions(since) if isinstance(a, Motor)]

    def states(self, since: int = 0) -> list[str]:
        return [p["state"] for p in self.emits("state", since)]

    @property
    def status(self) -> dict:
        return self.core.get_status()

    @property
    def state(self) -> str:
        return self.status["state"]


STATUS_KEYS = {
    "state", "presses", "dry_streak", "cards_ejected", "last", "profile", "motor", "hopper", "reason",
    "tension", "beam_blocked", "lid_open", "driver_enabled", "pending", "reset_hold_ms",
    "press_means", "press_cards", "press_for", "press_reason",
}


# ---- start-up and status ----------------------------------------------------------------------


def test_starts_ready_with_nothing_to_apply_and_the_documented_status():
    rig = Rig(hopper=40)
    assert rig.log == []
    status = rig.status
    assert set(status) == STATUS_KEYS
    assert status["state"] == "ready" and status["state"] in STATES
    assert status["presses"] == 0 and status["cards_ejected"] == 0 and status["last"] is None
    assert status["motor"] == {"on": False, "direction": "stop", "duty": 0.0}
    assert status["hopper"] == 40 and status["reason"] is None and status["profile"] == "scripted"
    assert status["driver_enabled"] is True and status["beam_blocked"] is False
    assert json.loads(json.dumps(status)) == status


def test_first_call_may_be_a_tick():
    rig = Rig()
    assert rig.send(Tick()) == []


# ---- debounce -------------------------------------------------------------------------------------


def test_a_bounce_burst_is_one_press_after_the_level_settles():
    rig = Rig(script=[0])
    for i, level in enumerate([True, False, True, False, True]):
        rig.send(ButtonLevel(level), after_ms=1 if i else 0)
    assert rig.emits("press") == []
    rig.wait(19)  # 19 ms after the last edge: not stable long enough yet
    assert rig.emits("press") == []
    rig.wait(2)
    assert rig.emits("press") == [{"press_id": 1, "source": "button", "request": None, "dispense": False}]
    assert len(rig.emits("launched")) == 1


def test_a_button_held_for_a_minute_is_one_press_and_release_does_nothing():
    rig = Rig(script=[0, 0])
    rig.send(ButtonLevel(True))
    rig.wait(60_000)
    assert len(rig.emits("press")) == 1
    mark = rig.mark()
    rig.send(ButtonLevel(False))
    rig.wait(1000)
    assert rig.emits("press", mark) == [] and rig.emits("launched", mark) == []
    assert rig.status["presses"] == 1


def test_a_blip_shorter_than_the_debounce_is_not_a_press():
    rig = Rig(script=[3])
    rig.send(ButtonLevel(True))
    rig.send(ButtonLevel(False), after_ms=15)
    rig.wait(1000)
    assert rig.emits("press") == [] and rig.motors() == []


def test_a_late_edge_is_judged_after_the_deadline_it_missed():
    rig = Rig(script=[0])
    rig.send(ButtonLevel(True))
    rig.now += 0.5  # no Tick in between: the driver was late
    rig.send(ButtonLevel(False))
    assert len(rig.emits("press")) == 1


def test_an_edge_the_backend_debounced_is_a_press_at_once_and_its_release_nothing():
    launching = Rig(script=[3])
    assert [a.direction for a in launching.send(ButtonLevel(True, debounced=True))
            if isinstance(a, Motor)] == ["forward"]  # no debounce wait of its own
    rig = Rig(script=[0, 0])
    rig.send(ButtonLevel(True, debounced=True))
    assert rig.emits("press") == [{"press_id": 1, "source": "button", "request": None, "dispense": False}]
    rig.wait(30)
    mark = rig.mark()
    rig.send(ButtonLevel(False, debounced=True))
    rig.wait(1000)
    assert rig.emits("press", mark) == []
    rig.send(ButtonLevel(True, debounced=True))
    assert len(rig.emits("press")) == 2  # the next press: at once too


def test_a_held_reset_times_from_the_first_edge_when_the_backend_debounced():
    rig = Rig()
    rig.send(EStop("test"))
    assert rig.state == "halted"
    hold = rig.config.button.reset_hold_ms
    debounce = rig.config.timing.button_debounce_ms
    # The backend hands the press over once it has held the debounce time: the hold a person
    # counts began that long before.
    rig.send(ButtonLevel(True, debounced=True))
    rig.wait(hold - debounce - 1)
    assert rig.state == "halted"
    rig.wait(2)
    assert rig.state != "halted"


def test_launch_is_a_press_without_debounce():
    rig = Rig(script=[0])
    rig.send(Launch("api"))
    assert rig.emits("press") == [{"press_id": 1, "source": "api", "request": None, "dispense": False}]


# ---- dry presses and feedback -------------------------------------------------------------------


def test_dry_press_chimes_flashes_then_steady_on_and_resolves_at_once():
    rig = Rig(script=[0], hopper=10)
    actions = rig.send(Launch())
    assert Chime(1, rig.config.feedback.chime_ms) in actions
    flash = next(a for a in actions if isinstance(a, Led))
    assert flash.mode == "flash" and flash.count and flash.period_ms > 0
    assert rig.emits("launched") == [{"press_id": 1, "source": "api", "request": None, "outcome": "dry", "cards": 0,
                                      "requested": 0, "ended": "done"}]
    assert rig.motors() == [] and rig.state == "ready" and rig.policy.decided == [10]
    mark = rig.mark()
    rig.wait(flash.count * flash.period_ms)
    assert rig.actions(mark) == [Led("on", rig.config.feedback.led_brightness)]


def test_dry_feedback_speeds_up_with_tension():
    calm, tense = Rig(script=[0], tension=0.0), Rig(script=[0], tension=1.0)
    calm_actions, tense_actions = calm.send(Launch()), tense.send(Launch())
    calm_led = next(a for a in calm_actions if isinstance(a, Led))
    tense_led = next(a for a in tense_actions if isinstance(a, Led))
    assert tense_led.period_ms < calm_led.period_ms
    calm.wait(2000)
    tense.wait(2000)
    calm_chimes = [a for a in calm.actions() if isinstance(a, Chime)]
    tense_chimes = [a for a in tense.actions() if isinstance(a, Chime)]
    assert sum(c.count for c in tense_chimes) > sum(c.count for c in calm_chimes) == 1
    assert tense_chimes[-1].gap_ms < Chime().gap_ms


def test_no_chime_when_feedback_chime_is_off():
    rig = Rig(script=[0, 2], tension=1.0, feedback={"chime": False})
    rig.send(Launch())
    rig.send(Launch(), after_ms=1000)
    rig.wait(2000)
    assert not any(isinstance(a, Chime) for a in rig.actions())


# ---- bursts -------------------------------------------------------------------------------------


def test_without_dead_time_the_reverse_pulse_follows_the_stop_at_once():
    rig = Rig(script=[1], hopper=10, motor={"dead_time_ms": 0})
    rig.send(Launch())
    rig.card(block_ms=10, after_ms=50)
    assert rig.motors()[-2:] == [Motor("stop"), Motor("reverse", rig.config.motor.retract_duty)]


def test_a_card_in_the_coast_before_the_pulse_is_the_bursts_and_the_lid_there_ends_it():
    rig = Rig(script=[1, 1], hopper=10)
    rig.send(Launch())
    rig.card(block_ms=10, after_ms=50)
    rig.card(block_ms=5, after_ms=5)  # a card that was already on its way, during the coast
    rig.wait(200)
    assert rig.emits("launched")[-1]["cards"] == 2
    rig.send(Launch(), after_ms=rig.config.timing.motor_rest_ms)
    rig.card(block_ms=10, after_ms=50)
    mark = rig.mark()
    rig.send(LidLevel(True), after_ms=10)  # opened in the coast: no reverse pulse follows
    rig.wait(200)
    assert rig.motors(mark) == []
    assert rig.state == "lid_open" and rig.emits("launched", mark)[-1]["ended"] == "lid"


def test_a_launch_right_after_a_lone_retract_coasts_before_it_feeds():
    rig = Rig(script=[1], hopper=10)
    rig.send(Retract())
    rig.wait(rig.config.motor.retract_ms)
    mark = rig.mark()
    rig.send(Launch())
    assert rig.motors(mark) == [] and rig.state == "launching"
    rig.wait(rig.config.motor.dead_time_ms)
    assert rig.motors(mark) == [Motor("forward", rig.config.motor.duty)]


def test_a_jog_the_other_way_right_after_a_jog_coasts_first():
    rig = Rig()
    rig.send(Jog("forward", 100, 0.5))
    rig.wait(100)
    mark = rig.mark()
    rig.send(Jog("reverse", 100, 0.5))
    assert rig.motors(mark) == []
    rig.wait(rig.config.motor.dead_time_ms)
    assert rig.motors(mark) == [Motor("reverse", 0.5)]
    rig.wait(100)
    assert rig.motors(mark)[-1] == Motor("stop")
    assert [e["ended"] for e in rig.emits("jogged")] == ["done", "done"]
    # The same way again needs no coast.
    mark = rig.mark()
    rig.send(Jog("reverse", 50, 0.5))
    assert rig.motors(mark) == [Motor("reverse", 0.5)]


def test_burst_feeds_k_cards_then_stop_reverse_pulse_stop_then_resolves():
    rig = Rig(script=[3], hopper=10)
    actions = rig.send(Launch())
    assert Motor("forward", rig.config.motor.duty) in actions
    assert Chime(1, rig.config.feedback.chime_ms) in actions
    assert rig.state == "launching"
    for _ in range(3):
        rig.card(block_ms=10, after_ms=50)
    assert [p["count"] for p in rig.emits("card")] == [1, 2, 3]
    motor = rig.config.motor
    # Stop, and coast before the reverse pulse: never a plugged reversal.
    assert rig.motors()[-2:] == [Motor("forward", motor.duty), Motor("stop")]
    rig.wait(motor.dead_time_ms - 1)
    assert rig.motors()[-1] == Motor("stop")
    rig.wait(1)
    assert rig.motors()[-2:] == [Motor("stop"), Motor("reverse", motor.retract_duty)]
    assert rig.emits("launched") == [] and rig.state == "launching"
    rig.wait(motor.retract_ms - 1)
    assert rig.emits("launched") == []
    rig.wait(2)
    assert rig.motors()[-1] == Motor("stop")
    assert rig.emits("launched") == [{"press_id": 1, "source": "api", "request": None, "outcome": "burst", "cards": 3,
                                      "requested": 3, "ended": "done"}]
    assert rig.states() == ["launching", "ready"]
    status = rig.status
    assert status["cards_ejected"] == 3 and status["hopper"] == 7
    assert status["last"] == {"press_id": 1, "outcome": "burst", "cards": 3}
    assert status["motor"]["on"] is False


def test_a_card_during_the_reverse_pulse_belongs_to_the_launch():
    rig = Rig(script=[1])
    rig.send(Launch())
    rig.send(BeamLevel(True), after_ms=30)
    rig.send(BeamLevel(False), after_ms=10)  # the burst's card: reverse pulse starts
    rig.card(block_ms=10, after_ms=5)  # a second card still crossing during the pulse
    rig.wait(100)
    assert rig.emits("launched")[0]["cards"] == 2 and rig.status["cards_ejected"] == 2


def test_kick_when_duty_is_below_kick_below():
    rig = Rig(script=[1], motor={"duty": 0.4, "kick_below": 0.6, "kick_duty": 0.9, "kick_ms": 80})
    rig.send(Launch())
    rig.wait(79)
    assert rig.motors() == [Motor("forward", 0.9)]
    rig.wait(2)
    assert rig.motors() == [Motor("forward", 0.9), Motor("forward", 0.4)]


def test_no_kick_at_or_above_kick_below():
    rig = Rig(script=[1], motor={"duty": 0.6, "kick_below": 0.6})
    rig.send(Launch())
    rig.wait(500)
    assert rig.motors() == [Motor("forward", 0.6)]


def test_without_a_reverse_pulse_the_launch_resolves_at_the_stop():
    rig = Rig(script=[2], motor={"retract_ms": 0})
    rig.send(Launch())
    rig.card(after_ms=20)
    mark = rig.mark()
    rig.card(after_ms=20)
    assert rig.motors(mark) == [Motor("stop")]
    assert rig.emits("launched", mark)[0]["ended"] == "done" and rig.state == "ready"
    assert not any(m.direction == "reverse" for m in rig.motors())


def test_dispense_ejects_exactly_count_without_the_policy():
    rig = Rig(script=[0], hopper=20)
    rig.send(Dispense(2, "dispense"))
    assert rig.policy.decided == []
    for _ in range(2):
        rig.card(after_ms=30)
    rig.wait(200)
    assert rig.emits("launched") == [{"press_id": 1, "source": "dispense", "request": None, "outcome": "dispense",
                                      "cards": 2, "requested": 2, "ended": "done"}]
    assert rig.status["presses"] == 0  # dealing is not a press of the button


@pytest.mark.parametrize("count", [0, -3, "2", True, None])
def test_dispense_with_a_bad_count_is_ignored_without_raising(count):
    rig = Rig()
    assert refused(rig.send(Dispense(count)))
    assert rig.status["presses"] == 0


def test_all_in_runs_until_the_feed_runs_dry():
    rig = Rig(script=[ALL_IN], hopper=4)
    rig.send(Launch())
    for _ in range(4):
        rig.card(after_ms=100)
    rig.wait(rig.config.timing.feed_timeout_ms + 1)
    launched = rig.emits("launched")
    assert launched == [{"press_id": 1, "source": "api", "request": None, "outcome": "burst", "cards": 4,
                         "requested": 4, "ended": "empty"}]
    assert rig.state == "empty"


def test_presses_while_launching_are_ignored():
    rig = Rig(script=[2])
    rig.send(Launch())
    rig.press()
    rig.send(Launch("api"))
    rig.send(Dispense(1, "dispense"))
    assert [p["reason"] for p in rig.emits("ignored")] == ["launching"] * 3
    assert [p["source"] for p in rig.emits("ignored")] == ["button", "api", "dispense"]
    assert rig.status["presses"] == 1


# ---- the beam -------------------------------------------------------------------------------------


def test_a_block_shorter_than_the_filter_is_a_glitch():
    rig = Rig(script=[1])
    rig.send(Launch())
    rig.card(block_ms=1, after_ms=20)  # beam_filter_ms is 2
    assert rig.emits("card") == [] and rig.state == "launching"
    rig.card(block_ms=3, after_ms=20)
    assert [p["count"] for p in rig.emits("card")] == [1]


def test_a_block_with_the_motor_stopped_counts_for_the_last_press():
    rig = Rig(script=[1, 0])
    rig.send(Launch())
    rig.card(after_ms=20)
    rig.wait(500)
    rig.send(Launch())  # a dry press is now the last one
    mark = rig.mark()
    rig.card(after_ms=2000)
    assert rig.emits("card", mark) == [{"press_id": 2, "count": 1}]
    assert rig.emits("launched", mark) == [] and rig.motors(mark) == []
    assert rig.status["last"] == {"press_id": 2, "outcome": "dry", "cards": 1}
    assert rig.status["cards_ejected"] == 2


def test_a_block_before_any_press_is_not_counted():
    rig = Rig(hopper=5)
    rig.card()
    assert rig.emits("card") == [] and rig.status["cards_ejected"] == 0 and rig.status["hopper"] == 5


def test_jam_stops_the_motor_at_once_and_counts_the_stuck_card_once():
    rig = Rig(script=[3, 0])
    rig.send(Launch())
    rig.card(after_ms=20)
    rig.send(BeamLevel(True), after_ms=20)
    rig.wait(399)
    assert rig.status["motor"]["on"] is True
    mark = rig.mark()
    rig.wait(2)
    assert rig.actions(mark)[0] == Motor("stop")
    assert rig.emits("card", mark) == [{"press_id": 1, "count": 2}]
    assert rig.emits("jammed", mark) == [{"press_id": 1}]
    assert rig.emits("launched", mark) == [{"press_id": 1, "source": "api", "request": None, "outcome": "burst",
                                            "cards": 2, "requested": 3, "ended": "jam"}]
    assert rig.state == "jammed"
    assert rig.send(Launch()) == [Emit("ignored", {"source": "api", "request": None, "reason": "jammed"})]
    mark = rig.mark()
    rig.send(BeamLevel(False), after_ms=5000)
    assert rig.emits("card", mark) == [] and rig.state == "ready"
    assert rig.status["cards_ejected"] == 2 and rig.motors(mark) == []


def test_a_beam_that_never_clears_is_one_jam_not_a_card_storm():
    rig = Rig(script=[5])
    rig.send(Launch())
    rig.send(BeamLevel(True), after_ms=20)
    rig.wait(600_000)
    assert len(rig.emits("jammed")) == 1 and len(rig.emits("card")) == 1
    assert rig.status["cards_ejected"] == 1 and rig.state == "jammed"
    assert rig.motors() == [Motor("forward", rig.config.motor.duty), Motor("stop")]


def test_a_jam_with_the_motor_stopped_still_jams():
    rig = Rig(script=[0])
    rig.send(Launch())
    rig.send(BeamLevel(True), after_ms=100)
    rig.wait(500)
    assert rig.state == "jammed" and rig.emits("jammed") == [{"press_id": 1}]
    assert rig.status["last"]["cards"] == 1


# ---- feed timeout, empty, reload ------------------------------------------------------------------


def test_feed_timeout_stops_the_motor_and_goes_empty():
    rig = Rig(script=[3], hopper=30)
    rig.send(Launch())
    rig.card(after_ms=100)
    rig.wait(rig.config.timing.feed_timeout_ms - 1)
    assert rig.state == "launching"
    mark = rig.mark()
    rig.wait(2)
    assert rig.actions(mark)[0] == Motor("stop")
    assert [m.direction for m in rig.motors(mark)] == ["stop"]
    assert rig.emits("empty", mark)[0]["press_id"] == 1
    assert rig.emits("launched", mark)[0]["ended"] == "empty"
    assert rig.emits("launched", mark)[0]["cards"] == 1
    assert rig.state == "empty" and rig.status["hopper"] == 0


def blind_run(rig):
    """A run that ends by the feed timeout: no card crosses the beam."""
    rig.send(Launch(), after_ms=rig.config.timing.motor_rest_ms)
    rig.wait(rig.config.timing.feed_timeout_ms + rig.config.motor.dead_time_ms + 1)


def test_runs_that_see_no_card_with_cards_loaded_halt_for_the_beams_wiring():
    rig = Rig(script=[3, 3], hopper=50, sensor={"blind_runs": 2})
    blind_run(rig)
    assert rig.state == "empty" and rig.status["hopper"] == 0
    rig.send(Reload(50))  # "I have just filled it": the beam still sees nothing
    mark = rig.mark()
    blind_run(rig)
    assert rig.state == "halted"
    assert rig.status["reason"] == {"id": "halted_beam_sees_no_cards", "runs": 2}
    assert rig.emits("empty", mark) == [] and rig.emits("launched", mark)[-1]["ended"] == "halt"
    assert rig.status["hopper"] == 50, "the estimate stands: the sensor is what is not believed"
    assert rig.motors()[-1] == Motor("stop") and not rig.status["motor"]["on"]


def test_a_card_counted_or_an_unknown_hopper_is_no_blind_run():
    rig = Rig(script=[1, 3, 3, 3], hopper=50, sensor={"blind_runs": 2})
    blind_run(rig)
    rig.send(Reload(50))
    rig.send(Launch(), after_ms=rig.config.timing.motor_rest_ms)
    rig.card(block_ms=10, after_ms=50)  # the beam works after all
    rig.wait(500)
    rig.send(Reload(50))
    blind_run(rig)
    assert rig.state == "empty"
    # Nobody said how many cards are in: a feed timeout is an empty hopper.
    unknown = Rig(script=[3], sensor={"blind_runs": 1})
    blind_run(unknown)
    assert unknown.state == "empty" and unknown.emits("halted") == []


def test_feed_timeout_is_rearmed_by_each_card():
    rig = Rig(script=[4])
    rig.send(Launch())
    for _ in range(4):
        rig.card(block_ms=10, after_ms=1000)  # 4 s in all, each gap under 1.5 s
    rig.wait(100)
    assert rig.emits("launched")[0]["ended"] == "done" and rig.emits("empty") == []


def test_feed_timeout_waits_while_the_beam_is_blocked():
    rig = Rig(script=[2])
    rig.send(Launch())
    rig.send(BeamLevel(True), after_ms=1400)
    rig.send(BeamLevel(False), after_ms=390)  # the feed deadline passed while it was blocked
    assert rig.state == "launching" and rig.emits("card") == [{"press_id": 1, "count": 1}]
    rig.wait(1499)
    assert rig.state == "launching"
    rig.wait(2)
    assert rig.state == "empty"


def test_a_glitch_does_not_rearm_the_feed_timeout():
    rig = Rig(script=[2])
    rig.send(Launch())
    rig.card(block_ms=1, after_ms=1000)
    rig.wait(499)
    assert rig.state == "launching"
    rig.wait(3)
    assert rig.state == "empty"


def test_press_in_empty_is_counted_with_no_motor():
    rig = Rig(script=[2])
    rig.send(Launch())
    rig.wait(2000)
    assert rig.state == "empty"
    mark = rig.mark()
    actions = rig.send(Launch())
    assert Chime(1, rig.config.feedback.chime_ms) in actions
    assert any(isinstance(a, Led) and a.mode == "flash" for a in actions)
    assert rig.motors(mark) == [] and rig.policy.decided == [None]
    assert rig.emits("launched", mark) == [{"press_id": 2, "source": "api", "request": None, "outcome": "empty",
                                            "cards": 0, "requested": 0, "ended": "empty"}]
    assert rig.status["presses"] == 2


def test_reload_from_empty_returns_to_ready_and_resets_the_policy():
    rig = Rig(script=[2, 1])
    rig.send(Launch())
    rig.wait(2000)
    rig.send(Reload(50))
    assert rig.state == "ready" and rig.status["hopper"] == 50 and rig.policy.resets == 1
    rig.send(Launch())
    assert rig.policy.decided[-1] == 50 and rig.state == "launching"


def test_reload_while_launching_only_sets_the_estimate():
    rig = Rig(script=[2])
    rig.send(Launch())
    assert rig.send(Reload(9)) == []
    assert rig.state == "launching" and rig.status["hopper"] == 9 and rig.policy.resets == 0


@pytest.mark.parametrize("cards", [-1, "3", None, 2.5])
def test_reload_with_a_bad_count_is_ignored(cards):
    rig = Rig(hopper=3)
    assert refused(rig.send(Reload(cards)))
    assert rig.status["hopper"] == 3


def test_hopper_estimate_never_goes_below_zero_and_unknown_stays_unknown():
    known, unknown = Rig(script=[3], hopper=1), Rig(script=[3])
    for rig in (known, unknown):
        rig.send(Launch())
        for _ in range(3):
            rig.card(after_ms=20)
    assert known.status["hopper"] == 0 and known.status["cards_ejected"] == 3
    assert unknown.status["hopper"] is None


# ---- timeouts and the motor limit ---------------------------------------------------------------


def test_launch_timeout_ends_the_launch_with_the_cards_counted():
    rig = Rig(script=[50])
    rig.send(Launch())
    for _ in range(9):
        rig.card(after_ms=1000)
    rig.wait(1000)  # 10 s since the press
    launched = rig.emits("launched")
    assert rig.motors()[-3:] == [Motor("stop"), Motor("reverse", rig.config.motor.retract_duty),
                                 Motor("stop")]
    assert launched == [{"press_id": 1, "source": "api", "request": None, "outcome": "burst", "cards": 9,
                         "requested": 50, "ended": "timeout"}]
    assert rig.state == "ready"


# ---- lid ------------------------------------------------------------------------------------------


def test_lid_open_stops_the_motor_and_resolves_the_launch():
    rig = Rig(script=[3, 2])
    rig.send(Launch())
    rig.card(after_ms=20)
    actions = rig.send(LidLevel(True), after_ms=20)
    assert actions[0] == Motor("stop")
    assert rig.emits("launched")[0]["ended"] == "lid" and rig.emits("launched")[0]["cards"] == 1
    assert rig.state == "lid_open" and rig.status["lid_open"] is True
    assert rig.send(Launch()) == [Emit("ignored", {"source": "api", "request": None, "reason": "lid_open"})]
    rig.send(LidLevel(False), after_ms=5000)
    assert rig.state == "ready" and rig.policy.resets == 1
    rig.send(Launch())
    assert rig.state == "launching"


def test_lid_open_from_sleep_and_empty():
    rig = Rig(script=[1])
    rig.send(Launch())
    rig.wait(2000)
    assert rig.state == "empty"
    rig.send(SleepNow())
    rig.send(LidLevel(True))
    assert rig.state == "lid_open" and rig.status["motor"]["on"] is False
    rig.send(LidLevel(False))
    assert rig.state == "ready"


def test_lid_closed_on_a_stuck_card_is_jammed():
    rig = Rig(script=[0])
    rig.send(Launch())
    rig.send(LidLevel(True))
    rig.send(BeamLevel(True))
    rig.wait(1000)
    assert rig.state == "lid_open" and rig.status["cards_ejected"] == 1
    rig.send(LidLevel(False))
    assert rig.state == "jammed"
    rig.send(BeamLevel(False))
    assert rig.state == "ready" and rig.status["cards_ejected"] == 1


# ---- sleep ----------------------------------------------------------------------------------------


def test_sleeps_after_inactivity_and_a_press_only_wakes():
    rig = Rig(script=[2], timing={"sleep_after_s": 300})
    rig.wait(299_999)
    assert rig.state == "ready"
    mark = rig.mark()
    rig.wait(2)
    assert rig.actions(mark)[:2] == [DriverEnable(False), Led("off")]
    assert rig.state == "sleeping" and rig.status["driver_enabled"] is False
    mark = rig.mark()
    rig.press()
    actions = rig.actions(mark)
    assert actions[:2] == [DriverEnable(True), Led("on", rig.config.feedback.led_brightness)]
    assert rig.emits("ignored", mark) == [{"source": "button", "request": None, "reason": "sleeping"}]
    assert rig.emits("press", mark) == [] and rig.motors(mark) == []
    assert rig.status["presses"] == 0 and rig.policy.decided == [] and rig.state == "ready"
    rig.send(Launch())
    assert rig.state == "launching"


def test_launch_while_sleeping_only_wakes_too():
    rig = Rig(script=[2])
    rig.send(SleepNow())
    rig.send(Launch("api"))
    assert rig.emits("ignored") == [{"source": "api", "request": None, "reason": "sleeping"}]
    assert rig.state == "ready" and rig.status["presses"] == 0


def test_dispense_while_sleeping_wakes_and_dispenses():
    rig = Rig()
    rig.send(SleepNow())
    actions = rig.send(Dispense(1, "dispense"))
    assert actions[0] == DriverEnable(True) and Motor("forward", rig.config.motor.duty) in actions
    assert rig.emits("ignored") == [] and rig.state == "launching"


def test_activity_postpones_sleep_and_zero_means_never():
    rig = Rig(script=[0], timing={"sleep_after_s": 10})
    rig.send(Launch(), after_ms=9000)
    rig.wait(9000)
    assert rig.state == "ready"
    rig.wait(1001)
    assert rig.state == "sleeping"
    never = Rig(timing={"sleep_after_s": 0})
    assert never.core.next_deadline() is None
    never.wait(10_000_000)
    assert never.state == "ready"


def test_sleep_from_empty_wakes_back_to_empty():
    rig = Rig(script=[1], timing={"sleep_after_s": 5})
    rig.send(Launch())
    rig.wait(2000)
    rig.wait(5001)
    assert rig.state == "sleeping"
    rig.send(Wake())
    assert rig.state == "empty" and rig.states()[-1] == "empty"


def test_sleep_now_and_wake_events():
    rig = Rig()
    rig.send(SleepNow())
    assert rig.state == "sleeping"
    assert refused(rig.send(SleepNow()))
    rig.send(Wake())
    assert rig.state == "ready" and rig.status["driver_enabled"] is True
    assert refused(rig.send(Wake()))


def test_reload_while_sleeping_wakes_ready():
    rig = Rig(script=[1])
    rig.send(Launch())
    rig.wait(2000)
    rig.send(SleepNow())
    rig.send(Reload(30))
    assert rig.state == "ready" and rig.status["driver_enabled"] is True and rig.policy.resets == 1


# ---- retract --------------------------------------------------------------------------------------


def test_retract_runs_the_reverse_pulse_only_when_ready():
    rig = Rig(script=[2])
    motor = rig.config.motor
    assert [a for a in rig.send(Retract()) if not isinstance(a, Persist)] == [Motor("reverse", motor.retract_duty)]
    rig.wait(motor.retract_ms + 1)
    assert rig.motors() == [Motor("reverse", motor.retract_duty), Motor("stop")]
    assert rig.emits("press") == [] and rig.emits("launched") == [] and rig.state == "ready"
    rig.send(Launch())
    assert refused(rig.send(Retract()))


def test_retract_is_refused_when_the_pulse_is_disabled():
    assert refused(Rig(motor={"retract_ms": 0}).send(Retract()))


def test_a_press_during_a_lone_reverse_pulse_stops_it_and_coasts_before_feeding():
    rig = Rig(script=[1])
    rig.send(Retract())
    actions = rig.send(Launch(), after_ms=10)
    assert [a for a in actions if isinstance(a, Motor)] == [Motor("stop")]
    mark = rig.mark()
    rig.wait(rig.config.motor.dead_time_ms - 1)
    assert rig.motors(mark) == []
    rig.wait(1)
    assert rig.motors(mark) == [Motor("forward", rig.config.motor.duty)]


# ---- shutdown, estop, reset -----------------------------------------------------------------------


def test_shutdown_stops_the_motor_first_and_is_idempotent():
    rig = Rig(script=[3])
    rig.send(Launch())
    actions = rig.core.shutdown("bench test", rig.now)
    assert actions[:3] == [Motor("stop"), DriverEnable(False), Led("flash", 1.0, 1000)]
    emits = [a for a in actions if isinstance(a, Emit)]
    assert [e.name for e in emits] == ["launched", "state", "halted"]
    assert emits[0].params["ended"] == "halt" and emits[2].params == {"reason": "bench test"}
    assert rig.core.shutdown("again", rig.now) == []
    assert rig.status["reason"] == "bench test" and rig.status["motor"]["on"] is False


def test_shutdown_sends_stop_even_when_the_motor_is_thought_off():
    rig = Rig()
    assert rig.core.shutdown("x", rig.now)[:2] == [Motor("stop"), DriverEnable(False)]


def test_estop_halts_presses_are_ignored_and_reset_returns_to_ready():
    rig = Rig(script=[0])
    rig.send(EStop("test"))
    assert rig.state == "halted" and rig.status["reason"] == "test"
    assert rig.send(EStop("again")) == []
    assert rig.send(Launch()) == [Emit("ignored", {"source": "api", "request": None, "reason": "halted"})]
    assert rig.send(Dispense(2, "dispense")) == [Emit("ignored", {"source": "dispense", "request": None,
                                                                  "reason": "halted"})]
    rig.press()
    assert rig.emits("ignored")[-1] == {"source": "button", "request": None, "reason": "halted"}
    assert rig.status["presses"] == 0
    actions = rig.send(Reset())
    assert actions[0] == DriverEnable(True)
    assert rig.state == "ready" and rig.status["reason"] is None
    assert refused(rig.send(Reset()))


def test_reset_with_the_lid_open_goes_to_lid_open():
    rig = Rig()
    rig.send(EStop())
    rig.send(LidLevel(True))
    assert rig.state == "halted"
    rig.send(Reset())
    assert rig.state == "lid_open"
    rig.send(LidLevel(False))
    assert rig.state == "ready"


def test_halted_never_sleeps():
    rig = Rig(timing={"sleep_after_s": 1})
    rig.send(EStop())
    rig.wait(100_000)
    assert rig.state == "halted"


# ---- robustness -----------------------------------------------------------------------------------


@pytest.mark.parametrize("event", [object(), None, "launch", 42, Motor("forward", 1.0)])
def test_unknown_events_are_ignored_without_raising(event):
    rig = Rig()
    assert refused(rig.send(event))
    assert rig.state == "ready"


def test_a_clock_stepping_back_does_not_rewind_anything():
    rig = Rig(script=[1])
    rig.send(Launch())
    rig.send(BeamLevel(True), after_ms=20)
    rig.now -= 5.0
    rig.send(BeamLevel(False))
    assert rig.emits("card") == [] and rig.status["beam_blocked"] is False  # a 0 ms block: a glitch


def test_device_actions_come_before_events():
    rig = Rig(script=[2, 0, 1])
    rig.send(Launch())
    rig.card(after_ms=20)
    rig.card(after_ms=20)
    rig.send(Launch(), after_ms=500)
    rig.send(Launch(), after_ms=500)
    rig.send(LidLevel(True), after_ms=20)
    rig.send(LidLevel(False), after_ms=20)
    assert any(any(isinstance(a, Emit) for a in call) for call in rig.calls)
    for actions in rig.calls:
        kinds = [isinstance(a, Emit) for a in actions]
        assert kinds == sorted(kinds), actions


def test_status_is_json_in_every_state():
    rig = Rig(script=[2, 0])
    seen = {}
    steps = [
        lambda: None, lambda: rig.send(Launch()), lambda: rig.wait(2000), lambda: rig.send(SleepNow()),
        lambda: rig.send(Reload(5)), lambda: rig.send(LidLevel(True)), lambda: rig.send(LidLevel(False)),
        lambda: rig.send(BeamLevel(True)), lambda: rig.wait(1000), lambda: rig.send(EStop("x")),
    ]
    for step in steps:
        step()
        seen[rig.state] = rig.status
        assert json.loads(json.dumps(rig.status)) == rig.status
    assert set(seen) == set(STATES)


# ---- request ids ----------------------------------------------------------------------------


def test_every_outcome_of_a_request_carries_its_id():
    rig = Rig(script=[2])
    rig.send(Launch("api", request=7))
    assert rig.emits("press")[-1]["request"] == 7
    rig.send(Dispense(3, "dispense", request=8))  # while launching: ignored, to its own caller
    assert rig.emits("ignored") == [{"source": "dispense", "request": 8, "reason": "launching"}]
    rig.card(after_ms=5)
    rig.card(after_ms=5)
    rig.wait(200)
    assert [(p["request"], p["outcome"], p["cards"]) for p in rig.emits("launched")] == [(7, "burst", 2)]
    rig.send(Dispense(1, "dispense", request=9))
    rig.card(after_ms=5)
    rig.wait(200)
    assert [(p["request"], p["source"]) for p in rig.emits("launched")] == [(7, "api"), (9, "dispense")]


def test_a_button_press_carries_the_request_of_the_edge_that_made_it():
    rig = Rig(script=[0, 0])
    rig.send(ButtonLevel(True, request=4))
    rig.send(ButtonLevel(False), after_ms=50)
    rig.send(ButtonLevel(True), after_ms=50)  # a real finger: nobody asked
    rig.send(ButtonLevel(False), after_ms=50)
    assert [p["request"] for p in rig.emits("launched")] == [4, None]


def test_a_refusal_names_the_event_and_the_request():
    rig = Rig()
    assert rig.send(Dispense(0, "dispense", request=3)) == [Emit("refused", {
        "event": "Dispense", "request": 3, "state": "ready",
        "reason": {"id": "refused_count"}})]


# ---- levels at start ------------------------------------------------------------------------


def test_a_button_held_at_start_is_not_a_press_until_released_and_pressed_again():
    rig = Rig(script=[0])
    rig.send(InputLevels(button=True, beam=False, lid=None))
    rig.wait(500)
    assert rig.emits("press") == []
    rig.send(ButtonLevel(False))
    rig.wait(50)
    assert rig.emits("press") == []
    rig.press()
    assert len(rig.emits("press")) == 1


def test_a_beam_blocked_at_start_is_a_jam_and_no_launch_starts_against_it():
    rig = Rig(script=[3], hopper=50)
    rig.send(InputLevels(button=False, beam=True, lid=None))
    rig.send(Launch(request=1), after_ms=10)
    assert rig.emits("ignored") == [{"source": "api", "request": 1, "reason": "beam_blocked"}]
    rig.wait(2000)
    assert rig.motors() == [] and rig.emits("launched") == [] and rig.emits("empty") == []
    assert rig.state == "jammed"
    assert rig.status["hopper"] == 50  # no press yet: the card in the slot is nobody's
    jam_at = next(t for t, a in rig.log if isinstance(a, Emit) and a.name == "jammed")
    assert jam_at == pytest.approx(T0 + 0.4)  # jam_ms after the level was read


def test_a_lid_open_at_start_stops_the_launcher_and_no_lid_changes_nothing():
    rig = Rig(script=[3])
    rig.send(InputLevels(button=False, beam=False, lid=True))
    assert rig.state == "lid_open"
    quiet = Rig()
    assert quiet.send(InputLevels(button=False, beam=False, lid=None)) == []
    assert quiet.state == "ready"


# ---- holds: nothing pending moves without a person's press ----------------------------------------

WAITING = {"id": "pending_dispense", "count": 3}


def emitted(actions, name: str) -> list[dict]:
    return [a.params for a in actions if isinstance(a, Emit) and a.name == name]


def test_a_press_while_something_waits_releases_it_and_is_no_launch():
    rig = Rig(script=[5], hopper=20)
    assert rig.status["pending"] is None
    rig.send(Hold("dealer", WAITING))
    assert rig.status["pending"] == WAITING
    assert rig.emits("pending") == [{"pending": WAITING}]
    mark = rig.mark()
    rig.press()
    assert rig.motors(mark) == [], "the press that resumes is not also a launch"
    assert rig.emits("press", mark) == [] and rig.status["presses"] == 0
    assert rig.emits("resume", mark) == [{"source": "button", "request": None, "pending": [WAITING]}]
    assert rig.status["pending"] is None and rig.emits("pending", mark) == [{"pending": None}]
    # The next press is a press again.
    rig.wait(50)
    rig.press()
    assert rig.emits("press", mark)[0]["source"] == "button"


def test_resume_releases_what_waits_and_is_refused_when_nothing_does():
    rig = Rig(script=[5], hopper=20)
    (refused,) = emitted(rig.send(Resume(request=4)), "refused")
    assert refused["reason"] == {"id": "refused_nothing_pending"} and refused["request"] == 4
    rig.send(Hold("game", {"id": "deal_waits"}))
    rig.send(Hold("dealer", WAITING))
    assert rig.status["pending"] == {"id": "deal_waits"}, "the oldest shows"
    actions = rig.send(Resume(request=5))
    resumed = emitted(actions, "resume")
    assert resumed == [{"source": "api", "request": 5, "pending": [{"id": "deal_waits"}, WAITING]}]
    assert not any(isinstance(a, Motor) for a in actions)


def test_while_something_waits_for_a_press_no_request_moves_the_motor_outside_bench_mode_on_purpose():
    rig = Rig(script=[2], hopper=20)
    rig.send(Hold("dealer", WAITING))
    mark = rig.mark()
    for event in (Dispense(3, "api", 1), Jog("forward", 100, 0.5, request=2), Retract()):
        (refused,) = emitted(rig.send(event), "refused")
        assert refused["reason"]["id"] == "refused_pending" and refused["reason"]["what"] == WAITING, event
    # Bench mode a bring-up method would enter by itself is not entered while a press is awaited.
    (refused,) = emitted(rig.send(Bench(30, on_purpose=False)), "refused")
    assert refused["reason"]["id"] == "refused_pending" and rig.status["pending"] == WAITING
    (refused,) = emitted(rig.send(Jog("forward", 100, 0.5, request=3)), "refused")
    assert refused["reason"]["id"] == "refused_pending"
    assert rig.motors(mark) == []
    # Entered on purpose (bringup/bench), a jog runs; then a renewal by a method is a renewal.
    assert emitted(rig.send(Bench(30)), "bench") == [{"on": True}]
    assert emitted(rig.send(Bench(30, on_purpose=False)), "refused") == []
    rig.send(Jog("forward", 100, 0.5, request=4))
    assert rig.motors(mark) != []


def test_a_hold_withdrawn_by_its_owner_no_longer_takes_the_press():
    rig = Rig(script=[2], hopper=20)
    rig.send(Hold("dealer", WAITING))
    rig.send(Hold("other", None))  # not its hold: nothing changes
    assert rig.status["pending"] == WAITING
    rig.send(Hold("dealer", None))
    assert rig.status["pending"] is None
    rig.press()
    assert rig.emits("press")[0]["source"] == "button" and rig.state == "launching"


def test_a_press_while_jammed_or_with_the_lid_open_does_not_release_the_hold():
    rig = Rig(script=[2], hopper=20)
    rig.send(Hold("dealer", WAITING))
    rig.send(BeamLevel(True))
    rig.wait(rig.config.timing.jam_ms + 1)
    assert rig.state == "jammed"
    rig.press()
    assert rig.emits("resume") == [] and rig.status["pending"] == WAITING
    (refused,) = emitted(rig.send(Resume()), "refused")
    assert refused["reason"] == {"id": "refused_resume_state"}
    rig.send(BeamLevel(False), after_ms=50)
    assert rig.state == "ready"
    rig.press()
    assert rig.emits("resume")[0]["source"] == "button" and rig.motors() == []


def test_a_spent_chain_is_said_before_a_blocked_beam():
    """A card still in the slot after the chain's limit cut the motor: the request is refused with
    when to try again (the longer wait), not merely ignored for the card."""
    rig = Rig(hopper=50, timing={"launch_timeout_ms": 200, "max_on_ms": 300, "motor_rest_ms": 5000,
                                 "jam_ms": 100, "feed_timeout_ms": 150, "card_crossing_ms": 40})
    for request in (1, 2):
        rig.send(Dispense(50, request=request))
        for _ in range(8):  # a card every 40 ms: the feed never times out
            rig.card(block_ms=5, after_ms=35)
        rig.wait(200)
    assert [p["ended"] for p in rig.emits("launched")] == ["timeout", "motor_limit"]
    rig.send(BeamLevel(True))  # the card the cut left in the slot
    (refused,) = emitted(rig.send(Dispense(50, request=3), after_ms=5), "refused")
    assert refused["request"] == 3 and refused["retry_after_s"] > 4


def test_the_motor_never_starts_while_the_beam_is_blocked():
    rig = Rig(script=[3], hopper=20)
    rig.send(BeamLevel(True))  # a hand in the slot, not yet a jam
    for event in (Launch(request=1), Dispense(2, request=2)):
        ignored = emitted(rig.send(event, after_ms=10), "ignored")
        assert ignored[0]["reason"] == "beam_blocked"
    rig.press(hold_ms=50)
    assert rig.emits("ignored")[-1] == {"source": "button", "request": None, "reason": "beam_blocked"}
    assert rig.motors() == [] and rig.status["presses"] == 0
    rig.send(BeamLevel(False), after_ms=10)
    rig.send(Launch())
    assert rig.motors()[0].direction == "forward"


# ---- a dispense whose purpose is over ------------------------------------------------------------


def test_a_cancelled_dispense_stops_as_after_its_count_and_says_so():
    rig = Rig(hopper=50)
    rig.send(Dispense(10, request="deal"))
    rig.card(block_ms=10, after_ms=50)
    rig.card(block_ms=10, after_ms=50)
    mark = rig.mark()
    rig.send(Cancel("another"))  # not this dispense's request: nothing changes
    assert rig.motors(mark) == []
    rig.send(Cancel("deal"))
    assert rig.motors(mark) == [Motor("stop")]
    rig.wait(200)  # the coast and the reverse pulse, as after a count
    assert [m.direction for m in rig.motors(mark)] == ["stop", "reverse", "stop"]
    (launched,) = rig.emits("launched", mark)
    assert (launched["ended"], launched["cards"], launched["requested"]) == ("cancelled", 2, 10)
    assert rig.state == "ready"
    assert rig.send(Cancel("deal")) == []  # over already
