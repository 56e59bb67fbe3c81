"""systemd/launcherd.service: the settings the issue asks for, and systemd-analyze's verdict."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from firmware.config import DEFAULT_PATH, SCHEMA
from harness.units import parse_unit

ROOT = Path(__file__).resolve().parent.parent
UNIT = ROOT / "systemd" / "launcherd.service"
DOCS = ROOT / "docs" / "raspberry-pi.md"
VENV_LAUNCHERD = "/opt/card-launcher/bin/launcherd"
NATIVE_STEP = "/opt/card-launcher/libexec/motor-pins-low"  # installed from systemd/motor-pins-low
SYSTEMD_ANALYZE = shutil.which("systemd-analyze")
needs_analyze = pytest.mark.skipif(
    SYSTEMD_ANALYZE is None, reason="systemd-analyze is not installed (it comes with systemd)"
)


@pytest.fixture(scope="module")
def service() -> dict[str, list[str]]:
    return parse_unit(UNIT.read_text())["Service"]


def one(service, key: str) -> str:
    values = service.get(key, [])
    assert len(values) == 1, f"{key}= should be set once, found {values}"
    return values[0]


def environment(service) -> dict[str, str]:
    return dict(item.split("=", 1) for value in service["Environment"] for item in shlex.split(value))


def test_notify_with_a_watchdog_restart_on_failure_and_a_short_stop_timeout(service):
    assert one(service, "Type") == "notify"
    assert one(service, "NotifyAccess") == "main"
    assert one(service, "Restart") == "on-failure"
    assert one(service, "WatchdogSec") == "5s"
    assert int(one(service, "TimeoutStopSec").removesuffix("s")) <= 10


def test_exec_lines_are_the_agreed_commands(service):
    assert one(service, "ExecStart") == (
        f"{VENV_LAUNCHERD} --config /etc/card-launcher/launcher.toml"
        " --socket /run/card-launcher/launcher.sock --state-dir /var/lib/card-launcher"
    )
    # The native step first (gpioset, no Python start; its failure never skips safe-off), then safe-off.
    assert service["ExecStopPost"] == [
        f"-{NATIVE_STEP}",
        f"{VENV_LAUNCHERD} --safe-off --config /etc/card-launcher/launcher.toml",
    ]


def test_paths_agree_with_the_config_defaults_and_the_managed_directories(service):
    args = shlex.split(one(service, "ExecStart"))[1:]
    options = dict(zip(args[::2], args[1::2]))
    assert options["--config"] == str(DEFAULT_PATH)
    assert options["--socket"] == SCHEMA["daemon"]["socket"].default
    assert options["--state-dir"] == SCHEMA["daemon"]["state_dir"].default
    runtime = "/run/" + one(service, "RuntimeDirectory")
    assert Path(options["--socket"]).parent == Path(runtime)
    assert options["--state-dir"] == "/var/lib/" + one(service, "StateDirectory")
    assert "--config /etc/card-launcher/launcher.toml" in service["ExecStopPost"][-1]


def test_a_dedicated_user_in_the_gpio_group_with_only_gpio_devices(service):
    assert one(service, "User") == "card-launcher"
    assert one(service, "Group") == "card-launcher"
    assert one(service, "SupplementaryGroups") == "gpio"
    assert one(service, "DevicePolicy") == "closed"
    assert service["DeviceAllow"] == ["char-gpiochip rw", "/dev/gpiomem rw"]
    assert service.get("PrivateDevices", ["no"]) == ["no"], "PrivateDevices= hides /dev/gpiochip*"


def test_lgpio_writes_its_fifo_in_the_runtime_directory(service):
    runtime = "/run/" + one(service, "RuntimeDirectory")
    assert one(service, "WorkingDirectory") == runtime
    assert environment(service)["LG_WD"] == runtime


def test_socket_directory_lets_only_the_service_group_in(service):
    # The daemon makes the socket 0660; the directory must let the group (only) traverse it.
    mode = int(one(service, "RuntimeDirectoryMode"), 8)
    assert mode & 0o070 == 0o050 and mode & 0o007 == 0


def test_nothing_hides_what_gpiozero_reads_from_proc(service):
    assert "ProcSubset" not in service, "ProcSubset=pid hides /proc/cpuinfo and /proc/device-tree"


def test_forbidden_system_calls_fail_instead_of_killing_the_daemon(service):
    assert one(service, "SystemCallErrorNumber") == "EPERM"


def test_installed_for_boot(service):
    assert parse_unit(UNIT.read_text())["Install"]["WantedBy"] == ["multi-user.target"]


@pytest.fixture
def checkable_unit(tmp_path) -> Path:
    """The unit with ExecStart=/ExecStopPost= pointed at an executable that exists here.

    `systemd-analyze verify` fails when a command's binary is missing, and
    /opt/card-launcher/bin/launcherd only exists on an installed Pi. The venv's own launcherd is
    the same console script, so the rest of each command line is checked unchanged.
    """
    executable = ROOT / ".venv" / "bin" / "launcherd"
    if not executable.exists():
        executable = Path(shutil.which("true"))
    text = UNIT.read_text()
    assert text.count(VENV_LAUNCHERD) == 2
    path = tmp_path / UNIT.name
    text = text.replace(NATIVE_STEP, str(ROOT / "systemd" / "motor-pins-low"))
    path.write_text(text.replace(VENV_LAUNCHERD, str(executable)))
    return path


@needs_analyze
def test_systemd_analyze_verify_is_clean(checkable_unit):
    result = subprocess.run(
        [SYSTEMD_ANALYZE, "verify", "--man=no", str(checkable_unit)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    # verify only warns (exit 0) on unknown keys and typos: stderr must be empty too.
    assert result.stderr == ""
    assert result.returncode == 0


@needs_analyze
def test_systemd_analyze_security_exposure_is_at_most_one(checkable_unit):
    result = subprocess.run(
        [SYSTEMD_ANALYZE, "security", "--offline=true", str(checkable_unit)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    match = re.search(r"Overall exposure level for launcherd\.service: (\d+\.\d+)", result.stdout)
    assert match, result.stdout + result.stderr
    assert float(match.group(1)) <= 1.0, result.stdout


def documented_remote_gpio_dropin() -> str:
    text = DOCS.read_text(encoding="utf-8")
    after_marker = text[text.index("<!-- remote-gpio.conf") :]
    match = re.search(r"```ini\n(.*?)```", after_marker, re.S)
    assert match, "the remote GPIO drop-in is missing from docs/raspberry-pi.md"
    return match.group(1)


def test_the_remote_gpio_dropin_gives_back_the_network_and_names_the_pi():
    dropin = parse_unit(documented_remote_gpio_dropin())
    service = dropin["Service"]
    env = environment(service)
    assert env["GPIOZERO_PIN_FACTORY"] == "pigpio" and "PIGPIO_ADDR" in env
    assert service["PrivateNetwork"] == ["no"] and service["IPAddressDeny"] == [""]
    # An empty assignment first: allow-lists add up, and AF_UNIX alone would stay otherwise.
    assert service["RestrictAddressFamilies"] == ["", "AF_UNIX AF_INET AF_INET6"]


@needs_analyze
def test_systemd_analyze_verify_accepts_the_remote_gpio_dropin(checkable_unit):
    dropin_dir = checkable_unit.parent / f"{checkable_unit.name}.d"
    dropin_dir.mkdir()
    (dropin_dir / "remote-gpio.conf").write_text(documented_remote_gpio_dropin())
    result = subprocess.run(
        [SYSTEMD_ANALYZE, "verify", "--man=no", str(checkable_unit)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.stderr == ""
    assert result.returncode == 0
