"""What the guides tell a maker about the motor when launcherd is gone (issue 37): the first-power
procedure of docs/bringup.md, the checks of docs/raspberry-pi.md and docs/build.md, and the
smaller corrections of wiring/README.md. Every `launcherctl` command they give parses with
launcherctl's own parser and is within the shipped limits; a kill or a stop meant to show the
safeguards catches the forward pin high (full duty, not PWM)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from firmware.config import load_config
from firmware.tools.cli import build_parser

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
BRINGUP = DOCS / "bringup.md"
PI = DOCS / "raspberry-pi.md"
BUILD = DOCS / "build.md"
WIRING_README = ROOT / "wiring" / "README.md"


def section(path: Path, title: str) -> str:
    text = path.read_text(encoding="utf-8")
    return text.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]


def first_power() -> str:
    return section(BRINGUP, "First power")


def safety_texts() -> dict[str, str]:
    return {"bringup.md First power": first_power(),
            "raspberry-pi.md The service": section(PI, "The service"),
            "build.md gate": section(BUILD, "The driver's enable gate: a heartbeat (part of the build)")}


def launcherctl_commands(text: str) -> list[list[str]]:
    """Every `launcherctl ...` the text gives, in code blocks or inline, as argv (no comment, no &)."""
    found = []
    for match in re.finditer(r"(?:^[ \t]*|`|;\s*)launcherctl ([^`\n#;&]+)", text, re.M):
        found.append(shlex.split(match.group(1)))
    return found


def test_the_first_power_procedure_has_every_step_the_issue_names():
    text = first_power()
    steps = re.findall(r"^(\d+)\. \*\*(.+?)\*\*", text, re.M)
    assert [int(n) for n, _ in steps] == list(range(1, len(steps) + 1)) and len(steps) >= 7, steps
    for phrase in ("current-limited supply", "The motor is not connected", "A meter on the driver's inputs",
                   "The boot state after a reboot", "sudo reboot", "pinctrl get 12,13,16",
                   "sudo systemctl kill -s KILL launcherd", "how long the roller runs on",
                   "kill -STOP", "93-128 ms", "pinctrl-rp1", "gpiodetect", "6.6.45", "persist_gpio_outputs"):
        assert phrase in text, phrase
    # The motor is connected only after the meter and boot checks.
    assert text.index("The motor is not connected") < text.index("A meter on the driver's inputs") \
        < text.index("The motor, roller free")
    assert "](bringup.md#first-power)" in BUILD.read_text(encoding="utf-8")


@pytest.mark.parametrize("where", sorted(safety_texts()))
def test_every_launcherctl_command_given_parses_and_is_within_the_shipped_limits(where):
    text = safety_texts()[where]
    commands = launcherctl_commands(text)
    assert commands, where
    config = load_config()
    for argv in commands:
        args = build_parser().parse_args(argv)
        if args.command == "jog":
            assert args.ms <= config.timing.max_on_ms, (where, argv)
            assert 0.05 <= args.duty <= 1, (where, argv)


def test_a_kill_or_a_stop_meant_to_show_a_safeguard_catches_the_pin_high():
    """A PWM run may be stopped with its pin low, and the roller would stop whatever the safeguard
    under test does: every jog a kill or a SIGSTOP follows runs at full duty, and the text says why."""
    checked = 0
    for where, text in safety_texts().items():
        for block in re.findall(r"```sh\n(.*?)```", text, re.S):
            if "kill" not in block or "launcherctl jog" not in block:
                continue
            for argv in launcherctl_commands(block):
                assert build_parser().parse_args(argv).duty == 1, (where, block)
                checked += 1
    build_gate = safety_texts()["build.md gate"]
    stop_check = build_gate.split("**Fitting it.**", 1)[1].split("\n\n", 1)[0]
    assert "kill -STOP" in stop_check and "--duty 1" in stop_check and "PWM" in stop_check
    assert checked >= 3
    assert "held high rather than switched by PWM" in first_power()


def test_the_boot_state_says_what_the_daemon_holds_and_what_a_stop_leaves():
    """While the daemon runs the driver is enabled when ready (the core's first action at start,
    tests/test_core.py): the enable pin reads high, the motor inputs and the still heartbeat (GPIO 26,
    in the default build) low; after a stop all read low, or inputs pulled down with strict_gpiod."""
    checked = []
    for path in (BRINGUP, PI, BUILD, ROOT / "README.md"):
        text = " ".join(path.read_text(encoding="utf-8").split())
        for match in re.finditer(r"`pinctrl get 12,13,16(,26)?`[^.]*?shows", text):
            sentence = text[match.start():match.start() + 400]
            if "stop launcherd`)" in text[max(0, match.start() - 80):match.start()]:
                continue  # read with the daemon stopped: all low
            assert match.group(1), (path.name, "the default build's heartbeat, GPIO 26, is read too")
            assert "16 `op dh`" in sentence and "26" in sentence.split("`op dl`")[0], (path.name, sentence)
            assert "`ip pd`" in sentence, (path.name, sentence)
            checked.append(path.name)
    assert {"bringup.md", "raspberry-pi.md", "README.md"} <= set(checked), checked


def test_the_kernel_that_has_strict_gpiod_is_named_and_what_an_older_one_does():
    text = " ".join(section(PI, "The service").split())
    for phrase in ("added to Raspberry Pi's 6.6 kernels in April 2024", "pull request 6117",
                   "firmware ignores the unknown `dtparam`", "persist_gpio_outputs", "strict_gpiod` in its place",
                   "install.sh says which case yours is"):
        assert phrase in text, phrase
    install = (ROOT / "systemd" / "install.sh").read_text(encoding="utf-8")
    assert "added to Raspberry Pi's 6.6 kernels in April 2024" in install


def test_fitting_the_heartbeat_means_running_install_sh_again_not_a_restart():
    text = " ".join(section(BUILD, "The driver's enable gate: a heartbeat (part of the build)").split())
    fitting = text.split("**Fitting it.**", 1)[1]
    assert fitting.index("**run `sudo systemd/install.sh` again**") < fitting.index("a service restart alone")
    pi = " ".join(PI.read_text(encoding="utf-8").split())
    assert "fit the heartbeat or change `[pins] chip`, run `sudo systemd/install.sh` again" in pi


def test_the_smaller_items_are_corrected_in_the_bill_of_materials_and_the_power_notes():
    text = " ".join(WIRING_README.read_text(encoding="utf-8").split())
    for phrase in (
        # A MOSFET the Pi's 3.3 V turns fully on.
        "specified on at a 2.5 V gate", "the IRLZ44N's only from 4 V",
        # The one-plug option with the driver that runs below 4.5 V.
        "**Use the DRV8833 here** (VM from 2.7 V): the TB6612FNG's VM minimum is 4.5 V",
        "and the DRV8833 (not the TB6612FNG)",
        # The servo's 5 V from three C cells needs a buck-boost.
        "a buck cannot make 5 V: a buck-boost module",
        # External pull-ups beside the motor.
        "external pull-ups to 3V3 on the button and the beam lines",
        # The boot state as Raspberry Pi documents it.
        "a few seconds after power is applied", "the 10 kΩ pull-downs (layer 1) are what hold the motor off",
    ):
        assert phrase in text, phrase
    assert "long before Linux starts" not in text
    assert "IRLZ44N" not in (ROOT / "wiring" / "wiring-blaster.svg").read_text(encoding="utf-8")
