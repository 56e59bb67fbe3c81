"""docs/raspberry-pi.md, Pi 5 against Pi 3/4/Zero 2 W: what it says about chips and PWM agrees with
the configuration, and the wiring links it gives reach files."""

from __future__ import annotations

import re
from pathlib import Path

from firmware.config import PIN_KEYS, SCHEMA, load_config

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "raspberry-pi.md"


def section(title: str) -> str:
    text = DOC.read_text(encoding="utf-8")
    return text.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]


PI5 = "Pi 5 or Pi 3, 4, Zero 2 W: what differs"


def test_the_chip_numbers_agree_with_the_config_key():
    text = section(PI5)
    doc = SCHEMA["pins"]["chip"].doc
    assert "`[pins] chip`" in text
    for fact in ("6.6.45", "0 with kernel 6.6.45 or later, 4 before", "pinctrl-rp1", "pinctrl-bcm2711",
                 "pinctrl-bcm2835"):
        assert fact in text, fact
    # The key's own documentation and the guide name the same labels, by which the chip is found.
    for label in ("pinctrl-rp1", "pinctrl-bcm2711", "pinctrl-bcm2835"):
        assert label in doc, label
    assert load_config().pins.chip == "auto"


def test_the_pwm_advice_names_pins_that_are_free_and_motor_pins_that_are_the_defaults():
    text = section(PI5)
    config = load_config()
    used = {getattr(config.pins, key) for key in PIN_KEYS}
    # The servo is to move to a hardware PWM pin that no default uses.
    proposed = [int(n) for n in re.search(r"the servo goes on GPIO (\d+) or (\d+)", text).groups()]
    assert proposed and not set(proposed) & used
    # and the motor "stays on 12/13": the default motor pins.
    motor = re.search(r"the motor stays on (\d+)/(\d+)", text).groups()
    assert (int(motor[0]), int(motor[1])) == (config.pins.motor_forward, config.pins.motor_reverse)
    assert "GPIO 12, 13, 18, 19" in text and "lgpio only" in text
    assert f"at {config.motor.pwm_frequency // 1000} kHz" in text


def test_the_builder_gets_checks_for_what_cannot_be_measured_here():
    text = section(PI5)
    checks = re.findall(r"^\d\. ", text.split("**Checks for the builder.**", 1)[1], re.M)
    assert len(checks) >= 5
    for phrase in ("gpiodetect", "pinctrl get 12,13,16", "10 µs", "vcgencmd get_throttled", "launcherctl aim"):
        assert phrase in text, phrase


def test_the_wiring_links_reach_files():
    text = section("Wiring")
    targets = re.findall(r"\]\(([^)\s#]+)", text)
    assert {"../wiring/drivers.svg", "../wiring/power.svg", "build.md"} <= set(targets)
    for target in targets:
        assert (DOC.parent / target).resolve().exists(), target


# ---- the install: what install.sh does, and how the project gets onto the Pi ---------------------

README = ROOT / "README.md"
INSTALL_SH = ROOT / "systemd" / "install.sh"


def install_section(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    return text.split("## Install on a Raspberry Pi\n", 1)[1].split("\n## ", 1)[0]


def apt_packages() -> list[str]:
    return re.search(r"^APT_PACKAGES=\(([^)]*)\)", INSTALL_SH.read_text(), re.M).group(1).split()


def test_the_readme_and_the_guide_say_what_install_sh_installs():
    units = sorted(path.stem for path in (ROOT / "systemd").glob("*.service"))
    assert {"launcherd", "launcher-web", "launcher-voice"} <= set(units)
    assert "python3-lgpio" in apt_packages()
    for path in (README, DOC):
        text = install_section(path)
        for fact in [*apt_packages(), *units, "/opt/card-launcher", "/etc/card-launcher/launcher.toml",
                     "config.txt", "RuntimeWatchdogSec=10s", "/usr/local/bin", "--dry-run", "--uninstall",
                     "launcherctl game code", ":8080/", "needs no network"]:
            assert f"`{fact}`" in text or fact in text, f"{path.name} does not say {fact!r}"
    # The two say it in the same words, from "That is the whole install" to the uninstall.
    def body(path: Path) -> str:
        text = " ".join(install_section(path).split())
        return text[text.index("That is the whole install"):text.index("and says so.")]
    assert body(README) == body(DOC)


def test_the_guide_says_how_to_get_the_project_onto_the_pi_and_the_readme_links_there():
    text = section("Getting the project onto the Pi")
    for step in ("git clone", "git archive", "scp ", "tar -xzf", "sudo card-launcher/systemd/install.sh"):
        assert step in text, step
    link = "docs/raspberry-pi.md#getting-the-project-onto-the-pi"
    assert link in install_section(README)
    assert "(#getting-the-project-onto-the-pi)" in install_section(DOC)
