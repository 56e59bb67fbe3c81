"""Properties of the launcher core over random event sequences (hypothesis).

A checker drives the core the way the daemon does (a Tick at every deadline on the way to the next
event) and checks, after every call, what must hold whatever happens: motor limits, motor off in
the states that forbid it, one ``launched`` per ``press``, every card attributed to one press, the
status JSON, and no motor start with the lid open or, outside a launch (a jog, a lone reverse
pulse), with the beam blocked. Timings are shrunk so that random waits cross every threshold.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firmware.config import build_config
from firmware.launcher.core import Launcher
from firmware.launcher.states import STATES
from firmware.events import (
    BeamLevel, ButtonLevel, Dispense, EStop, Emit, Jog, Launch, LidLevel, Motor, Reload, Reset, Retract,
    SleepNow, Tick, Wake,
)
from firmware.launcher.ejection import Outcome

EPS = 1e-6
MOTOR_OFF_STATES = {"lid_open", "jammed", "sleeping", "halted"}
IGNORED_REASONS = {"launching", "jammed", "lid_open", "halted", "sleeping", "beam_blocked", "jogging"}

QUICK = {
    "timing": {"jam_ms": 200, "feed_timeout_ms": 300, "launch_timeout_ms": 600, "max_on_ms": 1000,
               "sleep_after_s": 3},
    "motor": {"duty": 0.5, "kick_ms": 50, "retract_ms": 60},
}
# max_on_ms is reached by chained runs: a launch to its timeout, its pulse, the next launch.
TIGHT = {
    "timing": {"jam_ms": 50, "feed_timeout_ms": 60, "launch_timeout_ms": 100, "max_on_ms": 150,
               "motor_rest_ms": 200, "duty_window_s": 1, "max_duty": 0.5, "sleep_after_s": 3},
    "motor": {"kick_ms": 0, "retract_ms": 90},
}
NO_PULSE = {
    "timing": {"jam_ms": 150, "feed_timeout_ms": 150, "launch_timeout_ms": 400, "max_on_ms": 500,
               "sleep_after_s": 0, "beam_filter_ms": 0},
    "motor": {"retract_ms": 0},
    "feedback": {"chime": False},
}
CONFIGS = {name: build_config(raw) for name, raw in
           {"quick": QUICK, "tight": TIGHT, "no_pulse": NO_PULSE}.items()}


class CyclingPolicy:
    """Plays a script of card counts in a loop (-1 = all in)."""

    name = "cycling"

    def __init__(self, script: list[int], tension: float):
        self.script = script
        self.index = 0
        self.tension = tension
        self.dry_streak = 0

    def decide(self, hopper):
        step = self.script[self.index % len(self.script)]
        self.index += 1
        self.dry_streak = self.dry_streak + 1 if step == 0 else 0
        return Outcome(0, True) if step < 0 else Outcome(step)

    def reset(self):
        self.dry_streak = 0


@dataclass
class Feeder:
    """A crude mechanism: while the motor runs forward, a card crosses the beam every pace_ms."""

    cards: int
    pace_ms: float
    block_ms: float  # may be a glitch, a card or a jam


class Checker:
    """Drives a core (with a feeder) and checks the invariants after every call."""

    def __init__(self, config, policy, hopper, feeder: Feeder | None = None):
        self.config = config
        self.now = 50.0
        self.core = Launcher(config, policy, self.now, hopper)
        self.max_on_s = config.timing.max_on_ms / 1000
        self.feeder = feeder or Feeder(0, 1, 1)
        self.motor_on_since: float | None = None
        self.motor_direction = "stop"
        self.beam_blocked = False
        self.lid_open = False
        self.dead_time_s = config.motor.dead_time_ms / 1000
        self.last_run: tuple[str, float] | None = None  # the direction that ran last, and its stop
        self.next_card_at: float | None = None
        self.clear_at: float | None = None
        self.presses: list[int] = []
        self.dispenses: list[int] = []
        self.launched: dict[int, dict] = {}
        self.cards: dict[int, int] = {}  # press_id -> cards seen for it in card/launched events
        self.state = "ready"

    # ---- driving ---------------------------------------------------------------------------

    def call(self, event=None, shutdown: str | None = None):
        self._check_motor_limit()
        deadline = self.core.next_deadline()
        waking = (self.state == "sleeping" and isinstance(event, Launch)
                  and (deadline is None or deadline > self.now))
        if isinstance(event, BeamLevel):
            self.beam_blocked = bool(event.blocked)
        if isinstance(event, LidLevel):
            self.lid_open = bool(event.open)
        if shutdown is not None:
            actions = self.core.shutdown(shutdown, self.now)
        else:
            actions = self.core.handle(event, self.now)
        self._absorb(actions)
        if waking:
            emits = [(a.name, a.params) for a in actions if isinstance(a, Emit)]
            assert ("ignored", {"source": "api", "request": None, "reason": "sleeping"}) in emits
            assert not any(name == "press" for name, _ in emits), "a waking press was counted"

    def wait(self, ms: float):
        """Advance to now + ms: a Tick at every deadline, the feeder's beam edges, in time order."""
        target = self.now + ms / 1000
        for _ in range(100_000):
            due = []
            deadline = self.core.next_deadline()
            if deadline is not None:
                assert deadline >= self.now - EPS, "a deadline in the past was not run"
                due.append((deadline, "tick"))
            if self.clear_at is not None:
                due.append((self.clear_at, "clear"))
            elif self.next_card_at is not None and self.feeder.cards > 0:
                due.append((self.next_card_at, "block"))
            if not due or min(due)[0] > target:
                break
            at, what = min(due)
            self.now = max(self.now, at)
            if what == "tick":
                self.call(Tick())
            elif what == "block":
                self.feeder.cards -= 1
                self.clear_at = self.now + self.feeder.block_ms / 1000
                self.call(BeamLevel(True))
            else:
                self.clear_at = None
                self.call(BeamLevel(False))
                if self.motor_direction == "forward":
                    self.next_card_at = self.now + self.feeder.pace_ms / 1000
        else:
            raise AssertionError("the core keeps asking for a Tick without getting anywhere")
        self.now = target
        self._check_motor_limit()

    # ---- checking --------------------------------------------------------------------------

    def _check_motor_limit(self):
        if self.motor_on_since is not None:
            on_for = self.now - self.motor_on_since
            assert on_for <= self.max_on_s + EPS, f"motor on for {on_for:.4f} s"

    def _absorb(self, actions):
        kinds = [isinstance(a, Emit) for a in actions]
        assert kinds == sorted(kinds), "an event before a device action"
        # A launch under way, or one these actions start (its press comes after the motor's start).
        launching = len(self.launched) < len(self.presses) or any(
            isinstance(a, Emit) and a.name == "press" for a in actions)
        for action in actions:
            if isinstance(action, Motor):
                if action.direction == "stop":
                    if self.motor_direction != "stop":
                        self.last_run = (self.motor_direction, self.now)
                    self.motor_on_since = None
                else:
                    assert self.motor_direction in ("stop", action.direction), "reversed while running"
                    if self.last_run is not None and self.last_run[0] != action.direction:
                        coasted = self.now - self.last_run[1]
                        assert coasted >= self.dead_time_s - EPS, f"reversed after {coasted * 1000:.1f} ms"
                    assert 0 < action.duty <= 1
                    if self.motor_on_since is None:
                        assert not self.lid_open, "the motor started with the lid open"
                        # A launch's own reverse pulse may start with its last card in the slot.
                        assert launching or not self.beam_blocked, "the motor started with the beam blocked"
                        self.motor_on_since = self.now
                if action.direction != "forward":
                    self.next_card_at = None
                elif self.motor_direction != "forward":
                    self.next_card_at = self.now + self.feeder.pace_ms / 1000
                self.motor_direction = action.direction
            elif isinstance(action, Emit):
                self._absorb_event(action.name, action.params)
        status = self.core.get_status()
        assert json.loads(json.dumps(status)) == status
        assert status["state"] == self.state in STATES
        assert status["motor"]["on"] == (self.motor_on_since is not None)
        if self.state in MOTOR_OFF_STATES:
            assert self.motor_on_since is None, f"motor on while {self.state}"
        assert status["presses"] == len(self.presses) - len(self.dispenses)
        assert status["cards_ejected"] == sum(self.cards.values())
        assert status["hopper"] is None or status["hopper"] >= 0
        assert 0.0 <= status["tension"] <= 1.0
        assert status["driver_enabled"] == (self.state not in ("sleeping", "halted"))
        assert (status["reason"] is not None) == (self.state == "halted")

    def _absorb_event(self, name, params):
        assert json.loads(json.dumps(params)) == params
        if name == "press":
            assert self.state == "empty" or not self.beam_blocked, "a press started with the beam blocked"
            assert params["press_id"] == len(self.presses) + 1
            self.presses.append(params["press_id"])
            if params["dispense"]:
                self.dispenses.append(params["press_id"])
        elif name == "launched":
            press_id = params["press_id"]
            assert press_id in self.presses and press_id not in self.launched
            self.launched[press_id] = params
            self._saw_cards(press_id, params["cards"])
            if params["outcome"] == "dry":
                assert params["cards"] == 0 and params["requested"] == 0
            if params["outcome"] == "dispense" and params["ended"] == "done":
                assert params["cards"] >= params["requested"]
        elif name == "card":
            assert params["press_id"] in self.presses
            assert params["count"] == self.cards.get(params["press_id"], 0) + 1
            self._saw_cards(params["press_id"], params["count"])
        elif name == "ignored":
            assert params["reason"] in IGNORED_REASONS
        elif name == "state":
            assert params["previous"] == self.state != params["state"]
            self.state = params["state"]

    def _saw_cards(self, press_id, count):
        assert count >= self.cards.get(press_id, 0)
        self.cards[press_id] = count

    def settle(self):
        """Let every launch run out; afterwards each press has its launched."""
        self.call(ButtonLevel(False))
        timing = self.config.timing
        self.wait(timing.max_on_ms + timing.jam_ms + self.config.motor.retract_ms + 100)
        assert sorted(self.launched) == self.presses


# Weighted towards what makes launches happen and end; the rest often enough to interleave.
KINDS = (
    ["card"] * 4 + ["button_down", "button_up"] * 3 + ["launch"] * 4 + ["dispense"] * 2
    + ["reset", "lid_open", "lid_close"] * 2
    + ["beam_on", "beam_off", "reload", "estop", "sleep", "wake", "retract", "jog", "tick", "shutdown", "junk"]
)
# Mostly quick succession (cards of one burst), sometimes long enough for every timer.
WAITS = st.one_of(st.integers(0, 40), st.integers(0, 40), st.integers(0, 400), st.integers(0, 3000))

steps = st.lists(st.tuples(WAITS, st.sampled_from(KINDS), st.integers(0, 30)), max_size=80)


def apply(checker: Checker, kind: str, arg: int):
    if kind == "card":
        checker.call(BeamLevel(True))
        checker.wait(arg * 3 + 0.5)  # 0.5 ms to 90.5 ms: glitches, cards, with TIGHT even jams
        checker.call(BeamLevel(False))
        return
    if kind == "shutdown":
        checker.call(shutdown="property")
        return
    checker.call({
        "button_down": ButtonLevel(True), "button_up": ButtonLevel(False),
        "beam_on": BeamLevel(True), "beam_off": BeamLevel(False), "launch": Launch("api"),
        "dispense": Dispense(arg % 8, "dispense"), "reload": Reload(arg * 4 - 8),
        "lid_open": LidLevel(True), "lid_close": LidLevel(False), "estop": EStop("test"),
        "reset": Reset(), "sleep": SleepNow(), "wake": Wake(), "retract": Retract(), "tick": Tick(),
        "jog": Jog("forward" if arg % 2 else "reverse", arg * 5 + 5, 0.5),
        "junk": object(),
    }[kind])


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    config_name=st.sampled_from(sorted(CONFIGS)),
    script=st.lists(st.integers(-1, 6), min_size=1, max_size=8),
    tension=st.floats(0, 1),
    hopper=st.one_of(st.none(), st.integers(0, 20)),
    feeder=st.builds(Feeder, st.integers(0, 40), st.integers(1, 400),
                     st.one_of(st.integers(1, 30), st.integers(0, 300)).map(lambda ms: ms + 0.5)),
    sequence=steps,
)
def test_invariants_hold_for_any_event_sequence(config_name, script, tension, hopper, feeder,
                                                sequence):
    checker = Checker(CONFIGS[config_name], CyclingPolicy(script, tension), hopper, feeder)
    for wait_ms, kind, arg in sequence:
        checker.wait(wait_ms)
        apply(checker, kind, arg)
    checker.settle()


@settings(max_examples=150, deadline=None)
@given(edges=st.lists(st.integers(0, 45), max_size=40), start_pressed=st.booleans())
def test_debounce_counts_each_level_held_long_enough_once(edges, start_pressed):
    """A reference model: the level after each gap counts if it held for the debounce time."""
    config = CONFIGS["quick"]
    debounce = config.timing.button_debounce_ms
    checker = Checker(config, CyclingPolicy([0], 0.0), None)
    level, stable, expected = start_pressed, False, 0
    checker.call(ButtonLevel(level))
    for gap in edges:
        held = gap + 0.5  # never exactly on the boundary
        if held > debounce and level != stable:
            stable = level
            expected += level
        checker.wait(held)
        level = not level
        checker.call(ButtonLevel(level))
    checker.wait(debounce + 1)
    expected += level and not stable
    assert len(checker.presses) == expected


@settings(max_examples=150, deadline=None)
@given(blocks=st.lists(st.tuples(st.integers(0, 400), st.integers(0, 300)), max_size=25))
def test_every_real_block_is_one_card_however_long(blocks):
    """With a press made, each block of at least beam_filter_ms is exactly one card."""
    config = CONFIGS["quick"]
    checker = Checker(config, CyclingPolicy([0], 0.0), None)
    checker.call(Launch())
    expected = 0
    for block_ms, gap_ms in blocks:
        checker.call(BeamLevel(True))
        checker.wait(block_ms + 0.5)
        checker.call(BeamLevel(False))
        checker.wait(gap_ms)
        expected += block_ms + 0.5 >= config.timing.beam_filter_ms
    assert checker.core.get_status()["cards_ejected"] == expected
    assert checker.state in ("ready", "sleeping")
