"""The button after a stall, a halt or a reset, on the core with an explicit clock (issue 35).

A system test's press went unheard after the daemon halted for a stall in the middle of a
launch. On the core's own debounce, a stall noticed by a deadline (not by an edge) dropped the
release's debounce under way and left the button "held" in the core while it was up: after the
reset the next press was no change at all, and only its release was (a release is nothing).
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firmware.events import ButtonLevel, EStop, Launch, Reload, Reset, Tick
from test_core import Rig

STALL_S = 3.0  # far past every deadline of a launch under way (feed_timeout_ms 1500) and stall_ms


def launching(debounced: bool = False) -> Rig:
    """A launcher whose press is running a long burst, the button still down."""
    rig = Rig(script=[30] * 50, hopper=1000, timing={"max_duty": 1.0, "sleep_after_s": 0})
    rig.send(ButtonLevel(True, debounced=debounced))
    rig.wait(30)
    assert rig.status["motor"]["direction"] == "forward"
    return rig


def stall_noticed_by_a_deadline(rig: Rig, button: bool | None = None) -> None:
    """The loop did not run for ``STALL_S``; the first thing it runs is the overdue deadline."""
    rig.now += STALL_S
    rig._handle(Tick(button))
    assert rig.state == "halted" and rig.status["reason"]["id"] == "stalled"


def press_is_heard(rig: Rig) -> None:
    """A fresh press, well after everything settled: a ``press`` and the motor forward."""
    mark = rig.mark()
    rig.send(ButtonLevel(True), 1000)
    rig.wait(100)
    assert [p["source"] for p in rig.emits("press", mark)] == ["button"], rig.actions(mark)
    assert any(m.direction == "forward" for m in rig.motors(mark)), rig.actions(mark)


def test_a_release_whose_debounce_a_stall_cut_does_not_swallow_the_press_after_the_reset():
    rig = launching()
    rig.send(ButtonLevel(False), 100)  # released; its debounce (20 ms) under way...
    stall_noticed_by_a_deadline(rig)  # ...when the loop stops for a second
    rig.send(Reset(), 100)
    press_is_heard(rig)


def test_the_same_when_the_overdue_deadline_reads_the_line_up():
    rig = launching()
    rig.send(ButtonLevel(False), 100)
    stall_noticed_by_a_deadline(rig, button=False)
    rig.send(Reset(), 100)
    press_is_heard(rig)


def test_a_release_that_came_in_the_stall_is_a_level_and_the_next_press_is_heard():
    rig = launching()
    rig.now += STALL_S
    rig._handle(ButtonLevel(False))  # the backlog's first event: the stall is seen on it
    assert rig.state == "halted"
    rig.send(Reset(), 100)
    press_is_heard(rig)


def test_a_release_the_backend_debounced_during_the_stall_then_a_press_after_the_reset():
    rig = launching(debounced=True)
    rig.send(ButtonLevel(False, debounced=True), 100)
    stall_noticed_by_a_deadline(rig)
    rig.send(Reset(), 100)
    mark = rig.mark()
    rig.send(ButtonLevel(True, debounced=True), 1000)
    assert rig.emits("press", mark) and rig.status["motor"]["direction"] == "forward"


def test_a_button_held_through_the_stall_and_the_reset_must_be_released_and_pressed_again():
    rig = launching()
    stall_noticed_by_a_deadline(rig, button=True)
    rig.send(Reset(), 100)
    mark = rig.mark()
    rig.wait(1000)
    assert not rig.emits("press", mark) and not rig.motors(mark)
    rig.send(ButtonLevel(False), 100)
    rig.wait(100)
    press_is_heard(rig)


def test_a_press_begun_while_halted_is_not_a_press_once_an_api_reset_lands_in_its_debounce():
    """No motion without a fresh press after a reset: a press whose debounce the reset cut short
    was made on a halted launcher, and it stays the level it was (held) until released."""
    rig = Rig(script=[3], timing={"sleep_after_s": 0})
    rig.send(EStop("test"))
    rig.send(ButtonLevel(True), 100)
    rig.send(Reset(), 5)  # inside the 20 ms debounce
    mark = rig.mark()
    rig.wait(500)
    assert not rig.emits("press", mark) and not rig.motors(mark), rig.actions(mark)
    rig.send(ButtonLevel(False), 100)
    rig.wait(100)
    press_is_heard(rig)


# ---- the property: whatever came during halts, stalls and resets, a later press is heard -----

steps = st.one_of(
    st.tuples(st.just("edge"), st.floats(0, 300)),  # the line changes, after ms
    st.tuples(st.just("tick"), st.floats(0, 300)),  # a deadline, late or not
    st.tuples(st.just("stall"), st.floats(300, 3000)),  # the loop did not run; then its deadline
    st.tuples(st.just("reset"), st.floats(0, 300)),
    st.tuples(st.just("estop"), st.floats(0, 300)),
    st.tuples(st.just("launch"), st.floats(0, 300)),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(steps, max_size=40), st.booleans(), st.booleans())
def test_edges_in_any_order_and_gaps_through_stalls_halts_and_resets_never_lose_a_later_press(
        history, debounced, ticks_read_the_line):
    """``debounced``: the backend debounces (lgpio), and a deadline never reads the line; else a
    deadline's ``Tick`` reads the line's level when ``ticks_read_the_line`` (the driver's)."""
    rig = Rig(script=[2] * 100, hopper=100_000, timing={"max_duty": 1.0, "sleep_after_s": 0})
    line = False  # the button's level on the wire
    for kind, after_ms in history:
        if kind == "edge":
            line = not line
            rig.send(ButtonLevel(line, debounced=debounced), after_ms)
        elif kind in ("tick", "stall"):  # the first thing the loop runs is the overdue deadline
            rig.now += after_ms / 1000
            rig._handle(Tick(line if ticks_read_the_line and not debounced else None))
        elif kind == "reset":
            rig.send(Reset(), after_ms)
        elif kind == "estop":
            rig.send(EStop("test"), after_ms)
        else:
            rig.send(Launch(), after_ms)
    # A person lets go (if the button is down), waits for the launch under way to end, resets
    # what is halted, fills the hopper and waits out the motor's rest; then presses.
    if line:
        rig.send(ButtonLevel(False, debounced=debounced), 100)
    rig.wait(60_000)  # past every launch (launch_timeout_ms 10 s)
    if rig.state == "halted":
        rig.send(Reset())
    rig.send(Reload(100_000))
    rig.wait(rig.config.timing.motor_rest_ms + 20_000)
    assert rig.state == "ready", rig.status
    mark = rig.mark()
    rig.send(ButtonLevel(True, debounced=debounced))
    rig.wait(100)
    assert [p["source"] for p in rig.emits("press", mark)] == ["button"], (rig.actions(mark), rig.status)
    assert any(m.direction == "forward" for m in rig.motors(mark)), rig.actions(mark)
