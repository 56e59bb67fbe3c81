"""The motor's on-time limits across chained runs, and a stalled driver (issue #9).

A bench drives the core as the daemon does (a Tick at every deadline) with a feeder that sends a
card through the beam at a steady pace while the motor runs forward, and records every motor
change with its time. From that record the tests measure what a stopwatch on the motor would:
the on-time of each chain of runs (runs apart by less than the rest time) and the on-time in
every duty window. A stall is a clock jump: no Tick while the driver is stopped.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firmware.config import build_config
from firmware.launcher.core import Launcher
from firmware.launcher.ejection import Outcome
from firmware.events import (
    BeamLevel, ButtonLevel, Dispense, EStop, Emit, Launch, LidLevel, Motor, Reload, Reset, Retract, Tick,
)
from firmware.i18n import render

EPS = 1e-6
T0 = 100.0

# The loop: a dispense of 500 runs to its timeout, pulses back and the next one starts.
LOOP = {"timing": {"max_on_ms": 3000, "launch_timeout_ms": 2500, "feed_timeout_ms": 1500},
        "motor": {"kick_ms": 0}}


class Policy:
    name = "fixed"
    tension = 0.0
    dry_streak = 0

    def __init__(self, cards: int = 3):
        self.cards = cards

    def decide(self, hopper):
        return Outcome(self.cards)

    def reset(self):
        pass


class Bench:
    def __init__(self, raw: dict, hopper: int | None = 10_000, pace_ms: float = 100, cards: int = 3):
        self.config = build_config(raw)
        timing = self.config.timing
        self.max_on = timing.max_on_ms / 1000
        self.rest = timing.motor_rest_ms / 1000
        self.window = float(timing.duty_window_s)
        self.share = timing.max_duty
        self.now = T0
        self.core = Launcher(self.config, Policy(cards), T0, hopper)
        self.pace = pace_ms / 1000
        self.block = 0.008
        self.runs: list[list[float]] = []  # [start, end] of each motor run, end inf while on
        self.direction = "stop"
        self.next_card: float | None = None
        self.clear_at: float | None = None
        self.emits: list[tuple[float, str, dict]] = []
        self.first_actions: list = []

    # ---- driving -------------------------------------------------------------------------

    def feed(self, event):
        actions = self.core.handle(event, self.now)
        self.first_actions = actions
        for action in actions:
            if isinstance(action, Motor):
                self._motor(action)
            elif isinstance(action, Emit):
                self.emits.append((self.now, action.name, action.params))
        return actions

    def _motor(self, action: Motor):
        if action.direction == "stop":
            if self.direction != "stop":
                self.runs[-1][1] = self.now
        elif self.direction == "stop":
            self.runs.append([self.now, float("inf")])
        if action.direction == "forward" and self.direction != "forward":
            self.next_card = self.now + self.pace
        elif action.direction != "forward":
            self.next_card = None
        self.direction = action.direction

    def wait(self, seconds: float):
        target = self.now + seconds
        for _ in range(1_000_000):
            due = []
            deadline = self.core.next_deadline()
            if deadline is not None:
                due.append((deadline, 0))
            if self.clear_at is not None:
                due.append((self.clear_at, 1))
            elif self.next_card is not None:
                due.append((self.next_card, 2))
            if not due or min(due)[0] > target:
                break
            at, what = min(due)
            self.now = max(self.now, at)
            if what == 0:
                self.feed(Tick())
            elif what == 1:
                self.clear_at = None
                self.feed(BeamLevel(False))
                if self.direction == "forward":
                    self.next_card = self.now + self.pace
            else:
                self.next_card = None
                self.clear_at = self.now + self.block
                self.feed(BeamLevel(True))
        else:
            raise AssertionError("no progress")
        self.now = target

    def stall(self, seconds: float, event=None):
        """The driver stops for ``seconds``: the motor runs on, then one event arrives late."""
        self.now += seconds
        return self.feed(event if event is not None else Tick())

    def named(self, name: str, since: float = 0.0) -> list[dict]:
        return [params for at, n, params in self.emits if n == name and at >= since]

    # ---- the stopwatch -------------------------------------------------------------------

    def _closed_runs(self) -> list[tuple[float, float]]:
        return [(a, min(b, self.now)) for a, b in self.runs]

    def longest_chain(self) -> float:
        """The most on-time of any chain of runs apart by less than the rest time."""
        longest = chain = 0.0
        last_end = None
        for a, b in self._closed_runs():
            if last_end is not None and a - last_end >= self.rest - EPS:
                chain = 0.0
            chain += b - a
            longest = max(longest, chain)
            last_end = b
        return longest

    def busiest_window(self) -> float:
        """The most on-time in any window of duty_window_s (the worst windows end where a run does)."""
        runs = self._closed_runs()
        return max((sum(max(0.0, min(b, end) - max(a, end - self.window)) for a, b in runs)
                    for _, end in runs), default=0.0)

    def check_limits(self):
        assert self.longest_chain() <= self.max_on + EPS, f"chain of {self.longest_chain():.3f} s"
        assert self.busiest_window() <= self.share * self.window + EPS, \
            f"{self.busiest_window():.3f} s on in one window"


def dispense_loop(bench: Bench, seconds: float, count: int = 500):
    """`while :; do launcherctl dispense N; done`: a refused request waits as told, then retries."""
    end = bench.now + seconds
    request = 0
    while bench.now < end:
        request += 1
        bench.feed(Dispense(count, "dispense", request=request))
        refused = [p for p in bench.named("refused") if p["request"] == request]
        if refused:
            bench.wait(refused[0]["retry_after_s"])
            continue
        while not [p for p in bench.named("launched") if p["request"] == request]:
            bench.wait(0.05)


def test_chained_dispenses_keep_the_motor_within_max_on_and_the_duty_share():
    bench = Bench(LOOP)
    dispense_loop(bench, 18)
    bench.check_limits()
    on = sum(b - a for a, b in bench._closed_runs())
    assert on <= 0.5 * 18 + 0.1, f"motor on {on:.1f} s of 18 s"
    assert bench.core.get_status()["state"] != "halted"
    ended = {p["ended"] for p in bench.named("launched")}
    assert "motor_limit" in ended  # the second run of a chain is cut at the limit
    rest = [p for p in bench.named("refused") if p["reason"]["id"] == "motor_needs_rest"]
    assert rest and all(p["event"] == "Dispense" and p["retry_after_s"] > 0 for p in rest)


def test_a_request_after_a_spent_chain_is_refused_with_the_rest_it_needs():
    bench = Bench(LOOP)
    bench.feed(Dispense(500, request=1))
    bench.wait(2.6)  # to the launch timeout, a 30 ms coast, then the 60 ms pulse
    assert bench.named("launched")[0]["ended"] == "timeout"
    bench.feed(Dispense(500, request=2))
    bench.wait(1)  # 0.44 s of chain left: cut there, not a fault
    assert [p["ended"] for p in bench.named("launched")] == ["timeout", "motor_limit"]
    assert bench.core.get_status()["state"] == "ready"
    bench.wait(0.5)
    bench.feed(Launch(request=3))
    (refused,) = bench.named("refused")
    assert refused["request"] == 3 and refused["event"] == "Launch"
    # Cut when the chain's on-time reached 3 s (the coasts before the pulses are off-time), then
    # rested 3 s after that.
    cut = bench.runs[-1][1]
    on_time = sum(end - start for start, end in bench.runs)
    assert abs(on_time - 3.0) < 1e-6
    assert abs(refused["retry_after_s"] - (cut + 3.0 - bench.now)) < 0.002
    assert refused["reason"] == {"id": "motor_needs_rest", "seconds": round(cut + 3.0 - bench.now, 1)}
    assert render(refused["reason"], "en") == f"the motor needs {refused['reason']['seconds']} s of rest"
    bench.wait(refused["retry_after_s"])
    bench.feed(Launch(request=4))
    assert bench.named("press")[-1]["request"] == 4 and bench.direction == "forward"
    bench.check_limits()


def test_a_reverse_pulse_counts_as_on_time():
    bench = Bench(LOOP)
    bench.feed(Dispense(500))
    bench.wait(2.6)
    bench.feed(Dispense(500))
    bench.wait(1)
    bench.feed(Retract())
    assert bench.named("refused")[-1]["event"] == "Retract"
    assert bench.direction == "stop"


def test_the_duty_share_holds_over_a_window():
    raw = {"timing": {"max_on_ms": 2000, "launch_timeout_ms": 1000, "feed_timeout_ms": 500,
                      "motor_rest_ms": 100, "duty_window_s": 10, "max_duty": 0.3},
           "motor": {"kick_ms": 0}}
    bench = Bench(raw)
    dispense_loop(bench, 40)
    bench.check_limits()
    duty = [p for p in bench.named("refused") if p["reason"]["id"] == "motor_duty_window"]
    assert duty and render(duty[0]["reason"], "en").startswith("the motor may run 30% of any 10.0 s; wait ")
    assert bench.core.get_status()["state"] == "ready"


def test_a_refused_press_is_not_counted_and_does_not_move_the_policy():
    bench = Bench(LOOP)
    bench.feed(Dispense(500))
    bench.wait(2.6)
    bench.feed(Dispense(500))
    bench.wait(1)
    presses = bench.core.get_status()["presses"]
    bench.feed(ButtonLevel(True, request=9))
    bench.wait(0.1)
    assert bench.named("refused")[-1]["event"] == "ButtonLevel"
    assert bench.named("refused")[-1]["request"] == 9
    assert bench.core.get_status()["presses"] == presses


# ---- a stalled driver -----------------------------------------------------------------------


def test_a_stall_mid_dispense_stops_the_motor_and_halts_without_empty_or_jam():
    bench = Bench({}, hopper=2000)
    bench.feed(Dispense(40, request=1))
    bench.wait(0.35)
    hopper = bench.core.get_status()["hopper"]
    cards = bench.core.get_status()["cards_ejected"]
    actions = bench.stall(4.2)
    assert actions[0] == Motor("stop")
    status = bench.core.get_status()
    assert status["state"] == "halted"
    assert status["reason"] == {"id": "stalled", "seconds": 4.2}
    assert render(status["reason"], "en") == "the daemon was stalled for 4.2 s; motor stopped"
    assert status["hopper"] == hopper and status["cards_ejected"] == cards
    assert [(p["ended"], p["request"]) for p in bench.named("launched")] == [("halt", 1)]
    assert bench.named("empty") == [] and bench.named("jammed") == []


def test_edges_after_a_stall_are_levels_not_cards():
    bench = Bench({}, hopper=2000)
    bench.feed(Dispense(40))
    bench.wait(0.35)
    cards = bench.core.get_status()["cards_ejected"]
    bench.stall(3.0, BeamLevel(True))  # a card caught mid-crossing by the stall
    for _ in range(30):  # the backlog: a storm of edges
        bench.feed(BeamLevel(False))
        bench.feed(BeamLevel(True))
    bench.feed(BeamLevel(False))
    bench.feed(ButtonLevel(True))
    bench.wait(1)
    assert bench.named("card", since=T0 + 0.4) == [] and bench.named("press", since=T0 + 0.4) == []
    status = bench.core.get_status()
    assert status["cards_ejected"] == cards and status["hopper"] == 2000 - cards
    bench.feed(Reset())
    assert bench.core.get_status()["state"] == "ready"
    bench.feed(ButtonLevel(False))
    bench.feed(Launch())
    assert bench.direction == "forward"


def test_a_late_timer_within_the_tolerance_is_no_stall():
    bench = Bench({"timing": {"stall_ms": 250}})
    bench.feed(Launch())
    bench.wait(0.01)
    deadline = bench.core.next_deadline()
    bench.now = deadline + 0.2
    bench.feed(Tick())
    assert bench.core.get_status()["state"] != "halted"


def test_a_long_quiet_spell_with_the_motor_off_is_no_stall():
    bench = Bench({})
    bench.now += 3600  # asleep by now, with no Tick: a timer that only puts it to sleep
    bench.feed(Dispense(2))
    assert bench.core.get_status()["state"] == "launching"


def test_a_stall_on_a_blocked_beam_leaves_the_launcher_jammed_after_reset():
    bench = Bench({}, pace_ms=10_000)
    bench.feed(Launch())
    bench.feed(BeamLevel(True))
    bench.wait(0.1)
    bench.stall(2.0)
    assert bench.named("jammed") == []
    bench.wait(5)
    assert bench.named("jammed") == [] and bench.core.get_status()["cards_ejected"] == 0
    bench.feed(Reset())
    assert bench.core.get_status()["state"] == "jammed"  # the slot must be cleared first
    bench.feed(BeamLevel(False))
    assert bench.core.get_status()["state"] == "ready"


# ---- properties -----------------------------------------------------------------------------

PROPERTY_CONFIGS = {
    "short": {"timing": {"max_on_ms": 1000, "launch_timeout_ms": 600, "feed_timeout_ms": 300, "jam_ms": 200,
                         "motor_rest_ms": 400, "duty_window_s": 5, "max_duty": 0.4, "stall_ms": 250},
              "motor": {"kick_ms": 50, "retract_ms": 60}},
    "tight": {"timing": {"max_on_ms": 700, "launch_timeout_ms": 500, "feed_timeout_ms": 200, "jam_ms": 100,
                         "motor_rest_ms": 1000, "duty_window_s": 2, "max_duty": 0.3, "stall_ms": 100},
              "motor": {"kick_ms": 0, "retract_ms": 90}},
    # A generous duty share: the rest rule is the one that binds.
    "chain": {"timing": {"max_on_ms": 900, "launch_timeout_ms": 500, "feed_timeout_ms": 250, "jam_ms": 120,
                         "motor_rest_ms": 1500, "duty_window_s": 20, "max_duty": 0.8, "stall_ms": 150},
              "motor": {"kick_ms": 30, "retract_ms": 50}},
}
KINDS = ["launch"] * 3 + ["dispense"] * 4 + ["button_down", "button_up"] * 2 + ["reset"] * 3 + [
    "retract", "estop", "lid_open", "lid_close", "beam_on", "beam_off", "reload", "stall", "stall"]


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from(sorted(PROPERTY_CONFIGS)),
    pace_ms=st.integers(20, 400),
    # Mostly quick succession, so that requests chain and stalls catch the motor running.
    steps=st.lists(st.tuples(st.sampled_from(KINDS), st.one_of(st.integers(0, 60), st.integers(0, 1500)),
                             st.integers(1, 30)), max_size=60),
)
def test_no_request_sequence_breaks_the_on_time_limits(name, pace_ms, steps):
    bench = Bench(PROPERTY_CONFIGS[name], pace_ms=pace_ms)
    stall_s = bench.config.timing.stall_ms / 1000
    need = (bench.config.timing.launch_timeout_ms + bench.config.motor.retract_ms) / 1000
    for request, (kind, wait_ms, arg) in enumerate(steps, 1):
        bench.wait(wait_ms / 1000)
        if kind == "stall":
            # Long enough that the motor, if on, has a deadline far behind: always a stall.
            jump = need + stall_s + arg / 10
            was_on = bench.direction != "stop"
            if was_on:
                bench.runs[-1][1] = bench.now  # the stopwatch leaves out what no code can prevent
                bench.direction = "stop"
                bench.next_card = None
            actions = bench.stall(jump)
            if was_on:
                assert actions[0] == Motor("stop")
                status = bench.core.get_status()
                assert status["state"] == "halted" and status["reason"]["id"] == "stalled"
            continue
        bench.feed({
            "launch": Launch(request=request), "dispense": Dispense(arg, request=request),
            "button_down": ButtonLevel(True, request=request), "button_up": ButtonLevel(False),
            "retract": Retract(), "estop": EStop("test"), "reset": Reset(), "lid_open": LidLevel(True),
            "lid_close": LidLevel(False), "beam_on": BeamLevel(True), "beam_off": BeamLevel(False),
            "reload": Reload(arg * 10),
        }[kind])
        bench.check_limits()
        for params in bench.named("refused"):
            assert params.get("retry_after_s", 0) >= 0
    bench.wait(30)
    bench.check_limits()
    assert bench.core.get_status()["state"] != "launching"


# ---- the runs kept for the duty rule: bounded, on the safe side ---------------------------------

def exact_wait(runs, now, need, window, share):
    """The shortest wait after which a run of ``need`` keeps every window within ``share``,
    from the runs exactly as they happened (a bisection: the on-time left in the window only
    falls as the window slides on)."""
    def admitted(wait):
        start = now + wait + need - window
        return sum(max(0.0, b - max(a, start)) for a, b in runs) + need <= share * window + EPS
    if admitted(0.0):
        return 0.0
    low, high = 0.0, window
    for _ in range(60):
        middle = (low + high) / 2
        low, high = (low, middle) if admitted(middle) else (middle, high)
    return high


@settings(max_examples=300, deadline=None)
@given(runs=st.lists(st.tuples(st.floats(0.0, 0.3), st.floats(0.001, 0.4)), min_size=50, max_size=250),
       idle=st.floats(0.0, 5.0), need=st.floats(0.05, 3.0))
def test_however_many_runs_the_duty_rule_keeps_a_bounded_few_and_never_admits_sooner(runs, idle, need):
    from firmware.events import MAX_RUNS
    from firmware.launcher.motor_limits import OnTime
    window, share = 60.0, 0.5
    on_time = OnTime(max_on=1e9, rest=0.0, window=window, share=share)
    happened, now = [], T0
    for gap, length in runs:
        now += gap
        on_time.start(now)
        now += length
        on_time.stop(now)
        happened.append((now - length, now))
    assert len(on_time.runs) <= MAX_RUNS  # every event's bookkeeping walks them
    now += idle
    kept = on_time.wait(now, need)
    assert (0.0 if kept is None else kept[0]) >= exact_wait(happened, now, need, window, share) - 1e-6
