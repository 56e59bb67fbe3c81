"""Where ``launcherd --sim`` fits the lid switch and the aim servo a configuration does not have."""

from __future__ import annotations

from typing import Any

from firmware.board.pins import BOOT_HIGH_PINS
from firmware.config.fields import NOT_FITTED
from firmware.config.schema import PIN_KEYS, QUIET_AT_BOOT_PIN_KEYS

SIM_SPARE_PINS = (22, 25, 5, 6, 26, 19, 20, 21)  # where simulation fits a lid switch and a servo


def sim_fits(pins: dict[str, Any]) -> tuple[dict[str, int], str | None]:
    """The pins simulation gives a missing lid switch and aim servo, and the first it cannot fit.

    The servo, like a real one, is kept off the pins that are pulled up at boot."""
    used = {pins[key] for key in PIN_KEYS} - {NOT_FITTED}
    extra: dict[str, int] = {}
    for key in ("lid", "servo"):
        if pins[key] is not NOT_FITTED:
            continue
        refused = BOOT_HIGH_PINS if key in QUIET_AT_BOOT_PIN_KEYS else ()
        free = [pin for pin in SIM_SPARE_PINS if pin not in used and pin not in refused]
        if not free:
            return extra, key
        extra[key] = free[0]
        used.add(free[0])
    return extra, None


def sim_errors(source: str, sections: dict[str, dict[str, Any]]) -> list[str]:
    """What stops simulation from fitting its lid switch and aim servo."""
    _, unfitted = sim_fits(sections["pins"])
    if unfitted is None:
        return []
    spares = [pin for pin in SIM_SPARE_PINS
              if not (unfitted in QUIET_AT_BOOT_PIN_KEYS and pin in BOOT_HIGH_PINS)]
    return [
        f"{source}: [pins] {unfitted} = false: simulation fits a {unfitted} on a free GPIO of "
        + ", ".join(map(str, spares)) + ", and the other [pins] use them all;"
        f" free one of them or give [pins] {unfitted} a GPIO"
    ]


__all__ = ["SIM_SPARE_PINS", "sim_errors", "sim_fits"]
