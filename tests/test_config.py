"""Configuration: defaults, every kind of error with a precise message, and --check-config."""

import random
import subprocess
import sys
import tomllib

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin
from hypothesis import HealthCheck, find, given, settings
from hypothesis import strategies as st

from firmware.config import SCHEMA, ConfigError, build_config, default_toml, load_config, with_sim_devices
from firmware.launcher.core import Launcher
from firmware.launcher.ejection import policy_for
from firmware.launcher.hardware import Hardware


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
    return subprocess.run([sys.executable, "-m", "firmware.daemon.launcherd", "--check-config", *args],
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


# ---- configs that defeat protection (issue #9) -----------------------------------------------


@pytest.mark.parametrize("text, expected", [
    ("[timing]\njam_ms = 10000\nlaunch_timeout_ms = 10000\nmax_on_ms = 10000\n",
     "[timing] jam_ms = 10000: must be at most half of launch_timeout_ms (10000)"),
    ("[timing]\njam_ms = 600\nlaunch_timeout_ms = 1000\nfeed_timeout_ms = 500\n",
     "[timing] jam_ms = 600: must be at most half of launch_timeout_ms (1000)"),
    ("[timing]\nmax_on_ms = 1000\nlaunch_timeout_ms = 900\nfeed_timeout_ms = 500\n[motor]\nretract_ms = 1000\n",
     "[motor] retract_ms = 1000: must be shorter than [timing] max_on_ms (1000)"),
    ("[timing]\nlaunch_timeout_ms = 20000\n",
     "[timing] launch_timeout_ms = 20000: must be shorter than max_on_ms (20000)"),
    ('[daemon]\nstate_dir = ""\n', '[daemon] state_dir = "": must be the directory for game and score state'),
    ('[daemon]\nsocket = ""\n', '[daemon] socket = "": must be the path of the API socket, not empty'),
    ('[daemon]\nsocket = "/tmp/a\\u0000b"\n', "[daemon] socket = "),
    ('[daemon]\nsocket = "/tmp/' + "s" * 103 + '"\n', "is 108 bytes long; a Unix socket path may have at most 107"),
    ('[daemon]\nextensions = ["gmae"]\n', "'gmae' is not an installed layer; installed: 'game'"),
    ('[daemon]\nextensions = ["game", "game"]\n', "'game' is listed 2 times; list each layer once"),
    ("[timing]\nmax_duty = 0.1\nduty_window_s = 10\n", "[timing] max_duty = 0.1: leaves 1 s of motor time"),
])
def test_configs_that_defeat_protection_are_refused(tmp_path, text, expected):
    message = error_of(tmp_path, text)
    assert expected in message


def test_a_socket_path_of_107_bytes_is_accepted(tmp_path):
    assert load_config(write(tmp_path, '[daemon]\nsocket = "/tmp/' + "s" * 102 + '"\n'))


def test_a_nul_in_the_socket_path_is_named(tmp_path):
    assert "must not contain a NUL character" in error_of(tmp_path, '[daemon]\nsocket = "/run/a\\u0000b"\n')


def test_a_state_dir_that_is_a_file_is_refused(tmp_path):
    target = tmp_path / "state"
    target.write_text("")
    message = error_of(tmp_path, f'[daemon]\nstate_dir = "{target}"\n')
    assert f'[daemon] state_dir = "{target}": exists and is not a directory' in message
    (tmp_path / "dir").mkdir()
    assert load_config(write(tmp_path, f'[daemon]\nstate_dir = "{tmp_path / "dir"}"\n'))
    assert load_config(write(tmp_path, f'[daemon]\nstate_dir = "{tmp_path / "new"}"\n'))


def test_a_byte_order_mark_is_named(tmp_path):
    path = tmp_path / "launcher.toml"
    path.write_bytes(b"\xef\xbb\xbf[motor]\nduty = 0.5\n")
    with pytest.raises(ConfigError, match="starts with a UTF-8 byte order mark"):
        load_config(path)


def test_every_error_of_a_file_is_reported_at_once(tmp_path):
    text = ('[motr]\n[motor]\nduty = 2\nspeed = 1\n[pins]\nled = 17\n[timing]\njam_ms = "x"\n'
            'launch_timeout_ms = 30000\n[daemon]\nstate_dir = ""\n')
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    lines = str(info.value).split("\n")
    assert info.value.errors == lines
    assert all(line.startswith(f"{path}: ") for line in lines)
    for part in ("[motr]: unknown section", "[motor] duty = 2: must be a number", "[motor] speed = 1: unknown key",
                 "[pins] led = 17: GPIO 17 is already used", '[timing] jam_ms = "x": must be a whole number',
                 "[timing] launch_timeout_ms = 30000: must be shorter than max_on_ms",
                 '[daemon] state_dir = "": must be'):
        assert sum(part in line for line in lines) == 1, (part, lines)
    # A rule about a key whose value is already wrong is not repeated with the default.
    assert not any("jam_ms = 400" in line for line in lines)


def test_sim_with_no_spare_pin_is_a_message_not_a_traceback(tmp_path):
    text = ("[pins]\nmotor_forward = 22\nmotor_reverse = 25\nmotor_heartbeat = 26\nbutton = 5\nbeam = 6\n"
            "led = 19\nchime = 20\nlid = 21\n")
    path = write(tmp_path, text)
    config = load_config(path)  # fine on a Pi, which needs no spare pin
    with pytest.raises(ConfigError, match=r"\[pins\] servo = false: simulation fits a servo on a free GPIO"):
        with_sim_devices(config)
    with pytest.raises(ConfigError, match=r"\[pins\] servo = false"):
        load_config(path, sim=True)


def test_the_timing_keys_of_the_motor_limits_have_documented_defaults():
    timing = load_config().timing
    assert (timing.motor_rest_ms, timing.duty_window_s, timing.max_duty, timing.stall_ms) == (3000, 60, 0.5, 250)
    text = default_toml()
    for key in ("motor_rest_ms = 3000", "duty_window_s = 60", "max_duty = 0.5", "stall_ms = 250", 'chip = "auto"'):
        assert key in text


def _raw_values():
    """Documents of random keys: mostly in range, sometimes not, pins often clashing."""

    def value(field):
        if field.kind in ("pin", "optional_pin"):
            pins = st.integers(0, 27)
            return st.one_of(pins, st.just(False)) if field.kind == "optional_pin" else pins
        if field.kind == "int":
            return st.integers(int(field.minimum) - 1, int(min(field.maximum, 3 * (field.default or 1) + 10)) + 1)
        if field.kind == "float":
            return st.floats(field.minimum - 0.1, field.maximum + 0.1, allow_nan=False)
        if field.kind == "bool":
            return st.booleans()
        if field.kind == "int_list":
            return st.lists(st.integers(0, 12), max_size=4)
        if field.kind == "str_list":
            return st.lists(st.sampled_from(["game", "nope"]), max_size=2)
        if field.choices:
            return st.sampled_from(field.choices)
        return st.sampled_from(["", "/tmp/card-launcher-prop/x", "/tmp/card-launcher-prop/" + "y" * 120])

    sections = {
        section: st.fixed_dictionaries({}, optional={key: value(field) for key, field in fields.items()})
        for section, fields in SCHEMA.items()
    }
    return st.fixed_dictionaries({}, optional=sections)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(raw=_raw_values(), sim=st.booleans())
def test_everything_the_checker_accepts_would_start(raw, sim):
    """Accepted means a core, a policy and the devices build, on a Pi and in simulation."""
    try:
        config = build_config(raw, sim=sim)
    except ConfigError:
        return
    placed = with_sim_devices(config) if sim else config
    Launcher(placed, policy_for(placed.ejection.profile, placed.ejection.sequence, random.Random(1)), 0.0)
    factory = MockFactory(pin_class=MockPWMPin)
    try:
        Hardware(placed, pin_factory=factory).close()
    finally:
        factory.close()


def _accepted(raw) -> bool:
    try:
        build_config(raw)
    except ConfigError:
        return False
    return True


def test_the_start_property_reaches_accepted_documents():
    """The property above is no test if the strategy only makes broken documents."""
    assert find(_raw_values(), lambda raw: len(raw) >= 3 and _accepted(raw))
