"""Configuration: defaults, every kind of error with a precise message, and --check-config."""

import subprocess
import sys
import tomllib

import pytest

from firmware.config import SCHEMA, ConfigError, build_config, default_toml, load_config, with_sim_devices


def write(tmp_path, text):
    path = tmp_path / "launcher.toml"
    path.write_text(text)
    return path


def error_of(tmp_path, text):
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert message.startswith(str(path) + ":"), message
    return message


def test_defaults_fill_every_key():
    config = load_config()
    for section, fields in SCHEMA.items():
        assert set(getattr(config, section).as_dict()) == set(fields)
    assert config.pins.lid is None and config.pins.servo is None
    assert config.timing.sleep_after_s == 300


def test_a_file_overrides_only_what_it_names(tmp_path):
    config = load_config(write(tmp_path, "[motor]\nduty = 0.9\n[pins]\nlid = 22\n"))
    assert config.motor.duty == 0.9
    assert config.pins.lid == 22
    assert config.motor.kick_ms == SCHEMA["motor"]["kick_ms"].default


def test_documented_default_file_is_the_defaults():
    assert build_config(tomllib.loads(default_toml())).as_dict() == load_config().as_dict()


def test_unknown_section(tmp_path):
    message = error_of(tmp_path, "[motr]\nduty = 1\n")
    assert "[motr]" in message and "unknown section" in message and "motor" in message


def test_unknown_key_lists_the_allowed_ones(tmp_path):
    message = error_of(tmp_path, "[motor]\nspeed = 0.5\n")
    assert "[motor] speed = 0.5" in message and "unknown key" in message and "duty" in message


def test_wrong_type(tmp_path):
    message = error_of(tmp_path, '[motor]\nduty = "fast"\n')
    assert '[motor] duty = "fast"' in message and "a number from 0.05 to 1" in message


def test_bool_is_not_a_number(tmp_path):
    message = error_of(tmp_path, "[timing]\njam_ms = true\n")
    assert "[timing] jam_ms = true" in message and "whole number" in message


def test_out_of_range(tmp_path):
    message = error_of(tmp_path, "[pins]\nbutton = 40\n")
    assert "[pins] button = 40" in message and "from 0 to 27" in message


def test_bad_choice(tmp_path):
    message = error_of(tmp_path, '[ejection]\nprofile = "random"\n')
    assert "'classic'" in message and "'fixed'" in message


def test_pin_used_twice(tmp_path):
    message = error_of(tmp_path, "[pins]\nled = 17\n")
    assert "[pins] led = 17" in message and "already used by [pins] button" in message


def test_motor_pin_on_a_boot_high_gpio(tmp_path):
    message = error_of(tmp_path, "[pins]\nmotor_forward = 4\n")
    assert "[pins] motor_forward = 4" in message and "GPIO 0-8" in message


def test_jam_threshold_shorter_than_a_card_crossing(tmp_path):
    message = error_of(tmp_path, "[timing]\njam_ms = 30\ncard_crossing_ms = 40\n")
    assert "[timing] jam_ms = 30" in message and "card_crossing_ms (40)" in message


def test_launch_timeout_beyond_the_absolute_limit(tmp_path):
    message = error_of(tmp_path, "[timing]\nlaunch_timeout_ms = 30000\nmax_on_ms = 20000\n")
    assert "launch_timeout_ms = 30000" in message and "max_on_ms (20000)" in message


def test_fixed_profile_needs_a_sequence(tmp_path):
    message = error_of(tmp_path, '[ejection]\nprofile = "fixed"\n')
    assert "[ejection] sequence" in message


def test_negative_entry_in_a_sequence(tmp_path):
    message = error_of(tmp_path, '[ejection]\nprofile = "fixed"\nsequence = [1, -2]\n')
    assert "[ejection] sequence = [1, -2]" in message


def test_not_toml(tmp_path):
    message = error_of(tmp_path, "[motor\nduty = 1\n")
    assert "not valid TOML" in message


def test_section_that_is_not_a_table(tmp_path):
    message = error_of(tmp_path, "motor = 3\n")
    assert "must be a section [motor]" in message


def test_missing_file(tmp_path):
    with pytest.raises(ConfigError) as info:
        load_config(tmp_path / "nope.toml")
    assert "nope.toml" in str(info.value) and "cannot read" in str(info.value)


def test_optional_pins_can_be_switched_off(tmp_path):
    config = load_config(write(tmp_path, "[pins]\nmotor_enable = false\n"))
    assert config.pins.motor_enable is None


def test_sim_fits_a_lid_and_a_servo_on_free_pins():
    config = with_sim_devices(load_config())
    pins = [p for p in config.pins.as_dict().values() if p is not None]
    assert config.pins.lid is not None and config.pins.servo is not None
    assert len(pins) == len(set(pins))


def run_check(*args):
    return subprocess.run([sys.executable, "-m", "firmware.daemon", "--check-config", *args],
                          capture_output=True, text=True, timeout=30)


def test_check_config_exit_codes(tmp_path):
    good = write(tmp_path, "[motor]\nduty = 0.5\n")
    assert run_check(str(good)).returncode == 0
    good.write_text("[motor]\nduty = 5\n")
    result = run_check(str(good))
    assert result.returncode == 1
    assert "[motor] duty = 5" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_huge_value_is_cut_short_in_the_message(tmp_path):
    message = error_of(tmp_path, f'[daemon]\nsocket = {"x" * 5000!r}\nextensions = 3\n'.replace("'", '"'))
    assert "[daemon] extensions = 3" in message
    message = error_of(tmp_path, "[ejection]\nsequence = [" + ", ".join(["-1"] * 3000) + "]\n")
    assert len(message) < 400 and "..." in message
