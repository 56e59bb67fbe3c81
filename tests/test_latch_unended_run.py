"""A run the process did not live to end (SIGKILL, a crash, a watchdog kill) still counts in the
motor's on-time record after the restart (issue #20): the core, the latch file and the restart's
reading of it (``OnTimeRecord.from_ages``, as firmware/daemon/driver.py does), on explicit clocks.

The process is "killed" by closing its latch without a stop: the flag stays set and nothing more
is written, which is what the page cache holds after a SIGKILL."""

from __future__ import annotations

import pytest

from firmware.events import Emit, Launch, Motor, OnTimeRecord, Persist, Reset, Restore
from firmware.i18n import message
from firmware.daemon.latch import START_AT, Latch
from test_core import T0, Rig

CRASH = message("halted_after_crash")
BOOT = "a-boot-id"
# A chain of at most 0.3 s, then 5 s of rest; a duty share that the restart must keep too.
LIMITS = {"timing": {"max_on_ms": 300, "motor_rest_ms": 5000, "launch_timeout_ms": 200, "jam_ms": 50,
                     "feed_timeout_ms": 150}}


class Boot:
    """CLOCK_BOOTTIME for the latch, running with the core's clock (offset: another process's)."""

    def __init__(self):
        self.now = 500.0

    def __call__(self) -> float:
        return self.now


class Process:
    """One launcherd: a core on its own clock and the latch, the driver's part done by hand."""

    def __init__(self, state_dir, boot: Boot, script=(500,), **sections):
        self.boot = boot
        self.latch = Latch(state_dir, clock=boot, boot=BOOT)
        self.rig = Rig(script=script, hopper=1000, **(sections or LIMITS))
        self.boot_at_t0 = boot.now  # the core's T0 is this boot time
        restored = self.latch.restored
        on_time = None if restored.on_time is None else OnTimeRecord.from_ages(
            restored.on_time, T0, self.rig.config.timing.max_on_ms / 1000)
        self.apply(self.rig.send(Restore(restored.halt, on_time)))

    def apply(self, actions) -> list:
        for action in actions:
            if isinstance(action, Motor):
                self.latch.motor_may_be_on(action.direction != "stop")
            elif isinstance(action, Persist):
                self.latch.record(action.halt, action.on_time, action.at, self.rig.now)
        return actions

    def send(self, event, after_ms: float = 0.0) -> list:
        mark = self.rig.mark()
        self.rig.send(event, after_ms)
        self.boot.now = self.boot_at_t0 + self.rig.now - T0
        return self.apply(self.rig.actions(mark))

    def wait(self, ms: float) -> list:
        mark = self.rig.mark()
        self.rig.wait(ms)
        self.boot.now = self.boot_at_t0 + self.rig.now - T0
        return self.apply(self.rig.actions(mark))

    def kill(self) -> None:
        self.latch.close()  # no stop, no record: the flag stays set


def refusals(actions) -> list[dict]:
    return [a.params for a in actions if isinstance(a, Emit) and a.name == "refused"]


def started(actions) -> bool:
    return any(isinstance(a, Motor) and a.direction != "stop" for a in actions)


def test_a_run_killed_midway_counts_until_the_chain_limit_and_the_rest_rule_holds_after_the_reset(tmp_path):
    boot = Boot()
    first = Process(tmp_path, boot)
    assert started(first.send(Launch()))
    first.wait(100)
    first.kill()  # 0.1 s into the run
    boot.now += 2.0  # RestartSec and a start
    again = Process(tmp_path, boot)
    try:
        assert abs(again.latch.restored.on_time["on"] - 2.1) < 1e-6, "the run's start was kept"
        assert again.rig.status["state"] == "halted"
        again.send(Reset())
        # Counted as run 0.3 s (the core would have cut it there), so the chain is spent and the
        # motor rests 5 s from that cut: 1.8 s have passed since.
        (refused,) = refusals(again.send(Launch()))
        assert refused["reason"]["id"] == "motor_needs_rest"
        assert refused["retry_after_s"] == pytest.approx(3.2, abs=0.002)
        assert again.rig.status["motor"]["on"] is False
        assert refusals(again.send(Launch(), refused["retry_after_s"] * 1000 - 10))
        assert started(again.send(Launch(), 10)), "rested: the record allows it"
    finally:
        again.kill()


def test_a_run_killed_early_counts_until_the_restart_when_that_is_sooner(tmp_path):
    boot = Boot()
    first = Process(tmp_path, boot)
    first.send(Launch())
    first.wait(20)
    first.kill()
    boot.now += 0.1  # a restart quicker than the chain's limit
    again = Process(tmp_path, boot)
    try:
        record = again.rig.core._on_time.record()
        assert record.runs[-1] == pytest.approx((T0 - 0.12, T0)) and record.chain == pytest.approx(0.12)
    finally:
        again.kill()


def test_the_duty_share_of_a_run_killed_midway_carries_over_the_restart(tmp_path):
    # One launch's worth per 10 s window (launch_timeout_ms + retract_ms = 1.01 s).
    duty = {"timing": {"max_on_ms": 20000, "motor_rest_ms": 100, "launch_timeout_ms": 1000, "jam_ms": 50,
                       "feed_timeout_ms": 900, "duty_window_s": 10, "max_duty": 0.101},
            "motor": {"retract_ms": 10}}
    boot = Boot()
    first = Process(tmp_path, boot, **duty)
    first.send(Launch())
    first.wait(500)
    first.kill()
    boot.now += 1.0
    again = Process(tmp_path, boot, **duty)
    try:
        again.send(Reset())
        (refused,) = refusals(again.send(Launch()))
        assert refused["reason"]["id"] == "motor_duty_window"
        # The run is taken as 1.5 s long (its start to the restart, T0): the next launch may need
        # the window's whole 1.01 s, so it fits once the window it would end in starts at T0.
        assert refused["retry_after_s"] == pytest.approx(10 - 1.01, abs=0.002)
        assert not started(again.send(Launch(), refused["retry_after_s"] * 1000 - 10))
        assert started(again.send(Launch(), 10))
    finally:
        again.kill()


def test_a_kill_between_the_motors_start_and_its_record_is_counted_from_the_flags_start(tmp_path):
    boot = Boot()
    latch = Latch(tmp_path, clock=boot, boot=BOOT)
    # The last record: a finished run of 0.2 s that ended 1 s ago (ages), then a start not recorded.
    latch.record(None, OnTimeRecord(0.2, 9.0, None, ((8.8, 9.0),)), 10.0, 10.0)
    latch.motor_may_be_on(True)
    boot.now += 0.5
    latch.motor_may_be_on(True)  # a change of duty: the start stays the first one
    boot.now += 1.5
    latch.close()
    again = Latch(tmp_path, clock=boot, boot=BOOT)
    try:
        on_time = again.restored.on_time
        assert again.restored.halt == CRASH
        # Taken as run from the flag's start until this start (2 s), continuing the chain.
        assert on_time["chain"] == pytest.approx(2.2) and on_time["off"] == 0.0 and on_time["on"] is None
        assert on_time["runs"] == [pytest.approx([3.2, 3.0]), [2.0, 0.0]]
    finally:
        again.close()


def test_a_latch_without_the_flags_start_keeps_the_record_as_it_is(tmp_path):
    boot = Boot()
    latch = Latch(tmp_path, clock=boot, boot=BOOT)
    latch.record(None, OnTimeRecord(0.2, 9.0, None, ((8.8, 9.0),)), 10.0, 10.0)
    latch.motor_may_be_on(True)
    latch.close()
    path = tmp_path / "launcher.latch"
    image = bytearray(path.read_bytes())
    image[START_AT:START_AT + 8] = bytes(8)  # as an older launcherd left it
    path.write_bytes(bytes(image))
    boot.now += 2.0
    again = Latch(tmp_path, clock=boot, boot=BOOT)
    try:
        assert again.restored.halt == CRASH
        assert again.restored.on_time["chain"] == pytest.approx(0.2)
        assert again.restored.on_time["runs"] == [pytest.approx([3.2, 3.0])]
    finally:
        again.close()
