"""The pin map as rows and tables: every GPIO the firmware uses, the driver boards pin by pin, the header's
power pins and the gate's parts, from firmware/config/schema.py's defaults."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from firmware.config import MOTOR_PIN_KEYS, NOT_FITTED, PIN_KEYS, SCHEMA, Config, load_config, with_sim_devices
from firmware.board.pins import HEADER_PINS, INPUT_KEYS, input_pull
from firmware.config.fields import toml_text


HERE = Path(__file__).resolve().parent

# The launcher's inputs that take an external pull-up to 3V3 at the Pi beside the internal one:
# the Pi's (about 50 kΩ) picks up a brushed motor's noise on a long wire (wiring/README.md).
EXTERNAL_PULL_UP_KEYS = ("button", "beam", "lid")
EXTERNAL_PULL_UP_PROSE = "4.7 kΩ"

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

# The enable gate and the release's one-shot: one 74HC123 (dual retriggerable monostable) at 3.3 V.
# NXP's datasheet: tW = K × R_ext × C_ext for C_ext above 10 nF, K 0.55 at 5 V and 0.48 at 2 V (1998)
# or 0.45 at 5 V and 0.55 at 2 V (2015): K 0.45-0.55 at 3.3 V, 0.5 in the middle. The 74AHC123A and
# 74LV123A have K = 1 (TI: for C_ext of 1 nF or more): twice the time. docs/build.md has the why.
GATE_CHIP = "74HC123"
# Where the gate's first half drives the driver's STBY/nSLEEP.
GATE_OUTPUT = f"{GATE_CHIP} 1Q (pin 13)"
K_TYPICAL, K_RANGE = 0.5, (0.45, 0.55)
# The parts' tolerances: a 1 % metal-film resistor, a ±5 % film capacitor. A ceramic's usual ±10 %
# (before its DC-bias loss) would take the gate out of its window: docs/build.md.
R_TOLERANCE, C_TOLERANCE = 0.01, 0.05


def monostable(ohms: float, farads: float, capacitor: str) -> dict[str, str]:
    """The drawn values and times of one half: tW at K 0.5, and its range over K and the tolerances."""
    def ms(k: float, r_factor: float, c_factor: float) -> float:
        return k * ohms * r_factor * farads * c_factor * 1000

    low = ms(K_RANGE[0], 1 - R_TOLERANCE, 1 - C_TOLERANCE)
    high = ms(K_RANGE[1], 1 + R_TOLERANCE, 1 + C_TOLERANCE)
    micro = f"{farads * 1e6:g}"
    return {"r": f"{ohms / 1000:g} kΩ", "c": f"{micro} µF {capacitor}", "c_value": f"{micro} µF",
            "tw": f"{ms(K_TYPICAL, 1, 1):.0f} ms", "range": f"{low:.0f}-{high:.0f} ms", "max": f"{high:.0f} ms"}


# The timing capacitor's clamp: a Schottky, whose forward drop (about 0.3 V at a few mA) stays below
# the chip's own protection diode's, so that it, not the chip, carries the capacitor's discharge.
CLAMP_DIODE = "BAT85 (Schottky)"

GATE = monostable(220e3, 1e-6, "film ±5 %")
ONE_SHOT = monostable(270e3, 2.2e-6, "film ±5 %")


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
    # In the standard build the heartbeat and motor_enable go to the enable gate's 1B and 1CLR.
    at_gate = ("motor_heartbeat", "motor_enable") if config.pins.motor_heartbeat is not NOT_FITTED else ()
    rows = []
    for key in PIN_KEYS:
        field = SCHEMA["pins"][key]
        bcm = getattr(placed.pins, key)
        if bcm is NOT_FITTED:
            bcm = DRAWN_ON[key]
        optional = getattr(config.pins, key) is NOT_FITTED
        if key in INPUT_KEYS:
            direction, pull = "input", pull_prose(config, key)
            if key in EXTERNAL_PULL_UP_KEYS and input_pull(config, key) == "up":
                pull += f"; {EXTERNAL_PULL_UP_PROSE} to 3V3 at the Pi"
        else:
            direction = "output (PWM)" if key in PWM_KEYS else "output"
            where = "the gate" if key in at_gate else "the driver"
            pull = f"none; 10 kΩ pull-down at {where}" if key in MOTOR_PIN_KEYS else "none"
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
    if config.pins.motor_heartbeat is not NOT_FITTED:
        # The standard build: the enable gate between the Pi and the driver (docs/build.md).
        stby_to = "gate"
        stby_why = (
            "high = run, only while the heartbeat toggles and "
            + ("motor_enable (1CLR) is high" if enable_fitted else "1CLR is tied to 3V3")
            + "; 10 kΩ to GND holds standby while 1Q is low or unpowered: heartbeat.svg"
            "; without the gate (motor_heartbeat = false) from motor_enable instead"
        )
    else:
        stby_to = "motor_enable" if enable_fitted else "3V3"
        stby_why = (
            "high = run; 10 kΩ to GND holds standby while the Pi pin floats" if enable_fitted
            else "motor_enable is not fitted: tie to 3V3 (the input pull-downs still hold the motor off)"
        ) + "; no enable gate (motor_heartbeat = false): a frozen Pi leaves the driver enabled"
    pulled_up_board = stby_to != "3V3"  # a DRV8833 board's own pull-up fights a driven nSLEEP
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
        DriverPin("nSLEEP", "1", stby_to, stby_why + " (board pull-up: README)" if pulled_up_board else stby_why),
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
        "gate": GATE_OUTPUT,
        "VM": "motor supply +",
        "GND": "GND",
        "motor": "motor",
        "open": "not connected",
        "board": "its capacitor on the breakout",
    }[pin.to]


def gate_note(config: Config) -> list[str]:
    """pins.md's paragraph on the enable gate, in the standard build or in one without it."""
    if config.pins.motor_heartbeat is NOT_FITTED:
        return [
            "This build has no enable gate (`motor_heartbeat = false`): STBY/nSLEEP is wired to",
            "`motor_enable` directly. The standard build puts half of a",
            f"{GATE_CHIP} between them, fed by `motor_heartbeat` ([heartbeat.svg](heartbeat.svg), docs/build.md);",
            "without it a frozen kernel with the motor on leaves it on until the watchdog resets the Pi.",
        ]
    return [
        f"`motor_heartbeat` feeds the driver's enable gate, part of the standard build: half of a {GATE_CHIP}",
        "(heartbeat to 1B, `motor_enable` to 1CLR, 1A to GND) whose 1Q drives STBY/nSLEEP",
        "([heartbeat.svg](heartbeat.svg), docs/build.md): the driver runs only while the daemon's loop",
        "toggles the heartbeat. A build without the gate sets `motor_heartbeat = false` and wires",
        "STBY/nSLEEP to `motor_enable` directly; a frozen kernel with the motor on then leaves it on",
        "until the watchdog resets the Pi (10 s).",
    ]


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
        f"`[pins] chip = {toml_text(config.pins.chip)}`: the GPIO chip of these lines, found by its label:"
        " `pinctrl-rp1` on a Pi 5",
        "(gpiochip0 with kernel 6.6.45 or later, gpiochip4 before), `pinctrl-bcm2711` on a Pi 4, `pinctrl-bcm2835`",
        "on a Pi 3 and Zero 2 W (`gpiodetect` lists them). A number is used only if that chip has the Pi's label.",
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
        *gate_note(config),
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
