"""Ejection profiles: their statistics over many seeded presses, their caps, resets and reports."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware.config import SCHEMA, ConfigError, build_config
from firmware.launcher.ejection import (
    ALL_IN_UNKNOWN_HOPPER,
    CLASSIC,
    DRY_PRESSES_SEEN,
    EXTREME,
    SCHEDULE_FIRE_PRESSES,
    SCHEDULE_PERIOD,
    TENSION,
    Chain,
    EjectionPolicy,
    Outcome,
    PROFILE_NAMES,
    format_stats,
    get_profile,
    policy_for,
    profile_stats,
    stats_for_profile,
)

RANDOM_PROFILES = ("classic", "schedule", "tension", "extreme")
PRESSES = 100_000
SEED = 20240601


@pytest.fixture(scope="module")
def stats() -> dict[str, dict]:
    return {name: profile_stats(get_profile(name), PRESSES, SEED) for name in RANDOM_PROFILES}


def histogram(stats_of_one: dict, key: str) -> dict[int, int]:
    return {int(value): count for value, count in stats_of_one[key].items()}


def expected_mean_burst(weights: tuple[float, ...]) -> float:
    return sum(cards * weight for cards, weight in enumerate(weights, start=1)) / sum(weights)


def presses(policy: EjectionPolicy, count: int, hopper: int | None = None) -> list[Outcome]:
    return [policy.decide(hopper) for _ in range(count)]


def test_the_profile_names_are_the_ones_the_config_accepts():
    assert SCHEMA["ejection"]["profile"].choices is PROFILE_NAMES
    for name in PROFILE_NAMES:
        assert get_profile(name, sequence=(1,)).name == name


# ---- statistics over 100,000 presses, held to each profile's published targets ----------------


@pytest.mark.parametrize("name", RANDOM_PROFILES)
def test_fire_rate_is_on_target(stats, name):
    targets = get_profile(name).targets
    assert abs(stats[name]["fire_rate"] - targets.fire_rate) <= targets.fire_rate_tolerance


@pytest.mark.parametrize("name", RANDOM_PROFILES)
def test_dry_streaks_reach_the_cap_and_never_pass_it(stats, name):
    targets = get_profile(name).targets
    assert stats[name]["max_dry_streak"] == targets.max_dry_streak
    assert max(histogram(stats[name], "dry_streak_histogram")) == targets.max_dry_streak


@pytest.mark.parametrize("name", RANDOM_PROFILES)
def test_fire_runs_never_pass_the_cap(stats, name):
    runs = histogram(stats[name], "fire_run_histogram")
    assert max(runs) == get_profile(name).targets.max_fire_run


@pytest.mark.parametrize("name", RANDOM_PROFILES)
def test_bursts_are_mostly_usual_and_never_above_the_maximum(stats, name):
    targets = get_profile(name).targets
    bursts = histogram(stats[name], "burst_histogram")
    low, high = targets.usual_bursts
    usual = sum(count for cards, count in bursts.items() if low <= cards <= high)
    assert usual / sum(bursts.values()) >= targets.usual_burst_share
    assert min(bursts) >= 1
    assert max(bursts) == targets.max_burst


@pytest.mark.parametrize("name", RANDOM_PROFILES)
def test_mean_burst_follows_the_weights(stats, name):
    expected = expected_mean_burst(get_profile(name).bursts)
    assert stats[name]["mean_burst"] == pytest.approx(expected, abs=0.1)


@pytest.mark.parametrize("name", RANDOM_PROFILES)
def test_all_in_share_is_on_target(stats, name):
    low, high = get_profile(name).targets.all_in_share
    assert low <= stats[name]["all_in"] / stats[name]["fires"] <= high


@pytest.mark.parametrize("name", RANDOM_PROFILES)
def test_histograms_account_for_every_fire(stats, name):
    one = stats[name]
    fires = one["fires"]
    assert sum(histogram(one, "dry_streak_histogram").values()) == fires
    assert sum(n * count for n, count in histogram(one, "fire_run_histogram").items()) == fires
    assert sum(histogram(one, "burst_histogram").values()) + one["all_in"] == fires


def test_classic_waits_two_or_three_dry_presses_most_often(stats):
    gaps = histogram(stats["classic"], "dry_streak_histogram")
    two_most_common = sorted(gaps, key=gaps.get, reverse=True)[:2]
    assert sorted(two_most_common) == [2, 3]


def test_extreme_bursts_are_heavier_than_classic(stats):
    assert stats["extreme"]["mean_burst"] > stats["classic"]["mean_burst"] + 2


def test_tension_fire_chance_rises_with_the_dry_streak():
    policy = EjectionPolicy(TENSION, random.Random(SEED))
    tries = [0] * (TENSION.targets.max_dry_streak + 1)
    fired = [0] * len(tries)
    for _ in range(PRESSES):
        streak = policy.dry_streak
        tries[streak] += 1
        fired[streak] += policy.decide(None).cards > 0
    chances = [f / t for f, t in zip(fired, tries)]
    assert chances == sorted(chances) and len(set(chances)) == len(chances)
    for streak, chance in enumerate(chances):
        assert chance == pytest.approx(min(1.0, 0.10 + 0.15 * streak), abs=0.03)
    assert chances[-1] == 1.0


# ---- resets, first presses, all-ins --------------------------------------------------------


@pytest.mark.parametrize("name", RANDOM_PROFILES)
def test_first_press_after_a_reset_fires_only_where_allowed(name):
    profile = get_profile(name)
    rng = random.Random(SEED)
    policy = EjectionPolicy(profile, rng)
    first_fires = 0
    for _ in range(2000):
        presses(policy, rng.randrange(10))
        policy.reset()
        assert policy.dry_streak == 0 and policy.tension == 0.0
        first_fires += policy.decide(None).cards > 0
    if profile.targets.first_press_dry:
        assert first_fires == 0
    else:
        assert first_fires > 0


def test_extreme_never_goes_all_in_on_the_first_press_after_a_reset():
    policy = EjectionPolicy(EXTREME, random.Random(SEED))
    # Without the rule, about 5000 * 0.40 * 0.015 = 30 of these first presses would be all-ins.
    for _ in range(5000):
        policy.reset()
        assert not policy.decide(50).all_in


@pytest.mark.parametrize(
    ("hopper", "expected"),
    [(37, 37), (1, 1), (None, ALL_IN_UNKNOWN_HOPPER), (0, ALL_IN_UNKNOWN_HOPPER)],
)
def test_an_all_in_empties_the_hopper_estimate(hopper, expected):
    policy = EjectionPolicy(EXTREME, random.Random(SEED))
    all_ins = [outcome for outcome in presses(policy, 5000, hopper) if outcome.all_in]
    assert all_ins
    assert {outcome.cards for outcome in all_ins} == {expected}


def test_ordinary_bursts_are_not_trimmed_to_the_hopper_estimate():
    policy = EjectionPolicy(CLASSIC, random.Random(SEED))
    assert max(outcome.cards for outcome in presses(policy, 1000, hopper=2)) > 2


# ---- schedule and fixed ----------------------------------------------------------------------


# rules.md §2, as published; the module's constant must not drift from it.
PUBLISHED_SCHEDULE = (
    2, 6, 9, 13, 17, 21, 24, 26, 27, 29, 32, 36, 37, 41, 44, 47, 48, 51, 54, 57, 58, 62, 66, 69,
    72, 73, 77, 81, 84, 85, 88, 92, 93, 96,
)


def test_schedule_fires_exactly_on_the_listed_presses_and_repeats():
    assert SCHEDULE_FIRE_PRESSES == PUBLISHED_SCHEDULE and SCHEDULE_PERIOD == 96
    policy = EjectionPolicy(get_profile("schedule"), random.Random(SEED))
    outcomes = presses(policy, 3 * SCHEDULE_PERIOD)
    fired = [number for number, outcome in enumerate(outcomes, start=1) if outcome.cards]
    expected = [lap * SCHEDULE_PERIOD + p for lap in range(3) for p in SCHEDULE_FIRE_PRESSES]
    assert fired == expected
    assert all(1 <= outcome.cards <= 12 for outcome in outcomes if outcome.cards)


def test_schedule_restarts_at_a_reset():
    policy = EjectionPolicy(get_profile("schedule"), random.Random(SEED))
    presses(policy, 40)
    policy.reset()
    outcomes = presses(policy, SCHEDULE_PERIOD)
    fired = [number for number, outcome in enumerate(outcomes, start=1) if outcome.cards]
    assert fired == list(SCHEDULE_FIRE_PRESSES)


def test_fixed_cycles_its_sequence_and_restarts_at_a_reset():
    policy = EjectionPolicy(get_profile("fixed", (0, 3, 0, 5)), random.Random(SEED))
    assert [outcome.cards for outcome in presses(policy, 10)] == [0, 3, 0, 5, 0, 3, 0, 5, 0, 3]
    policy.reset()
    assert [outcome.cards for outcome in presses(policy, 3)] == [0, 3, 0]
    assert not any(outcome.all_in for outcome in presses(policy, 20))


@pytest.mark.parametrize("sequence", [(), (2, -1)])
def test_fixed_needs_a_sequence_of_card_counts(sequence):
    with pytest.raises(ValueError, match="fixed"):
        get_profile("fixed", sequence)


def test_unknown_profile_names_the_allowed_ones():
    with pytest.raises(ValueError, match="classic, schedule, tension, extreme, fixed"):
        get_profile("random")


def test_policy_for_uses_the_profile_and_sequence():
    config = build_config({"ejection": {"profile": "fixed", "sequence": [0, 2]}})
    policy = policy_for(config.ejection.profile, config.ejection.sequence, random.Random(SEED))
    assert policy.name == "fixed"
    assert [outcome.cards for outcome in presses(policy, 4)] == [0, 2, 0, 2]
    defaults = build_config({})
    assert policy_for(defaults.ejection.profile, defaults.ejection.sequence, random.Random(SEED)).name == "classic"


def test_chain_tables_must_end_in_their_caps():
    with pytest.raises(ValueError, match="after_dry"):
        Chain(first_press=0.0, after_fire=(0.3, 0.0), after_dry=(0.5, 0.9))
    with pytest.raises(ValueError, match="after_fire"):
        Chain(first_press=0.0, after_fire=(0.3, 0.1), after_dry=(0.5, 1.0))


# ---- seeds and tension -----------------------------------------------------------------------


@pytest.mark.parametrize("name", RANDOM_PROFILES)
def test_a_seed_replays_the_same_presses_and_another_seed_does_not(name):
    def run(seed: int) -> list[Outcome]:
        return presses(EjectionPolicy(get_profile(name), random.Random(seed)), 300)

    assert run(1) == run(1)
    assert run(1) != run(2)


@pytest.mark.parametrize(
    ("name", "sequence"),
    [(name, ()) for name in RANDOM_PROFILES] + [("fixed", (0, 0, 4, 0, 1)), ("fixed", (0,))],
)
def test_tension_rises_with_each_dry_press_and_falls_on_a_fire(name, sequence):
    policy = EjectionPolicy(get_profile(name, sequence), random.Random(SEED))
    for _ in range(3000):
        before = policy.tension
        outcome = policy.decide(None)
        assert 0.0 <= policy.tension <= 1.0
        if outcome.cards:
            assert policy.tension == 0.0
        else:
            assert policy.tension > before or policy.tension == 1.0


@pytest.mark.parametrize("name", RANDOM_PROFILES)
def test_tension_is_full_at_the_longest_dry_run_of_a_random_profile(name):
    profile = get_profile(name)
    assert profile.full_tension_at == profile.targets.max_dry_streak


def test_tension_is_full_at_the_longest_dry_run_of_a_sequence():
    policy = EjectionPolicy(get_profile("fixed", (0, 4, 0, 0, 0)), random.Random(SEED))
    # The longest dry run crosses the repetition seam: presses 3-5, then press 1 of the next lap.
    presses(policy, 3)
    assert policy.tension == pytest.approx(1 / 4)
    presses(policy, 2)
    assert policy.tension == pytest.approx(3 / 4)
    presses(policy, 1)
    assert policy.tension == 1.0
    never_fires = EjectionPolicy(get_profile("fixed", (0,)), random.Random(SEED))
    presses(never_fires, DRY_PRESSES_SEEN - 1)
    assert never_fires.tension < 1.0
    presses(never_fires, 1)
    assert never_fires.tension == 1.0


# ---- the report --------------------------------------------------------------------------------


def test_stats_survive_a_json_round_trip(stats):
    assert json.loads(json.dumps(stats["extreme"])) == stats["extreme"]


def test_profile_stats_counts_a_known_sequence_exactly():
    profile = get_profile("fixed", (0, 0, 3, 5, 0, 4, 4, 4))
    assert profile_stats(profile, 16, seed=0) == {
        "profile": "fixed",
        "seed": 0,
        "presses": 16,
        "fires": 10,
        "fire_rate": 0.625,
        "max_dry_streak": 2,
        "dry_streak_histogram": {"0": 6, "1": 2, "2": 2},
        "fire_run_histogram": {"2": 2, "3": 2},
        "burst_histogram": {"3": 2, "4": 6, "5": 2},
        "mean_burst": 4.0,
        "all_in": 0,
    }


def test_format_stats_shows_the_numbers(stats):
    report = format_stats(stats["extreme"])
    one = stats["extreme"]
    for number in (one["presses"], one["fires"], one["max_dry_streak"], one["all_in"]):
        assert str(number) in report
    assert f"{one['fire_rate']:.4f}" in report
    assert f"{one['mean_burst']:.2f}" in report
    for key in ("dry_streak_histogram", "fire_run_histogram", "burst_histogram"):
        for value, count in one[key].items():
            assert any(
                line.split("|")[0].strip() == value and f" {count} " in line
                for line in report.splitlines()
            ), (key, value)


def test_format_stats_accepts_numeric_keys_and_empty_histograms():
    assert "(none)" in format_stats(profile_stats(get_profile("fixed", (0,)), 5, seed=3))
    as_json = profile_stats(get_profile("fixed", (2, 0, 12)), 9, seed=3)
    numeric = {
        key: {int(k): v for k, v in value.items()} if key.endswith("histogram") else value
        for key, value in as_json.items()
    }
    assert format_stats(numeric) == format_stats(as_json)


# ---- the property: no seed and no order of presses and resets breaks a cap ---------------------


@settings(max_examples=200, deadline=None)
@given(
    name=st.sampled_from(("classic", "tension", "extreme")),
    seed=st.integers(min_value=0, max_value=2**32),
    steps=st.lists(
        st.one_of(st.none(), st.integers(min_value=0, max_value=120)) | st.just("reset"),
        max_size=300,
    ),
)
def test_no_interleaving_of_presses_and_resets_breaks_the_caps(name, seed, steps):
    profile = get_profile(name)
    targets = profile.targets
    policy = EjectionPolicy(profile, random.Random(seed))
    first_press = True
    dry = fires = 0
    for step in steps:
        if step == "reset":
            policy.reset()
            first_press, dry, fires = True, 0, 0
            continue
        outcome = policy.decide(step)
        if outcome.cards:
            assert not (first_press and targets.first_press_dry)
            assert not (first_press and outcome.all_in)
            dry, fires = 0, fires + 1
        else:
            dry, fires = dry + 1, 0
        first_press = False
        assert dry <= targets.max_dry_streak
        assert fires <= targets.max_fire_run
        assert policy.dry_streak == dry
        assert 0.0 <= policy.tension <= 1.0


def test_stats_of_fixed_without_a_sequence_say_it_needs_one():
    with pytest.raises(ConfigError, match=r"profile 'fixed' needs a sequence .*\[ejection\] sequence"):
        stats_for_profile("fixed", (), 100, SEED)


def test_stats_by_name():
    assert stats_for_profile("fixed", (0, 2), 10, SEED)["fires"] == 5
    assert stats_for_profile("classic", (), 10, SEED) == profile_stats(get_profile("classic"), 10, SEED)
    with pytest.raises(ConfigError, match="unknown ejection profile 'nope'"):
        stats_for_profile("nope", (), 10, SEED)
