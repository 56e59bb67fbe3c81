"""firmware.board.pins: the one rule for every input's pull, and the [pins] chip key."""

from __future__ import annotations

import itertools
import subprocess
import sys

import pytest

from firmware.config import ConfigError, build_config
from firmware.board.pins import input_pull


@pytest.mark.parametrize("levels", list(itertools.product(("low", "high"), repeat=3)))
def test_the_pull_holds_the_level_the_open_contact_leaves(levels):
    button, beam, lid = levels
    config = build_config({"sensor": {"button_active": button, "beam_blocked": beam, "lid_open": lid}})
    # The button and the beam contacts close when active; the lid switch closes when the lid shuts.
    assert input_pull(config, "button") == ("up" if button == "low" else "down")
    assert input_pull(config, "beam") == ("up" if beam == "low" else "down")
    assert input_pull(config, "lid") == ("up" if lid == "high" else "down")


def test_only_inputs_have_a_pull():
    with pytest.raises(ValueError, match="led"):
        input_pull(build_config({}), "led")


def test_the_module_does_not_import_gpiozero():
    code = "import sys, firmware.board.pins; print('gpiozero' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_the_board_facts_are_a_leaf_the_configuration_builds_on():
    """pins imports nothing of the project, so the configuration can check pins against it."""
    code = ("import sys, firmware.board.pins;"
            " print(sorted(m for m in sys.modules if m.startswith('firmware')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['firmware', 'firmware.board', 'firmware.board.pins']"


def test_the_gpio_chip_is_found_by_default_and_takes_0_to_63():
    assert build_config({}).pins.chip == "auto"
    assert build_config({"pins": {"chip": 4}}).pins.chip == 4
    for bad in (-1, 64, "4", "Auto", True, 4.0):
        with pytest.raises(ConfigError, match=r"\[pins\] chip"):
            build_config({"pins": {"chip": bad}})


def test_the_chip_is_no_pin():
    """chip = 12 names a chip, not GPIO 12: it clashes with no pin."""
    assert build_config({"pins": {"chip": 12}}).pins.motor_forward == 12
