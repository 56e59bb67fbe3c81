"""The launcher's drawings: the wiring diagram, the button's LED, the driver boards, power, and the
heartbeat gate."""

from __future__ import annotations

from firmware.config import MOTOR_PIN_KEYS, Config

from drawing import (Canvas, EXTERNAL_PULL_UP, EXTERNAL_PULL_UP_KEYS, GATE_NET, GND_X, PART_W, PART_X, PI_W, PI_X,
                     RAIL_3V3_X, RAIL_SERIES, ROW, SERIES, WIDTH, parts)
from pin_tables import CLAMP_DIODE, GATE, GATE_CHIP, ONE_SHOT, PIN_3V3, PIN_5V, PIN_GND, PinRow, connection, driver_pins, pin_label


def wiring_svg(rows: list[PinRow]) -> str:
    """The wiring diagram: Pi, driver, enable gate, motor, supplies, sensors and outputs, common ground.

    The enable gate is drawn in the build, between the heartbeat and the driver's STBY/nSLEEP, unless
    ``motor_heartbeat`` is not fitted (``false``): STBY/nSLEEP then comes from ``motor_enable``."""
    by_key = {row.key: row for row in rows}
    gated = not by_key["motor_heartbeat"].optional
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
    gate_net: list[int] = []  # the heights of the gate's 1Q and of the driver's STBY/nSLEEP
    for part in parts(gated):
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
            c.text(PART_X + part.notes_x, y + 44 + 18 * i, note, "note")
        for (key, label), ty in zip(part.terminals, terminal_y):
            if label:
                c.text(PART_X + 10, ty + 5, label, "label")
            if key == "3V3":
                c.line([(RAIL_3V3_X, ty), (PART_X, ty)], "power")
                c.dot(RAIL_3V3_X, ty)
                if label in RAIL_SERIES:
                    c.resistor_h(PART_X - 80, ty, RAIL_SERIES[label])
                rail_bottom = ty
                continue
            if key == "GND":
                c.line([(PART_X - 20, ty), (PART_X, ty)], "gnd")
                c.ground(PART_X - 20, ty)
                continue
            if key == GATE_NET:
                gate_net.append(ty)
                continue
            row = by_key[key]
            pi_rows.append((ty, pin_label(row)))
            cls = "wire optional" if row.optional else "wire"
            c.line([(PI_X + PI_W, ty), (PART_X, ty)], cls)
            c.text(PI_X + PI_W + 60, ty - 6, f"{key} (GPIO{row.bcm})", "wirelabel")
            if key in MOTOR_PIN_KEYS:
                # The hardware pull-down that holds the input low while the pin floats.
                c.resistor_to_ground(PART_X - 40, ty, "10k")
            if key in EXTERNAL_PULL_UP_KEYS and row.pull.startswith("internal pull-up"):
                c.resistor_to_rail(PART_X - 40, ty, EXTERNAL_PULL_UP)
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
            pwma = [label for _, label in part.terminals].index("PWMA (TB6612)")
            c.text(PART_X + 150, terminal_y[pwma] + 5, "PWMA tied high", "note")
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
            c.text(rx + 8, ry + 29, "(buck from 6-9 V; buck-boost from 3 C cells)", "note")
            c.line([(rx + 130, ry + 17), (rx + 170, ry + 17)], "power")
            c.text(rx + 174, ry + 21, "VM+ in (after the fuse)", "powerlabel")
            c.line([(PART_X + 50, ry + 17), (rx, ry + 17)], "power")
            c.text(PART_X + 10, ry + 21, "+5 V", "label")
        y += height + 24

    if gate_net:
        # The gate's 1Q (the upper part's terminal is the driver's STBY/nSLEEP) up to the driver, with
        # the 10 kΩ that holds STBY/nSLEEP low while 1Q is cleared or the chip unpowered.
        stby_y, q_y = sorted(gate_net)
        net_x = PART_X - 70
        c.line([(PART_X, q_y), (net_x, q_y), (net_x, stby_y), (PART_X, stby_y)], "wire")
        c.resistor_to_ground(PART_X - 20, stby_y, "10k")
        c.text(net_x - 70, (stby_y + q_y) / 2 + 4, "1Q to STBY", "wirelabel")

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
# Specified on at VGS 2.5 V (RDS(on) in the datasheet); the IRLZ44N is specified only from 4 V.
LED_MOSFET = {"part": "AO3400A or IRLML6344", "gate": "100 Ω", "pull": "10k"}


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
                if pin.to in MOTOR_PIN_KEYS or pin.to == "gate":  # the gate's 1Q takes its 10 kΩ at STBY/nSLEEP
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
    c.text(x + 430, 234, "Driver VM: DRV8833 only", "label")
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
        "• a DRV8833 (VM from 2.7 V): 5 V less the diode and the start's dip is",
        "  below the TB6612FNG's 4.5 V minimum;",
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
    c.text(chip_x + 10, y + 40, "74HC only (not AHC/LV/HCT); VCC pin 16 to 3V3 (100 nF to GND), GND pin 8", "note")
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
           f"tW = 0.5 × {timing['r']} × {timing['c_value']} ≈ {timing['tw']} ({timing['range']})", "title")
    c.text(chip_x + chip_w + 20, rc_y + 54, f"{CLAMP_DIODE}: pin {rext} (anode) to VCC pin 16 (clamp)", "label")
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
    c.text(PI_X, 90, "Launcher: the driver's enable ([pins] motor_heartbeat; part of the build)", "title")
    y = _gate_half(
        c, 110, 1,
        [(pin_label(heartbeat), "motor_heartbeat (toggles)", "1B (pin 2)"),
         (pin_label(enable), "motor_enable (or 3V3 if not fitted)", "1CLR (pin 3)")],
        ("1Q (pin 13)", "to the driver's STBY / nSLEEP (not motor_enable)"), GATE,
        ["A rising edge every 20 ms keeps 1Q high through 70 ms of loop lateness; none for"
         f" {GATE['range']} and the"
         " driver goes to standby: a stall, a freeze or a dead Pi. Still and low while the motor is off.",
         "motor_enable low clears 1Q at once (the launcher asleep or halted). The DRV8833 board's own"
         " pull-up on nSLEEP, if stiff, must go (wiring/README.md).",
         "Launcher: the unused half 2 tied off: 2A (pin 9) to 3V3, 2B and 2CLR (pins 10, 11) to GND."])
    c.text(PI_X, y + 10, "Card blaster: the release's one-shot", "title")
    y = _gate_half(
        c, y + 30, 2,
        [(pin_label(actuator), "[blaster] actuator", "2B + 2CLR (pins 10, 11)")],
        ("2Q (pin 5)", "100 Ω to the release MOSFET's gate"), ONE_SHOT,
        [f"The pin rising starts 2Q for {ONE_SHOT['range']} (between pulse_ms, 150, and max_on_ms, 500); the pin"
         " falling ends it at once (2CLR). A pin left high cannot keep the solenoid on.",
         "A new pulse needs the pin low first: the daemon rests rest_ms between pulses.",
         "Blaster: the unused half 1 tied off: 1A (pin 1) to 3V3, 1B and 1CLR (pins 2, 3) to GND."])
    return c.svg(WIDTH, y + 30, y + 16)


# ---- the card blaster ([device] kind = "blaster") ---------------------------------------------
