"""No press is lost after a stall, through the daemon (issue 35): the motor's loop stalls across
the release of the press that started a launch, launcherd halts for the stall, a reset follows,
and the next press is heard and moves the motor.

The system test's performance run lost such a press once. Here the stall is made two ways: in
the loop itself, right after the release edge reached the core (its debounce under way), which is
the case that lost the press; and by SIGSTOP of a launcherd --sim process around the release, as a
loaded machine or a frozen process stalls it.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
import time

from harness.launcherd import ThreadDaemon

from firmware.launcher.sim import sim_pin_factory

BUTTON = 17  # [pins] button of the shipped config, active low
# The stall rule, which the tests' base config sets out of the way: 1 s here (250 ms as shipped),
# so that a busy machine's own stall of the motor's loop seldom comes before the one made.
STALL_MS = 1000
# The stall made: past the next deadline (the feed timeout's, 600 ms at most) by more than stall_ms.
STALL_S = 2.5
# A launch that outlasts any stall made here: 40 cards at 4 a second, nothing limiting it sooner.
# The feed timeout is the deadline a stall of the whole process misses (each card re-arms it).
LONG_LAUNCH = f"""
[ejection]
profile = "fixed"
sequence = [40]
[sim]
cards_per_second = 4.0
hopper = 10000
[timing]
feed_timeout_ms = 600
launch_timeout_ms = 30000
max_on_ms = 60000
max_duty = 1.0
sleep_after_s = 0
stall_ms = {STALL_MS}
"""


def stall_said(caplog) -> list[str]:
    return [record.getMessage() for record in caplog.records
            if record.name == "launcherd" and record.getMessage().startswith("the stall: ")]


def test_a_press_after_a_stall_that_cut_a_release_short_and_a_reset_moves_the_motor(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="launcherd")
    factory = sim_pin_factory()
    button = factory.pin(BUTTON)
    with ThreadDaemon(tmp_path, LONG_LAUNCH, pin_factory=factory, load_layers=False) as running:
        with running.events() as events:
            button.drive_low()
            events.wait_for("press")
            running.wait_for(lambda s: s["motor"]["on"])

            def release_then_stall() -> None:
                # In the loop: the release reaches the core (mock pins call back in the driving
                # thread), then the loop does not run for STALL_S, its debounce deadline among
                # those it misses. A stall is time passing: nothing here waits for an outcome.
                button.drive_high()
                time.sleep(STALL_S)

            running.in_loop(release_then_stall)
            halted = running.wait_for(lambda s: s["state"] == "halted")
            assert halted["reason_object"]["id"] == "stalled" and not halted["motor"]["on"], halted
            # The loop slept: launcherd used next to no CPU in the stall, and the journal says so.
            said = stall_said(caplog)
            assert len(said) == 1 and said[0].endswith("launcherd hardly ran: the system did not schedule it,"
                                                       " or it was stopped"), said
            running.call("system/reset")
            running.wait_for(lambda s: s["state"] == "ready")

            button.drive_low()  # a person's fresh press
            press = events.wait_for("press")
            assert press["source"] == "button"
            status = running.wait_for(lambda s: s["motor"]["on"])
            assert status["motor"]["direction"] == "forward"
            button.drive_high()


def test_sigstop_of_launcherd_across_a_release_then_a_reset_and_the_next_press_launches(daemon_process):
    # The sim's press holds the button for the debounce and 5 ms: with a 300 ms debounce the stop
    # lands between the press and the end of its release's debounce unless this test is held up
    # for longer than that; the next press must be heard wherever it lands.
    daemon = daemon_process(LONG_LAUNCH + "button_debounce_ms = 300\n")
    outcomes: list = []
    with daemon.events() as events:
        first = threading.Thread(target=lambda: outcomes.append(daemon.call("launcher/press")))
        first.start()
        events.wait_for("press")
        os.kill(daemon.pid, signal.SIGSTOP)
        try:
            time.sleep(STALL_S)  # the stall itself
        finally:
            os.kill(daemon.pid, signal.SIGCONT)
        first.join(60)
        assert outcomes and outcomes[0]["ended"] == "halt", (outcomes[0], daemon.call("status/get"))
        halted = daemon.wait_for(lambda s: s["state"] == "halted")
        assert halted["reason_object"]["id"] == "stalled", halted
        daemon.call("system/reset")
        daemon.wait_for(lambda s: s["state"] == "ready")

        second = {}
        pressing = threading.Thread(target=lambda: second.update(daemon.call("launcher/press")))
        pressing.start()
        try:
            events.wait_for("press", timeout=30)
            status = daemon.wait_for(lambda s: s["motor"]["on"])
            assert status["motor"]["direction"] == "forward"
        finally:
            daemon.call("system/estop", {"reason": "the test is over"})  # ends the long launch
            pressing.join(60)
        assert second.get("event") == "launched", second


def test_a_stall_halt_says_when_the_loop_itself_was_busy(tmp_path, caplog):
    """The loop does STALL_S of work with the motor on: the halt says the loop itself was busy. A
    halt that came before that work began is a stall the machine made (a busy one holds the loop
    up by itself): its account is not judged, and the launcher is reset and the work made again."""
    caplog.set_level(logging.INFO, logger="launcherd")
    with ThreadDaemon(tmp_path, LONG_LAUNCH, load_layers=False) as running:
        button = running.daemon.pin_factory.pin(BUTTON)
        core = running.daemon.core

        def busy() -> str:  # work on the loop, as a long collection or a slow callback would be
            state = core.get_status()["state"]
            until = time.thread_time() + STALL_S
            while time.thread_time() < until:
                pass
            return state

        for attempt in range(10):
            running.in_loop(button.drive_low)
            running.wait_for(lambda s: s["motor"]["on"] or s["state"] == "halted")
            made = running.in_loop(busy) == "launching"
            running.wait_for(lambda s: s["state"] == "halted")
            said = stall_said(caplog)
            if made:
                break
            running.in_loop(button.drive_high)
            running.call("system/reset")
            running.wait_for(lambda s: s["state"] == "ready")
            caplog.clear()
        assert made, "every launch was halted by the machine's own stall before the work began"
        assert len(said) == 1 and said[0].endswith("the motor's loop itself was busy"), said
