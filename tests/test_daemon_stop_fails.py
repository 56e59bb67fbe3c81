"""A stop that cannot be applied ends launcherd at once with a failure code, so that systemd runs
safe-off (issue #20): an exception in the stop used to be caught by the asyncio callback or API
task it ran in, and the daemon lived on saying "halted, motor off" with the motor input at 0.7.
``sim/fault`` (``--sim`` only) makes the simulated motor's next stop fail."""

from __future__ import annotations

import pytest

from firmware.daemon.driver import EXIT_STOP_FAILED
from firmware.errors import ApiError

SLOW = "[sim]\ncards_per_second = 10.0\nhopper = 100\n"


def test_a_failed_stop_at_the_end_of_a_run_ends_the_process(daemon_process):
    proc = daemon_process(SLOW, log_file=True)
    proc.call("sim/fault", {"fault": "motor_stop"})
    with pytest.raises((ApiError, OSError, ConnectionError)):
        proc.call("launcher/feed", {"count": 2})  # the run's stop fails: nobody is left to answer
    assert proc.process.wait(10) == EXIT_STOP_FAILED
    assert "the stop could not be applied" in proc.log()


def test_a_failed_stop_of_an_estop_ends_the_process(daemon_process):
    proc = daemon_process(SLOW, log_file=True)
    with proc.client() as client:
        client.send("launcher/feed", {"count": 20})  # the motor runs
        proc.call("sim/fault", {"fault": "motor_stop"})
        with pytest.raises((ApiError, OSError, ConnectionError)):
            proc.call("system/estop", {"reason": "hands in the slot"})
    assert proc.process.wait(10) == EXIT_STOP_FAILED
    log = proc.log()
    assert "the stop could not be applied" in log and "could not be driven low" in log


def test_sim_fault_names_the_faults_it_knows(daemon_process):
    proc = daemon_process(SLOW)
    with pytest.raises(ApiError, match="motor_stop"):
        proc.call("sim/fault", {"fault": "everything"})
    assert proc.process.poll() is None


def test_the_system_tests_hook_fails_the_stop_of_a_running_motor_only(daemon_process):
    """``LAUNCHER_TEST_MOTOR_STOP_FAILS=1`` (firmware/launcher/hardware.py) is how `make systemtest` fails a
    stop on real lines: the stops of a motor at rest (start-up) pass, the end of a run does not."""
    proc = daemon_process(SLOW, log_file=True, env={"LAUNCHER_TEST_MOTOR_STOP_FAILS": "1"})
    assert proc.call("status/get")["state"] == "ready"  # built, the motor stopped at rest
    with pytest.raises((ApiError, OSError, ConnectionError)):
        proc.call("launcher/feed", {"count": 2})
    assert proc.process.wait(10) == EXIT_STOP_FAILED
    assert "LAUNCHER_TEST_MOTOR_STOP_FAILS is set" in proc.log()
