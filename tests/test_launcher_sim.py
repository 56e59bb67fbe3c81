"""The simulated mechanism on a fake loop with a manual clock: deterministic, no sleeping.

The motor is driven through the real Hardware class on the simulation's pin factory, and the beam
is observed through Hardware's callbacks, as the daemon does.
"""

from __future__ import annotations

import random
import time

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from firmware.config import build_config
from firmware.errors import InvalidParams, Unavailable
from firmware.launcher.hardware import Hardware
from firmware.launcher.sim import PRESS_MARGIN_MS, ReportingPin, SimulatedMechanism, sim_pin_factory
from harness.fakes import FakeLoop

LID = 22


class ScriptedRng:
    """Returns the given numbers from ``random()``, then 0.99 (no jam, no misfeed)."""

    def __init__(self, *values):
        self._values = list(values)

    def random(self):
        return self._values.pop(0) if self._values else 0.99


class Rig:
    """Config, factory, Hardware, the simulation and a log of beam edges as (time, blocked)."""

    def __init__(self, rng=None, pins=None, **sections):
        self.config = build_config({"pins": {"lid": LID, **(pins or {})}, **sections})
        self.factory = sim_pin_factory()
        self.loop = FakeLoop()
        self.hw = Hardware(self.config, pin_factory=self.factory)
        self.sim = SimulatedMechanism(self.config, self.factory, self.loop, rng or random.Random(1))
        self.beam = []
        self.hw.watch(lambda pressed, at: None, lambda blocked, at: self.beam.append((self.loop.now, blocked)))
        self.hw.set_driver_enabled(True)

    def blocks(self):
        """Times at which a card entered the beam."""
        return [t for t, blocked in self.beam if blocked]

    def close(self):
        self.sim.close()
        self.hw.close()
        self.factory.close()


@pytest.fixture
def make_rig():
    rigs = []

    def make(*args, **kwargs):
        rigs.append(Rig(*args, **kwargs))
        return rigs[-1]

    yield make
    for rig in rigs:
        rig.close()


@pytest.mark.parametrize("duty, interval", [(0.5, 0.1), (1.0, 0.05), (0.25, 0.2)])
def test_cards_cross_at_the_rate_set_by_duty(make_rig, duty, interval):
    rig = make_rig()  # cards_per_second 20, block_ms 8
    rig.hw.motor("forward", duty)
    rig.loop.advance(10 * interval + interval / 2)
    assert rig.blocks() == pytest.approx([interval * k for k in range(1, 11)])
    # Each card blocks for block_ms, then the beam clears.
    assert [blocked for _, blocked in rig.beam] == [True, False] * 10
    for (t_in, _), (t_out, _) in zip(rig.beam[::2], rig.beam[1::2]):
        assert t_out - t_in == pytest.approx(0.008)
    assert not rig.hw.beam_blocked


def test_counts_match_the_hopper_loss(make_rig):
    rig = make_rig(sim={"hopper": 50})
    rig.hw.motor("forward", 1.0)
    rig.loop.advance(0.61)
    status = rig.sim.get_status()
    assert status == {"hopper": 50 - 12, "cards_out": 12, "stuck": False}
    assert len(rig.blocks()) == 12


def test_beam_level_follows_the_configured_blocked_level(make_rig):
    rig = make_rig(sensor={"beam_blocked": "high"})
    pin = rig.factory.pin(27)
    assert not pin.state  # clear = low
    rig.hw.motor("forward", 1.0)
    rig.loop.advance(0.051)
    assert pin.state and rig.hw.beam_blocked
    rig.loop.advance(0.01)
    assert not pin.state and not rig.hw.beam_blocked


def test_duty_change_keeps_progress_towards_the_next_card(make_rig):
    rig = make_rig()
    rig.hw.motor("forward", 0.5)  # 10 cards/s
    rig.loop.advance(0.05)  # half way to the first card
    rig.hw.motor("forward", 1.0)  # 20 cards/s: the other half takes 25 ms
    rig.loop.advance(0.1)
    assert rig.blocks() == pytest.approx([0.075, 0.125])


def test_jam_next_keeps_the_beam_blocked_until_clear(make_rig):
    rig = make_rig()
    rig.sim.jam_next()
    rig.hw.motor("forward", 1.0)
    rig.loop.advance(2.0)
    assert rig.beam == [(pytest.approx(0.05), True)]
    assert rig.sim.get_status() == {"hopper": 111, "cards_out": 1, "stuck": True}
    rig.hw.motor("stop", 0)  # as the core does on a jam
    rig.sim.clear()
    assert rig.beam[-1] == (2.0, False)
    assert rig.sim.get_status()["stuck"] is False
    rig.sim.clear()  # nothing stuck: nothing happens
    assert len(rig.beam) == 2


class StampedEdges:
    """The beam's edges as Hardware reports them, each with how long before the callback it
    happened by its stamp: bounds from time.monotonic() read around the loop's work, which
    however busy the machine the stamp must fall within (no tolerance a slow run could exceed)."""

    def __init__(self, rig):
        self.edges = []  # (blocked, the edge's time by its stamp)
        rig.hw.watch(lambda pressed, at: None, lambda blocked, at: self.edges.append((blocked, at)))

    def run(self, work) -> tuple[float, float]:
        """Do ``work``; the time.monotonic() just before and just after it."""
        before = time.monotonic()
        work()
        return before, time.monotonic()

    @staticmethod
    def assert_stamped(at: float, ran: tuple[float, float], late: float) -> None:
        """``at`` is the moment the edge was driven (within ``ran``) less ``late``."""
        assert ran[0] - late - 1e-6 <= at <= ran[1] - late + 1e-6, (at, ran, late)


def test_a_crossing_whose_end_runs_late_keeps_the_time_the_card_left_the_beam(make_rig):
    """The loop held up while a card is in the beam: the clearing edge reaches Hardware late but
    stamped when the card left, as a real beam's edge keeps the kernel's time of it."""
    rig = make_rig()  # 20 cards/s, block_ms 8: the first card is in the beam from 0.05 to 0.058
    beam = StampedEdges(rig)
    rig.hw.motor("forward", 1.0)
    entered = beam.run(lambda: rig.loop.advance(0.051))
    left = beam.run(lambda: rig.loop.pause_until(0.251))
    (blocked, block_at), (cleared, clear_at) = beam.edges[:2]
    assert (blocked, cleared) == (True, False)
    beam.assert_stamped(block_at, entered, 0.0)
    beam.assert_stamped(clear_at, left, 0.251 - 0.058)


def test_cards_due_while_the_loop_was_paused_keep_their_times_and_pace(make_rig):
    """A timer run late is no later card: the card enters the beam stamped when it was due, and
    the next ones come at the wheel's pace from then, not from when the loop got to it. The core
    places stamped edges among its own deadlines (a feed timeout, the stop its count called), so
    a paused loop cannot reorder a card and a deadline (a dispense of 2 once gave 3 so)."""
    rig = make_rig()  # 20 cards/s, block_ms 8: cards due at 0.05, 0.10, 0.15
    beam = StampedEdges(rig)
    rig.hw.motor("forward", 1.0)
    rig.loop.advance(0.01)
    late = beam.run(lambda: rig.loop.pause_until(0.071))
    (blocked, block_at), (cleared, clear_at) = beam.edges
    assert (blocked, cleared) == (True, False)
    beam.assert_stamped(block_at, late, 0.071 - 0.05)
    beam.assert_stamped(clear_at, late, 0.071 - 0.058)
    blocks = []
    rig.hw.watch(lambda pressed, at: None, lambda blocked, at: blocks.append(rig.loop.now) if blocked else None)
    rig.loop.advance(0.1)
    assert blocks == pytest.approx([0.10, 0.15])


def test_a_card_learned_after_its_jam_time_keeps_its_times(make_rig):
    """A pause longer than the jam time (400 ms) over a card's whole crossing: both its edges keep
    the times they were due, as a kernel's edges do (the core judges such a block at the loop's
    next turn, after its clearing edge). Stamping it later, within half the jam time, once put a
    card due before the feed timeout after it: the run ended empty and a dispense of 30 gave 31."""
    rig = make_rig()  # the first card due at 0.05, 8 ms in the beam
    beam = StampedEdges(rig)
    rig.hw.motor("forward", 1.0)
    late = beam.run(lambda: rig.loop.pause_until(0.6))
    (blocked, block_at), (cleared, clear_at) = beam.edges[:2]
    assert (blocked, cleared) == (True, False)
    beam.assert_stamped(block_at, late, 0.6 - 0.05)
    beam.assert_stamped(clear_at, late, 0.6 - 0.058)


def test_cards_due_during_a_long_pause_come_in_their_order_and_at_their_times(make_rig):
    """A pause over several cards: each enters stamped when it was due, or when the card ahead
    of it left the slot, none lost and none early."""
    rig = make_rig(sim={"cards_per_second": 100.0, "block_ms": 15})  # a card every 10 ms, 15 ms in the slot
    beam = StampedEdges(rig)
    rig.hw.motor("forward", 1.0)
    late = beam.run(lambda: rig.loop.pause_until(0.05))
    # Card 1 in the slot 0.010-0.025; card 2, due at 0.020, enters as it leaves, until 0.040;
    # card 3, due 10 ms after card 2 entered, waits for it in turn; it is still in the slot.
    times = [0.010, 0.025, 0.025, 0.040, 0.040]
    assert [blocked for blocked, _ in beam.edges] == [True, False, True, False, True]
    for (_, at), happened in zip(beam.edges, times):
        beam.assert_stamped(at, late, 0.05 - happened)
    assert rig.sim.get_status()["cards_out"] == 3


def test_a_card_waiting_behind_a_stuck_one_enters_when_it_is_cleared(make_rig):
    rig = make_rig(sim={"jam_chance": 1.0})
    rig.hw.motor("forward", 1.0)
    rig.loop.advance(0.5)
    assert rig.sim.get_status()["cards_out"] == 1
    rig.sim.clear()  # the motor still runs: the next card goes straight in, and sticks too
    assert [blocked for _, blocked in rig.beam] == [True, False, True]
    assert rig.sim.get_status() == {"hopper": 110, "cards_out": 2, "stuck": True}


def test_misfeed_stops_the_flow_until_the_motor_restarts(make_rig):
    # Rolls per card: (misfeed, jam). The second card slips.
    rig = make_rig(rng=ScriptedRng(0.9, 0.9, 0.1, 0.9), sim={"misfeed_chance": 0.5, "jam_chance": 0.5})
    rig.hw.motor("forward", 1.0)
    rig.loop.advance(1.0)
    assert rig.blocks() == pytest.approx([0.05])
    assert rig.sim.get_status() == {"hopper": 111, "cards_out": 1, "stuck": False}
    rig.hw.motor("stop", 0)
    rig.hw.motor("forward", 1.0)
    rig.loop.advance(0.06)
    assert rig.blocks() == pytest.approx([0.05, 1.05])


def test_empty_hopper_feeds_nothing_until_reloaded(make_rig):
    rig = make_rig(sim={"hopper": 3})
    rig.hw.motor("forward", 1.0)
    rig.loop.advance(1.0)
    assert len(rig.blocks()) == 3
    assert rig.sim.get_status() == {"hopper": 0, "cards_out": 3, "stuck": False}
    assert rig.loop.pending() == []  # no timer ticking over an empty hopper
    rig.sim.reload(2)
    rig.loop.advance(1.0)
    assert rig.blocks()[3:] == pytest.approx([1.05, 1.1])
    assert rig.sim.get_status() == {"hopper": 0, "cards_out": 5, "stuck": False}


@pytest.mark.parametrize("cards", [-1, 2.5, True])
def test_reload_rejects_bad_counts(make_rig, cards):
    rig = make_rig()
    with pytest.raises(InvalidParams):
        rig.sim.reload(cards)


def test_reverse_never_feeds(make_rig):
    rig = make_rig()
    rig.hw.motor("reverse", 1.0)
    rig.loop.advance(5.0)
    assert rig.beam == []
    assert rig.sim.get_status()["cards_out"] == 0


def test_disabled_driver_feeds_nothing(make_rig):
    rig = make_rig()
    rig.hw.set_driver_enabled(False)
    rig.hw.motor("forward", 1.0)
    rig.loop.advance(1.0)
    assert rig.beam == []
    rig.hw.set_driver_enabled(True)
    rig.loop.advance(0.051)
    assert rig.blocks() == pytest.approx([1.05])


def test_stop_cancels_the_card_on_its_way(make_rig):
    rig = make_rig()
    rig.hw.motor("forward", 0.5)
    rig.loop.advance(0.09)
    rig.hw.motor("stop", 0)
    rig.loop.advance(1.0)
    assert rig.beam == []
    # A restart needs a full interval again.
    rig.hw.motor("forward", 0.5)
    rig.loop.advance(0.11)
    assert rig.blocks() == pytest.approx([1.19])


def test_reverse_cancels_too(make_rig):
    rig = make_rig()
    rig.hw.motor("forward", 0.5)
    rig.loop.advance(0.09)
    rig.hw.motor("reverse", 0.5)
    rig.loop.advance(0.02)
    rig.hw.motor("forward", 0.5)
    rig.loop.advance(0.05)
    assert rig.beam == []


def test_a_card_in_the_beam_completes_its_crossing_after_stop(make_rig):
    rig = make_rig()
    rig.hw.motor("forward", 1.0)
    rig.loop.advance(0.052)
    rig.hw.motor("stop", 0)
    assert rig.hw.beam_blocked
    rig.loop.advance(0.1)
    assert rig.beam == [(pytest.approx(0.05), True), (pytest.approx(0.058), False)]


def test_closing_hardware_stops_the_feed(make_rig):
    rig = make_rig()
    rig.hw.motor("forward", 1.0)
    rig.loop.advance(0.03)
    rig.hw.close()
    rig.loop.advance(1.0)
    assert rig.sim.get_status()["cards_out"] == 0


def test_fast_feed_keeps_cards_apart(make_rig):
    # 200 cards/s is one every 5 ms, shorter than the 8 ms a card blocks the beam.
    rig = make_rig(sim={"cards_per_second": 200.0, "hopper": 10})
    rig.hw.motor("forward", 1.0)
    rig.loop.advance(1.0)
    assert [blocked for _, blocked in rig.beam] == [True, False] * 10
    assert rig.blocks()[:3] == pytest.approx([0.005, 0.013, 0.021])
    assert rig.sim.get_status()["cards_out"] == 10


@pytest.mark.parametrize("active, pressed_state", [("low", False), ("high", True)])
def test_press_drives_and_releases_the_button(make_rig, active, pressed_state):
    rig = make_rig(sensor={"button_active": active}, timing={"button_debounce_ms": 20})
    presses = []
    rig.hw.watch(lambda pressed, at: presses.append(pressed), None)
    rig.sim.press()
    assert bool(rig.factory.pin(17).state) is pressed_state
    assert rig.hw.button_pressed
    hold = 0.020 + PRESS_MARGIN_MS / 1000  # debounce 20 ms and the margin
    rig.loop.advance(hold - 0.001)
    assert rig.hw.button_pressed
    rig.loop.advance(0.002)
    assert not rig.hw.button_pressed
    assert presses == [True, False]


def test_presses_that_come_together_are_queued_not_dropped(make_rig):
    rig = make_rig(timing={"button_debounce_ms": 20})
    edges = []
    rig.hw.watch(lambda pressed, at: edges.append((pressed, rig.sim.held_for)), None)
    hold = 0.020 + PRESS_MARGIN_MS / 1000
    rig.sim.press(1)
    rig.loop.advance(0.010)
    rig.sim.press(2)
    rig.sim.press(3)
    assert edges == [(True, 1)]  # the second waits for the first to end
    rig.loop.advance(hold)
    assert edges == [(True, 1), (False, None)]  # held debounce + margin
    rig.loop.advance(hold)
    assert edges[-1] == (True, 2)  # the release had time to debounce: a separate edge
    rig.loop.advance(4 * hold)
    assert edges == [(True, 1), (False, None), (True, 2), (False, None), (True, 3), (False, None)]
    assert rig.loop.pending() == []


def test_the_lid_starts_closed_although_its_input_is_pulled_to_open(make_rig):
    rig = make_rig()
    assert rig.hw.lid_open is False


def test_set_lid(make_rig):
    rig = make_rig()
    rig.sim.set_lid(True)
    assert rig.hw.lid_open is True
    rig.sim.set_lid(False)
    assert rig.hw.lid_open is False


def test_set_lid_without_a_lid_switch_is_unavailable():
    factory = sim_pin_factory()
    sim = SimulatedMechanism(build_config({}), factory, FakeLoop(), random.Random(1))
    with pytest.raises(Unavailable):
        sim.set_lid(True)
    sim.close()
    factory.close()


def test_the_simulation_may_be_built_before_the_hardware():
    config = build_config({"sensor": {"beam_blocked": "high"}})
    factory, loop = sim_pin_factory(), FakeLoop()
    sim = SimulatedMechanism(config, factory, loop, random.Random(1))
    with Hardware(config, pin_factory=factory) as hw:
        assert not hw.beam_blocked
        hw.set_driver_enabled(True)
        hw.motor("forward", 1.0)
        loop.advance(0.051)
        assert hw.beam_blocked
        assert sim.get_status()["cards_out"] == 1
    sim.close()
    factory.close()


def test_seeded_runs_repeat(make_rig):
    def run(seed):
        rig = make_rig(rng=random.Random(seed), sim={"jam_chance": 0.1, "misfeed_chance": 0.1})
        for _ in range(20):
            rig.hw.motor("forward", 0.8)
            rig.loop.advance(1.0)
            rig.hw.motor("stop", 0)
            rig.sim.clear()
            rig.loop.advance(0.1)
        return rig.beam, rig.sim.get_status()

    first = run(42)
    assert first == run(42)
    assert first != run(43)
    beam, status = first
    assert status["cards_out"] == len([b for _, b in beam if b])


def test_close_cancels_timers_and_stops_watching(make_rig):
    rig = make_rig()
    rig.hw.motor("forward", 1.0)
    rig.sim.press()
    rig.loop.advance(0.051)
    rig.sim.close()
    rig.sim.close()
    assert rig.loop.pending() == []
    rig.hw.motor("stop", 0)
    rig.hw.motor("forward", 1.0)
    assert rig.loop.pending() == []


def test_needs_the_reporting_factory():
    with pytest.raises(TypeError, match="sim_pin_factory"):
        SimulatedMechanism(build_config({}), MockFactory(pin_class=MockPWMPin), FakeLoop(), random.Random(1))


def test_the_gpiozero_internals_the_simulation_overrides_still_exist():
    """ReportingPin hooks MockPin._change_state and reads _function: a gpiozero upgrade that
    renames them would silently stop the simulated motor from feeding cards."""
    from importlib.metadata import version

    from gpiozero.pins.mock import MockPin

    pin = sim_pin_factory().pin(5)
    missing = [name for name in ("_change_state", "_function")
               if not hasattr(MockPin, name) and not hasattr(pin, name)]
    assert not missing, (f"gpiozero {version('gpiozero')} has no MockPin {', '.join(missing)}:"
                         " firmware/launcher/sim.py ReportingPin must follow its new internals")
    assert ReportingPin._change_state is not MockPin._change_state
    calls = []
    pin.function = "output"
    pin.add_listener(calls.append)
    pin.state = 1
    assert calls == [pin], (f"gpiozero {version('gpiozero')}: MockPin no longer calls _change_state"
                            " when an output is written; firmware/launcher/sim.py ReportingPin must follow")
