"""The LED's and the chime's pattern player (firmware/board/indicator.py), on mock pins."""

from __future__ import annotations

import threading

import pytest
from gpiozero import PWMLED, Buzzer
from gpiozero.pins.mock import MockFactory, MockPWMPin

from firmware.board.indicator import Indicator
from firmware.errors import HardwareError
from harness.waits import wait_until

# A bound on a hang for a pattern's thread, which a busy machine may run seconds late.
HANG_S = 60.0


@pytest.fixture
def factory():
    factory = MockFactory(pin_class=MockPWMPin)
    yield factory
    factory.reset()


@pytest.fixture
def led(factory):
    device = PWMLED(23, pin_factory=factory, initial_value=0)
    indicator = Indicator(device, "led")
    yield indicator
    indicator.close()
    device.close()


def levels(factory, bcm):
    return [bool(s.state) for s in factory.pin(bcm).states]


class Recorder:
    """A device that keeps every value written to it, with the writing thread."""

    def __init__(self):
        self.value = 0
        self.writes: list[tuple[str, float]] = []

    def __setattr__(self, name, value):
        if name == "value" and hasattr(self, "writes"):
            self.writes.append((threading.current_thread().name, value))
        super().__setattr__(name, value)


def test_a_steady_level_is_written_before_the_call_returns(led, factory):
    led.steady(0.4)
    assert factory.pin(23).state == 0.4
    led.steady(0)
    assert factory.pin(23).state == 0


def test_a_counted_pattern_plays_then_ends_off(factory):
    with_buzzer = Buzzer(24, pin_factory=factory, initial_value=False)
    chime = Indicator(with_buzzer, "chime")
    try:
        chime.play(1, 0.003, 0.003, 3)
        wait_until(lambda: levels(factory, 24) == [False, True, False, True, False, True, False], HANG_S,
                   "three beeps", 0.002)
        # The steps are timed from the pattern's start: three beeps of 3 + 3 ms take about 18 ms.
        gaps = [s.timestamp for s in factory.pin(24).states[1:]]
        assert sum(gaps[1:]) >= 0.015
    finally:
        chime.close()
        with_buzzer.close()


def test_a_pattern_until_the_next_change_stops_at_that_change(factory):
    device = PWMLED(23, pin_factory=factory, initial_value=0)
    led = Indicator(device, "led")
    try:
        led.play(1, 0.002, 0.002, None)
        wait_until(lambda: len(factory.pin(23).states) > 8, HANG_S, "the flashing", 0.002)
        led.steady(0.3)
        assert factory.pin(23).state == 0.3
        written = len(factory.pin(23).states)
        # Closing joins the pattern's thread: a step of the replaced pattern still to come would
        # have landed before it ended.
        led.close()
        assert factory.pin(23).state == 0.3
        assert len(factory.pin(23).states) == written
    finally:
        led.close()
        device.close()


def test_a_new_pattern_replaces_one_playing_from_its_own_start(led, factory):
    # Its on step outlasts the test: a step of its own after the first flash (its off, 0.5 s on,
    # which a busy machine reached before the next play) would not be the replacement's.
    led.play(1, 600, 0.5, None)
    wait_until(lambda: factory.pin(23).state == 1, HANG_S, "the first flash", 0.002)
    start = len(factory.pin(23).states)
    led.play(0.5, 0.002, 0.002, 2)
    wait_until(lambda: [s.state for s in factory.pin(23).states[start:]] == [0.5, 0, 0.5, 0], HANG_S,
               "the second pattern at once, ended off", 0.002)


def test_no_step_of_a_replaced_pattern_lands_after_the_change():
    device = Recorder()
    indicator = Indicator(device, "led")
    levels = (0.25, 0.5, 0.75) * 40
    ons = [0.001 * (n + 1) for n in range(len(levels))]  # each pattern's own on level
    try:
        for on, level in zip(ons, levels):
            before = len(device.writes)
            # Changed during the on step (5 ms, against 0.5 off): a step still to come is its off.
            indicator.play(on, 0.005, 0.0005, None)
            wait_until(lambda: len(device.writes) >= before + 1, HANG_S, "the pattern playing", 0)
            indicator.steady(level)
            assert device.value == level
    finally:
        indicator.close()  # joins the thread: whatever it had still to write is written by now
    values = [value for _, value in device.writes]
    # After each steady level the next write is the next pattern's first step (or nothing, after
    # the last): never an on or off step of the pattern it replaced.
    steadies = [index for index, value in enumerate(values) if value in levels]
    assert len(steadies) == len(levels)
    for number, index in enumerate(steadies):
        assert values[index + 1:index + 2] == ons[number + 1:number + 2], (number, values[index - 2:index + 3])


def test_a_change_starts_and_joins_no_thread(led):
    """The point of the player: the motor's loop that changes it never waits for a thread."""
    before = {thread.ident for thread in threading.enumerate()}
    for n in range(50):
        led.play(1, 0.01, 0.01, None if n % 2 else 2)
        led.steady(n % 2)
    assert {thread.ident for thread in threading.enumerate()} <= before


@pytest.mark.parametrize("args", [(1, 0, 0, None), (1, -0.1, 0.1, 2), (1, 0.1, -0.1, 2), (1, 0.1, 0.1, -1)])
def test_a_pattern_that_cannot_be_played_is_refused(led, args):
    with pytest.raises(ValueError):
        led.play(*args)


def test_close_is_idempotent_and_a_change_after_it_is_refused(factory):
    device = PWMLED(23, pin_factory=factory, initial_value=0)
    indicator = Indicator(device, "closing")
    indicator.play(1, 0.01, 0.01, None)
    assert any(thread.name == "indicator-closing" for thread in threading.enumerate())
    indicator.close()
    indicator.close()
    assert indicator.closed
    assert not any(thread.name == "indicator-closing" for thread in threading.enumerate())
    with pytest.raises(HardwareError):
        indicator.steady(1)
    with pytest.raises(RuntimeError):  # HardwareError is a RuntimeError too
        indicator.play(1, 0.01, 0.01, 1)
    device.close()
