"""Performance on the kernel path, then the uninstall and the report (bench/results-system.json).

Press to motor: from the test's write to the button line's `pull` to the first read of the
motor's forward line as high, minus the debounce time (the daemon's button_debounce_ms; for
the baseline gpiozero's bounce_time, which lgpio hands to the kernel). Beam held to motor low:
from the beam's `pull-down` to the forward line staying low, minus jam_ms.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import threading
import time

import rig
from conftest import FIGURES, OUTCOMES, the_emulators_stall, wait_ready, write_config

PRESSES = int(os.environ.get("SYSTEMTEST_PRESSES", "1000"))
BASELINE_PRESSES = int(os.environ.get("SYSTEMTEST_BASELINE_PRESSES", "500"))
JAMS = int(os.environ.get("SYSTEMTEST_JAMS", "20"))
# The loaded run: as many presses again while four clients read game/stats and game/history.
LOADED_PRESSES = int(os.environ.get("SYSTEMTEST_LOADED_PRESSES", "200"))
READERS = 4
DEBOUNCE_S = 0.020  # button_debounce_ms of the shipped config, kept by the test config
JAM_S = 0.400
# The daemon refuses a press once a chain of motor runs (runs less than motor_rest_ms apart) has
# used max_on_ms of on-time: 748 back-to-back presses of about 160 ms of motor each under TCG
# reached the test config's 120 s, and press 749 was refused, as it should be. A person never
# presses this densely; the test rests as the rule asks, long before the limit.
PRESSES_PER_REST = 100
# Press to motor on the kernel's lines: within this many times bare gpiozero's, on the same chip.
TARGET_RATIO = 2.0
# From the motor's line low to the next press, for launcherd and bare gpiozero alike (no person
# presses sooner). launcherd's presses came the moment its line went low, the baseline's this long
# after: a launcherd press then met the last launch's aftermath (the game's log, the events to three
# clients) on the one vCPU the rig's busy read leaves, which bare gpiozero has none of (edge to
# Python p99 21.9 ms, 7.3 ms with the pause; docs/performance.md, 2026-12-04, late).
BETWEEN_PRESSES_S = DEBOUNCE_S * 2


def press_to_high(chip: rig.Chip, button: int, forward: int, timeout: float = 30) -> float:
    """Presses (one clean edge) and busy-reads the forward line until high; the seconds."""
    started = time.perf_counter()
    chip.pull(button, "down")
    deadline = started + timeout
    while not chip.value(forward):
        if time.perf_counter() > deadline:
            chip.pull(button, "up")
            gpioinfo = rig.sh("gpioinfo", "-c", chip.name, check=False).stdout
            refused = rig.journal("-u", "launcherd", "-g", "refused", "-n", "3")
            raise AssertionError(f"the motor line never went high; status: {rig.status()}\n"
                                 f"refusals: {refused}\n{gpioinfo}")
    return time.perf_counter() - started


def after_a_halt(launched: dict, guest_late: rig.GuestLateness, halts: list[dict], where: str) -> None:
    """A launch that ended in a halt. The guest's own lateness explains the stall: the emulator's,
    said in the report (``halts_the_guest_caused``), and reset as a person would before the next
    press (a press on a halted launcher is no press: held, it is the reset). Anything else is
    launcherd's, and fails with what it said."""
    seen_at = time.perf_counter()
    halted = rig.status()
    said = the_emulators_stall(guest_late, halted, seen_at)
    if said is None:
        raise AssertionError(f"{where}: launcherd halted ({halted.get('reason')!r}) and the guest's own"
                             f" lateness does not explain it: {guest_late.figures()}; launched: {launched};"
                             f" journal: {rig.journal('-u', 'launcherd', '-n', '15', '-o', 'cat')}")
    halts.append({"at": where, **said})
    rig.api_call("system/reset")
    rig.wait_for(lambda: rig.status()["state"] in ("ready", "jammed"), 30, 0.05, "ready after the reset")


class Readers:
    """READERS clients reading game/stats and game/history in a loop, each on its own connection."""

    def __init__(self) -> None:
        self.stop = threading.Event()
        self.readings = 0
        self.errors: list[str] = []
        self.threads = [threading.Thread(target=self._read, daemon=True) for _ in range(READERS)]

    def _read(self) -> None:
        api = rig.Api()
        try:
            while not self.stop.is_set():
                api.call("game/stats")
                api.call("game/history")
                self.readings += 2
        except Exception as exc:  # reported with the figures: a reader cut off is a finding too
            self.errors.append(f"{type(exc).__name__}: {exc}")
        finally:
            api.close()

    def __enter__(self) -> "Readers":
        for thread in self.threads:
            thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(120)


def test_performance_press_to_motor_and_jam_to_stop(installed, chip, guest_late):
    pins = rig.pins()
    halts: list[dict] = []  # stalls the guest's own lateness explains (after_a_halt)
    button, forward, reverse = pins["button"], pins["motor_forward"], pins["motor_reverse"]

    # The daemon: every press fires one card (fixed sequence [1]).
    text = rig.CONFIG.read_text().replace("sequence = [3, 0, 8, 1, 0, 12, 5]", "sequence = [1]")
    rig.CONFIG.write_text(text)
    rig.sh("systemctl", "restart", "launcherd")
    wait_ready()
    rig.api_call("launcher/reload", cards=10000)
    daemon = []
    with rig.Mechanism(chip, forward, reverse, pins["beam"]) as mech:
        api = rig.Api()
        api.call("events/subscribe")
        try:
            rest_s = rig.motor_rest_s()

            def presses(count: int, into: list[float]) -> None:
                for index in range(count):
                    if index % PRESSES_PER_REST == 0:
                        time.sleep(rest_s + 0.5)
                    try:
                        into.append(press_to_high(chip, button, forward) - DEBOUNCE_S)
                    except AssertionError as exc:  # what launcherd said about the lost press
                        said = [event for event in api.drain(1.0)
                                if event["event"] in ("press", "ignored", "refused", "state", "launched")]
                        raise AssertionError(f"{exc}\npress {index + 1} of {count}; launcherd's events"
                                             f" since the last launch: {said[-12:]}") from None
                    chip.pull(button, "up")
                    launched = api.next_event("launched", 120)["params"]
                    if launched["ended"] == "halt":
                        after_a_halt(launched, guest_late, halts, f"press {index + 1} of {count}")
                    rig.wait_for(lambda: not mech.motor_on, 30, 0.001, "the motor off")
                    time.sleep(BETWEEN_PRESSES_S)

            presses(PRESSES, daemon)
            # Where the idle presses' time went inside launcherd (firmware/daemon/trace.py): the kernel's
            # edge to Python, the hop to the motor's loop, the loop to the motor's line.
            trace = api.call("launcher/latency")
            loaded: list[float] = []
            log_matches = len(api.call("game/history"))
            with Readers() as readers:
                presses(LOADED_PRESSES, loaded)
            jams = []
            for _ in range(JAMS):
                mech.jam()
                chip.pull(button, "down")
                rig.wait_for(lambda: mech.stuck(), 30, 0.0005, "the stuck card")
                chip.pull(button, "up")
                while chip.high_within(forward, rig.PWM_WINDOW_S):
                    pass
                jams.append(time.perf_counter() - rig.PWM_WINDOW_S - mech.blocked_at - JAM_S)
                launched = api.next_event("launched", 120)["params"]
                if launched["ended"] == "halt":  # the halt stopped it, not the jam: no sample
                    jams.pop()
                    after_a_halt(launched, guest_late, halts, f"jam {len(jams) + 1}")
                mech.clear()
                rig.wait_for(lambda: rig.status()["state"] == "ready", 30, 0.02, "ready")
        finally:
            api.close()
    write_config(chip)

    # The baseline, on the same lines with the service stopped.
    rig.sh("systemctl", "stop", "launcherd")
    baseline = []
    command = rig.as_pi("/opt/card-launcher/bin/python", str(rig.CHECKOUT / "tests/system/baseline.py"),
                        str(chip.number), str(button), str(forward), str(reverse), str(DEBOUNCE_S))
    process = subprocess.Popen(command, stdout=subprocess.PIPE, text=True, cwd="/tmp",
                               env={**os.environ, "LG_WD": "/tmp"})
    try:
        assert process.stdout.readline().strip() == "ready"
        for _ in range(BASELINE_PRESSES):
            baseline.append(press_to_high(chip, button, forward) - DEBOUNCE_S)
            chip.pull(button, "up")
            rig.wait_for(lambda: not chip.value(forward), 30, 0.0005, "the baseline motor off")
            time.sleep(BETWEEN_PRESSES_S)
    finally:
        process.terminate()
        process.wait(30)
        rig.sh("systemctl", "start", "launcherd")
        wait_ready()

    daemon_us, baseline_us, jam_us = rig.summary_us(daemon), rig.summary_us(baseline), rig.summary_us(jams)
    loaded_us = rig.summary_us(loaded)
    FIGURES.update({
        # Beside the idle figures: the same presses while READERS clients read stats and history.
        "loaded_press_to_motor_p50_us": loaded_us["p50"], "loaded_press_to_motor_p99_us": loaded_us["p99"],
        "loaded_presses": loaded_us["n"], "loaded_readings": readers.readings,
        "loaded_reader_errors": readers.errors[:3], "loaded_log_matches": log_matches,
        "press_to_motor_p99_vs_baseline": round(daemon_us["p99"] / max(1, baseline_us["p99"]), 2),
        "press_to_motor_p50_us": daemon_us["p50"], "press_to_motor_p99_us": daemon_us["p99"],
        "press_to_motor_presses": daemon_us["n"],
        "baseline_press_to_motor_p50_us": baseline_us["p50"], "baseline_press_to_motor_p99_us": baseline_us["p99"],
        "baseline_presses": baseline_us["n"],
        "jam_to_stop_p50_us": jam_us["p50"], "jam_to_stop_p99_us": jam_us["p99"], "jams": jam_us["n"],
        "press_trace_ms": trace,
        # Stalls of launcherd that the guest's own lateness explains (each one reset, then on).
        "halts_the_guest_caused": halts,
        # Issue 19's target, judged here and reported, not asserted: TCG's timing varies with the
        # host's load (docs/systemtest.md), and a benchmark is no timed test.
        "press_to_motor_targets": {
            f"{stat}_within_{TARGET_RATIO:g}x_of_baseline": daemon_us[stat] <= TARGET_RATIO * baseline_us[stat]
            for stat in ("p50", "p99")},
    })


def test_uninstall_keeps_config_and_state(installed, chip):
    pins = rig.pins()
    result = subprocess.run(["runuser", "-u", "maker", "--", "sudo", "systemd/install.sh", "--uninstall"],
                            cwd=rig.CHECKOUT, capture_output=True, text=True, timeout=600)
    (rig.RESULTS / "uninstall.log").write_text(result.stdout + "\n--- stderr\n" + result.stderr)
    assert result.returncode == 0, result.stderr
    for unit in ("launcherd", rig.GAME):
        assert rig.sh("systemctl", "is-active", unit, check=False).stdout.strip() != "active", unit
        assert not rig.Path(f"/etc/systemd/system/{unit}.service").exists(), unit
    # The game stopped before launcherd (the clients first), and its state kept like launcherd's.
    steps = [line for line in result.stdout.splitlines() if line.startswith("+ systemctl disable --now")]
    assert steps.index(f"+ systemctl disable --now {rig.GAME}.service") \
        < steps.index("+ systemctl disable --now launcherd.service"), steps
    assert not rig.Path("/opt/card-launcher").exists()
    assert rig.CONFIG.exists() and rig.Path("/var/lib/card-launcher").exists()
    assert (rig.GAME_STATE / "game.sqlite3").exists(), "the game's log is kept"
    assert f"{rig.GAME_STATE}  (game and score state)" in result.stdout
    assert rig.sh("id", "card-launcher", check=False).returncode != 0
    assert chip.value(pins["motor_forward"]) == 0 and chip.value(pins["motor_reverse"]) == 0
    assert "No config.txt" in installed[0]["stdout"]


def test_zz_report():
    """Writes bench/results-system.json (through /mnt/results; vm.sh copies it)."""
    os_release = dict(line.split("=", 1) for line in rig.Path("/etc/os-release").read_text().splitlines() if "=" in line)
    report = {
        "kernel": platform.release(),
        "os": os_release.get("PRETTY_NAME", "").strip('"'),
        "python": platform.python_version(),
        "systemd": rig.sh("systemctl", "--version").stdout.split()[1],
        "gpio_chip": "gpio-sim (out-of-tree module built from linux-source), lgpio",
        "qemu_accel": next((word.split("=", 1)[1] for word in rig.Path("/proc/cmdline").read_text().split()
                            if word.startswith("systemtest.accel=")), "unknown"),
        "measured_at": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
        **FIGURES,
        "scenarios": {name: passed for name, passed in OUTCOMES.items() if name.startswith("scenario")},
        "other_tests": {name: passed for name, passed in OUTCOMES.items() if not name.startswith("scenario")},
    }
    (rig.RESULTS / "results-system.json").write_text(json.dumps(report, indent=2) + "\n")
