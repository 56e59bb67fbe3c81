"""[pins] motor_heartbeat: toggled by the motor's loop while the motor runs, still and low otherwise.

The daemon runs on --sim's mock pins in a thread of the test, so the pins' recorded changes (and
their times) show what the driver's enable gate would see.
"""

from __future__ import annotations

import itertools
import threading
import time

import pytest

from firmware.errors import ApiError
from firmware.config import ConfigError, build_config, load_config, moving_pins
from firmware.board.heartbeat import HALF_PERIOD_S
from firmware.board.safe_off import safe_off

from harness.launcherd import ThreadDaemon

HEARTBEAT, FORWARD, REVERSE = 26, 12, 13
# One burst of 12 cards at 40 cards a second: the motor runs about 300 ms.
LONG_RUN = f"""
[pins]
motor_heartbeat = {HEARTBEAT}
[ejection]
profile = "fixed"
sequence = [12]
[sim]
cards_per_second = 40.0
"""


def changes(running: ThreadDaemon, bcm: int, since: float) -> list[tuple[float, float]]:
    """(time.monotonic(), state) of every change of a mock pin since its states were cleared at
    ``since``, read in the loop (a mock pin records each change as the time since the last)."""
    states = running.in_loop(lambda: list(running.daemon.pin_factory.pin(bcm).states))
    times = itertools.accumulate(delta for delta, _ in states)
    return [(since + at, state) for at, (_, state) in zip(times, states)][1:]


def clear(running: ThreadDaemon, *pins: int) -> float:
    """Clears the pins' recorded states in the loop; the moment it did, on time.monotonic()."""
    def do():
        for bcm in pins:
            running.daemon.pin_factory.pin(bcm).clear_states()
        return time.monotonic()
    return running.in_loop(do)


def motor_runs(running: ThreadDaemon, since: float) -> list[tuple[float, float]]:
    """(on, off) of every run of the motor since ``since``: forward, and the reverse pulse."""
    runs = []
    for bcm in (FORWARD, REVERSE):
        on = None
        for at, state in changes(running, bcm, since):
            if state > 0 and on is None:
                on = at
            elif state == 0 and on is not None:
                runs.append((on, at))
                on = None
    return sorted(runs)


def press_in_background(running: ThreadDaemon) -> threading.Thread:
    """A launcher/press whose answer nobody waits for (the daemon may stop before it comes)."""
    def press():
        try:
            running.call("launcher/press")
        except ApiError:
            pass
    thread = threading.Thread(target=press)
    thread.start()
    return thread


def test_the_heartbeat_toggles_while_the_motor_runs_and_is_still_while_off(tmp_path):
    with ThreadDaemon(tmp_path, LONG_RUN) as running:
        since = clear(running, HEARTBEAT, FORWARD, REVERSE)
        assert running.call("launcher/press")["outcome"] == "burst"
        running.wait_for(lambda status: status["state"] == "ready" and not status["motor"]["on"])
        beats = changes(running, HEARTBEAT, since)
        runs = motor_runs(running, since)
        # Still once the motor is off: nothing more after the launch, however long one waits.
        running.call("status/get")
        assert changes(running, HEARTBEAT, since) == beats
    assert [len(runs), runs[0][1] - runs[0][0] > 0.2] == [2, True], "a long burst, then the reverse pulse"
    assert beats[0][1] == 1 and beats[-1][1] == 0, beats
    outside = [at for at, _ in beats if not any(on - 0.002 <= at <= off + 0.002 for on, off in runs)]
    assert outside == [], f"the heartbeat changed while the motor was off: {outside}, runs {runs}"
    levels = [state for _, state in beats]
    assert all(a != b for a, b in zip(levels, levels[1:])), "every change is a toggle"
    # A rising edge now and every 2 * HALF_PERIOD_S of a run, give or take the loop's lateness.
    for on, off in runs:
        rises = [at for at, state in beats if state == 1 and on - 0.002 <= at <= off]
        assert rises and rises[0] - on < 0.002, f"no rising edge as the motor started at {on}: {beats}"
        assert len(rises) >= (off - on) / (2 * HALF_PERIOD_S) / 2, (rises, on, off)
        # Never faster than its rhythm (the still at a motor's stop may come at any moment).
        assert all(b - a >= 2 * HALF_PERIOD_S * 0.9 for a, b in zip(rises, rises[1:])), rises


def test_no_heartbeat_before_any_press_and_none_without_the_key(tmp_path):
    with ThreadDaemon(tmp_path, LONG_RUN) as running:
        assert running.pin_state(HEARTBEAT) == 0
        assert running.daemon.pin_factory.pin(HEARTBEAT).function == "output"
        assert not running.daemon.device.heartbeat.running
    (tmp_path / "plain").mkdir()
    with ThreadDaemon(tmp_path / "plain", LONG_RUN.replace(f"motor_heartbeat = {HEARTBEAT}", "")) as running:
        assert running.daemon.device.heartbeat is None
        assert running.call("launcher/press")["outcome"] == "burst"
        assert running.daemon.pin_factory.pin(HEARTBEAT).function == "input", "an unfitted gate is not claimed"


def test_a_stalled_loop_stops_the_heartbeat(tmp_path):
    stall_s = 0.15  # shorter than [timing] stall_ms (250): the launch goes on after it

    def stall_if_running():
        if running.daemon.pin_factory.pin(FORWARD).state == 0:
            return None
        started = time.monotonic()
        threading.Event().wait(stall_s)  # the loop's own thread is held: the stall itself
        return started, time.monotonic()

    with ThreadDaemon(tmp_path, LONG_RUN) as running:
        since = clear(running, HEARTBEAT, FORWARD, REVERSE)
        press = press_in_background(running)
        deadline = time.monotonic() + 10
        while (stall := running.in_loop(stall_if_running)) is None:
            assert time.monotonic() < deadline, "the motor never ran"
        press.join(30)
        running.wait_for(lambda status: status["state"] == "ready" and not status["motor"]["on"])
        beats = changes(running, HEARTBEAT, since)
    started, ended = stall
    during = [at for at, _ in beats if started < at < ended]
    assert during == [], f"the heartbeat changed while the loop was stalled: {during}"
    before = [at for at, _ in beats if at <= started]
    assert before and started - before[-1] <= stall_s, "it toggled up to the stall"


def test_safe_off_drives_the_heartbeat_low_with_the_motor_pins():
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    factory = MockFactory(pin_class=MockPWMPin)
    try:
        config = load_config().replace("pins", motor_heartbeat=HEARTBEAT)
        factory.pin(HEARTBEAT).output_with_state(True)  # what a killed daemon mid-beat leaves
        assert moving_pins(config) == [12, 13, 16, HEARTBEAT]
        assert safe_off(config, factory) == [12, 13, 16, HEARTBEAT]
        pin = factory.pin(HEARTBEAT)
        assert pin.function == "output" and not pin.state
    finally:
        factory.reset()


def test_the_daemons_stop_leaves_the_heartbeat_low(tmp_path):
    with ThreadDaemon(tmp_path, LONG_RUN) as running:
        factory = running.daemon.pin_factory
        press = press_in_background(running)
        deadline = time.monotonic() + 10
        while running.pin_state(HEARTBEAT) == 0:  # stopped mid-beat, the pin high
            assert time.monotonic() < deadline, "the heartbeat never rose"
    press.join(30)
    assert factory.pin(HEARTBEAT).state == 0 and factory.pin(FORWARD).state == 0


@pytest.mark.parametrize("value, message", [
    (14, "GPIO 14 and 15 are the serial port's TX and RX"),
    (5, "motor pins must not be GPIO 0-8"),
    (12, "GPIO 12 is already used by [pins] motor_forward"),
    (28, "[pins] motor_heartbeat = 28: must be a BCM GPIO number from 0 to 27, or false if not fitted"),
    ("26", '[pins] motor_heartbeat = "26": must be a BCM GPIO number'),
])
def test_the_heartbeat_pin_is_checked_like_the_other_motor_pins(value, message):
    with pytest.raises(ConfigError) as error:
        build_config({"pins": {"motor_heartbeat": value}}, "launcher.toml")
    assert message in str(error.value)


def test_the_heartbeat_is_not_fitted_unless_given():
    assert load_config().pins.motor_heartbeat is None
    assert build_config({"pins": {"motor_heartbeat": False}}).pins.motor_heartbeat is None
    assert build_config({"pins": {"motor_heartbeat": 26}}).pins.motor_heartbeat == 26
