"""``launcher/dispense`` through the daemon and its simulated mechanism (issue #11).

The simulation jams (``[sim] jam_chance``) and misfeeds (``misfeed_chance``); a table hand in the
test watches the event stream and, as a person would, pulls stuck cards out with ``sim/clear``
and reloads when the dealer asks. Each reply must be exactly the count asked, and so must the
mechanism's own count of cards that left the hopper. The issue's 10,000 cards run in the sans-IO
test (tests/test_dealer.py); here over a hundred and fifty go through the real daemon, enough for
every kind of trouble to come up more than once.
"""

from __future__ import annotations

import asyncio
import socket
import threading

import pytest

from harness.launcherd import ThreadDaemon

# Cards 10 ms apart: the stop after the last card of a dispense lands before the next card even
# when a busy machine wakes the loop late (at 300 cards/s a 3 ms late stop let one more out).
FAST = """
[sim]
cards_per_second = 100.0
block_ms = 5
hopper = 60
jam_chance = 0.05
misfeed_chance = 0.1
[timing]
jam_ms = 60
# Four card intervals: a slipped wheel is seen soon, and a card that is merely late is still no
# misfeed (were it taken for one, the dealer retries it, which is what this test is about anyway).
feed_timeout_ms = 60
[sensor]
# A wheel that slips this often would trip the beam-wiring check on a real launcher.
blind_runs = 20
"""


class TableHand:
    """Clears jams, reloads the hopper, and presses the button when the dealer says it waits for that.

    It presses once for each wait, as a person does: the dealer says ``waiting_press`` again when
    the count it shows changes (a card still crossing the beam as its run ended), and a second
    press there would be a press of its own once the dispense is done, a launch of the policy's
    cards. It presses once the slot is clear, for while that card crosses its run may still end
    the dispense (it was the last card) and then nothing waits for the press.
    """

    def __init__(self, running: ThreadDaemon):
        self.running = running
        self.client = running.client(timeout=60)
        self.client.call("events/subscribe")
        self.seen: list[str] = []
        self._pressed = False  # for the wait under way
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        try:
            for message in self.client.messages():
                if message.get("event") != "dealer/dispense":
                    continue
                state = message["params"]["state"]
                self.seen.append(state)
                if state != "waiting_press":
                    self._pressed = False
                if state == "waiting_jam":
                    self.running.call("sim/clear")
                elif state == "waiting_empty":
                    self.running.call("launcher/reload", {"cards": 60})
                elif state == "waiting_press":
                    self._press_once()
        except OSError:
            pass  # the daemon is gone: the test is over

    def _press_once(self) -> None:
        if self._pressed:
            return
        status = self.running.call("status/get")
        if status["pending"] is not None and not status["beam_blocked"]:
            self._pressed = True
            self.running.call("launcher/press")

    def close(self) -> None:
        # Shut down first: close() alone leaves the watching thread blocked in recv.
        self.client.sock.shutdown(socket.SHUT_RDWR)
        self._thread.join(10)
        self.client.close()


def test_every_dispense_gives_exactly_its_count_through_jams_misfeeds_and_reloads(tmp_path):
    with ThreadDaemon(tmp_path, FAST, seed=3) as running:
        hand = TableHand(running)
        try:
            for count in [7] * 15 + [2, 4, 6, 1, 30, 13]:
                before = running.call("status/get")["sim"]["cards_out"]
                with running.client(timeout=120) as client:
                    reply = client.call("launcher/dispense", {"count": count})
                after = running.call("status/get")["sim"]["cards_out"]
                assert (reply["state"], reply["cards"], reply["remaining"]) == ("done", count, 0)
                # What a single launch's outcome says too, for launcherctl and the game's deal.
                assert (reply["outcome"], reply["requested"], reply["ended"]) == ("dispense", count, "done")
                assert reply["press_id"] == reply["press_ids"][-1]
                assert after - before == count
        finally:
            hand.close()
    assert {"waiting_jam", "retrying", "waiting_empty", "waiting_press"} <= set(hand.seen)


@pytest.mark.parametrize("jam_ms", [2000, 400])
def test_a_loop_paused_across_a_card_and_the_feed_timeout_still_deals_exactly(tmp_path, jam_ms):
    """The loop is held up from the motor's start until past both the first card (286 ms) and
    the feed timeout (350 ms): a busy machine's pause, made on purpose. The card reached the beam
    first, so it is the run's card, not an empty hopper: no misfeed retry, whose count was
    asked before the late card was counted (a dispense of 2 once gave 3 so). The stall halt is
    set beyond the pause; the jam deadline beyond it, or within it (the card's whole crossing is
    learned late: stamping it later than it was due, within half the jam time, put it after the
    feed timeout, and a dispense of 30 gave 31 so)."""
    slow = f"""
[sim]
cards_per_second = 5.0
[timing]
feed_timeout_ms = 350
jam_ms = {jam_ms}
stall_ms = 5000
"""
    pause_s = 0.6
    with ThreadDaemon(tmp_path, slow) as running, running.events() as events:
        daemon = running.daemon
        forward = daemon.pin_factory.pin(daemon.config.pins.motor_forward)
        paused = []

        def pause_at_the_start(pin):
            if pin.state and not paused:
                paused.append(True)
                # After the listeners of this change (the simulation's feed timer is armed).
                daemon.loop.call_soon(threading.Event().wait, pause_s)

        running.in_loop(forward.add_listener, pause_at_the_start)
        reply = running.call("launcher/dispense", {"count": 2})
        cards_out = running.call("status/get")["sim"]["cards_out"]
        events.wait_for("dealer/dispensed", timeout=30)
    assert paused, "the motor never started"
    assert (reply["state"], reply["cards"], cards_out) == ("done", 2, 2)
    assert len(reply["press_ids"]) == 1, "one run: the first card was not taken for an empty hopper"
    assert "empty" not in [event for event, _ in events.seen]


def test_an_estop_abandons_the_dispense_with_the_cards_so_far(tmp_path):
    slow = "[sim]\ncards_per_second = 20.0\nhopper = 1000\n"
    with ThreadDaemon(tmp_path, slow) as running, running.client(timeout=30) as client:
        request = client.send("launcher/dispense", {"count": 40})
        running.wait_for(lambda s: s["cards_ejected"] >= 2)
        running.call("system/estop", {"reason": "hands in the slot"})
        reply = next(m for m in client.messages() if m.get("id") == request)["result"]
        cards_out = running.call("status/get")["sim"]["cards_out"]
    assert reply["state"] == "abandoned" and reply["ended"] == "halt" and 2 <= reply["cards"] < 40
    assert reply["remaining"] == 40 - reply["cards"]
    assert cards_out - reply["cards"] in (0, 1)  # at most the card that was crossing the beam


def test_a_dispense_cancelled_in_the_loop_turn_it_came_in_leaves_no_press_held_for_it(tmp_path):
    """A hand in the slot: the dispense waits for a press (``pending``). A cancel right behind it,
    handled before the loop came back to what the dealer answered the core, withdraws that wait:
    no press stays held for a dispense that is gone, to take a player's next press for a "go on"."""
    with ThreadDaemon(tmp_path, "[timing]\njam_ms = 5000\n") as running:
        daemon = running.daemon
        running.in_loop(daemon.pin_factory.pin(daemon.config.pins.beam).drive_low)  # the hand

        async def dispense_and_cancel_in_one_turn():
            # Two requests handled back to back, as the API posts two lines that came together.
            dispensed = asyncio.ensure_future(daemon.call("launcher/dispense", {"count": 7}))
            cancelled = asyncio.ensure_future(daemon.call("launcher/cancel"))
            return await dispensed, await cancelled

        reply, cancel = asyncio.run_coroutine_threadsafe(dispense_and_cancel_in_one_turn(), daemon.loop).result(10)
        status = running.call("status/get")
    assert (reply["state"], reply["cards"], cancel["cancelled"]) == ("abandoned", 0, 1)
    assert status["beam_blocked"] and status["dealer"]["current"] is None
    assert status["pending"] is None
