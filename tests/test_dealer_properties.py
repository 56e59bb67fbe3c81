"""Never N+1 (issue #11), as a property over random mechanism behaviour (hypothesis).

The table of ``test_dealer`` (real core, dealer, fake mechanism, operator, one fake clock) plays a
random scene: misfeeds, jams and how long they stay, hoppers running dry and reloads with a right
or a wrong count, the lid, somebody's own presses, e-stops, and dispenses requested at random
moments (queued behind each other). Whatever happens, no request gets more cards than it asked
for, counted at the hopper, and one that ends ``done`` got exactly its count.
"""

from __future__ import annotations

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from test_dealer import Table

from firmware.events import EStop, Launch, LidLevel, Reset

# A motor chain limit and a launch timeout a dispense of 30 cards runs into, and a duty limit it
# meets too; the feed timeout stays above the slowest pace so that a working feed is never "empty".
LIMITS = {"timing": {"max_on_ms": 1000, "motor_rest_ms": 1500, "launch_timeout_ms": 900,
                     "feed_timeout_ms": 500, "duty_window_s": 10, "max_duty": 0.5},
          "motor": {"kick_ms": 0}}
CONFIGS = {"default": {}, "limits": LIMITS,
           "no_pulse": {"motor": {"retract_ms": 0}, "timing": {"feed_timeout_ms": 400}}}

ACTIONS = ("dispense", "dispense", "dispense", "estop", "lid", "launch")


@st.composite
def scenes(draw):
    return {
        "config": draw(st.sampled_from(sorted(CONFIGS))),
        "seed": draw(st.integers(0, 2**16)),
        "jam_chance": draw(st.sampled_from([0.0, 0.05, 0.2, 0.5])),
        "misfeed_chance": draw(st.sampled_from([0.0, 0.1, 0.3, 0.6])),
        "pace": draw(st.floats(0.01, 0.3)),
        "block": draw(st.sampled_from([0.004, 0.008, 0.03])),
        "hopper": draw(st.integers(0, 60)),
        "capacity": draw(st.integers(15, 60)),
        "claim_error": draw(st.sampled_from([0, 0, 0, 4, -4])),
        "clear_after": draw(st.sampled_from([(0.0, 0.1), (0.5, 3.0), (10.0, 40.0)])),
        "retries": draw(st.integers(0, 3)),
        "script": draw(st.lists(st.tuples(st.floats(0, 8), st.sampled_from(ACTIONS), st.integers(1, 30)),
                                min_size=1, max_size=8)),
    }


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenes())
# A reload that claims 19 cards for the 15 put in, and 3 misfeed retries: the run that empties the
# hopper and the retries after it were 4 blind runs in a row, and the core's wiring check
# ([sensor] blind_runs, 4) halted the launcher on a retry nobody asked for. Now the last one
# waits for a reload and a press, and the dispense is done.
@example(scene={"config": "default", "seed": 0, "jam_chance": 0.0, "misfeed_chance": 0.0, "pace": 0.25,
                "block": 0.004, "hopper": 0, "capacity": 15, "claim_error": 4, "clear_after": (0.0, 0.1),
                "retries": 3, "script": [(0.0, "dispense", 16)]})
# A feed that slips six times in ten: after one card of the last request was owed, 20 runs in a
# row saw no card though each followed a reload and a person's press, and the core's own wiring
# check ("the beam sees no cards") halted it. The request is abandoned by that halt, not by an
# e-stop: a halt the core decides is a halt too.
@example(scene={"config": "default", "seed": 301, "jam_chance": 0.0, "misfeed_chance": 0.6, "pace": 0.25,
                "block": 0.004, "hopper": 0, "capacity": 15, "claim_error": 0, "clear_after": (0.0, 0.1),
                "retries": 0, "script": [(0.0, "dispense", 6), (0.0, "dispense", 30), (0.0, "dispense", 30),
                                         (0.0, "dispense", 30)]})
def test_never_more_than_asked_and_done_is_exact(scene):
    table = Table(CONFIGS[scene["config"]], seed=scene["seed"], hopper=scene["hopper"], pace=scene["pace"],
                  block=scene["block"], jam_chance=scene["jam_chance"],
                  misfeed_chance=scene["misfeed_chance"], clear_after=scene["clear_after"],
                  misfeed_retries=scene["retries"])
    table.capacity = scene["capacity"]
    table.reload_claim = scene["capacity"] + scene["claim_error"]
    asked: dict[int, int] = {}
    when = 0.0
    for number, (gap, action, count) in enumerate(scene["script"]):
        when += gap
        if action == "dispense":
            asked[number] = count
            table.at(when, table.dispense, count, number)
        elif action == "estop":
            table.at(when, table.feed, EStop("test"))
            table.at(when + 1.0, table.feed, Reset())
        elif action == "lid":
            table.at(when, table.feed, LidLevel(True))
            table.at(when + count / 10, table.feed, LidLevel(False))
        else:
            table.at(when, table.feed, Launch("button"))
    table.run(until=50_000)
    # Every halt the core announced: an e-stop's, or its own (the wiring check's).
    halts = [params for _, name, params in table.events if name == "halted"]

    assert set(table.outcomes) == set(asked), "every request gets one outcome"
    for number, count in asked.items():
        outcome, physical = table.outcomes[number], table.physical[number]
        assert physical <= count, f"request {number}: {physical} cards for {count}"
        assert outcome["cards"] <= count and outcome["remaining"] == count - outcome["cards"]
        if outcome["state"] == "done":
            assert outcome["cards"] == physical == count
        else:
            assert outcome["state"] == "abandoned" and halts, outcome
            # A card still crossing the beam when the motor was cut is out, and counted after the outcome.
            assert physical - outcome["cards"] in (0, 1)
    assert table.mech.out == sum(table.physical.values())
