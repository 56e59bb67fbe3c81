"""Edges keep the pin backend's time: a card's crossing is judged between the times the backend
gave its two edges, however late Python got to run their callbacks (a fresh-clone system test
counted a burst of 8 for 9 cards: each card's two edges reached the loop together, an instant
apart, and a block that short is a glitch under beam_filter_ms)."""

from __future__ import annotations

import importlib
import sys
import time

import pytest
from gpiozero.pins.mock import MockPin
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.launcherd import ThreadDaemon
from fake_lgpio import FakeLgpio, now_ns
from test_core import T0, ScriptedPolicy

from firmware.config import build_config
from firmware.launcher import hardware
from firmware.launcher.core import Launcher
from firmware.events import BeamLevel, ButtonLevel, Emit, Jog, Motor, Retract, Tick
from firmware.launcher.sim import sim_pin_factory

DRY = """
[ejection]
profile = "fixed"
sequence = [0]
[timing]
beam_filter_ms = 2
"""
MS = 1_000_000  # ns


@pytest.fixture
def lgpio(monkeypatch):
    """gpiozero's own lgpio pin factory on a fake `lgpio` module, as on a Pi 4."""
    fake = FakeLgpio()
    monkeypatch.setitem(sys.modules, "lgpio", fake)
    monkeypatch.delitem(sys.modules, "gpiozero.pins.lgpio", raising=False)
    module = importlib.import_module("gpiozero.pins.lgpio")

    class PiFourFactory(module.LGPIOFactory):
        def _get_revision(self):
            return 0xC03111  # a Pi 4B: gpiozero reads the header's pins from it

    factory = PiFourFactory(chip=0)
    yield fake, factory
    factory.close()
    sys.modules.pop("gpiozero.pins.lgpio", None)  # the next import finds the real lgpio, or none


def flush(running) -> None:
    """Everything posted to the loop before now has run (the loop runs callbacks in order)."""
    running.in_loop(lambda: None)


def test_lgpio_edges_delivered_late_keep_the_kernels_times(tmp_path, lgpio):
    fake, factory = lgpio
    with ThreadDaemon(tmp_path, DRY, sim=False, pin_factory=factory) as running:
        pins = running.daemon.config.pins
        assert ("callback", pins.beam, fake.BOTH_EDGES) in fake.calls  # the real gpiozero path
        fake.edges_late([(pins.button, 0, now_ns())]).join()
        running.wait_for(lambda s: s["presses"] == 1 and s["state"] == "ready")
        fake.edges_late([(pins.button, 1, now_ns())]).join()
        # Both pairs reach the daemon 50 ms after the kernel saw them, in one burst from lgpio's
        # thread: a 1 ms flicker (under beam_filter_ms) and a 3 ms card.
        t = now_ns() - 50 * MS
        fake.edges_late([(pins.beam, 0, t), (pins.beam, 1, t + 1 * MS),
                         (pins.beam, 0, t + 10 * MS), (pins.beam, 1, t + 13 * MS)]).join()
        flush(running)
        status = running.call("status/get")
    assert status["cards_ejected"] == 1, status
    assert status["last"]["cards"] == 1, status


def test_lgpio_timestamps_on_another_clock_are_taken_as_now(tmp_path, lgpio):
    """An edge stamped in the future (a clock lgpio does not use, such as CLOCK_REALTIME) is no
    time travel: it counts as arriving now, as before backend times were used."""
    fake, factory = lgpio
    with ThreadDaemon(tmp_path, DRY, sim=False, pin_factory=factory) as running:
        pins = running.daemon.config.pins
        realtime = time.time_ns()
        fake.edges_late([(pins.button, 0, realtime)]).join()
        # Debounced from ~55 years ahead, the press would never come.
        running.wait_for(lambda s: s["presses"] == 1 and s["state"] == "ready")


def deliver(pin: MockPin, level: bool, ticks: float) -> None:
    """What a mock pin does on an edge, with ``ticks`` chosen by the test."""
    pin._state = level
    super(MockPin, pin)._call_when_changed(ticks, level)


def test_mock_pin_edges_keep_their_own_ticks(tmp_path):
    factory = sim_pin_factory()
    with ThreadDaemon(tmp_path, DRY, pin_factory=factory) as running:
        pins = running.daemon.config.pins
        button, beam = factory.pin(pins.button), factory.pin(pins.beam)
        button.drive_low()
        running.wait_for(lambda s: s["presses"] == 1 and s["state"] == "ready")
        button.drive_high()
        t = time.monotonic() - 0.05
        for level, ticks in ((False, t), (True, t + 0.001), (False, t + 0.010), (True, t + 0.013)):
            deliver(beam, level, ticks)
        flush(running)
        status = running.call("status/get")
    assert status["cards_ejected"] == 1, status


# ---- the core: a block's length is its edges' own times, however late they are handed over ----

blocks = st.lists(st.tuples(
    st.floats(5, 50),                                   # ms since the last clear
    st.floats(0.1, 14).filter(lambda ms: abs(ms - 2) > 0.01),  # the block, around beam_filter_ms
    st.floats(0, 30), st.floats(0, 30),                 # how late each edge reaches the core
), max_size=20)


@settings(max_examples=200, deadline=None)
@given(blocks)
def test_every_block_as_long_as_a_card_is_counted_however_late_its_edges_come(blocks):
    config = build_config({"timing": {"beam_filter_ms": 2, "button_debounce_ms": 5}})
    core = Launcher(config, ScriptedPolicy(), T0)
    core.handle(ButtonLevel(True), T0)  # a dry press: the cards are the last press's
    core.handle(Tick(True), T0 + 0.010)
    core.handle(ButtonLevel(False), T0 + 0.020)
    core.handle(Tick(False), T0 + 0.030)
    edge = arrived = T0 + 0.050
    for gap_ms, length_ms, late_block_ms, late_clear_ms in blocks:
        for blocked, step_ms, late_ms in ((True, gap_ms, late_block_ms), (False, length_ms, late_clear_ms)):
            edge += step_ms / 1000
            # Handed over late, and never before the edge handed over before it.
            arrived = max(arrived, edge + late_ms / 1000)
            core.handle(BeamLevel(blocked), arrived, at=edge)
    assert core.get_status()["cards_ejected"] == sum(length >= 2 for _, length, _, _ in blocks)


def test_a_late_edge_does_not_shorten_the_reverse_pulse():
    """Deadlines run from when an edge was handed over: the pulse that ends a burst lasts
    retract_ms from the moment the motor reversed, however old the edge that ended the burst."""
    config = build_config({"timing": {"beam_filter_ms": 2, "button_debounce_ms": 5}})
    core = Launcher(config, ScriptedPolicy([1]), T0)
    core.handle(ButtonLevel(True), T0)
    now = T0 + 0.010
    core.handle(Tick(True), now)  # the press: the motor starts
    core.handle(ButtonLevel(False), now)
    core.handle(BeamLevel(True), now + 0.050, at=now + 0.040)
    stopped_at = now + 0.300  # the card's clearing (at +0.055) reaches the core 245 ms late
    actions = core.handle(BeamLevel(False), stopped_at, at=now + 0.055)
    assert Motor("stop") in actions, actions
    # The coast before the reverse runs from the stop too, not from the old edge.
    reversed_at = stopped_at + config.motor.dead_time_ms / 1000
    assert core.next_deadline() == pytest.approx(reversed_at)
    actions = core.handle(Tick(False), reversed_at)
    assert any(isinstance(a, Motor) and a.direction == "reverse" for a in actions), actions
    assert core.next_deadline() == pytest.approx(reversed_at + config.motor.retract_ms / 1000)


def test_a_coast_end_run_late_does_not_shorten_the_reverse_pulse():
    """A timer run late runs at its deadline, but the motor moves when the pins change: the
    reverse pulse that starts late lasts retract_ms from then (a slow commit's test saw 0.02 ms)."""
    config = build_config({"timing": {"beam_filter_ms": 2, "button_debounce_ms": 5}})
    core = Launcher(config, ScriptedPolicy([1]), T0)
    core.handle(ButtonLevel(True), T0)
    now = T0 + 0.010
    core.handle(Tick(True), now)
    core.handle(ButtonLevel(False), now)
    core.handle(BeamLevel(True), now + 0.050)
    stopped_at = now + 0.070
    assert Motor("stop") in core.handle(BeamLevel(False), stopped_at)
    late = stopped_at + 0.200  # the coast's end runs 200 ms late (a busy loop)
    actions = core.handle(Tick(False), late)
    assert [a.direction for a in actions if isinstance(a, Motor)] == ["reverse"], actions
    assert core.next_deadline() == pytest.approx(late + config.motor.retract_ms / 1000)


def test_a_stop_run_late_still_coasts_dead_time_before_the_reverse():
    """A jog's end runs 100 ms late: the motor stops then, so the coast that protects the driver
    and the gears runs from then too, not from the missed deadline (a reverse asked right after
    the stop came with no coast at all)."""
    config = build_config({"timing": {"button_debounce_ms": 5}})
    core = Launcher(config, ScriptedPolicy([1]), T0)
    core.handle(Jog("forward", 100, 0.5), T0)
    late = core.next_deadline() + 0.100
    assert [a.direction for a in core.handle(Tick(False), late) if isinstance(a, Motor)] == ["stop"]
    assert not any(isinstance(a, Motor) for a in core.handle(Retract(), late + 0.001))
    assert core.next_deadline() == pytest.approx(late + config.motor.dead_time_ms / 1000)


def test_a_stuck_card_is_a_jam_jam_ms_after_its_edge_however_late_the_edge_came():
    config = build_config({"timing": {"button_debounce_ms": 5, "jam_ms": 400}})
    core = Launcher(config, ScriptedPolicy([3]), T0)
    core.handle(ButtonLevel(True), T0)
    core.handle(Tick(True), T0 + 0.005)
    core.handle(ButtonLevel(False), T0 + 0.010)
    blocked_at = T0 + 0.100
    core.handle(BeamLevel(True), blocked_at + 0.150, at=blocked_at)  # handed over 150 ms late
    assert core.next_deadline() == pytest.approx(blocked_at + 0.400)
    actions = core.handle(Tick(False), blocked_at + 0.400)
    assert Motor("stop") in actions, actions
    assert core.get_status()["state"] == "jammed"


def test_a_card_that_cleared_before_its_jam_deadline_is_no_jam_however_late_the_clear_comes():
    """The loop paused 200 ms (a collection, a slow disk) while a card crossed: its clearing,
    handed over after the jam deadline, is judged at the backend's time of it, before that deadline."""
    config = build_config({"timing": {"button_debounce_ms": 5, "jam_ms": 150, "stall_ms": 250}})
    core = Launcher(config, ScriptedPolicy([3]), T0)
    core.handle(ButtonLevel(True), T0)
    core.handle(Tick(True), T0 + 0.005)  # the press: the motor starts
    core.handle(ButtonLevel(False), T0 + 0.010)
    blocked_at = T0 + 0.100
    core.handle(BeamLevel(True), blocked_at)
    actions = core.handle(BeamLevel(False), blocked_at + 0.200, at=blocked_at + 0.003)
    status = core.get_status()
    assert status["state"] == "launching" and status["motor"]["on"], status
    assert [a.params["count"] for a in actions if isinstance(a, Emit) and a.name == "card"] == [1]
    assert not any(isinstance(a, Emit) and a.name == "jammed" for a in actions), actions


def test_a_card_whose_two_edges_both_came_after_its_jam_time_is_a_card_not_a_jam():
    """The loop paused 200 ms over a card's whole crossing: its block, handed over after its jam
    time, is judged at the next tick, so the clearing edge queued behind it comes first and it is
    a card (judged within the block's own handle, it was a jam before the clearing edge came)."""
    config = build_config({"timing": {"button_debounce_ms": 5, "jam_ms": 150, "stall_ms": 250}})
    core = Launcher(config, ScriptedPolicy([3]), T0)
    core.handle(ButtonLevel(True), T0)
    core.handle(Tick(True), T0 + 0.005)  # the press: the motor starts
    core.handle(ButtonLevel(False), T0 + 0.010)
    core.handle(Tick(False), T0 + 0.015)  # the release debounced
    blocked_at, learned = T0 + 0.100, T0 + 0.300
    actions = core.handle(BeamLevel(True), learned, at=blocked_at)
    assert not any(isinstance(a, Emit) and a.name == "jammed" for a in actions), actions
    assert core.next_deadline() == pytest.approx(learned)  # the jam is judged at the next tick
    actions += core.handle(BeamLevel(False), learned + 0.0001, at=blocked_at + 0.003)
    assert [a.params["count"] for a in actions if isinstance(a, Emit) and a.name == "card"] == [1]
    assert not any(isinstance(a, Emit) and a.name == "jammed" for a in actions), actions
    status = core.get_status()
    assert status["state"] == "launching" and status["motor"]["on"], status


def test_a_block_learned_after_its_jam_time_with_no_clearing_edge_is_a_jam_at_the_next_tick():
    config = build_config({"timing": {"button_debounce_ms": 5, "jam_ms": 150, "stall_ms": 250}})
    core = Launcher(config, ScriptedPolicy([3]), T0)
    core.handle(ButtonLevel(True), T0)
    core.handle(Tick(True), T0 + 0.005)
    core.handle(ButtonLevel(False), T0 + 0.010)
    core.handle(Tick(False), T0 + 0.015)  # the release debounced
    blocked_at, learned = T0 + 0.100, T0 + 0.300
    core.handle(BeamLevel(True), learned, at=blocked_at)
    actions = core.handle(Tick(False), learned + 0.0001)
    assert Motor("stop") in actions and any(isinstance(a, Emit) and a.name == "jammed" for a in actions)
    assert core.get_status()["state"] == "jammed"


def test_timers_due_before_a_late_beam_edge_still_run_before_it():
    """A jam whose deadline came before the clearing edge's own time is a jam, however the edge
    was handed over: in order, the stuck card first, then the hand that pulled it out."""
    config = build_config({"timing": {"button_debounce_ms": 5, "jam_ms": 150, "stall_ms": 250}})
    core = Launcher(config, ScriptedPolicy([3]), T0)
    core.handle(ButtonLevel(True), T0)
    core.handle(Tick(True), T0 + 0.005)
    core.handle(ButtonLevel(False), T0 + 0.010)
    blocked_at = T0 + 0.100
    core.handle(BeamLevel(True), blocked_at)
    actions = core.handle(BeamLevel(False), blocked_at + 0.200, at=blocked_at + 0.160)
    assert Motor("stop") in actions and any(isinstance(a, Emit) and a.name == "jammed" for a in actions)
    assert core.get_status()["state"] == "ready"  # the stuck card cleared: a press goes on


def test_an_edge_the_kernel_merged_with_the_next_is_counted_in_status_and_logged(tmp_path, lgpio, caplog):
    """Linux reads a both-edges line's level in its interrupt thread: a beam block that ended
    before that thread ran reaches lgpio as one edge at the level the line already had (traced
    in the system test's VM). It is no card, and status and the log say it happened."""
    fake, factory = lgpio
    with ThreadDaemon(tmp_path, DRY, sim=False, pin_factory=factory) as running:
        pins = running.daemon.config.pins
        assert running.call("status/get")["merged_edges"] == {"button": 0, "beam": 0}  # no lid fitted
        fake.edges_late([(pins.beam, 1, now_ns())]).join()  # "clear" while clear
        flush(running)
        status = running.call("status/get")
    assert status["merged_edges"]["beam"] == 1, status
    assert status["cards_ejected"] == 0, status
    assert [r for r in caplog.records if "merged" in r.getMessage() and f"GPIO{pins.beam}" in r.getMessage()]


def test_a_kernel_edge_at_the_level_gpiozero_last_had_still_reaches_the_core(tmp_path, lgpio, monkeypatch):
    """A deadline's Tick gives the core the button's live level, which can be a bounce the kernel
    has not reported yet; the kernel's last edge then comes at the level gpiozero last reported
    and gpiozero drops it as no change. Dropped, it left the core holding a button that was up,
    and the next press was lost (the system test's scenario 2 saw its presses go wrong). The
    core debounces, as on a backend without lgpio's debounce (RPi.GPIO, pigpio)."""
    from test_daemon_late_edges import Deadlines

    monkeypatch.setattr(hardware, "debounces_on_edge_times", lambda factory: False)
    fake, factory = lgpio
    with ThreadDaemon(tmp_path, DRY, sim=False, pin_factory=factory) as running:
        button = running.daemon.config.pins.button
        deadlines = Deadlines(running.daemon)
        debounce = running.daemon.config.timing.button_debounce_ms / 1000
        fake.edge(button, 0, now_ns())  # pressed (the button pulls the line low)
        running.wait_for(lambda s: s["presses"] == 1 and s["state"] == "ready")
        released = time.monotonic()
        fake.edge(button, 1, now_ns())  # the release's first edge
        fake.levels[button] = 0  # a bounce closed it again; the kernel has not reported that yet
        deadlines.wait_past(released + debounce)  # the release's deadline read the line: closed
        settled = time.monotonic()
        fake.edge(button, 1, now_ns())  # the kernel's last edge: open, as gpiozero last heard
        deadlines.wait_past(settled + debounce)
        fake.edge(button, 0, now_ns())  # the next press
        status = running.wait_for(lambda s: s["presses"] == 2)
    assert status["merged_edges"]["button"] == 1, status


# ---- the button on lgpio: lgpio debounces it, on the kernel's times -------------------------------


def debounces_set(fake: FakeLgpio) -> dict[int, int]:
    """Each line's last debounce, in microseconds, as gpiozero set it through lgpio."""
    return {call[1]: call[2] for call in fake.calls if call[0] == "gpio_set_debounce_micros"}


def test_lgpio_debounces_the_button_and_the_press_needs_no_timer_after_it(tmp_path, lgpio):
    """Bare gpiozero's bounce_time on the system test's chip started the motor 9 ms after the press
    had held, launcherd's own debounce (a timer after the edge reached the loop) 25 ms. lgpio
    reports the button's level once it has held button_debounce_ms, judged on the kernel's
    timestamps, so the core counts the press the moment the edge reaches it."""
    fake, factory = lgpio
    with ThreadDaemon(tmp_path, DRY, sim=False, pin_factory=factory) as running:
        pins = running.daemon.config.pins
        debounce_us = running.daemon.config.timing.button_debounce_ms * 1000
        assert debounces_set(fake)[pins.button] == debounce_us
        assert debounces_set(fake).get(pins.beam, 0) == 0  # a card's edges are its own: no debounce
        fake.edge(pins.button, 0, now_ns() - debounce_us * 1000)  # lgpio's report: held since then
        flush(running)  # the edge has reached the loop, and nothing else has run since
        status = running.call("status/get")
        assert status["presses"] == 1, status
        fake.edge(pins.button, 1, now_ns())
        fake.edge(pins.button, 0, now_ns())  # lgpio reports the next press only once it has held
        flush(running)
        assert running.call("status/get")["presses"] == 2
        trace = running.call("launcher/latency")
    assert trace["debounce_ms"] == 0  # the edge's time is when the level had held


def test_a_button_lgpio_debounces_is_not_read_live_at_a_deadline(tmp_path, lgpio):
    """The line's live level can be a bounce lgpio has not judged yet: only lgpio's reports count."""
    fake, factory = lgpio
    with ThreadDaemon(tmp_path, DRY, sim=False, pin_factory=factory) as running:
        pins = running.daemon.config.pins
        fake.levels[pins.button] = 0  # pressed on the line, not (yet) reported by lgpio
        # A jog: deadlines to run, each with a Tick.
        running.call("bringup/jog", {"direction": "forward", "ms": 50, "duty": 0.5})
        running.wait_for(lambda s: not s["motor"]["on"] and s["state"] == "ready")
        assert running.call("status/get")["presses"] == 0
