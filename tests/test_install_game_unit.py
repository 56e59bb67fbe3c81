"""systemd/launcher-game.service and what install.sh does for it: the game's own process, its unit
(notify and watchdog, launcherd's user, no devices, no network, its own state directory, restarted
whatever ends it), and the one-time move of the game's files out of launcherd's state directory.

Every install.sh run here is a dry run (tests/test_install.py's stubs record any command that
would change the system, and fail the test if one ran).
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from harness.units import checkable_copy, parse_unit
from test_install import actions, assert_in_order, run_script, scratch, stubs  # noqa: F401 (fixtures)

ROOT = Path(__file__).resolve().parent.parent
UNIT = ROOT / "systemd" / "launcher-game.service"
DAEMON_UNIT = ROOT / "systemd" / "launcherd.service"
INSTALLED = "/opt/card-launcher/bin/launcher-game"
SYSTEMD_ANALYZE = shutil.which("systemd-analyze")
needs_analyze = pytest.mark.skipif(SYSTEMD_ANALYZE is None,
                                   reason="systemd-analyze is not installed (it comes with systemd)")


@pytest.fixture(scope="module")
def unit() -> dict[str, dict[str, list[str]]]:
    return parse_unit(UNIT.read_text())


@pytest.fixture(scope="module")
def daemon() -> dict[str, dict[str, list[str]]]:
    return parse_unit(DAEMON_UNIT.read_text())


def one(section: dict[str, list[str]], key: str) -> str:
    values = section.get(key, [])
    assert len(values) == 1, f"{key}= should be set once, found {values}"
    return values[0]


def options(command: str) -> dict[str, str]:
    args = shlex.split(command)[1:]
    return dict(zip(args[::2], args[1::2]))


# ---- the unit ---------------------------------------------------------------------------------


def test_started_after_launcherd_which_it_wants_and_launcherd_never_depends_on_it(unit, daemon):
    assert "launcherd.service" in one(unit["Unit"], "Wants").split()
    assert "launcherd.service" in one(unit["Unit"], "After").split()
    for strong in ("Requires", "Requisite", "BindsTo", "PartOf"):
        assert strong not in unit["Unit"], f"{strong}= would stop or start the game with launcherd"
    assert unit["Install"]["WantedBy"] == ["multi-user.target"]
    # launcherd never waits for the game, never pulls it in, never stops with it.
    text = DAEMON_UNIT.read_text()
    assert "launcher-game" not in "\n".join(line for line in text.splitlines() if not line.startswith("#"))


def test_runs_the_console_script_on_launcherds_socket_with_its_own_state_dir(unit, daemon):
    command = one(unit["Service"], "ExecStart")
    assert command.split()[0] == INSTALLED
    given = options(command)
    daemon_given = options(one(daemon["Service"], "ExecStart"))
    assert given["--socket"] == daemon_given["--socket"]
    assert given["--config"] == daemon_given["--config"]
    assert given["--state-dir"] == f"/var/lib/{one(unit['Service'], 'StateDirectory')}" == "/var/lib/launcher-game"
    assert given["--state-dir"] != daemon_given["--state-dir"]


def test_the_console_script_is_declared_once_the_game_process_exists():
    import tomllib
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    if "launcher-game" not in scripts:
        pytest.skip("pyproject.toml declares no launcher-game yet (the game process is being written)")
    assert scripts["launcher-game"] == "controller.layer.process:main"


def test_notify_and_a_watchdog_and_started_again_whatever_ended_it(unit):
    service = unit["Service"]
    assert one(service, "Type") == "notify"
    assert one(service, "NotifyAccess") == "main"
    watchdog = one(service, "WatchdogSec")
    assert re.fullmatch(r"\d+s", watchdog) and 0 < int(watchdog[:-1]) <= 15, watchdog
    assert one(service, "Restart") == "always"
    # No start limit: a game that crashes at every start is tried again for as long as it does.
    assert one(unit["Unit"], "StartLimitIntervalSec") == "0"


def test_launcherds_user_and_group_and_no_gpio(unit, daemon):
    service = unit["Service"]
    # launcherd lets only a peer with its own uid register the game (SO_PEERCRED).
    assert one(service, "User") == one(daemon["Service"], "User")
    assert one(service, "Group") == one(daemon["Service"], "Group")
    assert "DynamicUser" not in service
    assert "SupplementaryGroups" not in service, "no gpio group: the pins are launcherd's"


def test_its_state_is_its_own_directory(unit, daemon):
    service = unit["Service"]
    assert one(service, "StateDirectory") == "launcher-game"
    assert one(service, "StateDirectory") != one(daemon["Service"], "StateDirectory")
    assert one(service, "StateDirectoryMode") == "0750"
    assert one(service, "UMask") == "0077"


def test_no_devices_no_network(unit):
    service = unit["Service"]
    assert one(service, "PrivateDevices") == "yes"
    assert one(service, "DevicePolicy") == "closed"
    assert "DeviceAllow" not in service
    assert one(service, "PrivateNetwork") == "yes"
    assert one(service, "RestrictAddressFamilies") == "AF_UNIX"
    assert one(service, "IPAddressDeny") == "any"


def test_the_motors_daemon_wins_for_cpu_and_memory(unit):
    service = unit["Service"]
    assert int(one(service, "Nice")) > 0
    assert int(one(service, "OOMScoreAdjust")) > 0


@pytest.fixture
def checkable_unit(tmp_path) -> Path:
    return checkable_copy(UNIT, INSTALLED, tmp_path)


@needs_analyze
def test_systemd_analyze_verify_is_clean(checkable_unit):
    result = subprocess.run([SYSTEMD_ANALYZE, "verify", "--man=no", str(checkable_unit)],
                            capture_output=True, text=True, timeout=60)
    assert result.stderr == "" and result.returncode == 0, result.stderr


@needs_analyze
def test_systemd_analyze_security_exposure_is_at_most_one(checkable_unit):
    result = subprocess.run([SYSTEMD_ANALYZE, "security", "--offline=true", str(checkable_unit)],
                            capture_output=True, text=True, timeout=60)
    match = re.search(r"Overall exposure level for launcher-game\.service: (\d+\.\d+)", result.stdout)
    assert match, result.stdout + result.stderr
    assert float(match.group(1)) <= 1.0, result.stdout


# ---- install.sh -----------------------------------------------------------------------------


def test_the_game_is_installed_enabled_and_restarted_after_launcherd(stubs, scratch):  # noqa: F811
    result = run_script("--dry-run", stubs=stubs, root=scratch)
    assert result.returncode == 0, result.stderr
    units = f"{scratch}/etc/systemd/system"
    assert_in_order(actions(result.stdout), [
        f"install -m 0644 {DAEMON_UNIT} {units}/launcherd.service",
        f"install -m 0644 {UNIT} {units}/launcher-game.service",
        "systemctl daemon-reload",
        "systemctl enable launcherd.service",
        "systemctl enable launcher-game.service",
        "systemctl restart launcherd.service",
        "systemctl restart launcher-game.service",
    ])
    # A fresh install has no game state to move.
    assert not [step for step in actions(result.stdout) if step.startswith(("mv ", "systemctl stop"))]
    assert "systemctl status launcherd launcher-game" in result.stdout


def test_the_uninstall_stops_the_game_before_launcherd_and_keeps_its_state(stubs, scratch):  # noqa: F811
    units = scratch / "etc" / "systemd" / "system"
    units.mkdir(parents=True)
    for name in ("launcherd.service", "launcher-game.service", "launcher-web.service"):
        (units / name).write_text("")
    result = run_script("--dry-run", "--uninstall", stubs=stubs, root=scratch)
    assert result.returncode == 0, result.stderr
    steps = actions(result.stdout)
    assert_in_order(steps, ["systemctl disable --now launcher-web.service",
                            "systemctl disable --now launcher-game.service",
                            "systemctl disable --now launcherd.service",
                            f"rm -f {units}/launcher-game.service"])
    assert not [step for step in steps if "launcher-game" in step and step.startswith("rm -rf")]
    assert f"{scratch}/var/lib/launcher-game  (game and score state)" in result.stdout


def old_state(scratch: Path, *names: str) -> Path:
    """launcherd's state directory as an install from before launcher-game left it."""
    old = scratch / "var" / "lib" / "card-launcher"
    old.mkdir(parents=True, exist_ok=True)
    for name in ("outcomes.jsonl", "launcher.latch", *names):
        (old / name).write_text(name)
    return old


def test_an_update_moves_the_games_files_into_its_own_directory_once(stubs, scratch):  # noqa: F811
    old = old_state(scratch, "game.sqlite3", "game.sqlite3-wal", "game.sqlite3-shm", "join-code",
                    "game.sqlite3.damaged-20260101T000000", "game.sqlite3.damaged-20260101T000000-wal")
    new = scratch / "var" / "lib" / "launcher-game"
    result = run_script("--dry-run", stubs=stubs, root=scratch)
    assert result.returncode == 0, result.stderr
    steps = actions(result.stdout)
    # Both stopped (an older launcherd holds the log open), the directory made for the game's user,
    # the -wal before the log, all before the game's unit is enabled and anything restarted.
    assert_in_order(steps, [
        "systemctl daemon-reload",
        "systemctl stop launcher-game.service launcherd.service",
        f"install -d -o card-launcher -g card-launcher -m 0750 {new}",
        f"mv -n {old}/game.sqlite3-wal {new}/game.sqlite3-wal",
        f"mv -n {old}/game.sqlite3 {new}/game.sqlite3",
        "systemctl enable launcher-game.service",
        "systemctl restart launcherd.service",
        "systemctl restart launcher-game.service",
    ])
    moved = {step.split()[2].rpartition("/")[2] for step in steps if step.startswith("mv -n ")}
    assert moved == {"game.sqlite3", "game.sqlite3-wal", "game.sqlite3-shm", "join-code",
                     "game.sqlite3.damaged-20260101T000000", "game.sqlite3.damaged-20260101T000000-wal"}
    # launcherd's own files stay where launcherd reads them.
    assert not [step for step in steps if "outcomes.jsonl" in step or "launcher.latch" in step]


def test_a_move_cut_short_is_finished_by_the_next_run(stubs, scratch):  # noqa: F811
    old = old_state(scratch, "game.sqlite3", "join-code")
    new = scratch / "var" / "lib" / "launcher-game"
    new.mkdir(parents=True)
    (new / "game.sqlite3-wal").write_text("moved already")
    result = run_script("--dry-run", stubs=stubs, root=scratch)
    assert result.returncode == 0, result.stderr
    moves = [step for step in actions(result.stdout) if step.startswith("mv -n ")]
    assert moves == [f"mv -n {old}/game.sqlite3 {new}/game.sqlite3", f"mv -n {old}/join-code {new}/join-code"]


def test_a_game_that_has_its_own_log_already_never_takes_the_old_ones_files(stubs, scratch):  # noqa: F811
    old_state(scratch, "game.sqlite3", "game.sqlite3-wal", "join-code")
    new = scratch / "var" / "lib" / "launcher-game"
    new.mkdir(parents=True)
    (new / "game.sqlite3").write_text("the game's own")
    (new / "join-code").write_text("the game's own")
    result = run_script("--dry-run", stubs=stubs, root=scratch)
    assert result.returncode == 0, result.stderr
    steps = actions(result.stdout)
    assert not [step for step in steps if step.startswith(("mv ", "systemctl stop"))], steps
    assert "WARNING: two game logs: launcher-game uses /var/lib/launcher-game/game.sqlite3" in result.stdout


def test_a_second_run_after_the_move_moves_nothing(stubs, scratch):  # noqa: F811
    old_state(scratch)
    new = scratch / "var" / "lib" / "launcher-game"
    new.mkdir(parents=True)
    for name in ("game.sqlite3", "join-code"):
        (new / name).write_text(name)
    result = run_script("--dry-run", stubs=stubs, root=scratch)
    assert result.returncode == 0, result.stderr
    assert not [step for step in actions(result.stdout) if step.startswith(("mv ", "systemctl stop"))]
    assert "WARNING" not in result.stdout


def test_the_move_itself_moves_each_file_once_and_overwrites_nothing(tmp_path):
    """move_game_state run for real (sourced, in a scratch root, systemctl and install stubbed):
    the files end up in the game's directory, launcherd's own stay, and what the game already has
    is never overwritten."""
    root = tmp_path / "root"
    old = old_state(root, "game.sqlite3", "game.sqlite3-wal", "join-code")
    new = root / "var" / "lib" / "launcher-game"
    new.mkdir(parents=True)
    (new / "join-code").write_text("the game's own")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "calls.log"
    (bin_dir / "systemctl").write_text(f'#!/bin/sh\necho "systemctl $*" >> "{log}"\n')
    (bin_dir / "install").write_text(f'#!/bin/sh\necho "install $*" >> "{log}"\nfor last; do :; done\nmkdir -p "$last"\n')
    for stub in bin_dir.iterdir():
        stub.chmod(0o755)
    script = f"source {shlex.quote(str(ROOT / 'systemd' / 'install.sh'))}; move_game_state"
    result = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=30,
                            env={"PATH": f"{bin_dir}:/usr/bin:/bin", "CARD_LAUNCHER_ROOT": str(root)})
    assert result.returncode == 0, result.stderr
    assert sorted(path.name for path in new.iterdir()) == ["game.sqlite3", "game.sqlite3-wal", "join-code"]
    assert (new / "game.sqlite3").read_text() == "game.sqlite3"
    assert (new / "join-code").read_text() == "the game's own"
    assert sorted(path.name for path in old.iterdir()) == ["join-code", "launcher.latch", "outcomes.jsonl"]
    assert log.read_text().splitlines()[0] == "systemctl stop launcher-game.service launcherd.service"
    # A second run finds nothing to move and stops nothing.
    log.unlink()
    again = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=30,
                           env={"PATH": f"{bin_dir}:/usr/bin:/bin", "CARD_LAUNCHER_ROOT": str(root)})
    assert again.returncode == 0 and not log.exists(), again.stdout
