"""Which GPIO chip carries the Pi's 40-pin header: found by its label, or a configured number checked.

The header's GPIOs belong to the Pi's own pin controller, whose chip the kernel labels after it:
``pinctrl-rp1`` on a Pi 5 (the RP1 I/O chip), ``pinctrl-bcm2711`` on a Pi 4 / 400 / CM4,
``pinctrl-bcm2835`` on the Pis before (1, 2, 3, Zero, Zero 2 W). Its number is no fact: a Pi 5
had it as gpiochip4 before kernel 6.6.45 and as gpiochip0 since, where chip 0 used to be a
``gpio-brcmstb`` chip whose lines 24 and 27 are Bluetooth's. So ``[pins] chip = "auto"`` (the
default) opens the chip with this Pi's label, and a number is honoured only if its label agrees;
otherwise the refusal names the chip that does.

The board comes from its revision code (the device tree's ``linux,revision``, or ``Revision`` in
/proc/cpuinfo): its processor field tells the SoC, and so the pin controller.
"""

from __future__ import annotations

import glob
import logging
import re
from pathlib import Path
from typing import Any

from firmware.errors import HardwareError

AUTO = "auto"

# The revision code's processor field -> the label of the header's chip.
PIN_CONTROLLER_OF_SOC = {
    0: "pinctrl-bcm2835",  # BCM2835: Pi 1, Zero, Zero W
    1: "pinctrl-bcm2835",  # BCM2836: Pi 2
    2: "pinctrl-bcm2835",  # BCM2837: Pi 3, Zero 2 W (the same GPIO block and driver)
    3: "pinctrl-bcm2711",  # BCM2711: Pi 4, 400, CM4
    4: "pinctrl-rp1",      # BCM2712: Pi 5, 500, CM5 (the header is on the RP1)
}
PIN_CONTROLLERS = ("pinctrl-rp1", "pinctrl-bcm2711", "pinctrl-bcm2835")
# The revision code's type field -> a name for the messages (the rest are "this Pi").
MODELS = {
    0x04: "Pi 2 B", 0x08: "Pi 3 B", 0x09: "Pi Zero", 0x0C: "Pi Zero W", 0x0D: "Pi 3 B+", 0x0E: "Pi 3 A+",
    0x11: "Pi 4 B", 0x12: "Pi Zero 2 W", 0x13: "Pi 400", 0x14: "CM4", 0x17: "Pi 5", 0x18: "CM5", 0x19: "Pi 500",
}

DEVICE_TREE_REVISION = Path("/proc/device-tree/system/linux,revision")
CPUINFO = Path("/proc/cpuinfo")

log = logging.getLogger(__name__)


def board_revision() -> int | None:
    """This board's revision code, None where it has none (not a Pi)."""
    try:
        return int.from_bytes(DEVICE_TREE_REVISION.read_bytes()[:4], "big")
    except (OSError, ValueError):
        pass
    try:
        found = re.search(r"^Revision\s*:\s*([0-9a-fA-F]+)\s*$", CPUINFO.read_text(), re.MULTILINE)
    except OSError:
        return None
    return int(found.group(1), 16) if found else None


def pin_controller(revision: int | None) -> str | None:
    """The label of the header's chip on the board with this revision code; None if unknown."""
    if revision is None:
        return None
    if not revision & (1 << 23):  # an old-style code: a first-generation Pi (BCM2835)
        return PIN_CONTROLLER_OF_SOC[0]
    return PIN_CONTROLLER_OF_SOC.get((revision >> 12) & 0xF)


def model_name(revision: int | None) -> str:
    if revision is None or not revision & (1 << 23):
        return "this Pi"
    return MODELS.get((revision >> 4) & 0xFF, "this Pi")


def chip_numbers() -> list[int]:
    """The numbers of the GPIO character devices (/dev/gpiochipN), lowest first."""
    numbers = {int(found.group(1)) for path in glob.glob("/dev/gpiochip*")
               if (found := re.fullmatch(r"/dev/gpiochip(\d+)", path))}
    return sorted(numbers)


def chip_labels(lgpio: Any, numbers: list[int]) -> dict[int, str]:
    """Each chip's label, as lgpio reads it; a chip that cannot be opened is left out."""
    labels = {}
    for number in numbers:
        try:
            handle = lgpio.gpiochip_open(number)
        except Exception:  # lgpio.error, or a chip that went away: it is simply not listed
            continue
        try:
            labels[number] = str(lgpio.gpio_get_chip_info(handle)[3])
        except Exception:
            pass
        finally:
            try:
                lgpio.gpiochip_close(handle)
            except Exception:
                pass
    return labels


def listing(labels: dict[int, str]) -> str:
    return ", ".join(f"gpiochip{number} [{label}]" for number, label in sorted(labels.items())) or "none"


def resolve_chip(configured: int | str, labels: dict[int, str], revision: int | None) -> int:
    """The chip to open for ``[pins] chip = configured`` ("auto" or a number), given the chips'
    labels and the board's revision code.

    :raises HardwareError: no chip carries the header's label ("auto"), or the number names
        another chip than the one that does (the message names it).
    """
    wanted = pin_controller(revision)
    model = model_name(revision)
    with_label = sorted(number for number, label in labels.items() if label == wanted)
    if configured == AUTO:
        if with_label:
            return with_label[0]
        if wanted is None:
            # No Pi revision to go by: the header is whichever of the Pi controllers is here.
            known = sorted(n for n, label in labels.items() if label in PIN_CONTROLLERS)
            if known:
                return known[0]
            raise HardwareError(
                "[pins] chip = \"auto\" found no GPIO chip of a Raspberry Pi's header (labelled "
                + " / ".join(PIN_CONTROLLERS) + f"); chips here: {listing(labels)}: set [pins] chip to a number")
        raise HardwareError(
            f"[pins] chip = \"auto\": no GPIO chip is labelled {wanted}, the header of {model}; chips here:"
            f" {listing(labels)}. Set [pins] chip to the header's chip number (gpiodetect, docs/raspberry-pi.md)")
    number = int(configured)
    label = labels.get(number)
    if label is None and with_label:
        right = with_label[0]
        raise HardwareError(
            f"[pins] chip = {number}: there is no gpiochip{number} here; the header of {model} is"
            f" gpiochip{right} [{wanted}]. Set chip = {right}, or \"auto\" to have it found")
    if wanted is None or label is None or label == wanted:
        return number  # nothing to check it against, or it is the header's chip
    if with_label:
        right = with_label[0]
        raise HardwareError(
            f"[pins] chip = {number} is gpiochip{number} [{label}], not the header of {model}: its GPIOs are"
            f" on gpiochip{right} [{wanted}]. Set chip = {right}, or \"auto\" to have it found")
    log.warning("[pins] chip = %d is gpiochip%d [%s], and no chip here is labelled %s (the header of %s):"
                " used as configured; chips here: %s", number, number, label, wanted, model, listing(labels))
    return number


__all__ = ["AUTO", "PIN_CONTROLLERS", "board_revision", "chip_labels", "chip_numbers", "pin_controller",
           "resolve_chip"]
