"""systemd/launcher-web.service: network but no devices, the socket's group, and systemd-analyze's verdict."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

from controller.web.server import DEFAULT_LISTEN
from harness.units import checkable_copy, parse_unit

ROOT = Path(__file__).resolve().parent.parent
UNIT = ROOT / "systemd" / "launcher-web.service"
DAEMON_UNIT = ROOT / "systemd" / "launcherd.service"
INSTALLED = "/opt/card-launcher/bin/launcher-web"
SYSTEMD_ANALYZE = shutil.which("systemd-analyze")
needs_analyze = pytest.mark.skipif(SYSTEMD_ANALYZE is None,
                                   reason="systemd-analyze is not installed (it comes with systemd)")


@pytest.fixture(scope="module")
def unit() -> dict[str, dict[str, list[str]]]:
    return parse_unit(UNIT.read_text())


def one(section: dict[str, list[str]], key: str) -> str:
    values = section.get(key, [])
    assert len(values) == 1, f"{key}= should be set once, found {values}"
    return values[0]


def options(command: str) -> dict[str, str]:
    args = shlex.split(command)[1:]
    return dict(zip(args[::2], args[1::2]))


def test_started_after_launcherd_which_it_wants_but_does_not_require(unit):
    assert "launcherd.service" in one(unit["Unit"], "Wants").split()
    assert "launcherd.service" in one(unit["Unit"], "After").split()
    assert "Requires" not in unit["Unit"] and "BindsTo" not in unit["Unit"]
    assert unit["Install"]["WantedBy"] == ["multi-user.target"]


def test_runs_the_console_script_on_launcherds_socket(unit):
    command = one(unit["Service"], "ExecStart")
    assert command.split()[0] == INSTALLED
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["launcher-web"] == "controller.web.server:main"
    daemon = options(one(parse_unit(DAEMON_UNIT.read_text())["Service"], "ExecStart"))
    assert options(command) == {"--socket": daemon["--socket"], "--listen": DEFAULT_LISTEN}


def test_the_socket_group_and_nothing_else(unit):
    service = unit["Service"]
    assert one(service, "Group") == one(parse_unit(DAEMON_UNIT.read_text())["Service"], "Group")
    assert one(service, "DynamicUser") == "yes"
    assert "SupplementaryGroups" not in service, "no gpio group: the pins are launcherd's"


def test_no_devices(unit):
    service = unit["Service"]
    assert one(service, "PrivateDevices") == "yes"
    assert one(service, "DevicePolicy") == "closed"
    assert "DeviceAllow" not in service


def test_network_for_the_lan_only(unit):
    service = unit["Service"]
    assert service.get("PrivateNetwork", ["no"]) == ["no"]
    assert set(one(service, "RestrictAddressFamilies").split()) == {"AF_UNIX", "AF_INET", "AF_INET6"}
    assert one(service, "IPAddressDeny") == "any"
    allowed = one(service, "IPAddressAllow").split()
    assert {"localhost", "192.168.0.0/16", "10.0.0.0/8"} <= set(allowed)


def test_every_directive_left_out_is_explained(unit):
    text = UNIT.read_text()
    for directive in ("PrivateNetwork=", "RestrictAddressFamilies=", "PrivateUsers="):
        assert re.search(rf"^# - {directive}", text, re.M), f"say why {directive} is left out"


@pytest.fixture
def checkable_unit(tmp_path) -> Path:
    return checkable_copy(UNIT, INSTALLED, tmp_path)


@needs_analyze
def test_systemd_analyze_verify_is_clean(checkable_unit):
    result = subprocess.run([SYSTEMD_ANALYZE, "verify", "--man=no", str(checkable_unit)],
                            capture_output=True, text=True, timeout=60)
    assert result.stderr == "" and result.returncode == 0


@needs_analyze
def test_systemd_analyze_security_exposure_is_at_most_two(checkable_unit):
    result = subprocess.run([SYSTEMD_ANALYZE, "security", "--offline=true", str(checkable_unit)],
                            capture_output=True, text=True, timeout=60)
    match = re.search(r"Overall exposure level for launcher-web\.service: (\d+\.\d+)", result.stdout)
    assert match, result.stdout + result.stderr
    assert float(match.group(1)) <= 2.0, result.stdout
