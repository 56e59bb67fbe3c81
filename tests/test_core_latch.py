"""The core's side of the latch (issue #20): what it asks the driver to keep (``Persist``), how it
comes back (``Restore``), and the reset by holding the launch button ``[button] reset_hold_ms``."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firmware.config import build_config
from firmware.launcher.core import Launcher
from firmware.events import (
    BeamLevel, ButtonLevel, Dispense, DriverEnable, EStop, Emit, Hold, Jog, Launch, Led, LidLevel, Motor,
    OnTimeRecord, Persist, Reload, Reset, Restore, Resume, Retract, Tick, Wake,
)
from firmware.i18n import message
from test_core import T0, Rig

CRASH = message("halted_after_crash")


def emitted(actions) -> list[tuple[str, dict]]:
    return [(a.name, a.params) for a in actions if isinstance(a, Emit)]


def stall(rig: Rig) -> list:
    """The driver did not run for 5 s while the motor was on."""
    rig.now += 5.0
    return rig._handle(Tick())


def persisted(actions) -> list[Persist]:
    return [a for a in actions if isinstance(a, Persist)]


def test_a_restored_halt_comes_up_halted_with_its_reason_and_the_driver_off():
    rig = Rig(script=[3])
    actions = rig.send(Restore(CRASH))
    assert actions[:3] == [Motor("stop"), DriverEnable(False), Led("flash", 1.0, 1000)]
    assert persisted(actions) == [Persist(CRASH, OnTimeRecord(), T0)]
    assert ("halted", {"reason": CRASH}) in emitted(actions)
    status = rig.status
    assert (status["state"], status["reason"], status["driver_enabled"]) == ("halted", CRASH, False)


def test_a_restore_without_a_halt_changes_nothing():
    rig = Rig(script=[3])
    assert rig.send(Restore(None)) == []
    assert rig.status["state"] == "ready"


def test_every_halt_is_kept_with_its_words_and_a_reset_clears_it():
    rig = Rig(script=[3])
    assert persisted(rig.send(EStop("a hand in the slot"))) == [Persist("a hand in the slot", OnTimeRecord(), T0)]
    assert persisted(rig.send(Reset(), 10)) == [Persist(None, OnTimeRecord(), T0 + 0.01)]
    assert persisted(rig.send(Reset(), 10)) == [], "refused: nothing changed"


def test_a_stall_is_kept_with_its_reason():
    rig = Rig(script=[30])
    rig.send(Launch())
    kept = persisted(stall(rig))
    assert len(kept) == 1 and kept[0].halt["id"] == "stalled"


def test_the_on_time_record_is_kept_as_each_run_starts_and_as_it_ends():
    rig = Rig(script=[2])
    started = persisted(rig.send(Launch()))
    # The start is kept at once: a process killed mid-run leaves its run's start and chain behind.
    assert len(started) == 1 and started[0].on_time == OnTimeRecord(0.0, None, T0, ())
    rig.card(after_ms=50)
    rig.card(after_ms=50)
    rig.wait(2000)
    kept = [a for _, a in rig.log if isinstance(a, Persist)]
    assert len(kept) > 1, "the run's end was kept"
    record = kept[-1].on_time
    assert record.on_since is None and record.off_since is not None and record.chain > 0
    assert record.runs and record.runs[-1][1] == record.off_since


def test_a_restored_record_keeps_the_rest_the_motor_needs():
    limits = {"timing": {"max_on_ms": 300, "motor_rest_ms": 5000, "launch_timeout_ms": 200, "jam_ms": 50,
                         "feed_timeout_ms": 150}}
    rig = Rig(script=[500], hopper=1000, **limits)
    # The last run used the whole chain and stopped a second ago.
    record = OnTimeRecord(chain=0.3, off_since=T0 - 1.0, runs=((T0 - 1.3, T0 - 1.0),))
    rig.send(Restore(None, record))
    refusal = [p for name, p in emitted(rig.send(Launch())) if name == "refused"]
    assert refusal and 3.9 <= refusal[0]["retry_after_s"] <= 4.0
    assert rig.status["motor"]["on"] is False


def test_holding_the_button_while_halted_resets_and_is_no_press():
    rig = Rig(script=[3])
    rig.send(EStop("stop"))
    rig.send(ButtonLevel(True), 10)
    rig.wait(4990)
    assert rig.status["state"] == "halted"
    rig.send(Tick(), 10)
    assert rig.status["state"] == "ready"
    assert ("reset", {"source": "button"}) in emitted([a for _, a in rig.log])
    assert not any(isinstance(a, Motor) and a.direction != "stop" for _, a in rig.log)
    rig.send(ButtonLevel(False), 3000)  # held on long after: the release is nothing
    rig.wait(100)
    assert rig.status["presses"] == 0 and not any(name == "press" for _, name in _names(rig))
    rig.press()  # the next press is a press
    assert rig.status["presses"] == 1


def test_a_hold_let_go_before_its_time_does_not_reset():
    rig = Rig(script=[3])
    rig.send(EStop("stop"))
    rig.send(ButtonLevel(True), 10)
    rig.send(ButtonLevel(False), 4900)
    rig.wait(1000)
    assert rig.status["state"] == "halted"
    # A finger lifted just before the deadline, its release not yet debounced, is no hold either.
    rig.send(ButtonLevel(True), 10)
    rig.send(ButtonLevel(False), 4995)
    rig.wait(1000)
    assert rig.status["state"] == "halted"


def test_holding_the_button_when_not_halted_resets_nothing():
    rig = Rig(script=[0])
    rig.send(ButtonLevel(True))
    rig.wait(8000)
    assert not any(name == "reset" for _, name in _names(rig))


def test_after_a_stall_holding_the_button_still_resets():
    rig = Rig(script=[30])
    rig.send(Launch())
    stall(rig)
    assert rig.status["state"] == "halted"
    rig.send(ButtonLevel(True), 10)
    rig.wait(5010)
    assert rig.status["state"] == "ready"


def test_reset_hold_ms_is_a_checked_key_with_a_default_of_5_s():
    assert build_config({}).button.reset_hold_ms == 5000
    rig = Rig(button={"reset_hold_ms": 1000})
    assert rig.status["reset_hold_ms"] == 1000
    for bad in (999, 30001, "5"):
        try:
            build_config({"button": {"reset_hold_ms": bad}})
        except ValueError as exc:
            assert "reset_hold_ms" in str(exc)
        else:
            raise AssertionError(f"{bad!r} accepted")


def _names(rig):
    return [(t, a.name) for t, a in rig.log if isinstance(a, Emit)]


# ---- the property: a restored latch lets nothing move until a reset and a fresh request ------

CONFIG = build_config({"timing": {"jam_ms": 100, "feed_timeout_ms": 200, "launch_timeout_ms": 400,
                                  "max_on_ms": 1000, "button_debounce_ms": 5, "sleep_after_s": 2},
                       "button": {"reset_hold_ms": 1000}, "motor": {"kick_ms": 20, "retract_ms": 30}})

STEPS = st.one_of(
    st.tuples(st.just("wait"), st.integers(1, 1500)),
    st.tuples(st.just("button"), st.booleans()),
    st.tuples(st.just("beam"), st.booleans()),
    st.tuples(st.just("lid"), st.booleans()),
    st.tuples(st.sampled_from(["launch", "dispense", "retract", "jog", "reload", "wake", "resume", "hold",
                               "estop"]), st.none()),
)
REQUESTS = {
    "launch": lambda: Launch(), "dispense": lambda: Dispense(2), "retract": lambda: Retract(),
    "jog": lambda: Jog("forward", 50, 0.5), "reload": lambda: Reload(20), "wake": lambda: Wake(),
    "resume": lambda: Resume(), "hold": lambda: Hold("game", {"id": "after_restart"}),
    "estop": lambda: EStop("stop"),
}
DELIBERATE = {"launch", "dispense", "retract", "jog"}  # a person's request that may run the motor


class Driver:
    def __init__(self):
        self.now = 10.0
        self.core = Launcher(CONFIG, _Policy(), self.now, 50)
        self.motor_on = False

    def send(self, event) -> list:
        actions = self.core.handle(event, self.now)
        for action in actions:
            if isinstance(action, Motor):
                self.motor_on = action.direction != "stop"
        return actions

    def step(self, kind, value) -> list:
        if kind == "wait":
            target = self.now + value / 1000
            actions = []
            while (deadline := self.core.next_deadline()) is not None and deadline <= target:
                self.now = max(self.now, deadline)
                actions += self.send(Tick())
            self.now = target
            return actions
        if kind == "button":
            return self.send(ButtonLevel(value))
        if kind == "beam":
            return self.send(BeamLevel(value))
        if kind == "lid":
            return self.send(LidLevel(value))
        return self.send(REQUESTS[kind]())


class _Policy:
    name, dry_streak, tension = "fixed", 0, 0.0

    def decide(self, hopper):
        from firmware.launcher.ejection import Outcome
        return Outcome(2)

    def reset(self):
        pass


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(before=st.lists(STEPS, max_size=25), halted=st.lists(STEPS, max_size=40),
       after=st.lists(STEPS, max_size=25))
def test_after_a_restored_latch_nothing_starts_the_motor_until_a_reset_and_a_fresh_request(before, halted, after):
    driver = Driver()
    for step in before:
        driver.step(*step)
    driver.send(Restore(CRASH))
    assert driver.core.get_status()["state"] == "halted" and not driver.motor_on
    reset = False
    fresh = False  # a deliberate request or a fresh press since the reset
    for kind, value in halted + [("reset", None)] + after:
        was_on = driver.motor_on
        actions = driver.send(Reset()) if kind == "reset" else driver.step(kind, value)
        names = {a.name for a in actions if isinstance(a, Emit)}
        if "reset" in names:
            reset, fresh = True, False
        if reset and ("press" in names or (kind in DELIBERATE and not names & {"refused", "ignored"})):
            fresh = True
        if "halted" in names:
            reset = fresh = False
        started = driver.motor_on and not was_on
        starts = [a for a in actions if isinstance(a, Motor) and a.direction != "stop"]
        assert not (starts and not (reset and fresh)), f"the motor started on {kind} {value}"
        assert not started or (reset and fresh)


def test_a_process_stopping_mid_run_keeps_that_run_in_the_on_time_record():
    rig = Rig(script=[30])
    rig.send(Launch())
    actions = rig.core.stopping(rig.now + 0.25)
    assert actions[0] == Motor("stop")
    kept = persisted(actions)
    assert len(kept) == 1 and kept[0].halt is None, "a clean stop is no fault"
    record = kept[0].on_time
    assert abs(record.chain - 0.25) < 1e-9 and record.on_since is None
    assert record.runs[-1] == (T0, T0 + 0.25)
