"""systemd/install.sh on each OS it names (issue 37), by dry runs against scratch roots: Raspberry
Pi OS (config.txt is the maker's, strict_gpiod goes there), Debian's own images with raspi-firmware
(config.txt is regenerated: the lines go to /etc/default/raspi-firmware-custom), a missing
python3-lgpio; and ExecStopPost='s no-Python step, motor-pins-low, on libgpiod v1 and v2."""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path

import pytest

from test_install import BOOT_BEGIN, BOOT_END, ROOT, actions, assert_in_order, run_script, snapshot, stubs  # noqa: F401

SCRIPT = ROOT / "systemd" / "install.sh"
NATIVE = ROOT / "systemd" / "motor-pins-low"
DEBIAN_CONFIG_TXT = """# Do not modify this file!
#
# It is automatically generated upon install or update of either the
# firmware or the Linux kernel.
#
# If you need to set boot-time parameters, do so via the
# /etc/default/raspi-firmware, /etc/default/raspi-firmware-custom or
# /etc/default/raspi-extra-cmdline files.

arm_64bit=1
enable_uart=1
"""
UNAME = subprocess.run(["uname", "-r"], capture_output=True, text=True).stdout.strip()


def persist_param(root: Path, value: str, driver: str = "pinctrl_bcm2835", name: str = "persist_gpio_outputs") -> None:
    param = root / "sys" / "module" / driver / "parameters" / name
    param.parent.mkdir(parents=True)
    param.write_text(value + "\n")


@pytest.fixture
def raspberry_pi_os(tmp_path) -> Path:
    root = tmp_path / "rpios"
    (root / "boot" / "firmware").mkdir(parents=True)
    (root / "boot" / "firmware" / "config.txt").write_text(
        "# For more options and information see\n# http://rptl.io/configtxt\ndtparam=audio=on\n[all]\n")
    return root


@pytest.fixture
def debian(tmp_path) -> Path:
    root = tmp_path / "debian"
    (root / "boot" / "firmware").mkdir(parents=True)
    (root / "boot" / "firmware" / "config.txt").write_text(DEBIAN_CONFIG_TXT)
    (root / "etc" / "default").mkdir(parents=True)
    (root / "etc" / "default" / "raspi-firmware").write_text("#ROOTPART=LABEL=RASPIROOT\n")
    hook = root / "etc" / "kernel" / "postinst.d" / "z50-raspi-firmware"
    hook.parent.mkdir(parents=True)
    hook.write_text("#!/bin/sh\nexit 0\n")
    hook.chmod(0o755)
    return root


def test_raspberry_pi_os_gets_strict_gpiod_with_the_boot_line_in_config_txt(stubs, raspberry_pi_os):
    persist_param(raspberry_pi_os, "Y", "pinctrl_rp1")  # a Pi 5 kernel that has the option, not yet set
    before = snapshot(raspberry_pi_os)
    result = run_script("--dry-run", stubs=stubs, root=raspberry_pi_os)
    assert result.returncode == 0, result.stderr
    assert snapshot(raspberry_pi_os) == before
    venv = f"{raspberry_pi_os}/opt/card-launcher"
    assert_in_order(actions(result.stdout), [
        "apt-get install -y python3-venv python3-lgpio gpiod espeak-ng alsa-utils",
        "groupadd --system gpio",
        f"install -d -m 0755 {raspberry_pi_os}/etc/udev/rules.d",
        f"write 'SUBSYSTEM==\"gpio\", KERNEL==\"gpiochip[0-9]*\", GROUP=\"gpio\", MODE=\"0660\"' into"
        f" {raspberry_pi_os}/etc/udev/rules.d/60-card-launcher-gpio.rules",
        "udevadm control --reload",
        f"install -m 0755 {ROOT}/systemd/motor-pins-low {venv}/libexec/motor-pins-low",
        f"write 'chip=auto' and 'pins=12 13 16 26' into {venv}/libexec/motor-pins",
        f"write the lines '{BOOT_BEGIN}', '[all]', 'gpio=12,13,16,26=op,dl', 'dtparam=strict_gpiod', '{BOOT_END}'"
        f" into {raspberry_pi_os}/boot/firmware/config.txt",
    ])
    assert "From the next boot (dtparam=strict_gpiod) a GPIO launcherd leaves falls back to its pull-down" \
        in result.stdout
    assert "raspi-firmware" not in result.stdout


def test_a_raspberry_pi_kernel_without_the_option_is_told_what_that_means(stubs, raspberry_pi_os):
    result = run_script("--dry-run", stubs=stubs, root=raspberry_pi_os)
    assert result.returncode == 0, result.stderr
    assert f"This kernel ({UNAME}) predates strict_gpiod (added to Raspberry Pi's 6.6 kernels in April 2024)" \
        in result.stdout
    assert "a motor line keeps its last level when launcherd dies, until ExecStopPost= drives it low" in result.stdout


def test_a_kernel_already_strict_is_said_so(stubs, raspberry_pi_os):
    persist_param(raspberry_pi_os, "N")
    result = run_script("--dry-run", stubs=stubs, root=raspberry_pi_os)
    assert "already lets released GPIOs fall back to their pulls" in result.stdout


@pytest.mark.parametrize(("value", "said"), [
    ("Y", "already lets released GPIOs fall back to their pulls"),
    ("N", "From the next boot (dtparam=strict_gpiod) a GPIO launcherd leaves falls back"),
])
def test_the_first_kernels_parameter_name_strict_gpiod_is_read_the_other_way_round(stubs, raspberry_pi_os,
                                                                                    value, said):
    """The first kernels with the option named the parameter strict_gpiod (Y: released lines fall to
    their pulls); later ones persist_gpio_outputs (Y: kept). Either is a kernel that has it."""
    persist_param(raspberry_pi_os, value, "pinctrl_rp1", name="strict_gpiod")
    result = run_script("--dry-run", stubs=stubs, root=raspberry_pi_os)
    assert result.returncode == 0, result.stderr
    assert said in result.stdout
    assert "predates strict_gpiod" not in result.stdout
    assert "'dtparam=strict_gpiod'" in result.stdout  # written in either case


def test_debian_keeps_the_boot_line_in_raspi_firmware_custom_and_regenerates_config_txt(stubs, debian):
    before = snapshot(debian)
    result = run_script("--dry-run", stubs=stubs, root=debian)
    assert result.returncode == 0, result.stderr
    assert snapshot(debian) == before
    steps = actions(result.stdout)
    assert_in_order(steps, [
        f"write the lines '{BOOT_BEGIN}', '[all]', 'gpio=12,13,16,26=op,dl', '{BOOT_END}'"
        f" into {debian}/etc/default/raspi-firmware-custom",
        f"env DEB_MAINT_PARAMS=configure /etc/kernel/postinst.d/z50-raspi-firmware {UNAME}",
    ])
    # config.txt itself is never written: the next kernel update would drop the lines.
    assert not any("boot/firmware/config.txt" in step for step in steps)
    assert not any("strict_gpiod" in step for step in steps), "strict_gpiod is Raspberry Pi's kernels' alone"
    assert "Debian's kernel returns a released GPIO to an input" in result.stdout
    assert any(step.startswith(f"write 'SUBSYSTEM==\"gpio\"") for step in steps), "the gpio group's udev rule"


def test_debians_custom_file_keeps_its_own_lines_and_takes_the_block_once(debian):
    custom = debian / "etc" / "default" / "raspi-firmware-custom"
    env = {**os.environ, "CARD_LAUNCHER_ROOT": str(debian)}
    script = (f"source {shlex.quote(str(SCRIPT))}; configure_boot {shlex.quote(str(custom))} gpio=12,13,16=op,dl")
    first = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=30, env=env)
    assert first.returncode == 0, first.stderr
    assert custom.read_text() == f"{BOOT_BEGIN}\n[all]\ngpio=12,13,16=op,dl\n{BOOT_END}\n"
    custom.write_text("dtoverlay=disable-bt\n" + custom.read_text())
    again = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=30, env=env)
    assert again.returncode == 1 and "already drives the motor pins low" in again.stdout
    assert custom.read_text().startswith("dtoverlay=disable-bt\n")


def test_debian_warns_when_its_kernel_keeps_released_lines(stubs, debian):
    persist_param(debian, "Y")
    result = run_script("--dry-run", stubs=stubs, root=debian)
    assert "WARNING: this kernel keeps released GPIOs driven" in result.stdout
    assert "pinctrl_bcm2835.persist_gpio_outputs=n" in result.stdout


def test_a_missing_python3_lgpio_stops_before_any_change_and_says_the_way_on(stubs, debian):
    result = run_script("--dry-run", stubs=stubs, root=debian, STUB_APT_LACKS="python3-lgpio")
    assert result.returncode == 1
    assert actions(result.stdout) == ["apt-get update"]
    assert "apt has no python3-lgpio on this system" in result.stderr
    assert "--lgpio-from-pypi" in result.stderr and "swig python3-dev gcc make" in result.stderr


def test_lgpio_from_pypi_installs_its_build_tools_and_builds_it_into_the_venv(stubs, debian):
    result = run_script("--dry-run", "--lgpio-from-pypi", stubs=stubs, root=debian, STUB_APT_LACKS="python3-lgpio")
    assert result.returncode == 0, result.stderr
    venv = f"{debian}/opt/card-launcher"
    assert_in_order(actions(result.stdout), [
        "apt-get install -y python3-venv swig python3-dev gcc make gpiod espeak-ng alsa-utils",
        f"pip install a clean copy of {ROOT} into {venv} (not editable)",
        f"pip install lgpio into {venv} (built from its source where PyPI has no wheel)",
    ])


def test_the_configured_chip_and_pins_are_what_the_native_step_drives(stubs, raspberry_pi_os):
    config = raspberry_pi_os / "etc" / "card-launcher" / "launcher.toml"
    config.parent.mkdir(parents=True)
    config.write_text("[pins]\nchip = 4\nmotor_forward = 20\nmotor_reverse = 21\nmotor_heartbeat = 26\n")
    result = run_script("--dry-run", stubs=stubs, root=raspberry_pi_os)
    assert result.returncode == 0, result.stderr
    assert (f"write 'chip=4' and 'pins=20 21 16 26' into {raspberry_pi_os}/opt/card-launcher/libexec/motor-pins"
            in actions(result.stdout))


def test_the_uninstall_takes_the_lines_out_of_debians_custom_file_and_the_udev_rule(stubs, debian):
    custom = debian / "etc" / "default" / "raspi-firmware-custom"
    custom.write_text(f"dtoverlay=disable-bt\n{BOOT_BEGIN}\n[all]\ngpio=12,13,16=op,dl\n{BOOT_END}\n")
    rule = debian / "etc" / "udev" / "rules.d" / "60-card-launcher-gpio.rules"
    rule.parent.mkdir(parents=True)
    rule.write_text("SUBSYSTEM==\"gpio\"\n")
    result = run_script("--dry-run", "--uninstall", stubs=stubs, root=debian)
    assert result.returncode == 0, result.stderr
    steps = actions(result.stdout)
    assert f"remove the card-launcher lines ('{BOOT_BEGIN}' to '{BOOT_END}') from {custom}" in steps
    assert f"rm -f {rule}" in steps


# ---- motor-pins-low: the no-Python step of ExecStopPost= ------------------------------------------

@pytest.fixture
def gpio_tools(tmp_path):
    """gpioset and gpiodetect stand-ins: gpioset records its arguments, answers --version as
    libgpiod GPIOSET_VERSION does; gpiodetect lists a Pi 5's chips on an older kernel."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    calls = tmp_path / "gpioset.calls"
    (bin_dir / "gpioset").write_text(
        '#!/bin/sh\nif [ "$1" = --version ]; then echo "$GPIOSET_VERSION"; exit 0; fi\n'
        f'echo "$*" >> "{calls}"\nexit "${{GPIOSET_FAILS:-0}}"\n')
    (bin_dir / "gpiodetect").write_text(
        "#!/bin/sh\necho 'gpiochip0 [gpio-brcmstb@107d508500] (32 lines)'\n"
        "echo 'gpiochip4 [pinctrl-rp1] (54 lines)'\n")
    for tool in bin_dir.iterdir():
        tool.chmod(0o755)

    def run(data: str | None, version: str, **env):
        pins = tmp_path / "motor-pins"
        if data is not None:
            pins.write_text(data)
        environment = {"PATH": f"{bin_dir}:/usr/bin:/bin", "GPIOSET_VERSION": version, **env}
        result = subprocess.run(["sh", str(NATIVE), str(pins)], capture_output=True, text=True, timeout=30,
                                env=environment)
        made = calls.read_text().splitlines() if calls.exists() else []
        return result, made
    return run


V1 = "gpioset (libgpiod) v1.6.3\nCopyright (C) 2017-2018 Bartosz Golaszewski"
V2 = "gpioset (libgpiod) v2.1.3\nCopyright (C) 2017-2023 Bartosz Golaszewski"


@pytest.mark.parametrize(("version", "expected"), [
    (V1, "gpiochip0 12=0 13=0 16=0"),  # v1: sets, exits at once (--mode=exit is its default)
    (V2, "-c gpiochip0 -t0 12=0 13=0 16=0"),  # v2 holds the lines until it ends: -t0 ends it at once
    ("gpioset v2.3.2 (libgpiod v2.2.1)", "-c gpiochip0 -t0 12=0 13=0 16=0"),
])
def test_the_native_step_speaks_each_gpioset(gpio_tools, version, expected):
    result, calls = gpio_tools("chip=0\npins=12 13 16\n", version)
    assert result.returncode == 0, result.stdout + result.stderr
    assert calls == [expected]
    assert "GPIO 12, 13, 16 driven low by gpioset on gpiochip0" in result.stdout


def test_the_native_step_finds_the_chip_by_its_label(gpio_tools):
    result, calls = gpio_tools("# written by install.sh\nchip=auto\npins=12 13\n", V2)
    assert result.returncode == 0
    assert calls == ["-c gpiochip4 -t0 12=0 13=0"]


def test_the_native_step_written_by_install_sh_is_the_one_it_reads(gpio_tools, tmp_path):
    env = {**os.environ, "CARD_LAUNCHER_ROOT": str(tmp_path / "root")}
    pins = subprocess.run(["bash", "-c", f"source {shlex.quote(str(SCRIPT))}; native_pins 4 12,13,16,26"],
                          capture_output=True, text=True, timeout=30, env=env).stdout
    result, calls = gpio_tools(pins, V1)
    assert result.returncode == 0
    assert calls == ["gpiochip4 12=0 13=0 16=0 26=0"]


def test_a_gpioset_that_never_exits_is_ended_within_a_second(gpio_tools, tmp_path):
    hanging = tmp_path / "bin" / "gpioset"
    hanging.write_text('#!/bin/sh\nif [ "$1" = --version ]; then echo "$GPIOSET_VERSION"; exit 0; fi\nexec sleep 30\n')
    result, _ = gpio_tools("chip=0\npins=12\n", V2)
    assert result.returncode == 1
    assert "gpioset failed on gpiochip0" in result.stdout


@pytest.mark.parametrize(("data", "env", "said"), [
    (None, {}, "cannot read"),
    ("chip=0\n", {}, "names no pins"),
    ("chip=auto\npins=12\n", {"PATH": "/usr/bin:/bin"}, None),
    ("chip=0\npins=12\n", {"GPIOSET_FAILS": "1"}, "gpioset failed on gpiochip0"),
])
def test_the_native_step_fails_with_a_reason_and_safe_off_still_follows(gpio_tools, data, env, said):
    result, _ = gpio_tools(data, V2, **env)
    assert result.returncode == 1
    assert said is None or said in result.stdout
    assert "motor-pins-low:" in result.stdout


def test_the_unit_runs_the_native_step_first_and_ignores_its_failure():
    unit = (ROOT / "systemd" / "launcherd.service").read_text()
    posts = [line for line in unit.splitlines() if line.startswith("ExecStopPost=")]
    assert posts == ["ExecStopPost=-/opt/card-launcher/libexec/motor-pins-low",
                     "ExecStopPost=/opt/card-launcher/bin/launcherd --safe-off --config /etc/card-launcher/launcher.toml"]
    assert NATIVE.read_text().startswith("#!/bin/sh\n")
    assert os.access(NATIVE, os.X_OK)
