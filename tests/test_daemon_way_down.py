"""Once launcherd is on its way down nothing starts the motor again: between the stop signal and the
end of the process the API and the layers close, and meanwhile a press, a beam edge or a jam's
deadline still reaches the core, which does not know the pins are already off."""

from __future__ import annotations

import signal

from harness.launcherd import ThreadDaemon

from firmware.events import ButtonLevel, Dispense, Tick
from firmware.launcher.sim import sim_pin_factory

SLOW = "[sim]\ncards_per_second = 2.0\nhopper = 100\n[ejection]\nprofile = \"fixed\"\nsequence = [3]\n"


def motor_pins(running: ThreadDaemon) -> list[float]:
    pins = running.daemon.config.pins
    return [running.daemon.pin_factory.pin(bcm).state for bcm in (pins.motor_forward, pins.motor_reverse)]


def test_a_dispense_asked_for_after_the_stop_was_requested_leaves_the_motor_off(tmp_path):
    with ThreadDaemon(tmp_path, SLOW, pin_factory=sim_pin_factory()) as running:
        daemon = running.daemon

        def stop_then_dispense() -> list[float]:
            daemon.request_stop()
            daemon.feed(Dispense(count=3))  # a request the API read before it closed
            return motor_pins(running)

        assert running.in_loop(stop_then_dispense) == [0, 0]
    assert running.exit_code == 0


def test_a_button_press_after_the_stop_signal_does_not_start_the_motor(tmp_path):
    with ThreadDaemon(tmp_path, SLOW, pin_factory=sim_pin_factory()) as running:
        daemon = running.daemon
        debounce_s = daemon.config.timing.button_debounce_ms / 1000

        def signal_then_press() -> list[float]:
            daemon._on_signal(signal.SIGTERM)  # what the loop's signal handler runs
            now = daemon.loop.time()
            daemon.feed(ButtonLevel(True), now)  # an edge on its way from the backend's thread
            daemon.feed(Tick(button=True), now + debounce_s + 0.01)
            return motor_pins(running)

        assert running.in_loop(signal_then_press) == [0, 0]
    assert running.exit_code == 0
