"""Edges that reach the daemon late: the backend's thread (lgpio's, on a Pi) can hand an edge over
after the debounce deadline it should have cancelled, as seen in the system tests under load.
The line's level when the deadline comes is the truth."""

from __future__ import annotations

import threading
import time

from harness.launcherd import ThreadDaemon

from firmware.launcher.sim import sim_pin_factory

DRY = """
[ejection]
profile = "fixed"
sequence = [0]
"""


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


class Deadlines:
    """Tells when the daemon has run a deadline at or after a moment of the loop's clock, so the
    test waits for the debounce deadline itself rather than for a guessed time."""

    def __init__(self, daemon):
        self.daemon = daemon
        self.last_run = float("-inf")
        self._ran = threading.Condition()
        timer = daemon._timer
        run = timer._on_deadline

        def on_deadline() -> None:
            run()
            with self._ran:
                self.last_run = daemon.loop.time()
                self._ran.notify_all()
        timer._on_deadline = on_deadline  # the timer looks it up each time it fires

    def wait_past(self, moment: float, timeout: float = 10.0) -> None:
        with self._ran:
            assert self._ran.wait_for(lambda: self.last_run >= moment, timeout), "no deadline ran"


def test_a_release_bounce_whose_last_edge_comes_late_is_not_a_second_press(tmp_path):
    factory = sim_pin_factory()
    button = factory.pin(17)
    with ThreadDaemon(tmp_path, DRY, pin_factory=factory) as running:
        late = LateReleases(running.daemon.hardware._button)
        deadlines = Deadlines(running.daemon)
        debounce = running.daemon.config.timing.button_debounce_ms / 1000
        button.drive_low()
        running.wait_for(lambda s: s["presses"] == 1 and s["state"] == "ready")
        # Released; then a bounce, closed and open at once, whose opening reaches the daemon late
        # (two stalls of the backend's thread stretch a 3 ms bounce like this).
        released = time.monotonic()  # the loop's clock
        button.drive_high()
        deadlines.wait_past(released + debounce)  # the release is the debounced level
        bounced = time.monotonic()
        button.drive_low()
        late.holding = True
        button.drive_high()
        deadlines.wait_past(bounced + debounce)  # its debounce deadline ran, the opening held back
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
