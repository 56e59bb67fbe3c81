"""Edges that reach the daemon late: the backend's thread (lgpio's, on a Pi) can hand an edge over
after the debounce deadline it should have cancelled, as seen in the system tests under load.
The line's level when the deadline comes is the truth."""

from __future__ import annotations

import threading
import time

from conftest import ThreadDaemon

from firmware.sim import sim_pin_factory

DRY = """
[ejection]
profile = "fixed"
sequence = [0]
"""
DEBOUNCE_S = 0.020  # the shipped button_debounce_ms


class LateReleases:
    """Wraps the button's release callback: while ``holding``, each release is handed over only
    when the test says so, as a backend thread that was not scheduled in time would."""

    def __init__(self, device):
        self.deliver = device.when_deactivated
        self.holding = False
        self.held: list = []
        device.when_deactivated = self._released

    def _released(self) -> None:
        if self.holding:
            self.held.append(self.deliver)
        else:
            self.deliver()

    def release_held(self) -> None:
        self.holding = False
        for deliver in self.held:
            deliver()


def test_a_release_bounce_whose_last_edge_comes_late_is_not_a_second_press(tmp_path):
    factory = sim_pin_factory()
    button = factory.pin(17)
    with ThreadDaemon(tmp_path, DRY, pin_factory=factory) as running:
        late = LateReleases(running.daemon.hardware._button)
        button.drive_low()
        running.wait_for(lambda s: s["presses"] == 1 and s["state"] == "ready")
        # Released; then a bounce, closed and open at once, whose opening reaches the daemon late
        # (two stalls of the backend's thread stretch a 3 ms bounce like this).
        button.drive_high()
        running.wait_for(lambda s: not s.get("button_pressed", False))
        time.sleep(3 * DEBOUNCE_S)
        button.drive_low()
        late.holding = True
        button.drive_high()
        time.sleep(3 * DEBOUNCE_S)  # the debounce deadline passes while the edge is held back
        late.release_held()
        status = running.call("status/get")
    assert status["presses"] == 1, status


def test_a_press_edge_that_comes_late_still_presses_once(tmp_path):
    factory = sim_pin_factory()
    button = factory.pin(17)
    with ThreadDaemon(tmp_path, DRY, pin_factory=factory) as running:
        late = LateReleases(running.daemon.hardware._button)
        # Bounces on the way down with an opening held back: the press is still one press.
        late.holding = True
        button.drive_low()
        button.drive_high()
        button.drive_low()
        running.wait_for(lambda s: s["presses"] == 1)
        late.release_held()
        button.drive_high()
        assert running.wait_for(lambda s: s["state"] == "ready")["presses"] == 1
