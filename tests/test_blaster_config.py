"""The [device] and [blaster] sections of the configuration (firmware/config.py)."""

import random

import pytest

from firmware.blaster.core import Settings, build
from firmware.config import PIN_KEYS, SCHEMA, build_config, load_config
from firmware.errors import ConfigError


def sections(**raw):
    config = build_config(raw, "blaster.toml")
    return {"device": config.device, "blaster": config.blaster}


def test_defaults_are_the_launcher_and_a_four_slot_blaster():
    got = sections()
    assert got["device"].kind == "launcher"
    b = got["blaster"]
    assert (b.slots, b.slot_pins, b.actuator, b.pulse_ms, b.max_on_ms) == (4, (5, 6, 16, 26), 22, 150, 500)
    config = build_config({})
    settings = Settings.from_sections(b, config.feedback, config.timing)
    assert settings == Settings()  # the core's defaults are the file's


def test_blaster_checks_apply_only_to_a_blaster():
    assert sections(blaster={"slots": 3})["blaster"].slots == 3  # a launcher ignores the mismatch
    with pytest.raises(ConfigError) as err:
        sections(device={"kind": "blaster"}, blaster={"slots": 3})
    assert str(err.value) == ("blaster.toml: [blaster] slot_pins = [5, 6, 16, 26]: must list one GPIO per"
                              " slot (slots = 3), slot 1 first")


def test_every_error_names_file_section_key_value_and_what_is_allowed():
    with pytest.raises(ConfigError) as err:
        sections(device={"kind": "cannon"},
                 blaster={"pulse_ms": 5, "slot_full": "middle", "bogus": 1})
    lines = err.value.errors
    assert "blaster.toml: [device] kind = \"cannon\": must be one of 'launcher', 'blaster'" in lines
    assert "blaster.toml: [blaster] pulse_ms = 5: must be a whole number from 10 to 2000" in lines
    assert any(line.startswith("blaster.toml: [blaster] slot_full = \"middle\"") for line in lines)
    assert any(line.startswith("blaster.toml: [blaster] bogus = 1: unknown key") for line in lines)


@pytest.mark.parametrize("blaster, message", [
    ({"actuator": 4}, "[blaster] actuator = 4: must not be GPIO 0-8"),
    ({"actuator": 23}, "[blaster] actuator = 23: GPIO 23 is already used by [pins] led"),
    ({"slot_pins": [5, 6, 6, 26]}, "[blaster] slot_pins (slot 3) = 6: GPIO 6 is already used by"
                                   " [blaster] slot_pins (slot 2)"),
    ({"pulse_ms": 600}, "[blaster] pulse_ms = 600: must be at most max_on_ms (500)"),
    ({"settle_ms": 50, "debounce_ms": 60}, "[blaster] settle_ms = 50: must be longer than debounce_ms (60)"),
])
def test_unsafe_or_impossible_blasters_are_refused(blaster, message):
    with pytest.raises(ConfigError, match=message.replace("[", r"\[").replace("(", r"\(").replace(")", r"\)")):
        sections(device={"kind": "blaster"}, blaster=blaster)


def test_the_launcher_pins_are_free_for_a_blaster():
    # Motor, button and beam are not built for a blaster: their GPIOs may be reused.
    got = sections(device={"kind": "blaster"}, blaster={"actuator": 12, "slot_pins": [17, 27, 13, 16]})
    assert got["blaster"].actuator == 12


def test_build_uses_the_configured_profile_and_slots():
    config = build_config({})
    b = sections(device={"kind": "blaster"}, blaster={"slots": 2, "slot_pins": [5, 6], "profile": "rising"})["blaster"]
    core = build(b, config.feedback, config.timing, random.Random(1), 0.0)
    assert core.get_status()["profile"] == "rising" and core.get_status()["slots"] == [False, False]


def test_the_release_limit_says_what_really_ends_a_pulse():
    # The daemon's thread times a pulse; a kill or a frozen kernel leaves the pin high, and only
    # the one-shot in the wiring ends the pulse then.
    doc = SCHEMA["blaster"]["max_on_ms"].doc
    assert "one-shot" in doc and "wiring/heartbeat.svg" in doc and "safe-off" in doc
    assert "the hardware ends a pulse there even if the daemon stalls" not in doc


def test_no_default_pin_is_on_the_i2s_sound_interface():
    # GPIO 18-21: the I2S speaker of a Pi 5 or a Zero 2 W.
    config = load_config()
    launcher = {getattr(config.pins, key) for key in PIN_KEYS}
    blaster = {config.blaster.actuator, *config.blaster.slot_pins, config.pins.led, config.pins.chime}
    assert not (launcher | blaster) & {18, 19, 20, 21}
