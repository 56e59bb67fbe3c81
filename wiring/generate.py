"""Write wiring/pins.md and the wiring drawings (wiring.svg, drivers.svg, power.svg, heartbeat.svg,
button-led.svg), and the card blaster's variant (pins-blaster.md, wiring-blaster.svg) for ``[device] kind = "blaster"``.

The pin map lives in one place, firmware/config/schema.py, and every input's pull in firmware/board/pins.py.
Run `.venv/bin/python wiring/generate.py` after changing a default pin; tests/test_wiring.py
regenerates every file and fails when the copies in the repository differ, so the documentation
can never disagree with the firmware.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from html import escape
from pathlib import Path

from firmware.config import MOTOR_PIN_KEYS, NOT_FITTED, PIN_KEYS, SCHEMA, Config, load_config, with_sim_devices
from firmware.board.pins import HEADER_PINS, INPUT_KEYS, input_pull

HERE = Path(__file__).resolve().parent

# Power pins of the 40-pin header (HEADER_PINS, in firmware.board.pins, maps the GPIOs).
PIN_3V3 = (1, 17)
PIN_5V = (2, 4)
PIN_GND = (6, 9, 14, 20, 25, 30, 34, 39)
HAT_EEPROM_PINS = (0, 1)

# Outputs that run PWM in the firmware (motor speed, LED brightness, servo position).
PWM_KEYS = {"motor_forward", "motor_reverse", "led", "servo"}
# Where the drawings put an optional pin that simulation does not place (it has no simulated part).
DRAWN_ON = {"motor_heartbeat": 26}

# GPIO 18-21 carry I2S sound (BCLK, LRCLK, DIN, DOUT): a speaker HAT or I2S amplifier of a Pi 5 or
# a Zero 2 W (neither has an analogue jack) takes them; the defaults leave them free.
I2S_NOTE = (
    "GPIO 18, 19, 20 and 21 are the I2S sound interface (clock, frame, data in, data out): a Pi 5",
    "and a Zero 2 W have no analogue audio, so launcher-voice's speaker there is an I2S HAT or",
    "amplifier on these pins, or USB. The defaults keep them free; do not move a pin onto them",
    "if the speaker is I2S.",
)

# The enable gate and the release's one-shot: one 74HC123 (dual retriggerable monostable) at 3.3 V,
# tW = K x R x C with K about 0.5 at 3.3 V (the datasheet: 0.55 at 5 V, 0.48 at 2 V). docs/build.md
# has the reasoning behind each time.
GATE_CHIP = "74HC123"
GATE = {"r": "150 kΩ", "c": "1 µF", "tw": "75 ms"}
ONE_SHOT = {"r": "56 kΩ", "c": "10 µF", "tw": "280 ms"}


@dataclass(frozen=True)
class PinRow:
    key: str
    bcm: int
    header: int
    function: str
    direction: str
    pull: str
    optional: bool


def pull_prose(config: Config, key: str) -> str:
    """The table's wording of the pull firmware.board.pins chose for an input, with the contact's rail."""
    if input_pull(config, key) == "up":
        return "internal pull-up (contact to GND)"
    return "internal pull-down (contact to 3V3)"


def pin_rows(config: Config | None = None) -> list[PinRow]:
    """One row per pin (of the defaults unless given a config); optional devices that are not
    fitted are shown on the pins that simulation gives them, or on :data:`DRAWN_ON`'s."""
    config = config if config is not None else load_config()
    placed = with_sim_devices(config)
    rows = []
    for key in PIN_KEYS:
        field = SCHEMA["pins"][key]
        bcm = getattr(placed.pins, key)
        if bcm is NOT_FITTED:
            bcm = DRAWN_ON[key]
        optional = getattr(config.pins, key) is NOT_FITTED
        if key in INPUT_KEYS:
            direction, pull = "input", pull_prose(config, key)
        else:
            direction = "output (PWM)" if key in PWM_KEYS else "output"
            pull = "none; 10 kΩ pull-down at the driver" if key in MOTOR_PIN_KEYS else "none"
        function = field.doc
        if optional:
            function = f"*optional*, not fitted by default ({key} = {bcm} to fit it): {field.doc}"
        rows.append(PinRow(key, bcm, HEADER_PINS[bcm], function, direction, pull, optional))
    return rows


def pin_label(row: PinRow) -> str:
    """How the drawings name a Pi pin; tests find every row of pins.md in the SVGs by it."""
    return f"GPIO{row.bcm} · pin {row.header}"


@dataclass(frozen=True)
class DriverPin:
    name: str  # as printed in the datasheet (breakouts mostly use the same names)
    chip_pins: str  # package pin numbers: TB6612FNG SSOP24, DRV8833 HTSSOP-16 (PWP)
    to: str  # a config key, or where the pin goes
    why: str


def driver_pins(config: Config | None = None) -> dict[str, list[DriverPin]]:
    """Every pin of both supported driver chips and what it connects to.

    Checked against Toshiba's TB6612FNG datasheet (pin table: 24 pins, every logic input with a
    200 kΩ internal pull-down; IN1/IN2/PWM truth table) and TI's DRV8833 datasheet (SLVSAR1E:
    pin table, nSLEEP with 500 kΩ to GND, IN1 = IN2 = low is coast).
    """
    config = config if config is not None else load_config()
    enable_fitted = config.pins.motor_enable is not NOT_FITTED
    stby_to = "motor_enable" if enable_fitted else "3V3"
    stby_why = (
        "high = run; 10 kΩ to GND holds standby while the Pi pin floats" if enable_fitted
        else "motor_enable is not fitted: tie to 3V3 (the input pull-downs still hold the motor off)"
    ) + f"; with the enable gate (motor_heartbeat) from the {GATE_CHIP}'s 1Q instead: heartbeat.svg"
    tb6612 = [
        DriverPin("AIN1", "21", "motor_forward", "PWM forward; 10 kΩ to GND"),
        DriverPin("AIN2", "22", "motor_reverse", "PWM reverse; 10 kΩ to GND"),
        DriverPin("PWMA", "23", "3V3", "tie high: low PWMA brakes, and its 200 kΩ pull-down makes an open PWMA low"),
        DriverPin("STBY", "19", stby_to, stby_why),
        DriverPin("VCC", "20", "3V3", "logic supply, 2.7-5.5 V"),
        DriverPin("VM", "13, 14, 24", "VM", "motor supply 4.5-13.5 V after the fuse; 100 µF + 100 nF to GND"),
        DriverPin("GND", "18", "GND", "logic ground: the common ground"),
        DriverPin("PGND1, PGND2", "3, 4, 9, 10", "GND", "power ground (breakouts join every GND pad)"),
        DriverPin("AO1", "1, 2", "motor", "motor lead 1"),
        DriverPin("AO2", "5, 6", "motor", "motor lead 2"),
        DriverPin("BIN1, BIN2, PWMB", "17, 16, 15", "open", "channel B unused: its pull-downs keep it off"),
        DriverPin("BO1, BO2", "11, 12, 7, 8", "open", "channel B outputs, unused"),
    ]
    drv8833 = [
        DriverPin("AIN1", "16", "motor_forward", "PWM forward; 10 kΩ to GND"),
        DriverPin("AIN2", "15", "motor_reverse", "PWM reverse; 10 kΩ to GND"),
        DriverPin("nSLEEP", "1", stby_to, stby_why + " (board pull-up: README)" if enable_fitted else stby_why),
        DriverPin("VM", "12", "VM", "motor supply 2.7-10.8 V after the fuse; 100 µF + 100 nF to GND"),
        DriverPin("GND", "13 + pad", "GND", "the common ground"),
        DriverPin("AISEN, BISEN", "3, 6", "GND", "no current limit (breakouts tie them to GND)"),
        DriverPin("nFAULT", "8", "open", "open-drain fault output, unused; never pull it up to VM"),
        DriverPin("VINT", "14", "board", "internal 3.3 V regulator: no load on it"),
        DriverPin("VCP", "11", "board", "charge pump, nothing else"),
        DriverPin("AOUT1", "2", "motor", "motor lead 1"),
        DriverPin("AOUT2", "4", "motor", "motor lead 2"),
        DriverPin("BIN1, BIN2", "9, 10", "open", "bridge B unused: internal pull-downs keep it off"),
        DriverPin("BOUT1, BOUT2", "7, 5", "open", "bridge B outputs, unused"),
    ]
    return {"TB6612FNG": tb6612, "DRV8833": drv8833}


def connection(pin: DriverPin, by_key: dict[str, PinRow]) -> str:
    """Where a driver pin goes, in the words of the table and the drawing."""
    row = by_key.get(pin.to)
    if row is not None:
        return f"{pin_label(row)} (`{row.key}`)"
    return {
        "3V3": f"3V3 · pin {PIN_3V3[0]}",
        "VM": "motor supply +",
        "GND": "GND",
        "motor": "motor",
        "open": "not connected",
        "board": "its capacitor on the breakout",
    }[pin.to]


def pins_markdown(rows: list[PinRow], config: Config | None = None) -> str:
    config = config if config is not None else load_config()
    by_key = {row.key: row for row in rows}
    used = {row.bcm for row in rows} | set(HAT_EEPROM_PINS)
    free = ", ".join(f"{bcm} (pin {HEADER_PINS[bcm]})" for bcm in sorted(HEADER_PINS) if bcm not in used)
    lines = [
        "<!-- Generated by wiring/generate.py from firmware/config/schema.py: edit those, not this. -->",
        "# Pin map",
        "",
        "The default `[pins]` of `/etc/card-launcher/launcher.toml`, by BCM GPIO number and",
        "physical pin of the 40-pin header. The diagrams are [wiring.svg](wiring.svg) (everything),",
        "[drivers.svg](drivers.svg) (every pin of both driver boards) and [power.svg](power.svg)",
        "(two supplies or one plug); parts and safety notes are in [README.md](README.md).",
        "",
        "| BCM | Header pin | Config key | Function | Direction | Pull |",
        "|---:|---:|---|---|---|---|",
    ]
    lines += [
        f"| {row.bcm} | {row.header} | `{row.key}` | {row.function} | {row.direction} | {row.pull} |"
        for row in rows
    ]
    lines += [
        "",
        f"`[pins] chip = {config.pins.chip}`: the GPIO chip of these lines. 0 on a Pi 3, 4 and Zero 2 W,",
        "and on a Pi 5 with kernel 6.6.45 or later; 4 on a Pi 5 with an older kernel",
        "(`gpiodetect` lists the chip whose label is `pinctrl-rp1` on a Pi 5).",
        "",
        "| Supply | Header pins | Use |",
        "|---|---|---|",
        f"| 3V3 | {', '.join(map(str, PIN_3V3))} | driver logic (TB6612FNG VCC and PWMA), break-beam |",
        f"| GND | {', '.join(map(str, PIN_GND))} | common ground with the motor supply |",
        f"| 5V | {', '.join(map(str, PIN_5V))} | the buzzer (through its transistor); never the motor or the servo: they brown the Pi out |",
        "",
        "Motor pins must not be GPIO 0-8: those are pulled up at power-on and would run the motor",
        "while the Pi boots (the configuration refuses them).",
        "",
        "`motor_heartbeat` (optional, drawn on GPIO 26) feeds the driver's enable gate, half of a",
        f"{GATE_CHIP} whose output drives STBY/nSLEEP in place of `motor_enable`",
        "([heartbeat.svg](heartbeat.svg), docs/build.md): the driver runs only while the daemon's loop",
        "toggles it. Without the gate leave it `false` and wire STBY/nSLEEP to `motor_enable`.",
        "",
        *I2S_NOTE,
        "",
        f"Free GPIOs: {free}. GPIO 0 and 1 are kept for HAT ID EEPROMs.",
    ]
    for board, pins in driver_pins(config).items():
        lines += [
            "",
            f"## {board}: every pin",
            "",
            "| Pin | Chip pin | Goes to | Why |",
            "|---|---|---|---|",
        ]
        lines += [f"| {pin.name} | {pin.chip_pins} | {connection(pin, by_key)} | {pin.why} |" for pin in pins]
    return "\n".join(lines) + "\n"


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
    terminals: tuple[tuple[str, str], ...]  # (config key or "3V3", label at the part)
    optional: bool = False


PARTS = (
    Part(
        "Motor driver",
        ("TB6612FNG or DRV8833", "every pin: drivers.svg", "L298N works but drops ~2 V"),
        (("motor_forward", "AIN1 / IN1"), ("motor_reverse", "AIN2 / IN2"),
         ("motor_enable", "STBY / nSLEEP"), ("3V3", "VCC (TB6612)"), ("3V3", "PWMA (TB6612)")),
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
    Part(
        "Driver enable gate",
        (f"{GATE_CHIP}, one half: heartbeat.svg", "its 1Q drives STBY / nSLEEP,",
         "motor_enable its 1CLR"),
        (("motor_heartbeat", "1B (pin 2)"),),
        optional=True,
    ),
    Part("Buzzer", ("active, 3-5 V: + to 5V (pin 2)", "NPN: 2N2222 or BC337"), (("chime", ""),)),
    Part("Lid switch", ("closed while the lid is shut",), (("lid", "switch"),), optional=True),
    Part("Aim servo", (), (("servo", "signal"),), optional=True),
)

# Parts in series with a signal wire, drawn on it near the part: (value, what it is).
SERIES = {"led": ("330 Ω", "LED resistor"), "chime": ("1 kΩ", "base resistor")}

ROW = 40
PI_X, PI_W = 30, 250
RAIL_3V3_X = 330
PART_X, PART_W = 540, 400
GND_X = 1140
WIDTH = 1180


def wiring_svg(rows: list[PinRow]) -> str:
    """The wiring diagram: Pi, driver, motor, supplies, sensors and outputs, common ground."""
    by_key = {row.key: row for row in rows}
    c = Canvas()

    # Motor supply: fuse in the positive lead, bulk and ceramic capacitors at the driver's VM.
    top = 200
    sx, sy = 330, 40
    c.box(sx, sy, 180, 64, "supply")
    c.text(sx + 10, sy + 22, "Motor supply", "title")
    c.text(sx + 10, sy + 40, "4 × AA or 6-9 V adapter;", "note")
    c.text(sx + 10, sy + 56, "one plug: power.svg", "note")
    c.text(sx + 186, sy + 14, "+", "title")
    c.ground(sx + 170, sy + 64)
    c.text(sx + 150, sy + 92, "−", "title")
    rail_y = sy + 20
    vm_x = PART_X + 160
    c.line([(sx + 180, rail_y), (vm_x + 200, rail_y)], "power")
    c.fuse_h(sx + 210, rail_y, "fuse 1-2 A")
    c.dot(vm_x, rail_y)
    c.line([(vm_x, rail_y), (vm_x, top)], "power")
    c.text(vm_x + 6, top - 8, "VM", "powerlabel")
    c.capacitor_to_ground(vm_x + 60, rail_y, "100 µF", polarised=True)
    c.capacitor_to_ground(vm_x + 160, rail_y, "100 nF")
    c.text(vm_x + 40, rail_y + 70, "both at the driver's VM pin", "note")
    # The servo's 5 V comes from this supply, after the fuse, through its own regulator.
    c.line([(vm_x + 200, rail_y), (vm_x + 240, rail_y)], "power")
    c.text(vm_x + 246, rail_y + 4, "VM+ (to the servo's regulator)", "powerlabel")

    y = top
    rail_bottom = top
    pi_rows: list[tuple[int, str]] = []
    for part in PARTS:
        terminal_y = [y + 28 + i * ROW for i in range(len(part.terminals))]
        height = max(len(part.terminals) * ROW + 16, 56 + 18 * len(part.notes))
        if part.title == "Aim servo":
            height = 96
        if part.title == "Buzzer":
            height = 180
        c.box(PART_X, y, PART_W, height, "part optional" if part.optional else "part")
        title = part.title + (" (optional)" if part.optional else "")
        c.text(PART_X + 150, y + 24, title, "title")
        for i, note in enumerate(part.notes):
            c.text(PART_X + 150, y + 44 + 18 * i, note, "note")
        for (key, label), ty in zip(part.terminals, terminal_y):
            if label:
                c.text(PART_X + 10, ty + 5, label, "label")
            if key == "3V3":
                c.line([(RAIL_3V3_X, ty), (PART_X, ty)], "power")
                c.dot(RAIL_3V3_X, ty)
                rail_bottom = ty
                continue
            row = by_key[key]
            pi_rows.append((ty, pin_label(row)))
            cls = "wire optional" if row.optional else "wire"
            c.line([(PI_X + PI_W, ty), (PART_X, ty)], cls)
            c.text(PI_X + PI_W + 60, ty - 6, f"{key} (GPIO{row.bcm})", "wirelabel")
            if key in MOTOR_PIN_KEYS:
                # The hardware pull-down that holds the input low while the pin floats.
                c.resistor_to_ground(PART_X - 40, ty, "10k")
            if key in SERIES:
                c.resistor_h(PART_X - 80, ty, SERIES[key][0])
        gy = y + height - 12
        c.line([(PART_X + PART_W, gy), (GND_X, gy)], "gnd")
        c.dot(GND_X, gy)
        c.text(PART_X + PART_W - 40, gy + 4, "GND", "label")
        if part.title == "Motor driver":
            # Centred between AO1 and AO2 (ROW apart), the leads meet the circle head-on.
            motor_x, motor_y = PART_X + PART_W + 110, terminal_y[0] + ROW // 2
            for ty in terminal_y[:2]:
                c.line([(PART_X + PART_W, ty), (motor_x - 22, ty)], "power")
            cap_x = PART_X + PART_W + 45
            c.dot(cap_x, terminal_y[0])
            c.dot(cap_x, terminal_y[1])
            c.line([(cap_x, terminal_y[0]), (cap_x, terminal_y[0] + 16)], "gnd")
            c.line([(cap_x - 9, terminal_y[0] + 16), (cap_x + 9, terminal_y[0] + 16)], "gnd")
            c.line([(cap_x - 9, terminal_y[0] + 24), (cap_x + 9, terminal_y[0] + 24)], "gnd")
            c.line([(cap_x, terminal_y[0] + 24), (cap_x, terminal_y[1])], "gnd")
            c.text(cap_x - 20, terminal_y[1] + 18, "100 nF at the motor", "note")
            c.body.append(f'<circle class="motor" cx="{motor_x}" cy="{motor_y}" r="26"/>')
            c.text(motor_x - 7, motor_y + 6, "M", "title")
            c.text(PART_X + PART_W - 50, terminal_y[0] + 5, "AO1", "label")
            c.text(PART_X + PART_W - 50, terminal_y[1] + 5, "AO2", "label")
            c.text(PART_X + 150, terminal_y[4] + 5, "PWMA tied high", "note")
        if part.title == "Buzzer":
            # The GPIO only drives the base: the buzzer's current comes from 5V, not the pin.
            # The buzzer hangs between the Pi's 5V and the collector (low side).
            bx, by = PART_X + 60, terminal_y[0] + 100
            c.line([(PART_X, terminal_y[0]), (bx - 30, terminal_y[0]), (bx - 30, by), (bx - 22, by)], "wire")
            c.npn(bx, by)
            c.text(bx - 26, by + 16, "B", "note")
            c.text(bx + 12, by - 14, "C", "note")
            c.text(bx + 12, by + 22, "E", "note")
            c.ground(bx + 6, by + 22, compact=True)
            buzzer_top = terminal_y[0] + 52
            c.body.append(f'<rect class="sym" x="{bx - 6:g}" y="{buzzer_top:g}" width="24" height="18"/>')
            c.text(bx - 3, buzzer_top + 13, "BZ", "note")
            c.line([(bx + 6, buzzer_top + 18), (bx + 6, by - 22)], "gnd thin")
            c.text(bx + 22, buzzer_top + 28, "−", "note")
            c.line([(bx + 6, buzzer_top), (bx + 6, buzzer_top - 8), (PART_X + 146, buzzer_top - 8)], "power")
            c.text(bx + 22, buzzer_top + 6, "+", "note")
            c.text(PART_X + 150, buzzer_top - 4, f"+5 V: the Pi's 5V, pin {PIN_5V[0]}", "powerlabel")
        if part.title == "Aim servo":
            # A 5 V regulator fed from the motor supply: the servo's stall current stays off the Pi.
            rx, ry = PART_X + 90, terminal_y[0] + 8
            c.box(rx, ry, 130, 34, "supply")
            c.text(rx + 8, ry + 15, "5 V regulator", "label")
            c.text(rx + 8, ry + 29, "(BEC or buck)", "note")
            c.line([(rx + 130, ry + 17), (rx + 170, ry + 17)], "power")
            c.text(rx + 174, ry + 21, "VM+ in (after the fuse)", "powerlabel")
            c.line([(PART_X + 50, ry + 17), (rx, ry + 17)], "power")
            c.text(PART_X + 10, ry + 21, "+5 V", "label")
        y += height + 24

    # The Pi, its pins at the height of the wires they feed.
    bottom = y
    c.box(PI_X, top - 60, PI_W, bottom - top + 40, "pi")
    c.text(PI_X + 12, top - 34, "Raspberry Pi (40-pin header)", "title")
    c.text(PI_X + 12, top - 16, "Pi 3, 4, 5, Zero 2 W; own 5 V supply", "note")
    for ty, label in pi_rows:
        c.text(PI_X + PI_W - 130, ty + 5, label, "label")
        c.dot(PI_X + PI_W, ty)
    rail_top = top + 4
    c.text(PI_X + PI_W - 130, rail_top + 5, f"3V3 · pin {PIN_3V3[0]}", "label")
    c.line([(PI_X + PI_W, rail_top), (RAIL_3V3_X, rail_top), (RAIL_3V3_X, rail_bottom)], "power")
    c.text(RAIL_3V3_X + 6, rail_top - 6, "3V3", "powerlabel")
    gnd_y = bottom - 30
    c.text(PI_X + PI_W - 130, gnd_y + 5, f"GND · pin {PIN_GND[0]}", "label")
    bus_x, bus_y = PI_X + PI_W + 20, bottom + 10
    c.line([(PI_X + PI_W, gnd_y), (bus_x, gnd_y), (bus_x, bus_y), (GND_X, bus_y), (GND_X, top + 10)], "gnd")
    c.ground(GND_X, bus_y)
    c.text(PI_X + PI_W + 40, bottom + 30, "common ground: Pi, driver, motor supply, every part", "wirelabel")
    return c.svg(WIDTH, bottom + 70, bottom + 56)


# The launch button's LED through a low-side switch: values shown in button-led.svg and why.
LED_NPN = {"part": "2N2222 or BC337", "base": "1 kΩ"}
LED_MOSFET = {"part": "AO3400 or IRLZ44N", "gate": "100 Ω", "pull": "10k"}


def _led_panel(c: Canvas, x: int, title: str, notes: list[str]) -> None:
    c.box(x, 70, 360, 390, "part")
    c.text(x + 12, 94, title, "title")
    for i, note in enumerate(notes):
        c.text(x + 12, 330 + 18 * i, note, "note")


def _led_from_supply(c: Canvas, x: float, top: float, bottom: float, supply: str) -> None:
    """The button's LED (resistor inside) from ``supply`` at the top down to ``bottom``."""
    c.line([(x, top - 40), (x, top)], "power")
    c.text(x + 8, top - 30, supply, "powerlabel")
    c.body.append(f'<rect class="sym" x="{x - 10:g}" y="{top:g}" width="20" height="30"/>')
    c.text(x + 16, top + 12, "LED +", "label")
    c.text(x + 16, top + 28, "LED −", "label")
    c.line([(x, top + 30), (x, bottom)], "gnd thin")


def button_led_svg(rows: list[PinRow]) -> str:
    """The launch button's LED three ways: from the pin, or switched low-side for 5 V and 12 V LEDs."""
    row = {r.key: r for r in rows}["led"]
    wire = f"led: GPIO{row.bcm}, pin {row.header}"
    c = Canvas()
    c.text(30, 30, "The launch button's LED: from the pin, or through a transistor for a 5 V or 12 V LED",
           "title")
    c.text(30, 50, "Most LED push buttons are sold for 5 V or 12 V with the resistor inside: a 3.3 V pin"
           " lights them dimly or not at all. The pin keeps its job (high = LED on, PWM dims it).", "note")

    # A: a 3.3 V LED straight from the pin, through 330 Ω.
    ax = 30
    _led_panel(c, ax, "A. An LED that runs on 3.3 V", [
        "forward voltage under about 2.8 V, no resistor", "inside (a bare LED, or the original's):",
        "330 Ω gives about 4 mA from the pin.", "Check with a meter's diode test."])
    wy, lx = 230, ax + 270
    c.dot(ax + 12, wy)
    c.text(ax + 12, wy + 18, wire, "wirelabel")
    c.line([(ax + 12, wy), (lx, wy), (lx, wy + 10)], "wire")
    c.resistor_h(ax + 120, wy, "330 Ω")
    c.body.append(f'<rect class="sym" x="{lx - 10:g}" y="{wy + 10:g}" width="20" height="30"/>')
    c.text(lx - 70, wy + 30, "LED", "label")
    c.line([(lx, wy + 40), (lx, wy + 60)], "gnd")
    c.ground(lx, wy + 60)

    # B: the LED between its supply and an NPN's collector (low side), base from the pin.
    bx = 420
    _led_panel(c, bx, "B. 5 V or 12 V LED: low-side NPN", [
        f"{LED_NPN['part']}; base {LED_NPN['base']}: (3.3 − 0.7) V / 1 kΩ = 2.6 mA,",
        "saturates it for an LED's 10-30 mA (to ~100 mA).",
        "The pin drives only the base; the LED's current",
        "comes from its supply. 5 V: the Pi's pin 2.",
        "12 V: a 12 V supply, its − to the common GND",
        "(on a 6-9 V motor supply a 12 V LED is dim).",
        "Never 12 V near a GPIO: only the base is wired to it."])
    nx, ny = bx + 230, 262
    _led_from_supply(c, nx + 6, 180, ny - 22, f"+5 V (pin {PIN_5V[0]}) or +12 V")
    c.dot(bx + 12, ny)
    c.text(bx + 12, ny + 18, wire, "wirelabel")
    c.line([(bx + 12, ny), (nx - 22, ny)], "wire")
    c.resistor_h(bx + 120, ny, LED_NPN["base"])
    c.npn(nx, ny)
    c.text(nx - 30, ny + 18, "B", "note")
    c.text(nx + 12, ny + 24, "E", "note")
    c.text(nx + 22, ny + 4, "NPN", "label")
    c.ground(nx + 6, ny + 22)

    # C: the same with a logic-level N-MOSFET, gate resistor and pull-down.
    mx = 810
    _led_panel(c, mx, "C. Or a logic-level N-MOSFET", [
        f"{LED_MOSFET['part']} (logic level): on at a 3.3 V gate",
        "for an LED's current. 100 Ω in the gate limits the pin's",
        "current into the gate; 10k holds the gate low while",
        "the pin floats (boot, a dead daemon): LED off.",
        "Supply as in B."])
    gx, gy = mx + 200, 262
    _led_from_supply(c, gx + 20, 180, gy - 22, f"+5 V (pin {PIN_5V[0]}) or +12 V")
    c.dot(mx + 12, gy)
    c.text(mx + 12, gy + 18, wire, "wirelabel")
    c.line([(mx + 12, gy), (gx - 6, gy)], "wire")
    c.resistor_h(mx + 110, gy, LED_MOSFET["gate"])
    c.resistor_to_ground(gx - 30, gy, LED_MOSFET["pull"])
    c.body.append(f'<rect class="sym" x="{gx - 6:g}" y="{gy - 22:g}" width="40" height="44"/>')
    c.text(gx - 2, gy + 4, "G", "note")
    c.text(gx + 24, gy - 10, "D", "note")
    c.text(gx + 24, gy + 18, "S", "note")
    c.text(gx + 40, gy + 4, "N-MOSFET", "label")
    c.line([(gx + 20, gy + 22), (gx + 20, gy + 30)], "gnd")
    c.ground(gx + 20, gy + 30)
    return c.svg(1200, 500, 486)


def drivers_svg(rows: list[PinRow], config: Config | None = None) -> str:
    """Every pin of the TB6612FNG and the DRV8833, each with the wire it takes."""
    by_key = {row.key: row for row in rows}
    c = Canvas()
    c.text(30, 30, "Motor driver: every pin of both supported chips (fit one of them)", "title")
    c.text(30, 50, "Names as in the datasheets; breakouts print the same names (a DRV8833 board may say"
           " SLP/EEP for nSLEEP, FLT/ULT for nFAULT, IN1-IN4, OUT1-OUT4).", "note")
    row_h = 40
    col_w = 600
    bottom = 0
    for n, (board, pins) in enumerate(driver_pins(config).items()):
        x0 = 30 + n * col_w
        y0 = 80
        chip_x = x0 + 300
        c.box(chip_x, y0, 150, row_h * len(pins) + 40, "part")
        c.text(chip_x + 10, y0 + 22, board, "title")
        for i, pin in enumerate(pins):
            ty = y0 + 50 + i * row_h
            c.text(chip_x + 10, ty + 4, pin.name, "label")
            where = connection(pin, by_key).replace("`", "")
            cls = {"3V3": "power", "VM": "power", "GND": "gnd", "motor": "power", "open": "gnd thin",
                   "board": "gnd thin"}.get(pin.to, "wire")
            if pin.to in ("open", "board"):
                c.line([(chip_x - 20, ty), (chip_x, ty)], cls)
                c.text(chip_x - 34, ty + 4, "×", "label")
                c.text(x0, ty + 4, where, "note")
            else:
                c.line([(x0 + 230, ty), (chip_x, ty)], cls)
                c.dot(x0 + 230, ty)
                c.text(x0, ty + 4, where, "powerlabel" if cls == "power" else "label")
                if pin.to in MOTOR_PIN_KEYS:
                    c.resistor_to_ground(x0 + 268, ty, "10k")
            c.text(chip_x + 158, ty + 4, f"{pin.chip_pins}", "note")
        bottom = max(bottom, y0 + row_h * len(pins) + 60)
    c.text(330, 72, "chip pin", "note")
    c.text(330 + col_w, 72, "chip pin", "note")
    notes = [
        "TB6612FNG: with PWM on AIN1/AIN2, PWMA must be high. Open, its internal pull-down makes it low and"
        " the chip brakes: the motor never turns.",
        "DRV8833: no logic supply pin (VINT is internal); a DRV8833 board's 'VCC' pad is often VM. nSLEEP's"
        " pull-up on the board: wiring/README.md.",
        "Every 10k pulls a Pi-driven input to GND so that a floating Pi pin (boot, crash, released line) reads"
        " low: IN1 = IN2 = low is coast, and STBY/nSLEEP low is standby.",
    ]
    for i, note in enumerate(notes):
        c.text(30, bottom + 10 + 18 * i, note, "note")
    height = bottom + 10 + 18 * len(notes) + 30
    return c.svg(2 * col_w + 30, height, height - 14)


def power_svg() -> str:
    """The two ways to power the launcher: two supplies (recommended), or one plug."""
    c = Canvas()
    c.text(30, 30, "Power: two supplies (recommended) or one plug", "title")

    # A: two supplies.
    x = 30
    c.text(x, 62, "A. Two supplies", "title")
    c.box(x, 80, 200, 56, "supply")
    c.text(x + 10, 102, "Pi's own USB-C supply", "label")
    c.text(x + 10, 122, "5 V: 3 A (Pi 4), 5 A (Pi 5)", "note")
    c.line([(x + 200, 108), (x + 370, 108)], "power")
    c.text(x + 220, 100, "USB-C", "powerlabel")
    c.box(x + 370, 80, 200, 56, "pi")
    c.text(x + 380, 102, "Raspberry Pi", "title")
    c.text(x + 380, 122, "GND pin 6 to common GND", "note")
    c.box(x, 190, 200, 56, "supply")
    c.text(x + 10, 212, "Motor supply", "label")
    c.text(x + 10, 232, "4 × AA (6 V) or 6-9 V adapter", "note")
    c.line([(x + 200, 206), (x + 370, 206)], "power")
    c.fuse_h(x + 225, 206, "fuse 1-2 A")
    c.capacitor_to_ground(x + 300, 206, "100 µF", polarised=True)
    c.box(x + 370, 190, 200, 56, "part")
    c.text(x + 380, 212, "Driver VM (+ 100 nF)", "label")
    c.text(x + 380, 232, "and the servo's 5 V regulator", "note")
    c.ground(x + 100, 246)
    c.ground(x + 470, 246)
    c.ground(x + 470, 136)
    notes_a = [
        "The motor's start and stall current never touch the Pi's 5 V:",
        "the safest choice. Join the grounds: every ground symbol is one",
        "net (Pi GND, driver GND, supply −).",
    ]
    for i, note in enumerate(notes_a):
        c.text(x, 300 + 18 * i, note, "note")

    # B: one plug, split at a star point.
    x = 620
    c.text(x, 62, "B. One plug", "title")
    c.box(x, 120, 170, 64, "supply")
    c.text(x + 10, 142, "One 5 V supply", "label")
    c.text(x + 10, 160, "5 A or more (Pi + motor", "note")
    c.text(x + 10, 176, "stall current + margin)", "note")
    star_x = x + 215
    c.line([(x + 170, 150), (star_x, 150)], "power")
    c.dot(star_x, 150)
    c.text(star_x - 30, 118, "star point", "note")
    c.text(star_x - 30, 132, "(terminal)", "note")
    c.line([(star_x, 150), (star_x, 94), (x + 420, 94)], "power")
    c.text(star_x + 14, 86, "own wire, short and thick", "powerlabel")
    c.box(x + 420, 70, 160, 48, "pi")
    c.text(x + 430, 92, "Raspberry Pi", "title")
    c.text(x + 430, 110, "via a USB-C pigtail", "note")
    c.line([(star_x, 150), (star_x, 236), (x + 420, 236)], "power")
    c.fuse_h(star_x + 20, 236, "fuse 2 A")
    diode_x = star_x + 80
    c.body.append(
        f'<polygon points="{diode_x},{228} {diode_x},{244} {diode_x + 14},{236}" fill="#fff" stroke="#222" stroke-width="2"/>'
    )
    c.line([(diode_x + 14, 226), (diode_x + 14, 246)], "gnd")
    c.text(diode_x - 12, 262, "Schottky", "note")
    c.text(diode_x - 12, 276, "(SS34)", "note")
    c.capacitor_to_ground(x + 350, 236, "1000 µF", polarised=True)
    c.box(x + 420, 212, 160, 48, "part")
    c.text(x + 430, 234, "Driver VM", "label")
    c.text(x + 430, 252, "(+ 100 µF + 100 nF)", "note")
    c.ground(x + 85, 184)
    c.ground(x + 500, 118)
    c.ground(x + 500, 260)
    notes_b = [
        "Keeping the Pi from browning out when the motor starts:",
        "• the supply carries the Pi and the motor's stall current at once;",
        "• the split is at the supply (star), never through the Pi's 5 V pins;",
        "• the 1000 µF covers the PWM edges; the spin-up itself comes from",
        "the supply, so a lower kick_duty (0.8) or kick_ms = 0 helps;",
        "• the diode keeps the motor's braking energy off the Pi's rail;",
        "• the servo (if fitted) takes its own wire from the star point;",
        "• check: vcgencmd get_throttled says throttled=0x0 after 50 launches.",
    ]
    for i, note in enumerate(notes_b):
        c.text(x, 300 + 18 * i, note, "note")
    height = 300 + 18 * len(notes_b) + 40
    return c.svg(1220, height, height - 14)


# ---- the hardware gates: the driver's enable and the release's one-shot ------------------------


def _gate_half(c: Canvas, y: int, half: int, inputs: list[tuple[str, str, str]], output: tuple[str, str],
               timing: dict[str, str], notes: list[str]) -> int:
    """One half of the 74HC123, its Pi wires on the left, its output on the right; the next free y.

    ``inputs``: (Pi pin label, wire label, chip pins) of each input wire; ``output``: (the chip's
    output pin, where it goes)."""
    chip_x, chip_w = 560, 280
    height = 70 + 40 * len(inputs) + 60
    c.box(chip_x, y, chip_w, height, "part")
    c.text(chip_x + 10, y + 22, f"{GATE_CHIP} (half {half})", "title")
    c.text(chip_x + 10, y + 40, "VCC pin 16 to 3V3 (100 nF to GND), GND pin 8", "note")
    ty = y + 70
    for pi_label, wire, chip_pins in inputs:
        c.text(PI_X + PI_W - 130, ty + 5, pi_label, "label")
        c.dot(PI_X + PI_W, ty)
        c.line([(PI_X + PI_W, ty), (chip_x, ty)], "wire")
        c.text(PI_X + PI_W + 20, ty - 6, wire, "wirelabel")
        c.resistor_to_ground(chip_x - 60, ty, "10k")
        c.text(chip_x + 10, ty + 5, chip_pins, "label")
        ty += 40
    c.text(chip_x + 10, ty + 5, f"{half}A (pin {1 if half == 1 else 9}) to GND", "label")
    c.ground(chip_x - 20, ty)
    c.line([(chip_x - 20, ty), (chip_x, ty)], "gnd")
    out_y = y + 70
    pin, goes_to = output
    c.text(chip_x + chip_w - 90, out_y + 5, pin, "label")
    c.line([(chip_x + chip_w, out_y), (chip_x + chip_w + 300, out_y)], "wire")
    c.resistor_to_ground(chip_x + chip_w + 260, out_y, "10k")
    c.text(chip_x + chip_w + 20, out_y - 8, goes_to, "wirelabel")
    # The timing parts: R from 3V3 to Rext/Cext, C between Cext and Rext/Cext.
    rc_y = out_y + 50
    rext, cext = (15, 14) if half == 1 else (7, 6)
    c.text(chip_x + chip_w + 20, rc_y, f"R {timing['r']}: 3V3 to pin {rext} (Rext/Cext)", "label")
    c.text(chip_x + chip_w + 20, rc_y + 18, f"C {timing['c']}: pin {cext} (Cext) to pin {rext}", "label")
    c.text(chip_x + chip_w + 20, rc_y + 36,
           f"tW = 0.5 × {timing['r']} × {timing['c']} ≈ {timing['tw']}", "title")
    bottom = y + height
    for i, note in enumerate(notes):
        c.text(PI_X, bottom + 22 + 18 * i, note, "note")
    return bottom + 22 + 18 * len(notes) + 20


def gate_svg(rows: list[PinRow], blaster: list[PinRow]) -> str:
    """The driver's enable gate fed by the heartbeat, and the blaster's one-shot on its release."""
    by_key = {row.key: row for row in rows}
    actuator = next(row for row in blaster if row.key == "[blaster] actuator")
    c = Canvas()
    c.text(PI_X, 30, f"Hardware gates: one {GATE_CHIP} (dual retriggerable monostable) at 3.3 V;"
           " parts, times and why: docs/build.md", "title")
    c.text(PI_X, 50, "Each holds its output high only for tW after a rising edge of its input, so nothing"
           " the Pi leaves behind", "note")
    c.text(PI_X, 66, "(a stalled loop, a kill, a frozen kernel, a dead Pi, a pin stuck high or low) keeps it"
           " on.", "note")
    heartbeat, enable = by_key["motor_heartbeat"], by_key["motor_enable"]
    c.text(PI_X, 90, "Launcher: the driver's enable (optional, [pins] motor_heartbeat)", "title")
    y = _gate_half(
        c, 110, 1,
        [(pin_label(heartbeat), "motor_heartbeat (toggles)", "1B (pin 2)"),
         (pin_label(enable), "motor_enable (or 3V3 if not fitted)", "1CLR (pin 3)")],
        ("1Q (pin 13)", "to the driver's STBY / nSLEEP (not motor_enable)"), GATE,
        ["A rising edge every 20 ms keeps 1Q high; none for 75 ms and the driver goes to standby: within"
         " 100 ms of a stall, a freeze or a dead Pi. Still and low while the motor is off.",
         "motor_enable low clears 1Q at once (the launcher asleep or halted). The DRV8833 board's own"
         " pull-up on nSLEEP, if stiff, must go (wiring/README.md)."])
    c.text(PI_X, y + 10, "Card blaster: the release's one-shot", "title")
    y = _gate_half(
        c, y + 30, 2,
        [(pin_label(actuator), "[blaster] actuator", "2B + 2CLR (pins 10, 11)")],
        ("2Q (pin 5)", "100 Ω to the release MOSFET's gate"), ONE_SHOT,
        ["The pin rising starts 2Q for at most 280 ms (between pulse_ms, 150, and max_on_ms, 500); the pin"
         " falling ends it at once (2CLR). A pin left high cannot keep the solenoid on.",
         "A new pulse needs the pin low first: the daemon rests rest_ms between pulses."])
    return c.svg(WIDTH, y + 30, y + 16)


# ---- the card blaster ([device] kind = "blaster") ---------------------------------------------

# What each of the blaster's pins drives or reads, in the table's words.
BLASTER_KEYS = {"actuator": "[blaster] actuator", "led": "[pins] led", "chime": "[pins] chime"}
BLASTER_FUNCTIONS = {
    "actuator": (f"release: through the one-shot ({GATE_CHIP} half 2, at most {ONE_SHOT['tw']} on: heartbeat.svg)"
                 " to a logic-level N-MOSFET gate (100 Ω in series, 10 kΩ to GND); high fires the blast"),
    "led": "button LED (PWM), as on the launcher",
    "chime": "active buzzer, as on the launcher",
}


def blaster_config(config: Config | None = None) -> Config:
    """The defaults (or ``config``) as a blaster."""
    return (config if config is not None else load_config()).replace("device", kind="blaster")


def blaster_rows(config: Config | None = None) -> list[PinRow]:
    """One row per pin of the blaster, from firmware.blaster.hardware.describe_pins (what it builds)."""
    from firmware.blaster.hardware import describe_pins  # gpiozero: only for the blaster's rows

    config = blaster_config(config)
    rows = []
    for pin in describe_pins(config):
        function = pin["function"]
        if function.startswith("slot "):
            key = f"[blaster] slot_pins ({function})"
            what = (f"{function} card sensor: a microswitch closed by the card, or an optical sensor's"
                    " open collector")
            pull = pull_prose(config, "slot")
        else:
            key, what, pull = BLASTER_KEYS[function], BLASTER_FUNCTIONS[function], "none"
        direction = "input" if pin["direction"] == "in" else ("output (PWM)" if function == "led" else "output")
        rows.append(PinRow(key, pin["bcm"], HEADER_PINS[pin["bcm"]], what, direction, pull, False))
    return rows


def blaster_pins_markdown(rows: list[PinRow]) -> str:
    used = {row.bcm for row in rows} | set(HAT_EEPROM_PINS)
    free = ", ".join(f"{bcm} (pin {HEADER_PINS[bcm]})" for bcm in sorted(HEADER_PINS) if bcm not in used)
    lines = [
        "<!-- Generated by wiring/generate.py from firmware/config/schema.py: edit those, not this. -->",
        "# Pin map of the card blaster",
        "",
        'With `[device] kind = "blaster"` launcherd drives the card blaster of UNO Blast instead of the',
        "launcher: the launcher's motor, button and beam are not built, and their GPIOs are free. These",
        "are the default `[blaster]` and the `[pins]` it shares with the launcher; the diagram is",
        "[wiring-blaster.svg](wiring-blaster.svg), the launcher's map [pins.md](pins.md).",
        "",
        "| BCM | Header pin | Config key | Function | Direction | Pull |",
        "|---:|---:|---|---|---|---|",
    ]
    lines += [f"| {row.bcm} | {row.header} | `{row.key}` | {row.function} | {row.direction} | {row.pull} |"
              for row in rows]
    lines += [
        "",
        "The release: a logic-level N-MOSFET (e.g. IRLZ44N, AO3400) switches the solenoid (or small motor)",
        "between its own supply's + and the drain; the source to the common ground; a flyback diode",
        "(1N4007, or a Schottky) across the solenoid, cathode to +. The 10 kΩ from gate to GND keeps the",
        "release off while the Pi boots or the daemon is dead; the actuator must not be GPIO 0-8, which",
        "are pulled up at power-on (the configuration refuses them).",
        "",
        f"The one-shot: half of a {GATE_CHIP} between the actuator pin and the gate resistor",
        f"([heartbeat.svg](heartbeat.svg)). The pin rising turns the gate on for at most {ONE_SHOT['tw']}",
        f"({ONE_SHOT['r']} × {ONE_SHOT['c']}), the pin falling turns it off at once. The daemon times each pulse",
        "(`pulse_ms`, never past `max_on_ms`) in a thread of its own process, which a kill or a frozen",
        "kernel stops with the pin high, and a Pi keeps a released pin at its last level: only the",
        "one-shot ends that pulse, and safe-off (`ExecStopPost=`) then drives the pin low.",
        "",
        *I2S_NOTE,
        "",
        "A broken sensor wire reads as an empty slot (the internal pull holds that level).",
        "",
        f"Free GPIOs: {free}. GPIO 0 and 1 are kept for HAT ID EEPROMs.",
    ]
    return "\n".join(lines) + "\n"


def blaster_wiring_svg(rows: list[PinRow]) -> str:
    """The blaster's diagram: Pi, one sensor per slot, the release MOSFET and solenoid, LED, buzzer."""
    c = Canvas()
    top = 120
    c.text(PI_X, 30, "Card blaster ([device] kind = \"blaster\")", "title")
    c.text(PI_X, 50, "The launcher's motor, driver, beam and button are not fitted; the LED and the buzzer"
           " are wired as on the launcher (wiring.svg).", "note")
    y = top
    pi_rows: list[tuple[int, str]] = []
    for row in rows:
        ty = y + 28
        function = row.key.removeprefix("[blaster] ").removeprefix("[pins] ")
        is_slot = row.key.startswith("[blaster] slot_pins")
        height = 66
        if row.key == "[blaster] actuator":
            height = 160
        elif row.key == "[pins] chime":
            height = 96
        c.box(PART_X, y, PART_W, height, "part")
        pi_rows.append((ty, pin_label(row)))
        c.line([(PI_X + PI_W, ty), (PART_X, ty)], "wire")
        if row.key == "[blaster] actuator":
            # The one-shot between the pin and the gate ends a pulse without the daemon.
            c.text(PI_X + PI_W + 20, ty - 18, f"{function} (GPIO{row.bcm})", "wirelabel")
            c.box(PI_X + PI_W + 30, ty - 12, 90, 24, "part")
            c.text(PI_X + PI_W + 36, ty + 4, f"{GATE_CHIP} 2B", "label")
            c.text(PI_X + PI_W + 20, ty + 30, f"one-shot: 2Q on at most {ONE_SHOT['tw']}", "note")
            c.text(PI_X + PI_W + 20, ty + 46, "(heartbeat.svg)", "note")
        else:
            c.text(PI_X + PI_W + 20, ty - 6, f"{function} (GPIO{row.bcm})", "wirelabel")
        if is_slot:
            slot = function.removeprefix("slot_pins (").removesuffix(")")
            c.text(PART_X + 150, y + 24, f"{slot.capitalize()} card sensor", "title")
            c.text(PART_X + 150, y + 44, "contact to GND, closed by the card" if row.pull.startswith("internal pull-up")
                   else "contact to 3V3, closed by the card", "note")
            c.text(PART_X + 10, ty + 5, "switch", "label")
        elif row.key == "[blaster] actuator":
            c.text(PART_X + 150, y + 24, "Release (solenoid)", "title")
            c.text(PART_X + 150, y + 44, "logic-level N-MOSFET: IRLZ44N, AO3400", "note")
            c.text(PART_X + 150, y + 62, "solenoid between V+ and drain", "note")
            c.text(PART_X + 150, y + 80, "flyback diode 1N4007 across it", "note")
            c.text(PART_X + 150, y + 98, "own supply: never the Pi's 5 V", "note")
            c.text(PART_X + 150, y + 116, "gate from the one-shot's 2Q:", "note")
            c.text(PART_X + 150, y + 134, "a pin left high cannot hold it on", "note")
            c.text(PART_X + 10, ty + 5, "gate", "label")
            # The pull-down at the gate, after the series resistor: it holds the gate low on its own.
            c.resistor_h(PART_X - 130, ty, "100 Ω")
            c.resistor_to_ground(PART_X - 40, ty, "10k")
            c.text(PART_X + 10, ty + 60, "drain: solenoid −", "label")
            c.text(PART_X + 10, ty + 80, "source: GND", "label")
        elif row.key == "[pins] led":
            c.text(PART_X + 150, y + 24, "Button LED", "title")
            c.text(PART_X + 150, y + 44, "LED − to GND", "note")
            c.text(PART_X + 10, ty + 5, "LED +", "label")
            c.resistor_h(PART_X - 80, ty, "330 Ω")
        else:
            c.text(PART_X + 150, y + 24, "Buzzer", "title")
            c.text(PART_X + 150, y + 44, "active, 3-5 V: + to 5V (pin 2)", "note")
            c.text(PART_X + 150, y + 62, "NPN: 2N2222 or BC337", "note")
            c.resistor_h(PART_X - 80, ty, "1 kΩ")
        gy = y + height - 12
        c.line([(PART_X + PART_W, gy), (GND_X, gy)], "gnd")
        c.dot(GND_X, gy)
        c.text(PART_X + PART_W - 40, gy + 4, "GND", "label")
        y += height + 24
    bottom = y
    c.box(PI_X, top - 40, PI_W, bottom - top + 20, "pi")
    c.text(PI_X + 12, top - 16, "Raspberry Pi (40-pin header)", "title")
    for ty, label in pi_rows:
        c.text(PI_X + PI_W - 130, ty + 5, label, "label")
        c.dot(PI_X + PI_W, ty)
    gnd_y = bottom - 30
    c.text(PI_X + PI_W - 130, gnd_y + 5, f"GND · pin {PIN_GND[0]}", "label")
    bus_x, bus_y = PI_X + PI_W + 20, bottom + 10
    c.line([(PI_X + PI_W, gnd_y), (bus_x, gnd_y), (bus_x, bus_y), (GND_X, bus_y), (GND_X, top + 10)], "gnd")
    c.ground(GND_X, bus_y)
    c.text(PI_X + PI_W + 40, bottom + 30, "common ground: Pi, release supply, every part", "wirelabel")
    return c.svg(WIDTH, bottom + 70, bottom + 56)


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
