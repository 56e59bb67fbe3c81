"""[pins] motor_heartbeat: toggled by the motor's loop while the motor runs, still and low otherwise.

The rhythm is the Heartbeat's own, on a fake loop whose clock the test moves. Through the daemon
(--sim's mock pins, in a thread of the test) the tests judge the order of the pins' changes as the
driver's enable gate would see them, never how often a busy machine ran the loop: a listener on
each output pin logs every change in the order it was made.
"""

from __future__ import annotations

import threading

import pytest

from firmware.errors import ApiError
from firmware.config import ConfigError, build_config, load_config, moving_pins
from firmware.board.heartbeat import HALF_PERIOD_S, Heartbeat
from firmware.board.safe_off import safe_off

from harness.fakes import FakeLoop
from harness.launcherd import ThreadDaemon

HEARTBEAT, FORWARD, REVERSE = 26, 12, 13
MOTOR = (FORWARD, REVERSE)
# One burst of 12 cards at 28 cards a second, the motor on about 400 ms of the loop's time, then
# the reverse pulse: each far longer than a half period, so a toggle is due before the run's first
# card and before the pulse's end.
LONG_RUN = f"""
[pins]
motor_heartbeat = {HEARTBEAT}
[motor]
retract_ms = 60
[ejection]
profile = "fixed"
sequence = [12]
[sim]
cards_per_second = 40.0
"""


# ---- the rhythm, on a clock the test moves ---------------------------------------------------

class Beats:
    """A Heartbeat on a fake loop, and its writes as (time, level)."""

    def __init__(self):
        self.loop = FakeLoop()
        self.writes: list[tuple[float, bool]] = []
        self.heartbeat = Heartbeat(self.loop, lambda level: self.writes.append((self.loop.now, level)))


def test_the_heartbeat_rises_at_once_then_toggles_every_half_period():
    beats = Beats()
    beats.heartbeat.run()
    beats.loop.advance(5.5 * HALF_PERIOD_S)
    assert beats.writes == [(pytest.approx(k * HALF_PERIOD_S), k % 2 == 0) for k in range(6)]
    assert beats.heartbeat.running


def test_running_again_keeps_the_rhythm():
    """A change of duty or direction calls run() again: no extra edge, the same rhythm."""
    beats = Beats()
    beats.heartbeat.run()
    beats.loop.advance(0.5 * HALF_PERIOD_S)
    beats.heartbeat.run()
    beats.loop.advance(HALF_PERIOD_S)
    assert beats.writes == [(0.0, True), (pytest.approx(HALF_PERIOD_S), False)]


@pytest.mark.parametrize("toggles", [1, 2])
def test_still_leaves_the_pin_low_and_stops_toggling(toggles):
    beats = Beats()
    beats.heartbeat.run()
    beats.loop.advance((toggles + 0.5) * HALF_PERIOD_S)
    beats.heartbeat.still()
    beats.loop.advance(100 * HALF_PERIOD_S)
    levels = [level for _, level in beats.writes]
    assert levels[-1] is False and len(levels) == toggles + 1 + (toggles % 2 == 0)
    assert not beats.heartbeat.running and beats.loop.pending() == []
    beats.heartbeat.still()  # still again: no write
    assert len(beats.writes) == len(levels)


def test_a_late_loop_never_makes_the_heartbeat_faster():
    """Toggles are timed from when the last one ran: a loop held up gives one late toggle, not a
    burst of them, so the gate's monostable never sees rising edges closer than its rhythm."""
    beats = Beats()
    beats.heartbeat.run()
    beats.loop.advance(0.5 * HALF_PERIOD_S)
    beats.loop.pause_until(10 * HALF_PERIOD_S)
    beats.loop.advance(4.5 * HALF_PERIOD_S)
    times = [at for at, _ in beats.writes]
    assert times == pytest.approx([0.0] + [k * HALF_PERIOD_S for k in range(10, 15)])
    rises = [at for at, level in beats.writes if level]
    assert all(b - a >= 2 * HALF_PERIOD_S - 1e-9 for a, b in zip(rises, rises[1:]))


# ---- through the daemon: the order of the pins' changes --------------------------------------

class OutputLog:
    """Every change of the motor and heartbeat pins, in the order the loop made them, as
    (GPIO, state); the test's own marks go in between (``mark``). Listeners run in the thread
    that writes the pin: a heartbeat written by a thread of its own would show in a stall."""

    def __init__(self, running: ThreadDaemon):
        self.entries: list[tuple[object, float]] = []
        factory = running.daemon.pin_factory

        def watch():
            for bcm in (HEARTBEAT, *MOTOR):
                factory.pin(bcm).add_listener(lambda pin, bcm=bcm: self.entries.append((bcm, pin.state)))
        running.in_loop(watch)

    def mark(self, what: str) -> None:
        self.entries.append((what, 0.0))


def press_in_background(running: ThreadDaemon) -> threading.Thread:
    """A launcher/press whose answer nobody waits for (the daemon may stop before it comes)."""
    def press():
        try:
            running.call("launcher/press")
        except (ApiError, OSError):
            pass
    thread = threading.Thread(target=press)
    thread.start()
    return thread


def runs_of(entries: list[tuple[object, float]]) -> list[list[tuple[object, float]]]:
    """The log cut at each start of the motor: the part before the first run, then each run
    with the stillness after it."""
    parts: list[list] = [[]]
    levels = {bcm: 0.0 for bcm in MOTOR}
    for entry in entries:
        bcm, state = entry
        if bcm in MOTOR:
            was_on = any(levels.values())
            levels[bcm] = state
            if not was_on and any(levels.values()):
                parts.append([])
        parts[-1].append(entry)
    return parts


def motor_on_until(run: list[tuple[object, float]]) -> int:
    """The index in ``run`` of the change that stopped the motor (every motor pin at 0)."""
    levels = {bcm: 0.0 for bcm in MOTOR}
    for index, (bcm, state) in enumerate(run):
        if bcm in MOTOR:
            levels[bcm] = state
            if index and not any(levels.values()):
                return index
    raise AssertionError(f"the motor never stopped: {run}")


def test_the_heartbeat_toggles_while_the_motor_runs_and_is_still_while_off(tmp_path):
    with ThreadDaemon(tmp_path, LONG_RUN) as running:
        log = OutputLog(running)
        assert running.call("launcher/press")["outcome"] == "burst"
        running.wait_for(lambda status: status["state"] == "ready" and not status["motor"]["on"])
        seen = list(log.entries)
        # Still once the motor is off: nothing more after the launch, however long one waits.
        running.call("status/get")
        assert log.entries == seen
    before, *runs = runs_of(seen)
    assert before == [] and len(runs) == 2, f"a burst, then the reverse pulse: {seen}"
    beats = [state for bcm, state in seen if bcm == HEARTBEAT]
    assert all(a != b for a, b in zip(beats, beats[1:])), f"every change is a toggle: {seen}"
    for run in runs:
        stop = motor_on_until(run)
        on, after = run[1:stop], run[stop + 1:]
        # A rising edge as the motor starts: the first change after the motor's own.
        assert on[:1] == [(HEARTBEAT, 1)], f"no rising edge as the motor started: {run}"
        # It toggles while the motor runs: a half period is due before the run's first card
        # (the burst) and before the reverse pulse's end, on the loop's own timeline.
        assert len([bcm for bcm, _ in on if bcm == HEARTBEAT]) >= 2, f"no toggle while the motor ran: {run}"
        # Off: at most the fall to low, at once, then nothing until the next start.
        assert [entry for entry in after if entry[0] == HEARTBEAT] in ([], [(HEARTBEAT, 0)]), run
        assert after[:1] == [(HEARTBEAT, 0)] or (HEARTBEAT, 0) not in after, run
    assert beats[-1] == 0


def test_no_heartbeat_before_any_press_and_none_without_the_key(tmp_path):
    with ThreadDaemon(tmp_path, LONG_RUN) as running:
        assert running.pin_state(HEARTBEAT) == 0
        assert running.daemon.pin_factory.pin(HEARTBEAT).function == "output"
        assert not running.daemon.device.heartbeat.running
    (tmp_path / "plain").mkdir()
    with ThreadDaemon(tmp_path / "plain", LONG_RUN.replace(f"motor_heartbeat = {HEARTBEAT}", "motor_heartbeat = false")) as running:
        assert running.daemon.device.heartbeat is None
        assert running.call("launcher/press")["outcome"] == "burst"
        assert running.daemon.pin_factory.pin(HEARTBEAT).function == "input", "an unfitted gate is not claimed"


def test_a_stalled_loop_stops_the_heartbeat(tmp_path):
    """The loop held up just after the motor started, the pin high: no edge until it runs again.
    The halt for a stall is set beyond the stall, which the launch outlives."""
    stall_s = 0.15
    with ThreadDaemon(tmp_path, LONG_RUN + "[timing]\nstall_ms = 5000\n") as running:
        log = OutputLog(running)
        daemon = running.daemon
        stalled = []

        def stall():
            stalled.append(daemon.device.heartbeat.running)
            log.mark("stall")
            threading.Event().wait(stall_s)  # the loop's own thread is held: the stall itself
            log.mark("stall over")

        def stall_once_started(pin):
            if pin.state and not stalled:
                stalled.append(True)
                daemon.loop.call_soon(stall)  # after the motor's start has been applied

        running.in_loop(daemon.pin_factory.pin(FORWARD).add_listener, stall_once_started)
        assert running.call("launcher/press")["outcome"] == "burst"
        running.wait_for(lambda status: status["state"] == "ready" and not status["motor"]["on"])
        entries = list(log.entries)
    assert stalled == [True, True], "the stall came while the heartbeat ran"
    start, end = entries.index(("stall", 0.0)), entries.index(("stall over", 0.0))
    assert [entry for entry in entries[:start] if entry[0] == HEARTBEAT] == [(HEARTBEAT, 1)]
    assert entries[start + 1:end] == [], f"the heartbeat changed while the loop was stalled: {entries}"
    # Once the loop runs again, so does the heartbeat, with the motor still on.
    assert entries[end + 1][0] == HEARTBEAT, entries


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
    """Stopped mid-beat, the pin high: the daemon's way down leaves it low with the motor off."""
    with ThreadDaemon(tmp_path, LONG_RUN) as running:
        daemon = running.daemon
        factory = daemon.pin_factory
        stopped_high = []

        def stop_at_a_rise(pin):
            if pin.state and not stopped_high:
                stopped_high.append(factory.pin(FORWARD).state)
                daemon.loop.call_soon(daemon.request_stop)  # before the next toggle can come

        running.in_loop(factory.pin(HEARTBEAT).add_listener, stop_at_a_rise)
        press = press_in_background(running)
        press.join(30)
    assert stopped_high and stopped_high[0] > 0, "the daemon stopped while the motor ran"
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


def test_the_heartbeat_is_fitted_by_default_and_false_builds_without_the_gate():
    assert load_config().pins.motor_heartbeat == 26
    assert build_config({"pins": {"motor_heartbeat": False}}).pins.motor_heartbeat is None
    assert build_config({"pins": {"motor_heartbeat": 26}}).pins.motor_heartbeat == 26


@pytest.mark.parametrize("pins", [{"lid": 26}, {"motor_enable": 26}])
def test_a_config_that_uses_the_heartbeats_default_gpio_is_told_what_the_clash_is(pins):
    """A config written before the gate was part of the build may use GPIO 26 without naming
    motor_heartbeat: the refusal says where the clash comes from and the way out."""
    with pytest.raises(ConfigError) as error:
        build_config({"pins": pins}, "launcher.toml")
    assert "GPIO 26 is already used by [pins] motor" in str(error.value)
    assert ("motor_heartbeat, the driver's enable gate, is GPIO 26 unless [pins] says otherwise: give it"
            " another GPIO, or false for a build without the gate") in str(error.value)
    key, _ = next(iter(pins.items()))
    assert getattr(build_config({"pins": {**pins, "motor_heartbeat": False}}).pins, key) == 26
    assert "motor_heartbeat, the driver's enable gate" not in refusal_of({"lid": 24})


def refusal_of(pins: dict) -> str:
    with pytest.raises(ConfigError) as error:
        build_config({"pins": pins}, "launcher.toml")
    return str(error.value)
