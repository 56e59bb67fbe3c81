"""Configuration checks that bring-up found missing: an input on GPIO 2 or 3, whose board pull-ups
(I2C) are fixed, cannot be given the pull-down its [sensor] levels need (the daemon would fail to
start with gpiozero's PinFixedPull, after --check-config had said the file was valid)."""

from __future__ import annotations

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from firmware.config import ConfigError, build_config
from firmware.launcher.hardware import Hardware


@pytest.mark.parametrize("key, sensor", [("beam", {"beam_blocked": "high"}), ("button", {"button_active": "high"}),
                                         ("lid", {"lid_open": "low"})])
def test_an_input_needing_a_pull_down_on_gpio_2_or_3_is_refused(key, sensor):
    with pytest.raises(ConfigError) as error:
        build_config({"pins": {key: 3}, "sensor": sensor}, "f.toml")
    assert str(error.value) == (f"f.toml: [pins] {key} = 3: GPIO 3 has a fixed pull-up resistor on the board"
                                " (I2C), and this input needs a pull-down with the levels in [sensor]; use another GPIO")


def test_an_input_with_a_pull_up_on_gpio_2_is_fine_and_starts():
    config = build_config({"pins": {"beam": 2}})
    factory = MockFactory(pin_class=MockPWMPin)
    try:
        Hardware(config, pin_factory=factory).close()
    finally:
        factory.close()
