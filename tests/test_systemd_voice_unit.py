"""systemd/launcher-voice.service: no GPIO, no network, the sound card only; systemd-analyze's verdict."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from controller.voice.service import build_parser
from firmware.config import SCHEMA
from harness.units import parse_unit

ROOT = Path(__file__).resolve().parent.parent
UNIT = ROOT / "systemd" / "launcher-voice.service"
INSTALLED = "/opt/card-launcher/bin/launcher-voice"
SYSTEMD_ANALYZE = shutil.which("systemd-analyze")
needs_analyze = pytest.mark.skipif(
    SYSTEMD_ANALYZE is None, reason="systemd-analyze is not installed (it comes with systemd)")


def service() -> dict[str, list[str]]:
    """The [Service] keys, each with every value it was given."""
    return parse_unit(UNIT.read_text())["Service"]


def test_no_gpio_no_network_only_the_sound_card():
    keys = service()
    assert keys["DevicePolicy"] == ["closed"] and keys["DeviceAllow"] == ["char-alsa rw"]
    assert "gpio" not in " ".join(keys["SupplementaryGroups"]).split()
    assert set(" ".join(keys["SupplementaryGroups"]).split()) == {"audio", "card-launcher"}
    assert keys["PrivateNetwork"] == ["yes"] and keys["IPAddressDeny"] == ["any"]
    assert keys["RestrictAddressFamilies"] == ["AF_UNIX"]  # the daemon's socket, nothing else
    assert keys["CapabilityBoundingSet"] == [""]


def test_it_runs_the_console_script_on_the_daemons_socket_with_options_it_knows():
    command = shlex.split(service()["ExecStart"][0])
    assert command[0] == INSTALLED
    args = build_parser().parse_args(command[1:])  # exits (fails) on an option it does not know
    assert args.socket == SCHEMA["daemon"]["socket"].default


@needs_analyze
def test_systemd_analyze_security_exposure_is_at_most_two(tmp_path):
    # `systemd-analyze` checks that the command exists: point it at one that does.
    unit = tmp_path / UNIT.name
    unit.write_text(UNIT.read_text().replace(INSTALLED, shutil.which("true")))
    result = subprocess.run([SYSTEMD_ANALYZE, "security", "--offline=true", str(unit)],
                            capture_output=True, text=True, timeout=60)
    match = re.search(r"Overall exposure level for launcher-voice\.service: (\d+\.\d+)", result.stdout)
    assert match, result.stdout + result.stderr
    assert float(match.group(1)) <= 2.0, result.stdout
    verify = subprocess.run([SYSTEMD_ANALYZE, "verify", "--man=no", str(unit)],
                            capture_output=True, text=True, timeout=60)
    assert verify.returncode == 0 and not verify.stderr.strip(), verify.stderr
