"""Where a press's time goes (firmware/daemon/trace.py): the stretches from the button's edge to the
motor's line, as `make systemtest` reports them beside bare gpiozero on the kernel's lines."""

from __future__ import annotations

from harness.launcherd import ThreadDaemon

from firmware.daemon.trace import PressTrace

FIXED = '[ejection]\nprofile = "fixed"\nsequence = {seq}\n'


def test_each_stretch_of_a_press_on_one_clock_the_debounce_taken_out():
    trace = PressTrace(debounce_s=0.020)
    trace.pressed(edge=10.000, python=10.002, loop=10.005)
    trace.motor_started(10.030)  # 5 ms past the debounce, counted from the loop's taking it in
    trace.motor_started(10.500)  # a motor run with no press before it (a dispense): not a press's
    figures = trace.figures()
    assert figures["presses"] == 1 and figures["debounce_ms"] == 20
    assert figures["edge_to_python"]["p50_ms"] == 2.0
    assert figures["python_to_loop"]["p50_ms"] == 3.0
    assert round(figures["loop_to_motor_past_debounce"]["max_ms"], 6) == 5.0
    assert round(figures["edge_to_motor_past_debounce"]["p99_ms"], 6) == 10.0


def test_a_bounce_restarts_the_trace_and_a_press_that_starts_nothing_is_not_traced():
    trace = PressTrace(debounce_s=0.020)
    trace.pressed(edge=1.000, python=1.001, loop=1.001)
    trace.pressed(edge=1.004, python=1.005, loop=1.006)  # a bounce: the debounce runs from here
    trace.motor_started(1.026)
    assert trace.figures()["edge_to_motor_past_debounce"]["max_ms"] == 2.0
    assert PressTrace(0.02).figures() == {"presses": 0, "debounce_ms": 20.0, "edge_to_python": None,
                                          "python_to_loop": None, "loop_to_motor_past_debounce": None,
                                          "edge_to_motor_past_debounce": None}


def test_launcher_latency_traces_the_presses_that_started_the_motor(tmp_path):
    with ThreadDaemon(tmp_path, FIXED.format(seq="[2, 0, 1]")) as running:
        for _ in range(3):
            running.call("launcher/press")
        running.call("launcher/feed", {"count": 1})  # a motor run without a press
        figures = running.call("launcher/latency")
    assert figures["presses"] == 2  # the dry press (0 cards) did not start the motor
    stretch = figures["edge_to_motor_past_debounce"]
    assert 0 <= stretch["p50_ms"] <= stretch["max_ms"]
