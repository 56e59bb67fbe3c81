"""firmware.board.safe_off on MockFactory: the configured motor pins end low, driven, whatever came before."""

from __future__ import annotations

import logging
import subprocess
import sys

import pytest
from gpiozero import Device, Motor
from gpiozero.pins.mock import MockFactory, MockPWMPin

from firmware.config import load_config
from firmware.errors import HardwareError
from firmware.config import moving_pins
from firmware.board.safe_off import run_safe_off, safe_off


@pytest.fixture
def factory():
    factory = MockFactory(pin_class=MockPWMPin)
    yield factory
    factory.reset()


def assert_driven_low(factory, pins):
    for number in pins:
        pin = factory.pin(number)
        assert pin.function == "output", f"GPIO {number} is {pin.function}"
        assert not pin.state, f"GPIO {number} is high"
        assert pin.frequency is None, f"GPIO {number} still runs PWM"


# The default build's motor pins: forward, reverse, enable and the enable gate's heartbeat.
DEFAULT_PINS = [12, 13, 16, 26]


def test_moving_pins_are_forward_reverse_and_enable_and_heartbeat_when_fitted():
    config = load_config()
    assert moving_pins(config) == DEFAULT_PINS
    assert moving_pins(config.replace("pins", motor_enable=False)) == [12, 13, 26]
    assert moving_pins(config.replace("pins", motor_enable=False, motor_heartbeat=False)) == [12, 13]


def test_a_running_motor_is_driven_low_without_a_blip(factory):
    # The daemon's own devices, mid-launch: forward at PWM duty, driver enabled.
    motor = Motor(forward=12, backward=13, enable=16, pwm=True, pin_factory=factory)
    motor.forward(0.7)
    for number in (12, 13, 16):
        factory.pin(number).clear_states()

    assert safe_off(load_config(), factory) == DEFAULT_PINS

    assert_driven_low(factory, DEFAULT_PINS)
    for number in (12, 13, 16):
        states = [state for _, state in factory.pin(number).states]
        assert not any(states[1:]), f"GPIO {number} went high during safe-off: {states}"


def test_levels_left_by_a_dead_process_are_replaced(factory):
    # What a SIGKILLed daemon leaves: outputs stuck high (the heartbeat mid-beat), software PWM
    # frozen at full duty.
    for number in DEFAULT_PINS:
        factory.pin(number).output_with_state(True)
    factory.pin(12).frequency = 1000
    factory.pin(12).state = 1.0

    assert safe_off(load_config(), factory) == DEFAULT_PINS
    assert_driven_low(factory, DEFAULT_PINS)


def test_only_the_configured_pins_are_touched(factory):
    config = load_config().replace(
        "pins", motor_forward=20, motor_reverse=21, motor_enable=False, beam=16
    )
    factory.pin(16).input_with_pull("up")

    assert safe_off(config, factory) == [20, 21, 26]  # 26: the heartbeat's default

    assert_driven_low(factory, [20, 21, 26])
    assert factory.pin(16).function == "input", "the beam pin was driven"


def test_the_pins_are_left_driven_not_closed(factory):
    # Closing returns an lgpio line to a floating input: safe-off must leave it an output.
    safe_off(load_config(), factory)
    assert_driven_low(factory, DEFAULT_PINS)
    assert [pin.function for pin in factory.pins.values()] == ["output"] * len(DEFAULT_PINS)


def test_the_default_factory_is_private_so_the_exit_handler_cannot_float_the_pins(monkeypatch):
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")
    monkeypatch.setenv("GPIOZERO_MOCK_PIN_CLASS", "mockpwmpin")
    before = Device.pin_factory
    assert safe_off(load_config()) == DEFAULT_PINS
    assert Device.pin_factory is before


def test_every_pin_is_tried_before_a_failure_is_reported(factory, monkeypatch):
    real_pin = factory.pin

    def busy(name):
        if name == 13:
            raise OSError("GPIO busy")
        return real_pin(name)

    monkeypatch.setattr(factory, "pin", busy)
    with pytest.raises(HardwareError, match="GPIO 13: GPIO busy"):
        safe_off(load_config(), factory)
    monkeypatch.undo()
    assert_driven_low(factory, [12, 16, 26])


def test_run_safe_off_reads_the_config_file(factory, tmp_path):
    path = tmp_path / "launcher.toml"
    path.write_text("[pins]\nmotor_forward = 20\nmotor_reverse = 21\nmotor_enable = 26\nmotor_heartbeat = 19\n")
    assert run_safe_off(path, factory) == 0
    assert_driven_low(factory, [20, 21, 26, 19])


def test_a_blaster_s_release_actuator_is_driven_low_and_nothing_else(factory, tmp_path):
    path = tmp_path / "launcher.toml"
    path.write_text('[device]\nkind = "blaster"\n[blaster]\nactuator = 22\n')
    factory.pin(22).output_with_state(True)  # a solenoid left energised by a killed daemon
    assert run_safe_off(path, factory) == 0
    assert_driven_low(factory, [22])
    assert 12 not in factory.pins, "the launcher's motor pins are not the blaster's to drive"


def test_run_safe_off_does_not_guess_pins_from_a_broken_config(factory, tmp_path, caplog):
    path = tmp_path / "launcher.toml"
    path.write_text("[pins]\nmotor_forward = 3\n")
    with caplog.at_level(logging.ERROR, logger="firmware.board.safe_off"):
        assert run_safe_off(path, factory) == 1
    assert "motor_forward = 3" in caplog.text
    assert not factory.pins, "a pin was touched although the config did not load"


def test_run_safe_off_without_a_gpio_backend_fails_cleanly(monkeypatch, caplog):
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "no-such-backend")
    with caplog.at_level(logging.ERROR, logger="firmware.board.safe_off"):
        assert run_safe_off(None) == 1
    assert "no GPIO backend" in caplog.text


def test_importing_builds_no_device_and_no_factory():
    code = "import firmware.board.safe_off, gpiozero; assert gpiozero.Device.pin_factory is None"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_importing_loads_no_gpiozero():
    """ExecStopPost runs it after every exit: only the backend it drives is loaded, when it drives."""
    code = "import sys, firmware.board.safe_off; assert 'gpiozero' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


# ---- safe-off drives the pins whatever else the config refuses (issue #20) ------------------------


def _mock_backend(monkeypatch, factory):
    """The daemon's backend choice, as on a Pi with lgpio, made on the mock pins."""
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "lgpio")
    monkeypatch.setattr("firmware.board.safe_off.hardware_pin_factory", lambda chip: factory)


def test_launcherd_safe_off_drives_the_pins_low_with_a_pwm_frequency_lgpio_refuses(
        factory, tmp_path, monkeypatch, capsys):
    from firmware.daemon import launcherd

    path = tmp_path / "launcher.toml"
    path.write_text("[motor]\npwm_frequency = 15000\n")
    _mock_backend(monkeypatch, factory)
    monkeypatch.setattr(launcherd, "setup_logging", lambda verbose: None)  # the suite's logging stays
    for number in DEFAULT_PINS:
        factory.pin(number).output_with_state(True)  # what a killed daemon left
    assert launcherd.main(["--check-config", str(path)]) == 1, "the daemon itself refuses it"
    capsys.readouterr()
    assert launcherd.main(["--safe-off", "--config", str(path)]) == 0
    assert_driven_low(factory, DEFAULT_PINS)
    assert "motor pins driven low: GPIO 12, GPIO 13, GPIO 16, GPIO 26\n" in capsys.readouterr().out


@pytest.mark.parametrize("refused", [
    "[timing]\njam_ms = 99999\n",
    "[motor]\nno_such_key = 1\n",
    "[no_such_section]\nx = 1\n",
    "[blaster]\npulse_ms = 1\n",
])
def test_safe_off_drives_the_configured_pins_whatever_else_is_refused(factory, tmp_path, caplog, refused):
    path = tmp_path / "launcher.toml"
    path.write_text("[pins]\nmotor_forward = 20\nmotor_reverse = 21\nmotor_enable = 26\nmotor_heartbeat = 19\n"
                    + refused)
    with caplog.at_level(logging.WARNING, logger="firmware.board.safe_off"):
        assert run_safe_off(path, factory) == 0
    assert_driven_low(factory, [20, 21, 26, 19])
    assert "the config is refused, its pins are not" in caplog.text
    assert 12 not in factory.pins, "the configured pins, not the defaults"


def test_a_blaster_whose_timing_is_refused_still_has_its_actuator_driven_low(factory, tmp_path):
    path = tmp_path / "launcher.toml"
    path.write_text('[device]\nkind = "blaster"\n[blaster]\nactuator = 25\nrest_ms = -5\n')
    factory.pin(25).output_with_state(True)
    assert run_safe_off(path, factory) == 0
    assert_driven_low(factory, [25])


@pytest.mark.parametrize("text", [
    "[pins]\nmotor_forward = 3\n[timing]\njam_ms = 99999\n",  # the pins themselves refused
    "[pins]\nmotor_forward = 20\nmotor_reverse = 20\n",  # one pin claimed twice
    "[pins\nmotor_forward = 20\n",  # not TOML: nothing can be read
])
def test_safe_off_still_guesses_no_pin_when_the_pins_cannot_be_read(factory, tmp_path, text):
    path = tmp_path / "launcher.toml"
    path.write_text(text)
    assert run_safe_off(path, factory) == 1
    assert not factory.pins
