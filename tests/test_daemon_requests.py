"""Each caller gets the outcome of its own request; an emergency stop never waits behind a launch."""

from __future__ import annotations

import pytest

from harness.launcherd import MOTOR_LIMITS, ThreadDaemon
from firmware.errors import ApiError
from firmware.launcher.sim import sim_pin_factory

SLOW_FEED = "[sim]\ncards_per_second = 40.0\nhopper = 10000\n[timing]\nfeed_timeout_ms = 400\n"
FORWARD = 12  # [pins] motor_forward by default


def reply_to(client, request_id):
    """The reply with this id, skipping events and the replies of other requests."""
    for message in client.messages():
        if message.get("id") == request_id and "event" not in message:
            return message


def test_two_feeds_from_two_clients_each_get_their_own_outcome(tmp_path):
    with ThreadDaemon(tmp_path, SLOW_FEED) as running, running.client() as first, \
            running.client() as second, running.client() as watcher:
        watcher.call("events/subscribe")
        thirty = first.send("launcher/feed", {"count": 30})
        next(m for m in watcher.messages() if m.get("event") == "card")  # the 30 are on their way
        five = second.send("launcher/feed", {"count": 5})
        second_reply = reply_to(second, five)["result"]
        first_reply = reply_to(first, thirty)["result"]
    assert first_reply["event"] == "launched" and first_reply["cards"] == 30
    assert first_reply["requested"] == 30
    assert second_reply == {**second_reply, "event": "ignored", "reason": "launching"}


def test_a_dispense_asked_while_another_runs_is_queued_and_both_give_their_count(tmp_path):
    with ThreadDaemon(tmp_path, SLOW_FEED) as running, running.client() as first, \
            running.client() as second, running.client() as watcher:
        watcher.call("events/subscribe")
        thirty = first.send("launcher/dispense", {"count": 30})
        next(m for m in watcher.messages() if m.get("event") == "card")  # the 30 are on their way
        five = second.send("launcher/dispense", {"count": 5})
        second_reply = reply_to(second, five)["result"]
        first_reply = reply_to(first, thirty)["result"]
        cards_out = running.call("status/get")["sim"]["cards_out"]
    assert (first_reply["state"], first_reply["cards"]) == ("done", 30)
    assert (second_reply["state"], second_reply["cards"]) == ("done", 5)
    assert first_reply["request"] != second_reply["request"]
    assert cards_out == 35


def test_two_presses_at_once_are_both_answered(tmp_path):
    with ThreadDaemon(tmp_path, '[ejection]\nprofile = "fixed"\nsequence = [2]\n') as running, \
            running.client(timeout=10) as first, running.client(timeout=10) as second:
        ids = first.send("launcher/press"), second.send("launcher/press")
        replies = [reply_to(first, ids[0])["result"], reply_to(second, ids[1])["result"]]
    assert replies[0]["request"] != replies[1]["request"]
    assert replies[0]["event"] == "launched" and replies[0]["cards"] == 2
    assert replies[1]["event"] in ("launched", "ignored")


def test_an_estop_behind_a_dispense_on_the_same_connection_stops_the_motor_at_once(tmp_path):
    with ThreadDaemon(tmp_path, SLOW_FEED) as running, running.client() as client:
        dispense = client.send("launcher/dispense", {"count": 40})
        running.wait_for(lambda s: s["motor"]["on"])
        estop = client.send("system/estop", {"reason": "hands in the slot"})
        first = next(m for m in client.messages() if "id" in m)
        assert first["id"] == estop, "the e-stop waited behind the dispense"
        assert first["result"]["state"] == "halted"
        assert running.pin_state(FORWARD) == 0
        outcome = reply_to(client, dispense)["result"]
    assert outcome["ended"] == "halt" and outcome["cards"] < 40


def test_a_request_the_motor_rules_hold_up_is_refused_with_when_to_retry(tmp_path):
    with ThreadDaemon(tmp_path, MOTOR_LIMITS) as running:
        assert running.call("launcher/feed", {"count": 500})["ended"] == "timeout"
        assert running.call("launcher/feed", {"count": 500})["ended"] == "motor_limit"
        with pytest.raises(ApiError) as info:
            running.call("launcher/feed", {"count": 500})
        assert info.value.code == ApiError.REFUSED
        assert 0 < info.value.data["retry_after_s"] <= 60
        assert "rest" in info.value.message
        assert running.call("status/get")["state"] == "ready"  # a rule, not a halt


def test_a_card_stuck_in_the_slot_at_power_on_is_a_jam_not_an_empty_hopper(tmp_path):
    factory = sim_pin_factory()
    beam = factory.pin(27)
    beam.drive_high = lambda: None  # the beam stays at its blocked (low) level whatever drives it
    with ThreadDaemon(tmp_path, pin_factory=factory) as running:
        status = running.wait_for(lambda s: s["state"] != "ready")
        assert status["state"] == "jammed"
        outcome = running.call("launcher/feed", {"count": 3})
    assert outcome == {**outcome, "event": "ignored", "reason": "jammed"}
