"""launcherctl as a user runs it: exit codes, --json error objects, socket paths, timeouts."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time

import pytest

from harness.launcherd import BIN, MOTOR_LIMITS, ThreadDaemon


def ctl(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / "launcherctl"), *args], capture_output=True, text=True, timeout=timeout)


def json_error(result: subprocess.CompletedProcess) -> dict:
    return json.loads(result.stdout)["error"]


@pytest.mark.parametrize("args", [
    ["aim"],  # neither an angle nor a seat
    ["dispense"],
    ["dispense", "seven"],
    ["nonsense"],
    ["call", "status/get", "{not json"],
    ["profile", "stats", "--profile", "nope"],
], ids=["aim", "dispense-no-count", "dispense-word", "unknown-command", "call-bad-json", "unknown-profile"])
def test_usage_errors_exit_2_and_with_json_print_an_error_object(tmp_path, args):
    sock = str(tmp_path / "none.sock")
    plain = ctl("--socket", sock, *args)
    assert plain.returncode == 2, plain.stderr
    assert plain.stderr.startswith("launcherctl") and "Traceback" not in plain.stderr
    as_json = ctl("--socket", sock, *args, "--json")
    assert as_json.returncode == 2
    error = json_error(as_json)
    assert error["code"] == "usage" and error["message"].startswith("launcherctl")


def test_an_unreachable_daemon_is_exit_3_and_a_json_error(tmp_path):
    result = ctl("--socket", str(tmp_path / "none.sock"), "status", "--json")
    assert result.returncode == 3
    error = json_error(result)
    assert error["code"] == "unreachable" and "launcherd is not running" in error["message"]


@pytest.mark.parametrize("path, says", [
    ("", "--socket needs a path"),
    ("/tmp/" + "x" * 200 + ".sock", "a Unix socket path has at most 107"),
])
def test_a_socket_path_that_cannot_be_one_is_a_usage_message(path, says):
    result = ctl("--socket", path, "status")
    assert result.returncode == 2
    assert says in result.stderr and "Traceback" not in result.stderr
    assert json_error(ctl("--socket", path, "status", "--json"))["code"] == "usage"


# launcherctl as its entry point runs it, with the client's bound on a quick call shortened: the
# test waits for the timeout itself, not for the 5 s a person waits.
QUICK_TIMEOUT_CTL = ("import sys; import firmware.client; firmware.client.QUICK_TIMEOUT_S = {seconds};"
                     " from firmware.tools.cli import main; sys.exit(main(sys.argv[1:]))")


def test_a_daemon_that_accepts_but_never_answers_times_out_in_seconds(tmp_path):
    path = tmp_path / "mute.sock"
    with socket.socket(socket.AF_UNIX) as mute:
        mute.bind(str(path))
        mute.listen(1)
        started = time.monotonic()
        result = subprocess.run([sys.executable, "-c", QUICK_TIMEOUT_CTL.format(seconds=0.5),
                                 "--socket", str(path), "status", "--json"],
                                capture_output=True, text=True, timeout=60)
        elapsed = time.monotonic() - started
    assert result.returncode == 3, result.stderr
    assert json_error(result)["code"] == "timeout"
    # It waited for the bound (0.5 s here, QUICK_TIMEOUT_S's 5 s for a person) and no longer: the
    # margin is for a loaded machine, not the 150 s of a call with no bound.
    assert 0.5 <= elapsed < 30


def test_an_oversized_request_is_answered_not_waited_for(daemon_process):
    proc = daemon_process()
    result = proc.ctl("call", "status/get", json.dumps({"pad": "x" * 70000}), "--json")
    assert result.returncode == 1
    error = json_error(result)
    assert error["code"] == -32600 and "line longer than 64 KiB" in error["message"]


def test_a_refused_request_says_when_to_try_again(daemon_process):
    proc = daemon_process(MOTOR_LIMITS)  # its minute's rest outlasts a busy machine's launcherctl runs
    proc.ctl("feed", "500", check=True)
    proc.ctl("feed", "500", check=True)
    refused = proc.ctl("feed", "500")
    assert refused.returncode == 1
    assert "rest" in refused.stderr and "try again then" in refused.stderr
    as_json = proc.ctl("feed", "500", "--json")
    error = json_error(as_json)
    assert as_json.returncode == 1 and error["code"] == 1 and 0 < error["retry_after_s"] <= 60


def test_dispense_waits_for_a_jam_to_be_cleared_and_a_press_saying_so_and_then_gives_its_count(daemon_process):
    proc = daemon_process("[sim]\nhopper = 100\n[timing]\njam_ms = 100\n")
    proc.ctl("jam", check=True)
    dispense = subprocess.Popen([str(BIN / "launcherctl"), "--socket", str(proc.socket), "dispense", "4"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        said = dispense.stderr.readline()  # the stuck card: the dealer waits for a hand, and says so
        assert "stuck" in said and "1 of 4 out" in said
        assert dispense.poll() is None
        proc.ctl("clear", check=True)
        said = dispense.stderr.readline()  # pulled out: it waits for a person's press, and says so
        assert "the jam is cleared: press the button to go on (3 cards left to deal)" in said
        assert dispense.poll() is None
        proc.ctl("resume", check=True)
        out, _ = dispense.communicate(timeout=30)
    finally:
        dispense.kill()
    assert dispense.returncode == 0 and "4 cards out" in out
    assert proc.call("status/get")["sim"]["cards_out"] == 4


def test_a_dispense_ended_before_its_first_run_is_printed_with_its_reason(tmp_path):
    """A halt while the dispense waits for a press: no press ran, and none is named (launcherctl
    died on it with a traceback, press_id being None; a loaded make test's stall halt found it)."""
    from firmware.tools.cli import format_outcome

    with ThreadDaemon(tmp_path, load_layers=False) as running, running.client() as client:
        request = client.send("launcher/dispense", {"count": 3, "wait_press": True})
        running.wait_for(lambda s: s["pending"] is not None)
        running.call("system/estop", {"reason": "test"})
        result = next(m for m in client.messages() if m.get("id") == request)["result"]
    assert (result["state"], result["press_id"], result["cards"]) == ("abandoned", None, 0)
    assert format_outcome(result) == "the launcher halted (0 of 3 out)"


def test_profile_stats_of_fixed_without_a_sequence_says_it_needs_one(tmp_path):
    result = ctl("profile", "stats", "--profile", "fixed", "--presses", "100")
    assert result.returncode == 1
    assert "profile 'fixed' needs a sequence" in result.stderr
