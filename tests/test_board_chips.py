"""The header's GPIO chip: found by its label ("auto"), a configured number checked against the Pi's
pin controller, and a refusal that names the right chip (issue 37). Through gpiozero's real lgpio
factory on the fake lgpio, with the chips and labels of each kind of Pi and kernel."""

from __future__ import annotations

import importlib
import logging
import sys

import pytest

from fake_lgpio import FakeLgpio
from firmware.board import chips
from firmware.config import build_config
from firmware.errors import HardwareError

# Revision codes (new style: processor field bits 12-15, type bits 4-11).
PI5, PI4, ZERO2W, PI3B = 0xC04170, 0xC03114, 0x902120, 0xA02082
# What gpiodetect lists on each (Raspberry Pi's documentation and kernels).
PI5_KERNEL_6_6_45 = {0: "pinctrl-rp1", 10: "gpio-brcmstb@107d508500", 11: "gpio-brcmstb@107d508520",
                     12: "gpio-brcmstb@107d517c00", 13: "gpio-brcmstb@107d517c20"}
PI5_OLDER_KERNEL = {0: "gpio-brcmstb@107d508500", 1: "gpio-brcmstb@107d508520", 2: "gpio-brcmstb@107d517c00",
                    3: "gpio-brcmstb@107d517c20", 4: "pinctrl-rp1"}
PI4_CHIPS = {0: "pinctrl-bcm2711", 1: "raspberrypi-exp-gpio"}
BCM2835_CHIPS = {0: "pinctrl-bcm2835", 1: "raspberrypi-exp-gpio"}


@pytest.fixture
def board(monkeypatch):
    """Makes this machine a Pi with the given revision and chips; returns the opened chip's number."""
    fake = FakeLgpio()
    monkeypatch.setitem(sys.modules, "lgpio", fake)
    monkeypatch.delitem(sys.modules, "gpiozero.pins.lgpio", raising=False)
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "lgpio")
    import gpiozero.pins.local

    opened = []

    def as_pi(revision: int, chip_labels: dict[int, str], configured):
        fake.chips = dict(chip_labels)
        monkeypatch.setattr(gpiozero.pins.local, "get_pi_revision", lambda: revision)
        monkeypatch.setattr(chips, "board_revision", lambda: revision)
        monkeypatch.setattr(chips, "chip_numbers", lambda: sorted(fake.chips))
        backend = importlib.import_module("firmware.board.backend")
        factory = backend.hardware_pin_factory(configured)
        opened.append(factory)
        return factory._chip

    yield as_pi
    for factory in opened:
        factory.close()
    sys.modules.pop("gpiozero.pins.lgpio", None)


@pytest.mark.parametrize(("revision", "chip_labels", "header"), [
    (PI5, PI5_KERNEL_6_6_45, 0),
    (PI5, PI5_OLDER_KERNEL, 4),
    (PI4, PI4_CHIPS, 0),
    (ZERO2W, BCM2835_CHIPS, 0),
    (PI3B, BCM2835_CHIPS, 0),
])
def test_auto_opens_the_chip_labelled_as_this_pis_pin_controller(board, revision, chip_labels, header):
    assert board(revision, chip_labels, build_config({}).pins.chip) == header


def test_the_default_config_finds_the_chip_rather_than_assume_one():
    assert build_config({}).pins.chip == "auto"


def test_a_pi5_on_an_older_kernel_refuses_chip_0_and_names_chip_4(board):
    with pytest.raises(HardwareError) as refused:
        board(PI5, PI5_OLDER_KERNEL, 0)
    message = str(refused.value)
    assert "[pins] chip = 0 is gpiochip0 [gpio-brcmstb@107d508500], not the header of Pi 5" in message
    assert "gpiochip4 [pinctrl-rp1]" in message and "Set chip = 4" in message


def test_a_pi5_on_a_current_kernel_refuses_the_old_chip_4_and_names_chip_0(board):
    with pytest.raises(HardwareError, match=r"chip = 4: there is no gpiochip4 here; the header of Pi 5 is"
                                            r" gpiochip0 \[pinctrl-rp1\]\. Set chip = 0"):
        board(PI5, PI5_KERNEL_6_6_45, 4)


@pytest.mark.parametrize(("revision", "chip_labels", "wrong", "right", "label"), [
    (PI4, PI4_CHIPS, 1, 0, "pinctrl-bcm2711"),
    (ZERO2W, BCM2835_CHIPS, 1, 0, "pinctrl-bcm2835"),
])
def test_a_number_naming_another_chip_is_refused_with_the_right_one(board, revision, chip_labels, wrong, right,
                                                                       label):
    with pytest.raises(HardwareError, match=rf"its GPIOs are on gpiochip{right} \[{label}\]\. Set chip = {right}"):
        board(revision, chip_labels, wrong)


def test_an_explicit_number_with_the_right_label_is_honoured(board):
    assert board(PI5, PI5_OLDER_KERNEL, 4) == 4
    assert board(PI4, PI4_CHIPS, 0) == 0


def test_auto_without_the_pis_chip_is_refused_with_the_chips_found(board):
    with pytest.raises(HardwareError) as refused:
        board(PI4, {0: "gpio-mockup-A"}, "auto")
    assert "no GPIO chip is labelled pinctrl-bcm2711, the header of Pi 4 B" in str(refused.value)
    assert "gpiochip0 [gpio-mockup-A]" in str(refused.value)


def test_a_number_where_no_chip_has_the_pis_label_is_used_with_a_warning(board, caplog):
    """A kernel that labels the controller otherwise (or a test rig's chip): nothing contradicts
    the number, so it is honoured, and the journal says what was found."""
    with caplog.at_level(logging.WARNING, logger="firmware.board.chips"):
        assert board(PI4, {0: "pinctrl-sim"}, 0) == 0
    assert "no chip here is labelled pinctrl-bcm2711" in caplog.text


def test_a_chip_that_cannot_be_opened_says_which_chips_there_are(board):
    """Not a Pi gpiozero knows by its label here: the number is tried, and its failure lists the chips."""
    with pytest.raises(HardwareError, match=r"cannot open GPIO chip 7 .*chips here: gpiochip0 \[gpio-mockup-A\]"):
        board(PI4, {0: "gpio-mockup-A"}, 7)


@pytest.mark.parametrize(("revision", "label"), [
    (PI5, "pinctrl-rp1"), (0xD04170, "pinctrl-rp1"), (PI4, "pinctrl-bcm2711"), (0xC03130, "pinctrl-bcm2711"),
    (ZERO2W, "pinctrl-bcm2835"), (PI3B, "pinctrl-bcm2835"), (0xA01041, "pinctrl-bcm2835"),
    (0x000E, "pinctrl-bcm2835"), (None, None),
])
def test_the_pin_controller_follows_the_revision_codes_processor(revision, label):
    assert chips.pin_controller(revision) == label


def test_the_board_revision_is_read_from_cpuinfo_without_a_device_tree(tmp_path, monkeypatch):
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nHardware\t: BCM2835\nRevision\t: c03114\nSerial\t\t: 1\n")
    monkeypatch.setattr(chips, "DEVICE_TREE_REVISION", tmp_path / "absent")
    monkeypatch.setattr(chips, "CPUINFO", cpuinfo)
    assert chips.board_revision() == PI4
    tree = tmp_path / "linux,revision"
    tree.write_bytes(PI5.to_bytes(4, "big"))
    monkeypatch.setattr(chips, "DEVICE_TREE_REVISION", tree)
    assert chips.board_revision() == PI5
    monkeypatch.setattr(chips, "DEVICE_TREE_REVISION", tmp_path / "absent")
    cpuinfo.write_text("processor\t: 0\nmodel name\t: x86\n")
    assert chips.board_revision() is None
