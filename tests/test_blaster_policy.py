"""The blaster's trigger profiles over 100,000 seeded arms (rules.md §6)."""

import random

import pytest

from firmware.blaster.policy import (
    RISING, TRIGGER, BlastPolicy, RisingChance, blast_stats, expected_fired_at, get_profile,
)

ARMS = 100_000


@pytest.mark.parametrize("profile", [TRIGGER, RISING])
def test_fired_at_matches_the_profile_over_100000_arms(profile):
    stats = blast_stats(profile, 4, ARMS, seed=11)
    expected = expected_fired_at(profile, 4)
    assert sum(stats["fired_at"].values()) == ARMS  # every arm fired by the last slot
    for k, chance in expected.items():
        # Binomial standard error at 100,000 arms is at most 0.0016.
        assert stats["fired_at"][k] / ARMS == pytest.approx(chance, abs=0.006), k
    assert stats["max_insertions"] == 4


def test_trigger_slot_fires_evenly_on_each_insertion():
    stats = blast_stats(TRIGGER, 4, ARMS, seed=3)
    for k in "1234":
        assert stats["fired_at"][k] / ARMS == pytest.approx(0.25, abs=0.006)
    assert stats["mean_insertions"] == pytest.approx(2.5, abs=0.02)


def test_rising_chance_is_back_loaded():
    stats = blast_stats(RISING, 4, ARMS, seed=5)
    assert stats["fired_at"]["1"] < stats["fired_at"]["2"] < stats["fired_at"]["3"]
    assert stats["fired_at"]["1"] / ARMS == pytest.approx(1 / 16, abs=0.004)


@pytest.mark.parametrize("profile", [TRIGGER, RISING])
@pytest.mark.parametrize("slots", [1, 2, 4, 6])
def test_the_last_empty_slot_always_fires(profile, slots):
    for seed in range(300):
        policy = BlastPolicy(profile, slots, random.Random(seed))
        policy.arm(range(1, slots + 1))
        for k in range(1, slots):
            policy.decide(k, k)
        assert policy.decide(slots, slots) is True


def test_trigger_fires_exactly_once_per_arm_whatever_the_order():
    rng = random.Random(9)
    for _ in range(2000):
        policy = BlastPolicy(TRIGGER, 4, rng)
        policy.arm([1, 2, 3, 4])
        order = rng.sample([1, 2, 3, 4], 4)
        fires = [policy.decide(slot, k) for k, slot in enumerate(order, 1)]
        # One hidden slot fires; after it the blaster would be re-armed, so only the 4th may too.
        assert fires[:3].count(True) <= 1 and True in fires


def test_trigger_is_drawn_among_the_empty_slots_only():
    for seed in range(500):
        policy = BlastPolicy(TRIGGER, 4, random.Random(seed))
        policy.arm([2, 4])  # 1 and 3 still hold cards left by a jam
        assert policy.decide(1, 3) is False and policy.decide(3, 3) is False


def test_same_seed_same_decisions():
    def run(seed):
        policy = BlastPolicy(RISING, 4, random.Random(seed))
        out = []
        for _ in range(200):
            policy.arm([1, 2, 3, 4])
            out += [policy.decide(k, k) for k in (1, 2, 3)]
        return out

    assert run(1) == run(1) != run(2)


def test_bad_profiles_are_refused():
    with pytest.raises(ValueError, match="unknown blast profile 'x'; allowed: trigger, rising"):
        get_profile("x")
    with pytest.raises(ValueError):
        RisingChance(0)
    with pytest.raises(ValueError):
        BlastPolicy(TRIGGER, 0, random.Random(1))
