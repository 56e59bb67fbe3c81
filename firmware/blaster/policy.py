"""When the card blaster fires: trigger profiles as data, a pure seeded policy and its statistics.

Pure: no IO, no clock. The randomness comes from the ``random.Random`` the caller passes in (the
daemon seeds it from the OS or ``--seed``, tests seed it), so a seed replays a game, as for the
launcher's ejection profiles (``firmware/launcher/ejection.py``).

The blaster is *armed* when it is ready with its loaded cards gone (at start, after a blast, after
a reset). Each insertion then asks the policy whether it fires. Whatever the profile, filling the
last empty slot fires: there is no slot to put the next card in (rules.md §6).

Profiles (:data:`PROFILE_NAMES`):

- ``trigger`` (default, seed 002: "you never know which slot will trigger the blast"): arming draws
  one empty slot as the hidden trigger; filling it fires. An insertion fires with chance
  1 / (empty slots before it), so with n slots the blast comes on insertion 1..n with chance 1/n
  each, and always by the n-th.
- ``rising``: the insertion that leaves k of n slots full fires with chance (k / n) ** exponent,
  certain when all are full; slot choice does not matter.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from typing import Sequence

PROFILE_NAMES = ("trigger", "rising")


@dataclass(frozen=True)
class TriggerSlot:
    """A hidden trigger slot drawn among the empty slots when the blaster is armed."""


@dataclass(frozen=True)
class RisingChance:
    """The insertion that leaves k of n slots full fires with chance ``(k / n) ** exponent``."""

    exponent: float

    def __post_init__(self) -> None:
        if not self.exponent > 0:
            raise ValueError(f"exponent must be above 0, not {self.exponent}")

    def chance(self, full: int, slots: int) -> float:
        return min(1.0, (full / slots) ** self.exponent)


@dataclass(frozen=True)
class BlastProfile:
    """A named trigger rule and a line for listings."""

    name: str
    summary: str
    rule: TriggerSlot | RisingChance


TRIGGER = BlastProfile(
    "trigger", "a hidden trigger slot is drawn when the blaster is armed; filling it fires",
    TriggerSlot(),
)
# Squared: with 4 slots 1/16, 4/16, 9/16, then certain; the first card is rarely the one, as the
# rising dread of the box's advertising has it.
RISING = BlastProfile(
    "rising", "the chance rises as slots fill, (full / slots) squared; certain when all are full",
    RisingChance(2.0),
)
_BUILT_IN = {profile.name: profile for profile in (TRIGGER, RISING)}


def get_profile(name: str) -> BlastProfile:
    try:
        return _BUILT_IN[name]
    except KeyError:
        raise ValueError(f"unknown blast profile {name!r}; allowed: " + ", ".join(PROFILE_NAMES)) from None


class BlastPolicy:
    """Decides each insertion with a profile; remembers the hidden trigger since the last arming."""

    def __init__(self, profile: BlastProfile, slots: int, rng: random.Random):
        if slots < 1:
            raise ValueError(f"a blaster has at least 1 slot, not {slots}")
        self.profile = profile
        self.slots = slots
        self._rng = rng
        self._trigger: int | None = None

    @property
    def name(self) -> str:
        return self.profile.name

    def arm(self, empty: Sequence[int]) -> None:
        """The blaster is ready again; ``empty`` are the slot numbers (1 to n) that are empty."""
        empty = sorted(empty)
        if isinstance(self.profile.rule, TriggerSlot) and empty:
            self._trigger = self._rng.choice(empty)
        else:
            self._trigger = None

    def decide(self, slot: int, full_after: int) -> bool:
        """Whether the card just put in ``slot`` fires; ``full_after`` counts it among the full."""
        if full_after >= self.slots:
            return True
        rule = self.profile.rule
        if isinstance(rule, TriggerSlot):
            # A trigger never drawn (armed with no slot empty) leaves the last slot to fire.
            return slot == self._trigger
        return self._rng.random() < rule.chance(full_after, self.slots)


def blast_stats(profile: BlastProfile, slots: int, arms: int, seed: int) -> dict:
    """Arm ``arms`` times from empty and insert into random empty slots until the blast.

    Returns JSON-ready data: ``profile``, ``slots``, ``arms``, ``seed``, ``fired_at`` (how many arms
    fired on insertion k, keys "1".."n"), ``mean_insertions`` and ``max_insertions``.
    """
    rng = random.Random(seed)
    policy = BlastPolicy(profile, slots, rng)
    fired_at: Counter[int] = Counter()
    for _ in range(arms):
        empty = list(range(1, slots + 1))
        policy.arm(empty)
        for k in range(1, slots + 1):
            slot = empty.pop(rng.randrange(len(empty)))
            if policy.decide(slot, k):
                fired_at[k] += 1
                break
    return {
        "profile": profile.name,
        "slots": slots,
        "arms": arms,
        "seed": seed,
        "fired_at": {str(k): fired_at[k] for k in range(1, slots + 1)},
        "mean_insertions": round(sum(k * n for k, n in fired_at.items()) / arms, 4) if arms else 0.0,
        "max_insertions": max(fired_at, default=0),
    }


def expected_fired_at(profile: BlastProfile, slots: int) -> dict[str, float]:
    """The exact chance that an arm fires on insertion k, for checking :func:`blast_stats`."""
    rule = profile.rule
    chances: dict[str, float] = {}
    alive = 1.0
    for k in range(1, slots + 1):
        if isinstance(rule, TriggerSlot):
            fire = 1.0 / (slots - k + 1)
        else:
            fire = 1.0 if k == slots else rule.chance(k, slots)
        chances[str(k)] = alive * fire
        alive *= 1.0 - fire
    return chances


__all__ = [
    "BlastPolicy",
    "BlastProfile",
    "PROFILE_NAMES",
    "RISING",
    "RisingChance",
    "TRIGGER",
    "TriggerSlot",
    "blast_stats",
    "expected_fired_at",
    "get_profile",
]
