"""Write wiring/pins.md and the wiring drawings (wiring.svg, drivers.svg, power.svg, heartbeat.svg,
button-led.svg), and the card blaster's variant (pins-blaster.md, wiring-blaster.svg) for ``[device] kind = "blaster"``.

The pin map lives in one place, firmware/config/schema.py, and every input's pull in firmware/board/pins.py.
Run `.venv/bin/python wiring/generate.py` after changing a default pin; tests/test_wiring.py
regenerates every file and fails when the copies in the repository differ, so the documentation
can never disagree with the firmware.
"""

from __future__ import annotations

import sys
from pathlib import Path

from firmware.config import load_config

from blaster_sheets import blaster_pins_markdown, blaster_rows, blaster_wiring_svg
from launcher_drawings import button_led_svg, drivers_svg, gate_svg, power_svg, wiring_svg
from pin_tables import HERE, pin_rows, pins_markdown


def outputs() -> dict[Path, str]:
    """Every generated file and its content."""
    config = load_config()
    rows = pin_rows(config)
    blaster = blaster_rows(config)
    return {
        HERE / "pins.md": pins_markdown(rows, config),
        HERE / "wiring.svg": wiring_svg(rows),
        HERE / "drivers.svg": drivers_svg(rows, config),
        HERE / "power.svg": power_svg(),
        HERE / "heartbeat.svg": gate_svg(rows, blaster),
        HERE / "button-led.svg": button_led_svg(rows),
        HERE / "pins-blaster.md": blaster_pins_markdown(blaster),
        HERE / "wiring-blaster.svg": blaster_wiring_svg(blaster),
    }


def main() -> int:
    for path, content in outputs().items():
        path.write_text(content, encoding="utf-8")
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
