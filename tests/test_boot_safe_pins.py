"""What a Pi cannot do is refused by the configuration check, not met when the motor first runs:
outputs that move or sound on pins that are high at boot, PWM the backend refuses, and safe-off on
the daemon's own choice of backend and chip."""

from __future__ import annotations

import subprocess
import sys
import types

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from firmware.config import ConfigError, backend_errors, build_config, load_config, with_sim_devices
from firmware.board.safe_off import safe_off


def config_of(**sections):
    return build_config(sections, "launcher.toml")


def refusal(**sections) -> str:
    with pytest.raises(ConfigError) as caught:
        config_of(**sections)
    return str(caught.value)


@pytest.mark.parametrize("key", ["motor_forward", "motor_reverse", "motor_enable"])
@pytest.mark.parametrize("pin", [14, 15])
def test_a_motor_input_on_the_uart_pins_is_refused(key, pin):
    message = refusal(pins={key: pin})
    assert f"[pins] {key} = {pin}: GPIO 14 and 15 are the serial port's TX and RX" in message
    assert "use GPIO 9-13 or 16-27" in message


@pytest.mark.parametrize("pin", [14, 15])
def test_the_blasters_actuator_on_the_uart_pins_is_refused(pin):
    message = refusal(device={"kind": "blaster"}, blaster={"actuator": pin})
    assert f"[blaster] actuator = {pin}: GPIO 14 and 15 are the serial port's TX and RX" in message
    assert "fire the blaster" in message


@pytest.mark.parametrize(("key", "what"), [("chime", "the buzzer would sound"),
                                           ("servo", "the servo would jump to an end stop")])
@pytest.mark.parametrize("pin", [0, 4, 8])
def test_the_chime_and_the_servo_stay_off_the_pins_pulled_up_at_boot(key, what, pin):
    message = refusal(pins={key: pin})
    assert f"[pins] {key} = {pin}: must not be GPIO 0-8" in message and what in message


def test_inputs_and_the_led_may_use_the_uart_and_boot_high_pins():
    # A pulled-up input or a dim LED at boot moves nothing: only what moves or sounds is refused.
    config = config_of(pins={"button": 14, "beam": 15, "led": 5, "lid": 6})
    assert (config.pins.button, config.pins.beam, config.pins.led) == (14, 15, 5)


def test_simulation_never_fits_its_servo_on_a_boot_high_pin():
    # 22 and 25, the first spares, are taken: the lid may go to 5, the servo skips 5 and 6 (and 26,
    # the heartbeat's).
    config = with_sim_devices(config_of(pins={"led": 22, "chime": 25}))
    assert config.pins.lid == 5
    assert config.pins.servo == 19


@pytest.mark.parametrize(("backend", "refused"), [("", True), ("lgpio", True), ("pigpio", False),
                                                  ("mock", False)])
def test_pwm_above_10_khz_is_refused_where_lgpio_drives_the_motor(backend, refused):
    errors = backend_errors(config_of(motor={"pwm_frequency": 15000}), backend)
    assert bool(errors) is refused
    if refused:
        assert "[motor] pwm_frequency = 15000" in errors[0] and "at most 10000" in errors[0]
    assert backend_errors(config_of(motor={"pwm_frequency": 10000}), backend) == []


def check_config(path, **env) -> subprocess.CompletedProcess:
    environment = {key: value for key, value in __import__("os").environ.items()
                   if key != "GPIOZERO_PIN_FACTORY"}
    environment.update(env)
    return subprocess.run([sys.executable, "-m", "firmware.daemon.launcherd", "--check-config", str(path)],
                          capture_output=True, text=True, timeout=60, env=environment)


def test_check_config_refuses_what_lgpio_would_refuse_at_the_first_launch(tmp_path):
    path = tmp_path / "launcher.toml"
    path.write_text("[motor]\npwm_frequency = 20000\n")
    result = check_config(path)
    assert result.returncode == 1
    assert "pwm_frequency = 20000" in result.stderr and "refuses more than 10000 Hz" in result.stderr
    # Another backend that GPIOZERO_PIN_FACTORY names is not held to lgpio's limit.
    assert check_config(path, GPIOZERO_PIN_FACTORY="pigpio").returncode == 0


def test_safe_off_opens_the_chip_the_daemon_uses(monkeypatch):
    """lgpio on ``[pins] chip``, through the same choice as the daemon (a Pi 5 with an older
    kernel has its header on chip 4: gpiozero's default would drive chip 0's lines)."""
    opened: list[int] = []

    class RecordingLGPIOFactory(MockFactory):
        def __init__(self, chip=0):
            super().__init__(pin_class=MockPWMPin)
            opened.append(chip)

    monkeypatch.setitem(sys.modules, "gpiozero.pins.lgpio",
                        types.SimpleNamespace(LGPIOFactory=RecordingLGPIOFactory))
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "lgpio")
    config = load_config().replace("pins", chip=4)
    assert safe_off(config) == [12, 13, 16, 26]
    assert opened == [4]
