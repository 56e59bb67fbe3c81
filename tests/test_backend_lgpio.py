"""The lgpio backend through gpiozero's real lgpio code, on a fake ``lgpio`` module that records
what it is asked: the aim servo's pulses in microsecond steps, not whole percents."""

from __future__ import annotations

import importlib
import sys
import types

import pytest

from firmware.config import build_config
from firmware.launcher.hardware import Hardware

FRAME_US = 20_000  # the servo's 50 Hz


def fake_lgpio(calls: list) -> types.ModuleType:
    module = types.ModuleType("lgpio")

    class error(Exception):
        pass

    module.error = error
    for name, value in {"SET_PULL_NONE": 0, "SET_PULL_UP": 1, "SET_PULL_DOWN": 2, "SET_BIAS_DISABLE": 0,
                        "SET_BIAS_PULL_UP": 1, "SET_BIAS_PULL_DOWN": 2, "BOTH_EDGES": 3,
                        "RISING_EDGE": 1, "FALLING_EDGE": 2}.items():
        setattr(module, name, value)
    modes: dict[int, int] = {}

    def record(name, result=0):
        def call(*args, **kwargs):
            calls.append((name, *args))
            return result
        return call

    for name in ("gpiochip_close", "gpio_free", "gpio_write", "gpio_set_debounce_micros",
                 "gpio_claim_alert"):
        setattr(module, name, record(name))
    module.gpiochip_open = record("gpiochip_open", 7)
    module.gpio_read = record("gpio_read", 1)

    def claim(kind, mode):
        def call(handle, gpio, *args):
            calls.append((kind, handle, gpio, *args))
            modes[gpio] = mode
            return 0
        return call

    module.gpio_claim_input = claim("gpio_claim_input", 1)
    module.gpio_claim_output = claim("gpio_claim_output", 2)
    module.gpio_get_mode = lambda handle, gpio: modes.get(gpio, 1)

    def tx_pwm(handle, gpio, frequency, duty, *rest):
        if not 0 <= duty <= 100:
            raise error("bad PWM duty")
        calls.append(("tx_pwm", handle, gpio, frequency, duty))
        return 0

    module.tx_pwm = tx_pwm
    module.callback = lambda *args, **kwargs: types.SimpleNamespace(cancel=lambda: None)
    return module


@pytest.fixture
def lgpio_factory(monkeypatch):
    calls: list = []
    monkeypatch.setitem(sys.modules, "lgpio", fake_lgpio(calls))
    monkeypatch.delitem(sys.modules, "gpiozero.pins.lgpio", raising=False)
    import gpiozero.pins.local

    # A Pi 4's revision: the development machine has none for gpiozero to read.
    monkeypatch.setattr(gpiozero.pins.local, "get_pi_revision", lambda: 0xC03114)
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "lgpio")
    backend = importlib.import_module("firmware.board.backend")
    factory = backend.hardware_pin_factory(0)
    yield factory, calls
    factory.close()
    sys.modules.pop("gpiozero.pins.lgpio", None)


def pulses_us(calls: list, gpio: int) -> list[float]:
    return [duty / 100 * FRAME_US for name, _, pin, frequency, duty in
            (c for c in calls if c[0] == "tx_pwm") if pin == gpio and frequency == 50 and duty > 0]


def test_the_aim_servo_moves_in_steps_of_at_most_two_degrees_on_lgpio(lgpio_factory):
    factory, calls = lgpio_factory
    config = build_config({"pins": {"servo": 22}})
    hardware = Hardware(config, factory)
    try:
        angles = [-90 + 0.5 * step for step in range(361)]
        pulses = []
        for angle in angles:
            mark = len(calls)
            hardware.aim(angle)
            pulses.append(pulses_us(calls[mark:], 22)[-1])  # the pulse the servo is left with
    finally:
        hardware.close()
    # [aim] min_pulse_ms 1.0 and max_pulse_ms 2.0: 1000 µs for 180 degrees.
    degrees_per_us = 180 / 1000
    seen = sorted(set(round(p, 3) for p in pulses))
    widest_step = max(b - a for a, b in zip(seen, seen[1:])) * degrees_per_us
    assert widest_step <= 2.0, f"the servo moves in steps of {widest_step:.1f} degrees"
    middle = pulses[angles.index(0.0)]
    assert abs(middle - 1500) <= 5, f"the middle seat gets a {middle:.0f} µs pulse"


def test_the_motor_duty_reaches_lgpio_unrounded(lgpio_factory):
    factory, calls = lgpio_factory
    config = build_config({"motor": {"duty": 0.555}})
    hardware = Hardware(config, factory)
    try:
        hardware.motor("forward", 0.555)
        hardware.motor("stop", 0.0)
    finally:
        hardware.close()
    duties = [c[4] for c in calls if c[0] == "tx_pwm" and c[2] == config.pins.motor_forward]
    assert any(abs(duty - 55.5) < 1e-9 for duty in duties), duties
