"""The SVG canvas every drawing shares (one style, one legend, symbols drawn alike) and the parts on the
main diagram."""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

from pin_tables import CLAMP_DIODE, EXTERNAL_PULL_UP_KEYS, GATE, GATE_CHIP  # noqa: F401 (re-exported)


class Canvas:
    """SVG primitives shared by the drawings: one style, one legend, symbols drawn alike."""

    STYLE = (
        "text{font-family:sans-serif;font-size:13px;fill:#222}"
        ".title{font-weight:bold;font-size:14px}.note{font-size:12px;fill:#555}"
        ".label{font-size:12px}.wirelabel{font-size:11px;fill:#1a5fb4}.powerlabel{font-size:11px;fill:#c01c28}"
        "polyline{fill:none;stroke-width:2}.wire{stroke:#1a5fb4}.power{stroke:#c01c28}"
        ".gnd{stroke:#222}.optional{stroke-dasharray:6 4}.thin{stroke-width:1.5}"
        "rect.part,rect.pi,rect.supply{fill:#f6f5f4;stroke:#444;stroke-width:1.5}"
        "rect.pi{fill:#e8f5e9}rect.supply{fill:#fdecea}rect.sym{fill:#fff;stroke:#222;stroke-width:1.5}"
        ".dot{fill:#222}.motor,.npn{fill:#fff;stroke:#222;stroke-width:2}"
    )

    def __init__(self) -> None:
        self.body: list[str] = []

    def text(self, x: float, y: float, content: str, cls: str = "") -> None:
        attr = f' class="{cls}"' if cls else ""
        self.body.append(f'<text x="{x:g}" y="{y:g}"{attr}>{escape(content)}</text>')

    def line(self, points: list[tuple[float, float]], cls: str) -> None:
        coords = " ".join(f"{x:g},{y:g}" for x, y in points)
        self.body.append(f'<polyline class="{cls}" points="{coords}"/>')

    def box(self, x: float, y: float, w: float, h: float, cls: str) -> None:
        self.body.append(f'<rect class="{cls}" x="{x:g}" y="{y:g}" width="{w:g}" height="{h:g}" rx="6"/>')

    def dot(self, x: float, y: float) -> None:
        self.body.append(f'<circle class="dot" cx="{x:g}" cy="{y:g}" r="4"/>')

    def ground(self, x: float, y: float, compact: bool = False) -> None:
        """The ground symbol, hanging below (x, y): a connection to the common ground."""
        stem = 2 if compact else 6
        self.line([(x, y), (x, y + stem)], "gnd")
        self.line([(x - 8, y + stem), (x + 8, y + stem)], "gnd")
        self.line([(x - 5, y + stem + 3), (x + 5, y + stem + 3)], "gnd")
        self.line([(x - 2, y + stem + 6), (x + 2, y + stem + 6)], "gnd")

    def resistor_h(self, x: float, y: float, label: str) -> None:
        """A resistor on a horizontal wire, from x to x + 30, value above it."""
        self.body.append(f'<rect class="sym" x="{x:g}" y="{y - 5:g}" width="30" height="10"/>')
        self.text(x - 2, y - 9, label, "note")

    def resistor_to_ground(self, x: float, y: float, label: str) -> None:
        """A pull-down: from a dot on a wire at (x, y) through a resistor to ground."""
        self.dot(x, y)
        self.line([(x, y), (x, y + 3)], "wire")
        self.body.append(f'<rect class="sym" x="{x - 4:g}" y="{y + 3:g}" width="8" height="12"/>')
        self.ground(x, y + 15, compact=True)
        self.text(x - 32, y + 14, label, "note")

    def resistor_to_rail(self, x: float, y: float, label: str, rail: str = "3V3") -> None:
        """A pull-up: from a dot on a wire at (x, y) up through a resistor to the named rail."""
        self.dot(x, y)
        self.line([(x, y), (x, y - 3)], "wire")
        self.body.append(f'<rect class="sym" x="{x - 4:g}" y="{y - 15:g}" width="8" height="12"/>')
        self.line([(x, y - 15), (x, y - 20)], "power")
        self.text(x - 10, y - 23, rail, "powerlabel")
        self.text(x + 7, y - 8, label, "note")

    def fuse_h(self, x: float, y: float, label: str) -> None:
        """A fuse on a horizontal wire, from x to x + 36."""
        self.body.append(f'<rect class="sym" x="{x:g}" y="{y - 6:g}" width="36" height="12"/>')
        self.line([(x, y), (x + 36, y)], "gnd thin")
        self.text(x - 4, y - 10, label, "note")

    def capacitor_to_ground(self, x: float, y: float, label: str, polarised: bool = False) -> None:
        """A capacitor from a wire at (x, y) down to ground; the value to its right."""
        self.dot(x, y)
        self.line([(x, y), (x, y + 14)], "power")
        self.line([(x - 10, y + 14), (x + 10, y + 14)], "gnd")
        if polarised:
            self.body.append(
                f'<path d="M{x - 10:g},{y + 24:g} Q{x:g},{y + 18:g} {x + 10:g},{y + 24:g}"'
                ' fill="none" stroke="#222" stroke-width="2"/>'
            )
            self.text(x - 20, y + 13, "+", "note")
        else:
            self.line([(x - 10, y + 20), (x + 10, y + 20)], "gnd")
        self.line([(x, y + 21), (x, y + 30)], "gnd")
        self.ground(x, y + 30)
        self.text(x + 14, y + 24, label, "note")

    def npn(self, x: float, y: float) -> None:
        """An NPN transistor centred at (x, y): base from the left, collector up, emitter down."""
        self.body.append(f'<circle class="npn" cx="{x:g}" cy="{y:g}" r="16"/>')
        self.line([(x - 6, y - 9), (x - 6, y + 9)], "gnd")
        self.line([(x - 22, y), (x - 6, y)], "wire")
        self.line([(x - 6, y - 4), (x + 6, y - 12), (x + 6, y - 22)], "gnd thin")
        self.line([(x - 6, y + 4), (x + 6, y + 12), (x + 6, y + 22)], "gnd thin")
        self.body.append(
            f'<polygon points="{x + 6:g},{y + 12:g} {x - 1:g},{y + 11:g} {x + 3:g},{y + 6:g}" fill="#222"/>'
        )

    def svg(self, width: int, height: int, legend_y: float) -> str:
        self.text(30, legend_y, "blue: signal (dashed: optional part) · red: power · black: ground (each ground symbol is the common ground)", "note")
        header = [
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}"'
            f' viewBox="0 0 {width} {height}">',
            "<!-- Generated by wiring/generate.py from firmware/config/schema.py: edit those, not this. -->",
            f"<style>{self.STYLE}</style>",
            f'<rect x="0" y="0" width="{width}" height="{height}" fill="#fff"/>',
        ]
        return "\n".join(header + self.body + ["</svg>"]) + "\n"


@dataclass(frozen=True)
class Part:
    title: str
    notes: tuple[str, ...]
    # (config key, "3V3", "GND", or GATE_NET, label at the part): a config key is a wire from that Pi
    # pin, 3V3 a wire from the rail, GND a ground, GATE_NET the wire from the gate's 1Q to STBY/nSLEEP.
    terminals: tuple[tuple[str, str], ...]
    optional: bool = False
    notes_x: int = 150  # where the notes start, from the part's left edge


# The one wire between two parts: the enable gate's 1Q to the driver's STBY/nSLEEP.
GATE_NET = "1Q"

DRIVER_NOTES = ("TB6612FNG or DRV8833", "every pin: drivers.svg", "L298N works but drops ~2 V")

# The standard build: STBY/nSLEEP from the enable gate's 1Q, the gate fed by the heartbeat and
# motor_enable, wired as docs/build.md wires it.
GATED_PARTS = (
    Part(
        "Motor driver",
        DRIVER_NOTES,
        (("motor_forward", "AIN1 / IN1"), ("motor_reverse", "AIN2 / IN2"),
         ("3V3", "VCC (TB6612)"), ("3V3", "PWMA (TB6612)"), (GATE_NET, "STBY / nSLEEP")),
    ),
    Part(
        "Driver enable gate",
        (f"{GATE_CHIP} half 1; HC only, not AHC/LV", "1Q to STBY / nSLEEP: heartbeat.svg",
         f"R_ext {GATE['r']} 1 %: 3V3 to pin 15", f"C_ext {GATE['c']}: pins 14-15",
         f"{CLAMP_DIODE}: pin 15 to VCC", f"tW ≈ {GATE['tw']} ({GATE['range']})",
         "100 nF across VCC and GND (pin 8)", "half 2 unused: 2A high, 2B, 2CLR low"),
        ((GATE_NET, "1Q (pin 13)"), ("motor_heartbeat", "1B (pin 2)"), ("motor_enable", "1CLR (pin 3)"),
         ("GND", "1A (pin 1)"), ("3V3", "VCC (pin 16)"), ("3V3", "1Rext/Cext (pin 15)"),
         ("3V3", "2A (pin 9)"), ("GND", "2B, 2CLR (pins 10, 11)")),
        notes_x=170,
    ),
    Part(
        "Break-beam at the exit slot",
        ("e.g. Adafruit 2167 (3 mm) or 2168 (5 mm)", "receiver: open collector",
         "emitter − and receiver − to GND", "a bare IR LED: + through 100 Ω"),
        (("beam", "receiver OUT"), ("3V3", "receiver VCC"), ("3V3", "emitter +")),
    ),
    Part(
        "Launch button with LED",
        ("button to GND", "LED − to GND (a 3.3 V LED)", "5 V or 12 V LED: NPN, button-led.svg"),
        (("button", "switch"), ("led", "LED +")),
    ),
    Part("Buzzer", ("active, 3-5 V: + to 5V (pin 2)", "NPN: 2N2222 or BC337"), (("chime", ""),)),
    Part("Lid switch", ("closed while the lid is shut",), (("lid", "switch"),), optional=True),
    Part("Aim servo", (), (("servo", "signal"),), optional=True),
)

# A build without the gate (motor_heartbeat = false): STBY/nSLEEP straight from motor_enable, the
# gate drawn as the optional part it then is.
GATELESS_PARTS = (
    Part(
        "Motor driver",
        DRIVER_NOTES,
        (("motor_forward", "AIN1 / IN1"), ("motor_reverse", "AIN2 / IN2"),
         ("3V3", "VCC (TB6612)"), ("3V3", "PWMA (TB6612)"), ("motor_enable", "STBY / nSLEEP")),
    ),
    Part(
        "Driver enable gate",
        ("not in this build (motor_heartbeat = false);", "the standard build's: heartbeat.svg,",
         f"{GATE_CHIP}, its 1Q on STBY / nSLEEP"),
        (("motor_heartbeat", "1B (pin 2)"),),
        optional=True,
    ),
    *GATED_PARTS[2:],
)


def parts(gated: bool) -> tuple[Part, ...]:
    """The parts of the main diagram, with the enable gate in the build or without it."""
    return GATED_PARTS if gated else GATELESS_PARTS

# The external pull-up's value as drawn (pin_tables.EXTERNAL_PULL_UP_KEYS: which inputs take it).
EXTERNAL_PULL_UP = "4.7k"

# Parts in series with a signal wire, drawn on it near the part: (value, what it is).
SERIES = {"led": ("330 Ω", "LED resistor"), "chime": ("1 kΩ", "base resistor")}
# Parts in series with a wire from the 3V3 rail, by the terminal's label.
RAIL_SERIES = {"1Rext/Cext (pin 15)": GATE["r"]}

ROW = 40
PI_X, PI_W = 30, 250
RAIL_3V3_X = 330
PART_X, PART_W = 540, 400
GND_X = 1140
WIDTH = 1180
