"""Properties of the blaster core under any sequence of slot edges, waits, e-stops and resets."""

import random

from hypothesis import given, settings, strategies as st

from firmware.blaster.policy import RISING, TRIGGER, BlastPolicy
from firmware.blaster.core import HALTED, Blaster, Release, Settings, SlotLevel
from firmware.events import EStop, Emit, Reset, SleepNow, Tick, Wake

SETTINGS = Settings(pulse_ms=150, max_on_ms=500, rest_s=0.5, settle_s=0.3)

steps = st.lists(st.one_of(
    st.tuples(st.just("slot"), st.integers(1, 4), st.booleans()),
    st.tuples(st.just("wait"), st.floats(0.0, 2.0)),
    st.tuples(st.just("event"), st.sampled_from([EStop("test"), Reset(), SleepNow(), Wake()])),
), max_size=80)


@settings(max_examples=300, deadline=None)
@given(steps, st.integers(0, 10_000), st.sampled_from([TRIGGER, RISING]))
def test_safety_and_bookkeeping_hold_whatever_happens(script, seed, profile):
    core = Blaster(SETTINGS, BlastPolicy(profile, 4, random.Random(seed)), 0.0)
    now = 0.0
    on_since = None
    blast_cards = 0
    open_blasts = 0

    def check(actions, at):
        nonlocal on_since, blast_cards, open_blasts
        state = core.get_status()["state"]
        for action in actions:
            if isinstance(action, Release):
                if action.ms:
                    assert on_since is None and state != HALTED
                    assert action.ms <= SETTINGS.max_on_ms
                    on_since = at
                else:
                    on_since = None
            elif isinstance(action, Emit) and action.name == "insert" and action.params["outcome"] == "blast":
                open_blasts += 1
                assert open_blasts == 1  # one blast at a time
            elif isinstance(action, Emit) and action.name == "blast":
                open_blasts -= 1
                assert 0 <= action.params["cards"] <= 4
                blast_cards += action.params["cards"]
        if on_since is not None:
            assert at - on_since <= SETTINGS.max_on_ms / 1000 + 1e-9
        assert core.get_status()["actuator"]["on"] == (on_since is not None)

    for step in script:
        if step[0] == "wait":
            end = now + step[1]
            while (deadline := core.next_deadline()) is not None and deadline <= end:
                now = max(now, deadline)
                check(core.handle(Tick(), now), now)
            now = end
            check(core.handle(Tick(), now), now)
        elif step[0] == "slot":
            check(core.handle(SlotLevel(step[1], step[2]), now), now)
        else:
            check(core.handle(step[1], now), now)
        status = core.get_status()
        assert status["cards_ejected"] == blast_cards
        if status["state"] == HALTED:
            assert not status["actuator"]["on"]
