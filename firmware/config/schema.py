"""The schema: every section and key of the configuration file, with its default, limits and doc.

Every key has a built-in default, so an empty file (or none) is a valid configuration.
"""

from __future__ import annotations

from pathlib import Path

from firmware.blaster.policy import PROFILE_NAMES as BLAST_PROFILE_NAMES
from firmware.config.fields import Field, optional_pin_field, pin_field
from firmware.i18n import LANGUAGES
from firmware.launcher.ejection import PROFILE_NAMES

DEFAULT_PATH = Path("/etc/card-launcher/launcher.toml")

# Outputs that must stay quiet while the Pi boots: on GPIO 0-8 the buzzer would sound and the servo
# jump to an end stop from power-on until launcherd claims them.
QUIET_AT_BOOT_PIN_KEYS = ("chime", "servo")
# Every pin of the motor driver: safe-off drives them low, config.txt holds them low from boot, and
# none may be on a pin that is high while the Pi boots.
MOTOR_PIN_KEYS = ("motor_forward", "motor_reverse", "motor_enable", "motor_heartbeat")
LEVELS = ("low", "high")
DEVICE_KINDS = ("launcher", "blaster")
# [daemon] language: a language of firmware.i18n, or "" to follow the locale.
DAEMON_LANGUAGES = ("", *LANGUAGES)
# [pins] keys a blaster uses besides its own section (the launcher's motor, button and beam are
# not built for a blaster, so their GPIOs are free).
BLASTER_SHARED_PIN_KEYS = ("led", "chime")


SCHEMA: dict[str, dict[str, Field]] = {
    "pins": {
        "motor_forward": pin_field(12, "motor driver input 1 (AIN1/IN1), PWM: feeds cards out"),
        "motor_reverse": pin_field(13, "motor driver input 2 (AIN2/IN2), PWM: the retraction pulse"),
        "motor_enable": optional_pin_field(
            16, "driver enable, high = enabled: to the enable gate's 1CLR, or to STBY/nSLEEP directly in a"
            " build without the gate"),
        "motor_heartbeat": optional_pin_field(
            26, "heartbeat to the driver's enable gate (a retriggerable monostable on STBY/nSLEEP,"
            " part of the standard build, docs/build.md): toggled by the motor's loop only while the"
            " motor runs, so that a stalled daemon, a frozen kernel or a dead Pi disables the driver;"
            " false for a build without the gate, STBY/nSLEEP then wired to motor_enable"),
        "button": pin_field(17, "launch button (to ground, internal pull-up)"),
        "beam": pin_field(27, "break-beam receiver at the exit slot"),
        "lid": optional_pin_field(None, "hopper lid switch"),
        "led": pin_field(23, "button LED (PWM)"),
        "chime": pin_field(24, "active buzzer"),
        "servo": optional_pin_field(None, "aim servo signal"),
        "chip": Field(
            "chip", "auto",
            "GPIO chip of the header's pins (lgpio): \"auto\" finds it by its label (pinctrl-rp1 on a"
            " Pi 5, pinctrl-bcm2711 on a Pi 4, pinctrl-bcm2835 on older Pis and the Zero 2 W); a"
            " number is used only if that chip has this Pi's label", 0, 63),
    },
    "motor": {
        "duty": Field("float", 0.7, "running duty cycle", 0.05, 1.0),
        "kick_duty": Field("float", 1.0, "duty of the start-up kick", 0.05, 1.0),
        "kick_ms": Field("int", 80, "length of the start-up kick", 0, 1000),
        "kick_below": Field("float", 0.6, "a kick is given when duty is below this", 0.0, 1.0),
        "retract_duty": Field("float", 0.5, "duty of the reverse pulse after a burst", 0.05, 1.0),
        "retract_ms": Field("int", 60, "length of the reverse pulse; 0 disables it", 0, 1000),
        "dead_time_ms": Field(
            "int", 30, "the motor coasts this long before it reverses: no current spike through the"
            " driver, no shock on the gears", 0, 500),
        "pwm_frequency": Field("int", 1000, "PWM frequency in Hz", 50, 20000),
    },
    "sensor": {
        "button_active": Field("str", "low", "level of the button pin when pressed", choices=LEVELS),
        "beam_blocked": Field("str", "low", "level of the beam pin when a card blocks it", choices=LEVELS),
        "lid_open": Field("str", "high", "level of the lid pin when the lid is open", choices=LEVELS),
        "blind_runs": Field(
            "int", 4, "motor runs in a row that see no card while the hopper should hold some: the"
            " beam is taken for disconnected and the launcher halts", 1, 20),
    },
    "timing": {
        "button_debounce_ms": Field("int", 20, "the button must be stable this long", 1, 500),
        "beam_filter_ms": Field("int", 2, "shorter beam interruptions are glitches", 0, 100),
        "card_crossing_ms": Field("int", 40, "longest normal time a card blocks the beam", 1, 2000),
        "jam_ms": Field("int", 400, "a card blocking the beam this long is stuck", 1, 10000),
        "feed_timeout_ms": Field("int", 1500, "motor on and no card for this long: hopper empty", 50, 30000),
        "launch_timeout_ms": Field("int", 10000, "longest a single launch may run the motor", 100, 120000),
        "max_on_ms": Field(
            "int", 20000, "most motor on-time in one chain of runs (runs apart by less than"
            " motor_rest_ms are one chain; reverse pulses count)", 100, 120000),
        "motor_rest_ms": Field(
            "int", 3000, "motor off this long ends a chain of runs; a request after a chain has used"
            " max_on_ms is refused until then", 100, 600000),
        "duty_window_s": Field("int", 60, "the window of the duty limit", 1, 3600),
        "max_duty": Field(
            "float", 0.5, "most share of any duty_window_s the motor may be on; a request that"
            " could exceed it is refused with how long to wait", 0.05, 1.0),
        "stall_ms": Field(
            "int", 250, "a deadline missed by this much while the motor runs means the daemon was"
            " stalled: motor off, halted", 50, 10000),
        "sleep_after_s": Field("int", 300, "sleep after this long without activity; 0 never", 0, 86400),
        "refill_hold_ms": Field(
            "int", 2000, "holding the button this long while the hopper is empty says it has been"
            " refilled (closing the lid says so too); 0 turns the long press off", 0, 60000),
    },
    "button": {
        "reset_hold_ms": Field(
            "int", 5000, "holding the launch button this long while the launcher is halted resets it, as"
            " launcherctl reset does (the hold is no press)", 1000, 30000),
    },
    "ejection": {
        "profile": Field("str", "classic", "how presses turn into bursts", choices=PROFILE_NAMES),
        "sequence": Field("int_list", (), "card counts of successive presses (profile fixed)", 0, 200),
    },
    "feedback": {
        "led_brightness": Field("float", 1.0, "LED brightness when ready", 0.0, 1.0),
        "chime": Field("bool", True, "sound the chime on presses"),
        "chime_ms": Field("int", 120, "length of one chime", 10, 2000),
    },
    "aim": {
        "min_angle": Field("float", -90.0, "servo angle of the first seat", -90.0, 90.0),
        "max_angle": Field("float", 90.0, "servo angle of the last seat", -90.0, 90.0),
        "min_pulse_ms": Field("float", 1.0, "servo pulse width at -90 degrees", 0.3, 3.0),
        "max_pulse_ms": Field("float", 2.0, "servo pulse width at +90 degrees", 0.3, 3.0),
    },
    "sim": {
        "hopper": Field("int", 112, "cards in the simulated hopper at start", 0, 10000),
        "jam_chance": Field("float", 0.0, "chance that a card sticks in the slot", 0.0, 1.0),
        "misfeed_chance": Field("float", 0.0, "chance that the feed wheel slips instead of feeding", 0.0, 1.0),
        "cards_per_second": Field("float", 20.0, "feed rate at full duty", 0.1, 1000.0),
        "block_ms": Field("int", 8, "how long a card blocks the beam as it crosses", 1, 1000),
    },
    "daemon": {
        "socket": Field("str", "/run/card-launcher/launcher.sock", "path of the API socket"),
        "state_dir": Field("str", "/var/lib/card-launcher", "where game and score state is kept"),
        "extensions": Field("str_list", ("game",), "layers loaded into the daemon, by name"),
        "language": Field("str", "", "language of the texts the daemon sends (replies to a request"
                          " without its own \"lang\", events, the journal): \"en\", \"fr\", or \"\" for"
                          " the locale's (LC_ALL, LC_MESSAGES, LANG)", choices=DAEMON_LANGUAGES),
    },
    "device": {
        "kind": Field("str", "launcher", "the machine launcherd drives: the launcher (UNO Attack,"
                      " dealer mode) or the card blaster (UNO Blast)", choices=DEVICE_KINDS),
    },
    "blaster": {
        "slots": Field("int", 4, "slots of the blaster, each with a card-present sensor", 1, 8),
        # Off GPIO 18-21: they are the I2S sound interface of a Pi 5's or a Zero 2 W's speaker.
        "slot_pins": Field("int_list", (5, 6, 16, 26),
                           "card-present sensor of each slot, slot 1 first (BCM GPIOs)", 0, 27),
        "actuator": Field("pin", 22, "release solenoid or motor, through the one-shot and a MOSFET or"
                          " driver input (wiring/heartbeat.svg); high fires", 0, 27),
        "slot_full": Field("str", "low", "level of a slot's sensor pin while a card is in it",
                           choices=LEVELS),
        "debounce_ms": Field("int", 30, "a slot's sensor must be stable this long", 1, 500),
        "pulse_ms": Field("int", 150, "how long the release actuator is on for one blast", 10, 2000),
        "max_on_ms": Field("int", 500, "longest the daemon keeps the actuator on. Only the one-shot in"
                           " the wiring (wiring/heartbeat.svg) ends a pulse when the daemon stalls, is"
                           " killed or the Pi freezes: without it a pin left high keeps the release"
                           " energised until safe-off runs", 10, 5000),
        "rest_ms": Field("int", 1000, "the actuator stays off this long between pulses; a blast"
                         " decided sooner waits", 0, 60000),
        "settle_ms": Field("int", 400, "a slot still full this long after the release is jammed",
                           50, 5000),
        "profile": Field("str", "trigger", "when an insertion fires", choices=BLAST_PROFILE_NAMES),
    },
}

# The [pins] keys that name a GPIO (the others, like chip, say where the GPIOs are).
PIN_KEYS = tuple(key for key, field in SCHEMA["pins"].items() if field.kind in ("pin", "optional_pin"))


__all__ = ["BLASTER_SHARED_PIN_KEYS", "DEFAULT_PATH", "DEVICE_KINDS", "LEVELS", "MOTOR_PIN_KEYS", "PIN_KEYS",
           "QUIET_AT_BOOT_PIN_KEYS", "SCHEMA"]
