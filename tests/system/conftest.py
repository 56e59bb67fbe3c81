"""Fixtures of the system tests (inside the VM, as root): the chip, the installed service.

The service is installed once per session as a user would (the maker runs `sudo
systemd/install.sh` from the checkout), with the test's config written before the first start
(install.sh keeps an existing config, as it keeps a user's).
"""

from __future__ import annotations

import json
import os
import subprocess
import time

import pytest

import rig

# Scenario name -> passed, for bench/results-system.json (written by test_zz_report).
OUTCOMES: dict[str, bool] = {}
FIGURES: dict[str, object] = {}


# Whether the scenario that ran last failed: the next one first brings the service and the
# world back to rest (the_last_failure_left_behind), so that one failure is not four.
LAST_FAILED: list[bool] = [False]


def pytest_runtest_logreport(report):
    if report.failed:
        LAST_FAILED[0] = True
        # Said at once on the console (and so in console.log), not only at the end of a 20-minute run.
        # Each line tagged, since the host shows only tagged lines of the console as the run goes.
        lines = report.longreprtext[-4000:].splitlines()
        print(f"\n[systemtest] {report.nodeid} {report.when} failed:", flush=True)
        print("\n".join(f"[systemtest]   {line}" for line in lines), flush=True)
    if report.when == "call" or report.outcome != "passed":
        name = report.nodeid.split("::")[-1].removeprefix("test_")
        if name != "zz_report":
            OUTCOMES[name] = OUTCOMES.get(name, True) and report.outcome == "passed"


HEARTBEAT_LINE = 26  # [pins] motor_heartbeat of the test config


def test_config(chip: rig.Chip, **timing) -> str:
    """The config the service runs with in the tests: the chip, the lid, servo and heartbeat fitted, a
    fixed burst sequence so that each press's count is known, no duty limit in the way of
    hundreds of presses, no sleep unless asked, and the motor at full duty: under TCG lgpio's
    software PWM stalls for milliseconds, so a 70 % line's low stretches could not be told from
    a stopped motor. The reverse pulse likewise runs at full duty and for 150 ms (60 by default): a
    guest vCPU busy with launcherd's end of a launch can keep the rig's mechanism thread from
    sampling the lines for tens of milliseconds, and scenario 2 asks for every pulse to be seen."""
    timing = {"sleep_after_s": 0, "max_duty": 1.0, "max_on_ms": 120000, **timing}
    lines = [
        # The heartbeat on a line no default uses: the gate it feeds is not in the VM, its toggling is.
        "[pins]", f"chip = {chip.number}", "lid = 22", "servo = 25", f"motor_heartbeat = {HEARTBEAT_LINE}", "",
        "[motor]", "duty = 1.0", "retract_duty = 1.0", "retract_ms = 150", "",
        "[ejection]", 'profile = "fixed"', "sequence = [3, 0, 8, 1, 0, 12, 5]", "",
        "[timing]", *(f"{key} = {json.dumps(value)}" for key, value in timing.items()), "",
    ]
    return "\n".join(lines)


def write_config(chip: rig.Chip, **timing) -> None:
    rig.CONFIG.parent.mkdir(parents=True, exist_ok=True)
    rig.CONFIG.write_text(test_config(chip, **timing))


def restart_service() -> None:
    # The unit's start limit (5 starts a minute) is there for crash loops; the scenarios restart it
    # on purpose, and on a fast run (a scenario that fails early) they would reach it.
    rig.sh("systemctl", "reset-failed", "launcherd", check=False)
    rig.sh("systemctl", "restart", "launcherd")
    wait_ready()


READY_STATES = ("ready", "empty", "sleeping")


def wait_ready(timeout: float = 120, states: tuple[str, ...] = READY_STATES, game: bool = True) -> None:
    """The service active (READY=1 sent), the world's levels written again over the biases the
    daemon requested, and the launcher ready (or in one of ``states``: ``halted`` after a crash
    with the motor on, issue #20's latch). With ``game`` (and launcher-game installed), the game
    process registered with launcherd too (it reconnects by itself when launcherd restarts, and
    catches up from the outcome record before it says READY=1): the scenarios ask game/* next."""
    rig.wait_for(lambda: rig.sh("systemctl", "is-active", "launcherd", check=False).stdout.strip() == "active",
                 timeout, 0.2, "launcherd active (READY=1)")
    rig.chip().reassert()
    last: list = []
    try:
        rig.wait_for(lambda: _status_ok(last, states), timeout, 0.2, f"launcherd answering on its socket, {states}")
    except AssertionError as exc:
        raise AssertionError(f"{exc}; last status: {last[-1] if last else None}") from None
    if game and rig.GAME_UNIT.exists():
        wait_game_up(timeout)


def wait_game_up(timeout: float = 120) -> dict:
    """launcher-game active (its READY=1: registered and caught up) and launcherd's status saying
    the game is up; that status."""
    rig.wait_for(lambda: rig.sh("systemctl", "is-active", rig.GAME, check=False).stdout.strip() == "active",
                 timeout, 0.2, f"{rig.GAME} active (READY=1)")
    last: list = []

    def up() -> dict | None:
        try:
            status = rig.status()
        except (OSError, ValueError, RuntimeError) as exc:
            last.append(repr(exc))
            return None
        last.append(status.get("game_layer"))
        return status if (status.get("game_layer") or {}).get("state") == "up" else None
    try:
        return rig.wait_for(up, timeout, 0.2, "launcherd's status saying the game is up")
    except AssertionError as exc:
        raise AssertionError(f"{exc}; last game_layer: {last[-1] if last else None};"
                             f" the game's journal: {rig.game_journal_tail()}") from None


def _status_ok(last: list, states: tuple[str, ...]) -> bool:
    try:
        status = rig.status()
    except (OSError, ValueError, RuntimeError) as exc:
        last.append(repr(exc))
        return False
    last.append(status)
    return status["state"] in states


@pytest.fixture(scope="session", autouse=True)
def kernel_trace():
    if not rig.TRACE:
        yield
        return
    rig.trace_start()
    try:
        yield
    finally:
        rig.trace_save()


@pytest.fixture(scope="session")
def chip() -> rig.Chip:
    chip = rig.chip()
    # The world at power-on: button up, beam clear, lid closed (its contact pulls the line down).
    pins = rig.pins()
    chip.pull(pins["button"], "up")
    chip.pull(pins["beam"], "up")
    chip.pull(22, "down")
    yield chip
    chip.close()


@pytest.fixture(scope="session")
def installed(chip):
    """install.sh run twice by the maker through sudo, the second time changing nothing."""
    write_config(chip)
    runs = []
    for attempt in (1, 2):
        started = time.monotonic()
        # Straight into the results share, so that a slow or stuck install shows on the host.
        log = rig.RESULTS / f"install-{attempt}.log"
        with log.open("w") as out:
            result = subprocess.run(["runuser", "-u", "maker", "--", "sudo", "systemd/install.sh"],
                                    cwd=rig.CHECKOUT, stdout=out, stderr=subprocess.STDOUT, timeout=1800)
        output = log.read_text()
        runs.append({"rc": result.returncode, "s": round(time.monotonic() - started, 1), "stdout": output})
        assert result.returncode == 0, f"install.sh run {attempt} failed:\n{output}"
    FIGURES["install_s"] = [run["s"] for run in runs]
    wait_ready()
    rig.api_call("launcher/reload", cards=10000)
    return runs


@pytest.fixture(scope="session")
def safe_off_s(installed) -> float:
    """What one `launcherd --safe-off` costs on this machine (a Python start under TCG is
    seconds): the scenarios' limits for safe-off add it to the issue's figures."""
    rig.sh("systemctl", "stop", "launcherd")
    samples = []
    try:
        for _ in range(3):
            started = time.monotonic()
            rig.sh(*rig.as_pi("/opt/card-launcher/bin/launcherd", "--safe-off", "--config", str(rig.CONFIG)),
                   cwd="/tmp", env={**os.environ, "LG_WD": "/tmp"})
            samples.append(time.monotonic() - started)
    finally:
        rig.sh("systemctl", "start", "launcherd")
        wait_ready()
    FIGURES["safe_off_s"] = [round(s, 2) for s in samples]
    return max(samples)


@pytest.fixture(scope="session")
def timer_late_s() -> float:
    """How late a 10 ms sleep wakes in this guest (p99): TCG's allowance on timing limits."""
    late = []
    for _ in range(200):
        started = time.perf_counter()
        time.sleep(0.01)
        late.append(time.perf_counter() - started - 0.01)
    value = rig.percentile(late, 99)
    FIGURES["timer_late_p99_us"] = round(value * 1e6)
    return value


@pytest.fixture(scope="session")
def guest_late():
    """The guest's own lateness on each CPU for the rest of the session (rig.GuestLateness);
    its figures go into the report."""
    probe = rig.GuestLateness().start()
    try:
        yield probe
    finally:
        FIGURES["guest_lateness"] = probe.figures()
        probe.close()


def the_emulators_stall(guest_late: rig.GuestLateness, halted: dict, seen_at: float) -> dict | None:
    """A halt for a stall that the guest's own lateness explains: what the report says of it; None
    when the halt is launcherd's (another reason, or a stall while the guest was running).

    ``halted``: the status with the halt; ``seen_at``: perf_counter() when the test learned of it.
    The core measures a stall from its last event to the one that found it; it halts when a
    deadline was missed by more than stall_ms. The guest ran nothing for ``late`` seconds within
    that span (and a second of slack for the event's way to the test): had it run, the loop would
    have been late by ``seconds - late`` at most, and the stall is the emulator's where that is
    within stall_ms.
    """
    reason = halted.get("reason_object") or {}
    if halted.get("state") != "halted" or reason.get("id") != "stalled":
        return None
    seconds = float(reason.get("seconds", 0))
    late = guest_late.late_within(seen_at - seconds - 1.0, seen_at)
    stall_s = STALL_MS / 1000
    # Where launcherd's journal says the time went (its CPU and its loop thread's in the stall).
    explained = rig.journal("-u", "launcherd", "-g", "the stall: ", "-n", "1", "-o", "cat").strip()
    said = {"stalled_s": seconds, "guest_late_s": round(late, 3), "launcherd_said": explained}
    return said if late > 0 and seconds - late <= stall_s else None


STALL_MS = 250  # [timing] stall_ms of the test config (the shipped default)


def reload_if_run_out() -> None:
    """An empty launcher reloaded, as a person would: a kill's launch with no card coming (the
    rig's mechanism holding them back) may have reached its feed timeout first on a slow guest,
    which the launcher rightly takes for an empty hopper; scenario 2, when it passes, hands on
    thousands of cards, and the next scenarios press for bursts."""
    if rig.status()["state"] == "empty":
        print("\n[systemtest] the launcher says empty: reloaded with 10000 cards", flush=True)
        rig.api_call("launcher/reload", cards=10000)


@pytest.fixture(autouse=True)
def the_last_failure_left_behind(request):
    """After a failed scenario, what it may have left (a button held down, an open lid, a game
    dealing, a halt, a unit past its start limit) is put back as at the start, and said on the
    console. A scenario that passed hands its end state on untouched: those are tested."""
    failed_before, LAST_FAILED[0] = LAST_FAILED[0], False
    if not failed_before or "installed" not in request.fixturenames:
        yield  # scenario 14 installs afresh of its own
        return
    print(f"\n[systemtest] the last scenario failed: the service and the lines back to rest before"
          f" {request.node.name}", flush=True)
    chip, pins = rig.chip(), rig.pins()
    chip.pull(pins["button"], "up")
    chip.pull(pins["beam"], "up")
    chip.pull(22, "down")  # the lid closed
    write_config(chip)
    rig.sh("systemctl", "reset-failed", "launcherd", check=False)
    rig.sh("systemctl", "restart", "launcherd", check=False)
    if rig.GAME_UNIT.exists():
        # A game left stopped (SIGSTOP) or stopped by the scenario: going again.
        rig.sh("systemctl", "kill", "-s", "CONT", rig.GAME, check=False)
        rig.sh("systemctl", "reset-failed", rig.GAME, check=False)
        rig.sh("systemctl", "start", rig.GAME, check=False)
    wait_ready(states=("halted", *READY_STATES))
    if rig.status()["state"] == "halted":
        rig.api_call("system/reset")
    reload_if_run_out()
    rig.sh("launcherctl", "game", "abandon", check=False)
    if rig.status().get("pending"):
        rig.api_call("launcher/resume")
    wait_ready()
    yield


@pytest.fixture
def api(installed):
    api = rig.Api()
    api.call("events/subscribe")
    yield api
    api.close()
