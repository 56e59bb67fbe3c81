"""No motion without a person's fresh press (issue #20), through a real daemon on simulated pins:
a dispense that a jam stopped waits after the card is pulled out, status/get says what waits in
``pending``, and the button (``launcher/press``), ``launcher/resume`` or ``launcherctl resume``
lets it go on; that press is not also a launch."""

from __future__ import annotations

import pytest

from harness.launcherd import ThreadDaemon
from firmware.errors import ApiError

SLOW = "[sim]\ncards_per_second = 20.0\nhopper = 100\n"


def jam_a_dispense(running: ThreadDaemon, client, count: int):
    """A dispense of ``count`` whose fourth card sticks, pulled out again: returns its request id."""
    running.wait_for(lambda s: s["state"] == "ready")
    request = client.send("launcher/dispense", {"count": count})
    running.wait_for(lambda s: s["cards_ejected"] >= 3)
    running.call("sim/jam")
    running.wait_for(lambda s: s["state"] == "jammed")
    running.call("sim/clear")
    return request


def test_a_jam_pulled_out_leaves_the_dispense_waiting_for_a_press(tmp_path):
    with ThreadDaemon(tmp_path, SLOW) as running, running.client(timeout=60) as client:
        request = jam_a_dispense(running, client, 8)
        status = running.wait_for(lambda s: s["pending"] is not None)
        pending = status["pending"]
        assert pending["id"] == "dispense_waiting_press" and pending["after"] == {"id": "after_jam"}
        assert pending["count"] == 8 - status["dealer"]["current"]["cards"]
        assert status["pending_text"].startswith("the jam is cleared: press the button to go on")
        assert status["state"] == "ready" and status["motor"]["on"] is False
        assert status["dealer"]["current"]["state"] == "waiting_press"
        out, given = status["sim"]["cards_out"], status["dealer"]["current"]["cards"]
        presses = status["presses"]

        answer = running.call("launcher/press")  # the simulated button
        assert answer["event"] == "resume"
        reply = next(m for m in client.messages() if m.get("id") == request)["result"]
        status = running.call("status/get")
    assert (reply["state"], reply["cards"]) == ("done", 8)
    assert status["sim"]["cards_out"] - out == 8 - given, "the rest of the count, and nothing while it waited"
    assert status["presses"] == presses, "the press that resumed was not also a launch"
    assert status["pending"] is None


def test_launcher_resume_lets_it_go_on_and_is_refused_when_nothing_waits(tmp_path):
    with ThreadDaemon(tmp_path, SLOW) as running, running.client(timeout=60) as client:
        with pytest.raises(ApiError) as refused:
            running.call("launcher/resume")
        assert "nothing waits for a press" in str(refused.value)
        request = jam_a_dispense(running, client, 6)
        running.wait_for(lambda s: s["pending"] is not None)
        status = running.call("launcher/resume")
        assert status["pending"] is None
        reply = next(m for m in client.messages() if m.get("id") == request)["result"]
    assert (reply["state"], reply["cards"], reply["remaining"]) == ("done", 6, 0)


def test_launcherctl_resume(tmp_path):
    with ThreadDaemon(tmp_path, SLOW) as running, running.client(timeout=60) as client:
        request = jam_a_dispense(running, client, 5)
        running.wait_for(lambda s: s["pending"] is not None)
        shown = running.ctl("status")
        assert "waiting    the jam is cleared: press the button to go on" in shown.stdout
        done = running.ctl("resume")
        assert done.returncode == 0, done.stderr
        reply = next(m for m in client.messages() if m.get("id") == request)["result"]
        again = running.ctl("resume")
    assert reply["cards"] == 5
    assert again.returncode == 1 and "nothing waits for a press" in again.stdout + again.stderr


@pytest.mark.parametrize("wait_press, after", [(True, "after_restart"), ("restart", "after_restart"),
                                               ("reset", "after_reset")])
def test_a_dispense_asked_to_wait_while_halted_waits_for_the_reset_then_for_a_press(tmp_path, wait_press, after):
    """Halted, a ``wait_press`` dispense waits for the reset first: it is not ``waiting_press`` and
    nothing is pending (no press could go on). After the reset it waits for a press, saying after
    what (``true`` still means a restart), and the press lets exactly the count out (#20)."""
    with ThreadDaemon(tmp_path, SLOW) as running, running.client(timeout=60) as client:
        client.call("events/subscribe")
        running.call("system/estop")
        request = client.send("launcher/dispense", {"count": 3, "wait_press": wait_press})
        progress = next(m["params"] for m in client.messages() if m.get("event") == "dealer/dispense")
        assert (progress["state"], progress["reason_object"]) == ("waiting_reset", {"id": "dispense_is_halted"})
        status = running.call("status/get")
        assert status["state"] == "halted" and status["pending"] is None
        assert status["dealer"]["current"]["state"] == "waiting_reset"
        out = status["sim"]["cards_out"]

        assert running.call("system/reset")["state"] == "ready"
        status = running.wait_for(lambda s: s["pending"] is not None)
        assert status["pending"] == {"id": "dispense_waiting_press", "count": 3, "after": {"id": after}}
        assert status["dealer"]["current"]["state"] == "waiting_press"
        assert status["motor"]["on"] is False and status["sim"]["cards_out"] == out, "a reset is no press"
        presses = status["presses"]

        assert running.call("launcher/press")["event"] == "resume"
        reply = next(m for m in client.messages() if m.get("id") == request)["result"]
        status = running.call("status/get")
    assert (reply["state"], reply["cards"]) == ("done", 3)
    assert status["sim"]["cards_out"] - out == 3 and status["presses"] == presses


@pytest.mark.parametrize("wait_press", ["later", 1, 0, None, [True]])
def test_wait_press_is_a_flag_or_a_reason(tmp_path, wait_press):
    with ThreadDaemon(tmp_path, SLOW) as running:
        with pytest.raises(ApiError) as refused:
            running.call("launcher/dispense", {"count": 1, "wait_press": wait_press})
        assert refused.value.code == ApiError.INVALID_PARAMS
        assert 'wait_press must be true, false, "restart" or "reset"' in str(refused.value)
        assert running.call("status/get")["dealer"]["current"] is None
