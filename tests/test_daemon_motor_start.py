"""Through launcherd's API: a finger in the slot (the beam blocked, not yet a jam) refuses a reverse
pulse (``launcher/retract``) and a jog (``bringup/jog``), and the motor pins stay low (issue #20)."""

from __future__ import annotations

import pytest

from harness.launcherd import ThreadDaemon
from firmware.errors import ApiError

MOTOR_PINS = (12, 13)  # [pins] motor_forward, motor_reverse
BEAM = 27  # [pins] beam, low when blocked
# A finger stays in the slot well short of a jam for the whole test.
LONG_JAM = "[timing]\njam_ms = 4000\n"


def refused(running: ThreadDaemon, method: str, params: dict | None = None) -> dict:
    with pytest.raises(ApiError) as info:
        running.call(method, params)
    assert info.value.code == ApiError.REFUSED
    return info.value.data


def test_a_retract_or_a_jog_with_a_finger_in_the_slot_is_refused_and_nothing_moves(tmp_path):
    running = ThreadDaemon(tmp_path, LONG_JAM)
    with running:
        beam = running.daemon.pin_factory.pin(BEAM)
        running.in_loop(beam.drive_low)
        running.wait_for(lambda s: s["beam_blocked"])
        data = refused(running, "launcher/retract")
        assert data["message_object"] == {"id": "refused_beam_blocked"}, data
        data = refused(running, "bringup/jog", {"direction": "forward", "ms": 100, "duty": 0.3})
        assert data["message_object"] == {"id": "refused_beam_blocked"}, data
        status = running.call("status/get")
        assert (status["state"], status["motor"]["on"]) == ("ready", False)
        assert [running.pin_state(pin) for pin in MOTOR_PINS] == [0, 0]
        running.in_loop(beam.drive_high)  # the finger is gone
        running.wait_for(lambda s: not s["beam_blocked"])
        jogged = running.call("bringup/jog", {"direction": "reverse", "ms": 50, "duty": 0.3})
        assert jogged["jogged"]["ended"] == "done"
