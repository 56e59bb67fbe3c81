"""systemd/install.sh: the dry run lists every step and changes nothing; the config.txt edit.

Every run here is a dry run, or one that must stop before its first action. As a second line of
defence the commands that change a system (apt-get, useradd, systemctl, install, ...) are
replaced on PATH by stubs that record being called: the tests assert that none was.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sysconfig
import tempfile
from pathlib import Path

import pytest

from firmware.config import default_toml, load_config

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "systemd" / "install.sh"
UNIT = ROOT / "systemd" / "launcherd.service"
BOOT_BEGIN = "# >>> card-launcher: motor pins driven low from early boot (systemd/install.sh)"
BOOT_END = "# <<< card-launcher"


def WATCHDOG_CONF(root: Path) -> Path:
    return root / "etc" / "systemd" / "system.conf.d" / "card-launcher-watchdog.conf"


MUTATORS = (
    "apt-get", "groupadd", "groupdel", "useradd", "userdel", "usermod", "systemctl",
    "install", "ln", "rm", "mv", "cp", "mkdir", "chmod", "chown", "mktemp", "tar", "pip", "pip3",
)


@pytest.fixture
def stubs(tmp_path):
    """A PATH directory whose mutators record calls, and whose getent/id answer as told."""
    bin_dir = tmp_path / "stub-bin"
    bin_dir.mkdir()
    log = tmp_path / "mutations.log"
    for name in MUTATORS:
        stub = bin_dir / name
        stub.write_text(f'#!/bin/sh\necho "{name} $*" >> "{log}"\nexit 1\n')
        stub.chmod(0o755)
    # Accounts: "absent" unless STUB_ACCOUNTS=present, whatever this machine has.
    for name in ("getent", "id"):
        stub = bin_dir / name
        stub.write_text(
            '#!/bin/sh\n[ "$STUB_ACCOUNTS" = present ] || exit 2\n'
            'case "$*" in *-nG*) echo "maker" ;; *) echo 999 ;; esac\n'
        )
        stub.chmod(0o755)
    write_stub_dpkg_query_and_hostname(bin_dir)
    return bin_dir, log


def write_stub_dpkg_query_and_hostname(bin_dir: Path) -> None:
    """dpkg-query: no package installed unless STUB_PACKAGES=installed. hostname: the Pi "tablepi"
    with the addresses of STUB_ADDRESSES (an IPv4 and an IPv6 one unless told), never setting it."""
    (bin_dir / "dpkg-query").write_text(
        '#!/bin/sh\n[ "$STUB_PACKAGES" = installed ] || exit 1\nprintf "ii "\n'
    )
    (bin_dir / "hostname").write_text(
        '#!/bin/sh\ncase "$*" in\n  -I) echo "${STUB_ADDRESSES-192.168.1.23 fd00::23}" ;;\n'
        '  "") echo tablepi ;;\n  *) exit 1 ;;\nesac\n'
    )
    # apt-cache: every package has a candidate but those STUB_APT_LACKS names (Debian has no python3-lgpio).
    (bin_dir / "apt-cache").write_text(
        '#!/bin/sh\npackage=$2\ncase " $STUB_APT_LACKS " in *" $package "*) exit 0 ;; esac\n'
        'printf "%s:\\n  Installed: (none)\\n  Candidate: 1.0\\n" "$package"\n'
    )
    for name in ("dpkg-query", "hostname", "apt-cache"):
        (bin_dir / name).chmod(0o755)


@pytest.fixture
def scratch(tmp_path):
    """A scratch root with a Bookworm-style boot partition, for CARD_LAUNCHER_ROOT."""
    root = tmp_path / "root"
    (root / "boot" / "firmware").mkdir(parents=True)
    config_txt = root / "boot" / "firmware" / "config.txt"
    config_txt.write_text("# Pi settings\ndtparam=audio=on\n[pi4]\narm_boost=1\n")
    return root


def snapshot(root: Path) -> dict[str, bytes | None]:
    return {
        str(path.relative_to(root)): (path.read_bytes() if path.is_file() else None)
        for path in sorted(root.rglob("*"))
    }


def run_script(*args: str, stubs, root: Path | None, accounts: str = "absent", sudo_user: str | None = None,
               **stub_env: str):
    bin_dir, log = stubs
    env = {key: value for key, value in os.environ.items() if key not in ("SUDO_USER", "CARD_LAUNCHER_ROOT")}
    env["PATH"] = f"{bin_dir}:{env['PATH']}"
    env["STUB_ACCOUNTS"] = accounts
    env.update(stub_env)
    if root is not None:
        env["CARD_LAUNCHER_ROOT"] = str(root)
    if sudo_user:
        env["SUDO_USER"] = sudo_user
    result = subprocess.run(
        ["bash", str(SCRIPT), *args], capture_output=True, text=True, env=env, timeout=60
    )
    assert not log.exists(), f"a command that changes the system ran:\n{log.read_text()}"
    return result


def actions(output: str) -> list[str]:
    return [line[2:] for line in output.splitlines() if line.startswith("+ ")]


def assert_in_order(found: list[str], expected: list[str]) -> None:
    position = 0
    for step in expected:
        assert step in found[position:], f"missing or out of order: {step!r}\nactions: {found}"
        position = found.index(step, position) + 1


def test_the_shipped_config_is_the_documented_default():
    path = ROOT / "firmware" / "launcher.toml"
    assert path.read_text(encoding="utf-8") == default_toml(), (
        "firmware/launcher.toml is out of date: regenerate it with .venv/bin/python -c"
        " 'import sys; from firmware.config import default_toml; sys.stdout.write(default_toml())'"
        " > firmware/launcher.toml"
    )
    assert load_config(path).as_dict() == load_config().as_dict()


def test_the_script_is_valid_bash():
    subprocess.run(["bash", "-n", str(SCRIPT)], check=True)


def test_help_names_every_option(stubs):
    result = run_script("--help", stubs=stubs, root=None)
    assert result.returncode == 0
    for option in ("--dry-run", "--uninstall", "sudo systemd/install.sh"):
        assert option in result.stdout


def test_an_unknown_option_is_refused(stubs):
    result = run_script("--dry-rnu", stubs=stubs, root=None)
    assert result.returncode != 0
    assert "unknown option: --dry-rnu" in result.stderr
    assert actions(result.stdout) == []


def test_dry_run_lists_every_install_step_in_order_and_changes_nothing(stubs, scratch):
    before = snapshot(scratch)
    result = run_script("--dry-run", stubs=stubs, root=scratch, sudo_user="maker")
    assert result.returncode == 0, result.stderr
    assert snapshot(scratch) == before

    venv = f"{scratch}/opt/card-launcher"
    assert_in_order(
        actions(result.stdout),
        [
            "apt-get update",
            "apt-get install -y python3-venv python3-lgpio gpiod espeak-ng alsa-utils",
            "groupadd --system card-launcher",
            "groupadd --system gpio",
            "useradd --system --gid card-launcher --no-create-home --home-dir /nonexistent"
            " --shell /usr/sbin/nologin --comment 'card launcher daemon' card-launcher",
            "usermod -aG card-launcher maker",
            f"python3 -m venv --system-site-packages {venv}",
            f"pip install a clean copy of {ROOT} into {venv} (not editable)",
            f"ln -sfn {venv}/bin/launcherctl {scratch}/usr/local/bin/launcherctl",
            f"ln -sfn {venv}/bin/launcherd {scratch}/usr/local/bin/launcherd",
            f"install -d -m 0755 {scratch}/etc/card-launcher",
            f"install -m 0644 {ROOT}/firmware/launcher.toml {scratch}/etc/card-launcher/launcher.toml",
            f"write the lines '{BOOT_BEGIN}', '[all]', 'gpio=12,13,16,26=op,dl', 'dtparam=strict_gpiod',"
            f" '{BOOT_END}' into {scratch}/boot/firmware/config.txt",
            f"install -d -m 0755 {scratch}/etc/systemd/system.conf.d",
            f"write '[Manager]' and 'RuntimeWatchdogSec=10s' into {WATCHDOG_CONF(scratch)}",
            f"install -m 0644 {UNIT} {scratch}/etc/systemd/system/launcherd.service",
            "systemctl daemon-reload",
            "systemctl enable launcherd.service",
            "systemctl restart launcherd.service",
        ],
    )
    for check in ("systemctl status launcherd", "launcherctl status", "Dry run: nothing was changed"):
        assert check in result.stdout


def test_dry_run_installs_the_voice_with_its_speech_packages(stubs, scratch):
    result = run_script("--dry-run", stubs=stubs, root=scratch)
    assert result.returncode == 0, result.stderr
    assert_in_order(
        actions(result.stdout),
        [
            "apt-get install -y python3-venv python3-lgpio gpiod espeak-ng alsa-utils",
            f"install -m 0644 {ROOT}/systemd/launcher-voice.service {scratch}/etc/systemd/system/launcher-voice.service",
            "systemctl enable launcher-voice.service",
            "systemctl restart launcher-voice.service",
        ],
    )


def test_dry_run_on_this_machine_changes_nothing(stubs):
    paths = [
        Path("/opt/card-launcher"),
        Path("/etc/card-launcher"),
        Path("/etc/systemd/system/launcherd.service"),
        Path("/usr/local/bin/launcherctl"),
    ]
    before = {path: path.exists() and path.stat().st_mtime_ns for path in paths}
    result = run_script("--dry-run", stubs=stubs, root=None)
    assert result.returncode == 0, result.stderr
    assert {path: path.exists() and path.stat().st_mtime_ns for path in paths} == before
    # The paths the script installs to are the ones the unit runs.
    unit = UNIT.read_text()
    steps = actions(result.stdout)
    assert "python3 -m venv --system-site-packages /opt/card-launcher" in steps or (
        "Virtual environment /opt/card-launcher exists" in result.stdout
    )
    assert "ExecStart=/opt/card-launcher/bin/launcherd --config /etc/card-launcher/launcher.toml" in unit
    assert any(step.endswith(" /etc/systemd/system/launcherd.service") for step in steps)


@pytest.fixture
def public_copy():
    """What install.sh reads (itself, the units, the firmware package, pyproject.toml), copied
    where any user can read it: the checkout's parent may be private (a clone under /root or
    `mktemp -d` is 0700), and pytest's tmp_path is always private."""
    base = Path(tempfile.mkdtemp(prefix="install-sh-"))
    try:
        base.chmod(0o755)
        copy = base / "checkout"
        shutil.copytree(ROOT / "systemd", copy / "systemd")
        shutil.copytree(ROOT / "firmware", copy / "firmware",
                        ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copy(ROOT / "pyproject.toml", copy / "pyproject.toml")
        stub_bin = base / "stub-bin"
        stub_bin.mkdir()
        log = base / "mutations.log"
        for name in MUTATORS:
            stub = stub_bin / name
            stub.write_text(f'#!/bin/sh\necho "{name} $*" >> "{log}"\nexit 1\n')
        for name in ("getent", "id"):
            (stub_bin / name).write_text("#!/bin/sh\nexit 2\n")
        write_stub_dpkg_query_and_hostname(stub_bin)
        for path in [copy, *copy.rglob("*"), stub_bin, *stub_bin.iterdir()]:
            path.chmod(0o755 if path.is_dir() or path.parent == stub_bin else 0o644)
        (copy / "systemd" / "install.sh").chmod(0o755)
        yield copy, stub_bin, log
    finally:
        shutil.rmtree(base)


@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("setpriv") is None, reason="needs root and setpriv to become nobody"
)
def test_dry_run_needs_no_root_and_a_real_run_does(public_copy):
    copy, stub_bin, log = public_copy
    nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
              "bash", str(copy / "systemd" / "install.sh")]
    env = {**os.environ, "PATH": f"{stub_bin}:{os.environ['PATH']}"}
    env.pop("SUDO_USER", None)
    dry = subprocess.run([*nobody, "--dry-run"], capture_output=True, text=True, env=env, cwd="/", timeout=60)
    assert dry.returncode == 0, dry.stderr
    assert "apt-get install -y python3-venv python3-lgpio gpiod espeak-ng alsa-utils" in actions(dry.stdout)
    # Run without sudo, the dry run shows the group step for the user who ran it.
    assert "usermod -aG card-launcher nobody" in actions(dry.stdout)
    real = subprocess.run(nobody, capture_output=True, text=True, env=env, cwd="/", timeout=60)
    assert real.returncode != 0
    assert "run me as root" in real.stderr
    assert actions(real.stdout) == []
    assert not log.exists()


def script_functions() -> set[str]:
    return set(re.findall(r"^([a-z_]+)\(\) \{", SCRIPT.read_text(), re.MULTILINE))


@pytest.mark.parametrize("args", [(), ("--uninstall",)])
def test_a_dry_run_names_no_function_of_the_script(stubs, scratch, args):
    config_txt = scratch / "boot" / "firmware" / "config.txt"
    config_txt.write_text(config_txt.read_text() + f"{BOOT_BEGIN}\n[all]\ngpio=12=op,dl\n{BOOT_END}\n")
    result = run_script("--dry-run", *args, stubs=stubs, root=scratch, accounts="present", sudo_user="maker")
    assert result.returncode == 0, result.stderr
    functions = script_functions()
    assert {"pip_install_checkout", "write_boot_block", "remove_boot_block"} <= functions
    # Single words like "run" or "units" are also plain English; the script's own identifiers are not.
    leaked = {name for name in functions if "_" in name and name in result.stdout}
    leaked |= {step.split()[0] for step in actions(result.stdout)} & functions
    assert not leaked, f"the dry run prints the script's internal names: {leaked}\n{result.stdout}"


def test_a_dry_run_as_root_without_sudo_says_how_to_add_a_user_to_the_group(stubs, scratch):
    result = run_script("--dry-run", stubs=stubs, root=scratch)
    assert result.returncode == 0, result.stderr
    if os.geteuid() == 0:
        assert "sudo usermod -aG card-launcher USER" in result.stdout
    else:
        assert f"usermod -aG card-launcher {os.environ.get('USER') or os.getlogin()}" in actions(result.stdout)


def test_every_unit_of_the_checkout_is_installed_enabled_and_restarted_after_launcherd(public_copy, stubs):
    copy = public_copy[0]
    (copy / "systemd" / "launcher-web.service").write_text("[Unit]\nAfter=launcherd.service\n")
    units = sorted(path.name for path in (copy / "systemd").glob("*.service"))
    assert "launcherd.service" in units and len(units) >= 2
    others = [unit for unit in units if unit != "launcherd.service"]
    env = {key: value for key, value in os.environ.items() if key not in ("SUDO_USER", "CARD_LAUNCHER_ROOT")}
    env["PATH"] = f"{stubs[0]}:{env['PATH']}"
    result = subprocess.run(["bash", str(copy / "systemd" / "install.sh"), "--dry-run"],
                            capture_output=True, text=True, env=env, timeout=60)
    assert result.returncode == 0, result.stderr
    steps = actions(result.stdout)
    for unit in units:
        assert f"install -m 0644 {copy}/systemd/{unit} /etc/systemd/system/{unit}" in steps
        assert f"systemctl enable {unit}" in steps
    assert_in_order(steps, ["systemctl restart launcherd.service", *(f"systemctl restart {u}" for u in others)])

    root = Path(tempfile.mkdtemp())
    try:
        (root / "etc" / "systemd" / "system").mkdir(parents=True)
        for unit in units:
            (root / "etc" / "systemd" / "system" / unit).write_text("")
        env["CARD_LAUNCHER_ROOT"] = str(root)
        result = subprocess.run(["bash", str(copy / "systemd" / "install.sh"), "--dry-run", "--uninstall"],
                                capture_output=True, text=True, env=env, timeout=60)
    finally:
        shutil.rmtree(root)
    assert result.returncode == 0, result.stderr
    assert_in_order(actions(result.stdout),
                    [*(f"systemctl disable --now {u}" for u in reversed(others)),
                     "systemctl disable --now launcherd.service"])


def test_the_uninstall_dry_run_says_what_it_removes_and_keeps_when_nothing_is_there(stubs, scratch):
    (scratch / "boot" / "firmware" / "config.txt").unlink()
    result = run_script("--dry-run", "--uninstall", stubs=stubs, root=scratch)
    assert result.returncode == 0, result.stderr
    for line in ("No user card-launcher", "No group card-launcher", "no card-launcher lines to remove",
                 "keeping your config and the game state", "(your config)", "(game and score state)"):
        assert line in result.stdout


def test_the_scratch_root_is_refused_outside_a_dry_run(stubs, scratch):
    before = snapshot(scratch)
    result = run_script(stubs=stubs, root=scratch)
    assert result.returncode != 0
    assert actions(result.stdout) == []
    assert snapshot(scratch) == before


def test_an_existing_config_is_kept_and_its_motor_pins_go_to_config_txt(stubs, scratch):
    config = scratch / "etc" / "card-launcher" / "launcher.toml"
    config.parent.mkdir(parents=True)
    config.write_text("[pins]\nmotor_forward = 20\nmotor_reverse = 21\nmotor_enable = false\n")
    # Before Bookworm, config.txt was on /boot itself.
    shutil.rmtree(scratch / "boot" / "firmware")
    (scratch / "boot" / "config.txt").write_text("dtparam=audio=on\n")

    result = run_script("--dry-run", stubs=stubs, root=scratch, accounts="present")
    assert result.returncode == 0, result.stderr
    steps = actions(result.stdout)
    assert f"Keeping your {config}" in result.stdout
    assert not any(step.startswith("install -m 0644") and step.endswith(str(config)) for step in steps)
    # Its motor pins, and the heartbeat's default GPIO 26, which the config does not set.
    assert (f"write the lines '{BOOT_BEGIN}', '[all]', 'gpio=20,21,26=op,dl', 'dtparam=strict_gpiod', '{BOOT_END}'"
            f" into {scratch}/boot/config.txt") in steps
    assert not any(step.startswith(("groupadd", "useradd")) for step in steps)


def test_a_blasters_release_actuator_is_what_config_txt_holds_low(stubs, scratch):
    config = scratch / "etc" / "card-launcher" / "launcher.toml"
    config.parent.mkdir(parents=True)
    config.write_text('[device]\nkind = "blaster"\n[blaster]\nactuator = 22\n')
    result = run_script("--dry-run", stubs=stubs, root=scratch, accounts="present")
    assert result.returncode == 0, result.stderr
    assert (f"write the lines '{BOOT_BEGIN}', '[all]', 'gpio=22=op,dl', 'dtparam=strict_gpiod', '{BOOT_END}'"
            f" into {scratch}/boot/firmware/config.txt") in actions(result.stdout)


def test_the_watchdog_drop_in_is_written_once_and_kept_when_in_place(tmp_path):
    env = {**os.environ, "CARD_LAUNCHER_ROOT": str(tmp_path)}
    script = f"source {shlex.quote(str(SCRIPT))}; configure_watchdog"
    first = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=30, env=env)
    assert first.returncode == 0, first.stderr
    assert WATCHDOG_CONF(tmp_path).read_text().splitlines()[1:] == ["[Manager]", "RuntimeWatchdogSec=10s"]
    again = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=30, env=env)
    assert "systemd already feeds the hardware watchdog" in again.stdout
    assert "write" not in again.stdout


def test_a_boot_block_already_in_place_is_left_alone(stubs, scratch):
    config_txt = scratch / "boot" / "firmware" / "config.txt"
    config_txt.write_text(config_txt.read_text()
                          + f"{BOOT_BEGIN}\n[all]\ngpio=12,13,16,26=op,dl\ndtparam=strict_gpiod\n{BOOT_END}\n")
    result = run_script("--dry-run", stubs=stubs, root=scratch)
    assert result.returncode == 0, result.stderr
    assert "already drives the motor pins low" in result.stdout
    assert not any(step.startswith("write the lines") for step in actions(result.stdout))


@pytest.mark.parametrize(
    ("config", "boot", "message"),
    [
        ("[pins]\nmotor_forward = 3\n", "", "fix the config first"),
        ("", f"{BOOT_BEGIN}\n[all]\ngpio=12=op,dl\n", "broken card-launcher block"),
    ],
)
def test_problems_stop_the_install_before_its_first_action(stubs, scratch, config, boot, message):
    if config:
        path = scratch / "etc" / "card-launcher" / "launcher.toml"
        path.parent.mkdir(parents=True)
        path.write_text(config)
    if boot:
        (scratch / "boot" / "firmware" / "config.txt").write_text(boot)
    result = run_script("--dry-run", stubs=stubs, root=scratch)
    assert result.returncode != 0
    assert message in result.stderr
    assert actions(result.stdout) == []


def test_dry_run_uninstall_lists_every_removal_and_names_what_is_kept(stubs, scratch):
    (scratch / "etc" / "systemd" / "system" / "launcherd.service.d").mkdir(parents=True)
    (scratch / "etc" / "systemd" / "system" / "launcherd.service").write_text(UNIT.read_text())
    (scratch / "opt" / "card-launcher" / "bin").mkdir(parents=True)
    config_txt = scratch / "boot" / "firmware" / "config.txt"
    config_txt.write_text(config_txt.read_text() + f"{BOOT_BEGIN}\n[all]\ngpio=12,13,16=op,dl\n{BOOT_END}\n")
    WATCHDOG_CONF(scratch).parent.mkdir(parents=True)
    WATCHDOG_CONF(scratch).write_text("[Manager]\nRuntimeWatchdogSec=10s\n")
    before = snapshot(scratch)

    result = run_script("--dry-run", "--uninstall", stubs=stubs, root=scratch, accounts="present")
    assert result.returncode == 0, result.stderr
    assert snapshot(scratch) == before
    assert_in_order(
        actions(result.stdout),
        [
            "systemctl disable --now launcherd.service",
            f"rm -f {scratch}/etc/systemd/system/launcherd.service",
            "systemctl daemon-reload",
            f"rm -f {scratch}/usr/local/bin/launcherctl {scratch}/usr/local/bin/launcherd",
            f"rm -rf {scratch}/opt/card-launcher",
            f"remove the card-launcher lines ('{BOOT_BEGIN}' to '{BOOT_END}') from {config_txt}",
            f"rm -f {WATCHDOG_CONF(scratch)}",
            "userdel card-launcher",
            "groupdel card-launcher",
        ],
    )
    for kept in ("/etc/card-launcher  (your config)", "/var/lib/launcher-game  (game and score state)",
                 "/var/lib/card-launcher  (launcherd's state: the latched halt, the outcome record)",
                 "launcherd.service.d  (your overrides", "python3-lgpio, gpiod, espeak-ng and alsa-utils"):
        assert kept in result.stdout


def boot_functions(command: str, *args: str) -> subprocess.CompletedProcess:
    """Call one function of install.sh, sourced (sourcing runs nothing else)."""
    script = f"source {shlex.quote(str(SCRIPT))}; {command} " + " ".join(shlex.quote(a) for a in args)
    return subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=30)


def test_the_boot_block_is_appended_replaced_and_removed_exactly(tmp_path):
    config_txt = tmp_path / "config.txt"
    original = "# Pi settings\ndtparam=audio=on\n[pi4]\narm_boost=1"  # no final newline
    config_txt.write_text(original)

    assert boot_functions("write_boot_block", str(config_txt), "gpio=12,13,16=op,dl").returncode == 0
    assert config_txt.read_text() == (
        original + f"\n{BOOT_BEGIN}\n[all]\ngpio=12,13,16=op,dl\n{BOOT_END}\n"
    )
    assert boot_functions("write_boot_block", str(config_txt), "gpio=20,21=op,dl").returncode == 0
    assert config_txt.read_text() == original + f"\n{BOOT_BEGIN}\n[all]\ngpio=20,21=op,dl\n{BOOT_END}\n"
    assert boot_functions("remove_boot_block", str(config_txt)).returncode == 0
    assert config_txt.read_text() == original + "\n"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["config.txt"], "a temporary file was left"


def test_a_boot_block_without_its_end_is_never_cut_to_the_end_of_the_file(tmp_path):
    config_txt = tmp_path / "config.txt"
    text = f"dtparam=audio=on\n{BOOT_BEGIN}\n[all]\ngpio=12=op,dl\ndtoverlay=important\n"
    config_txt.write_text(text)
    assert boot_functions("remove_boot_block", str(config_txt)).returncode != 0
    assert config_txt.read_text() == text


# ---- the last lines: where the page is, and the join code ---------------------------------------


def closing_lines(output: str) -> list[str]:
    """What the script says after its closing "==>" line."""
    lines = output.splitlines()
    return lines[max(i for i, line in enumerate(lines) if line.startswith("==> ")) + 1:]


def test_the_last_lines_name_the_pages_address_on_the_network_and_how_to_get_the_join_code(stubs, scratch):
    result = run_script("--dry-run", stubs=stubs, root=scratch)
    assert result.returncode == 0, result.stderr
    tail = closing_lines(result.stdout)
    text = "\n".join(tail)
    # launcher-web.service listens on 0.0.0.0:8080: the mDNS name and every IPv4 address.
    assert "--listen 0.0.0.0:8080" in (ROOT / "systemd" / "launcher-web.service").read_text()
    assert "    http://tablepi.local:8080/" in tail
    assert "    http://192.168.1.23:8080/" in tail
    assert "fd00" not in text
    assert "?view=table" in text
    assert "launcherctl game code" in text and "--qr" in text
    # They are the last lines, after "check it".
    assert text.index("systemctl status launcherd") < text.index("http://tablepi.local:8080/")
    assert "join code" in "\n".join(tail[-4:])


def test_a_drop_in_that_moves_the_page_is_what_the_last_lines_say(stubs, scratch):
    dropins = scratch / "etc" / "systemd" / "system" / "launcher-web.service.d"
    dropins.mkdir(parents=True)
    (dropins / "override.conf").write_text(
        "[Service]\nExecStart=\nExecStart=/opt/card-launcher/bin/launcher-web --listen=192.168.4.1:8000 --lang fr\n"
    )
    tail = "\n".join(closing_lines(run_script("--dry-run", stubs=stubs, root=scratch).stdout))
    assert "    http://192.168.4.1:8000/" in tail
    assert ".local" not in tail

    (dropins / "override.conf").write_text("[Service]\nExecStart=\nExecStart=/x/launcher-web --listen 127.0.0.1:9090\n")
    tail = "\n".join(closing_lines(run_script("--dry-run", stubs=stubs, root=scratch).stdout))
    assert "only on the Pi itself, http://127.0.0.1:9090/" in tail
    assert "sudo systemctl edit launcher-web" in tail and "--listen 0.0.0.0:9090" in tail

    # No --listen at all: launcher-web's own default, 0.0.0.0:8080.
    (dropins / "override.conf").write_text("[Service]\nExecStart=\nExecStart=/x/launcher-web --lang fr\n")
    tail = "\n".join(closing_lines(run_script("--dry-run", stubs=stubs, root=scratch).stdout))
    assert "http://tablepi.local:8080/" in tail


def test_a_pi_without_an_address_yet_is_told_how_to_find_it(stubs, scratch):
    result = run_script("--dry-run", stubs=stubs, root=scratch, STUB_ADDRESSES="")
    tail = "\n".join(closing_lines(result.stdout))
    assert "http://tablepi.local:8080/" in tail
    assert "no address yet" in tail and "hostname -I" in tail


# ---- a re-run needs no network ------------------------------------------------------------------


def test_apt_is_left_alone_when_its_packages_are_installed(stubs, scratch):
    result = run_script("--dry-run", stubs=stubs, root=scratch, STUB_PACKAGES="installed")
    assert result.returncode == 0, result.stderr
    assert not [step for step in actions(result.stdout) if step.startswith("apt-get")]
    assert "Installed from apt already: python3-venv python3-lgpio gpiod espeak-ng alsa-utils" in result.stdout


def test_a_second_pip_install_of_the_checkout_needs_no_network(tmp_path):
    """The install's pip step, run twice into one venv: the first with this machine's index, the
    second with every index unreachable, after a change to the source (a `git pull`)."""
    src = tmp_path / "checkout"
    src.mkdir()
    for name in ("firmware", "controller"):
        shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    venv = tmp_path / "venv"
    subprocess.run(["python3", "-m", "venv", "--system-site-packages", str(venv)], check=True, timeout=120)
    # The project's dependencies are already installed, as after an earlier run: those of this
    # test's interpreter, seen after the venv's own packages (the venv's pip and setuptools first).
    # The first run then installs the project alone instead of unpacking Babel and aiohttp for
    # seconds; the second run's resolver finds them installed either way.
    site_packages = next((venv / "lib").glob("python3*/site-packages"))
    (site_packages / "installed-dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n")
    command = f"source {shlex.quote(str(SCRIPT))}; pip_install_checkout {shlex.quote(str(src))} {shlex.quote(str(venv))}"

    first = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=600)
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-3000:]

    marker = "# changed after the first install"
    with open(src / "firmware" / "__init__.py", "a", encoding="utf-8") as file:
        file.write(f"\n{marker}\n")
    offline = {key: value for key, value in os.environ.items() if not key.startswith("PIP_")}
    offline.update(PIP_CONFIG_FILE=os.devnull, PIP_INDEX_URL="http://127.0.0.1:9/", PIP_RETRIES="0",
                   PIP_TIMEOUT="5")
    second = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=600, env=offline)
    assert second.returncode == 0, second.stdout[-3000:] + second.stderr[-3000:]
    installed = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import firmware, pathlib; print(pathlib.Path(firmware.__file__).read_text())"],
        capture_output=True, text=True, check=True, cwd=tmp_path, timeout=60,
    ).stdout
    assert marker in installed
