"""Ejection profiles and the policy that turns a press into a burst, a dry press or an all-in.

Pure: no IO, no clock. The randomness comes from the ``random.Random`` the caller passes in (the
daemon seeds it from the OS, or from ``--seed``; tests seed it), so a seed replays a game.

A profile is data: a :class:`Profile` holds a fire rule (:class:`Chain`, :class:`Schedule` or
:class:`FixedSequence`), the burst-size weights and the all-in chance, plus the :class:`Targets` it
was built to meet (rules.md §2). :class:`EjectionPolicy` keeps the press history since the last
reset (reload, lid closed, start) and asks the rule about each press.

Tension (0-1) is how far the current dry streak has gone towards the longest dry run the profile
allows; the LED and chime speed up with it, so for every profile the lights pulse faster press after
press until cards come out, as on the original machine. Where the longest dry run ends in a certain
fire (``classic``, ``tension``, ``extreme``, ``schedule``), tension 1 means the next press fires.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from itertools import accumulate
from typing import Sequence

from firmware.errors import ConfigError

PROFILE_NAMES = ("classic", "schedule", "tension", "extreme", "fixed")

# An all-in with no hopper estimate asks for more cards than any hopper holds (a 112-card deck
# less the hands dealt): the core runs the motor until the feed timeout reports the hopper empty
# (or launch_timeout_ms ends the launch first).
ALL_IN_UNKNOWN_HOPPER = 200

# The longest dry run reported for the original machine (rules.md §2). A fixed sequence that never
# fires has no longest dry run of its own; its lights reach full speed after this many presses.
DRY_PRESSES_SEEN = 10

# The schedule one published account claims the original follows after power-on (rules.md §2):
# the presses that fire, counted from 1 after a reset. The account stops at press 96; the profile
# repeats it with period 96, which keeps its shape across the seam (press 96 fires, 97 is dry,
# 98 fires like press 2).
SCHEDULE_FIRE_PRESSES = (
    2, 6, 9, 13, 17, 21, 24, 26, 27, 29, 32, 36, 37, 41, 44, 47, 48, 51, 54, 57, 58, 62, 66, 69,
    72, 73, 77, 81, 84, 85, 88, 92, 93, 96,
)
SCHEDULE_PERIOD = 96

# Relative weight of a burst of k cards at index k - 1.
# Classic: usually 3-8 cards (78 %), sometimes one or two (10 %), rarely up to 12 (12 %); mean 5.5.
CLASSIC_BURSTS = (4, 6, 12, 16, 16, 14, 11, 9, 5, 3, 2, 2)
# Extreme: mostly 5-12 cards (73 %), up to 20 (16 % above 12); mean 8.8.
EXTREME_BURSTS = (1, 2, 3, 5, 8, 10, 11, 11, 10, 9, 8, 6, 5, 3, 2, 2, 1, 1, 1, 1)


@dataclass(frozen=True)
class Outcome:
    """What one press does: ``cards`` to eject (0 = dry, nothing comes out).

    ``all_in`` empties the hopper: ``cards`` is then the hopper estimate, or
    :data:`ALL_IN_UNKNOWN_HOPPER` when there is none.
    """

    cards: int
    all_in: bool = False

    def __post_init__(self) -> None:
        if self.cards < 0:
            raise ValueError(f"an outcome cannot eject {self.cards} cards")


DRY = Outcome(0)


def _check_table(label: str, chances: tuple[float, ...]) -> None:
    if not chances or not all(0.0 <= chance <= 1.0 for chance in chances):
        raise ValueError(f"{label} must be a non-empty table of chances from 0 to 1, not {chances}")


@dataclass(frozen=True)
class Chain:
    """Random fire decisions: a small Markov chain on (dry streak, fire run) since the last reset.

    The chance that a press fires depends only on the presses since the reset:

    - ``first_press``: the first press after a reset;
    - ``after_fire[n - 1]``: a press that follows a run of n fires. The table ends with 0.0, so a
      run is never longer than ``len(after_fire)`` (:attr:`max_fire_run`);
    - ``after_dry[d - 1]``: a press that follows d dry presses in a row. The table ends with 1.0,
      so there are never more than ``len(after_dry)`` dry presses in a row (:attr:`dry_cap`).

    The caps come from the tables, not from luck: no seed can break them.
    """

    first_press: float
    after_fire: tuple[float, ...]
    after_dry: tuple[float, ...]

    def __post_init__(self) -> None:
        if not 0.0 <= self.first_press <= 1.0:
            raise ValueError(f"first_press must be a chance from 0 to 1, not {self.first_press}")
        _check_table("after_fire", self.after_fire)
        _check_table("after_dry", self.after_dry)
        if self.after_fire[-1] != 0.0:
            raise ValueError("after_fire must end with 0.0, the end of the longest fire run")
        if self.after_dry[-1] != 1.0:
            raise ValueError("after_dry must end with 1.0, the certain fire that caps dry runs")

    @property
    def dry_cap(self) -> int:
        """The most dry presses in a row."""
        return len(self.after_dry)

    @property
    def max_fire_run(self) -> int:
        """The most fires in a row."""
        return len(self.after_fire)

    def fire_chance(self, press: int, fire_run: int, dry_streak: int) -> float:
        """The chance that press number ``press`` (1 = first after the reset) fires."""
        if press == 1:
            return self.first_press
        if fire_run:
            return self.after_fire[fire_run - 1]
        return self.after_dry[dry_streak - 1]


@dataclass(frozen=True)
class Schedule:
    """Fires on the presses listed in ``fire_presses`` (1 to ``period``), counted from the last
    reset and repeated every ``period`` presses."""

    fire_presses: tuple[int, ...]
    period: int

    def __post_init__(self) -> None:
        if not self.fire_presses or list(self.fire_presses) != sorted(set(self.fire_presses)):
            raise ValueError("fire_presses must be a non-empty, increasing list of press numbers")
        if not (1 <= self.fire_presses[0] and self.fire_presses[-1] <= self.period):
            raise ValueError(f"fire_presses must lie between 1 and the period ({self.period})")

    @property
    def longest_dry_run(self) -> int:
        """The most dry presses in a row, across the repetition seam too."""
        presses = self.fire_presses
        seam = self.period - presses[-1] + presses[0] - 1
        gaps = (later - earlier - 1 for earlier, later in zip(presses, presses[1:]))
        return max(seam, *gaps)

    def fires_on(self, press: int) -> bool:
        """Whether press number ``press`` (1 = first after the reset) fires."""
        return (press - 1) % self.period + 1 in self.fire_presses


@dataclass(frozen=True)
class FixedSequence:
    """The card counts of successive presses after a reset (0 = dry), repeated: no randomness."""

    cards: tuple[int, ...]

    def __post_init__(self) -> None:
        if not self.cards or any(count < 0 for count in self.cards):
            raise ValueError(
                "profile 'fixed' needs a non-empty sequence of card counts (0 = dry),"
                f" not {list(self.cards)}"
            )

    @property
    def longest_dry_run(self) -> int | None:
        """The most dry presses in a row, across the repetition seam too; None if it never fires."""
        if not any(self.cards):
            return None
        longest = run = 0
        # Two laps catch the run that wraps from the end of the sequence to its start.
        for count in self.cards * 2:
            run = 0 if count else run + 1
            longest = max(longest, run)
        return longest

    def cards_on(self, press: int) -> int:
        """The card count of press number ``press`` (1 = first after the reset)."""
        return self.cards[(press - 1) % len(self.cards)]


@dataclass(frozen=True)
class Targets:
    """The shape a random profile is built to have over 100,000 presses. The tests hold each
    profile to its targets, and the documentation quotes them.

    - ``fire_rate`` +- ``fire_rate_tolerance``: share of presses that fire;
    - ``max_dry_streak``, ``max_fire_run``: never more dry presses / fires in a row;
    - ``first_press_dry``: the first press after a reset never fires;
    - at least ``usual_burst_share`` of the bursts have ``usual_bursts`` (low, high) cards, and none
      has more than ``max_burst`` (all-ins aside);
    - ``all_in_share`` (low, high): share of fires that are all-ins.
    """

    fire_rate: float
    fire_rate_tolerance: float
    max_dry_streak: int
    max_fire_run: int
    first_press_dry: bool
    usual_bursts: tuple[int, int]
    usual_burst_share: float
    max_burst: int
    all_in_share: tuple[float, float] = (0.0, 0.0)


@dataclass(frozen=True)
class Profile:
    """How presses turn into bursts: a fire rule, burst-size weights and an all-in chance.

    - ``fires``: which presses fire (a random :class:`Chain`, a fixed :class:`Schedule`) or, for a
      :class:`FixedSequence`, the exact card count of every press;
    - ``bursts``: relative weight of a burst of k cards at index k - 1 (empty for a fixed sequence,
      whose counts are given);
    - ``all_in_chance``: chance that a fire empties the hopper instead of a burst; never on the
      first press after a reset;
    - ``targets``: what the profile is built to look like (None for a fixed sequence).
    """

    name: str
    summary: str
    fires: Chain | Schedule | FixedSequence
    bursts: tuple[float, ...] = ()
    all_in_chance: float = 0.0
    targets: Targets | None = None

    def __post_init__(self) -> None:
        if isinstance(self.fires, FixedSequence):
            if self.bursts or self.all_in_chance:
                raise ValueError("a fixed sequence gives its card counts: no bursts, no all-in")
            return
        if not self.bursts or min(self.bursts) < 0 or sum(self.bursts) <= 0:
            raise ValueError(
                f"bursts must be non-negative weights, some positive, not {self.bursts}"
            )
        if not 0.0 <= self.all_in_chance <= 1.0:
            raise ValueError(f"all_in_chance must be from 0 to 1, not {self.all_in_chance}")

    @property
    def full_tension_at(self) -> int:
        """The dry streak at which tension reaches 1: the longest dry run the profile allows."""
        rule = self.fires
        if isinstance(rule, Chain):
            return rule.dry_cap
        longest = rule.longest_dry_run
        if longest is None:
            return DRY_PRESSES_SEEN
        # A rule without dry presses never builds tension; 1 keeps the ratio defined.
        return max(1, longest)


# What the classic burst distribution must show, whichever profile draws from it.
CLASSIC_BURST_TARGETS = {"usual_bursts": (3, 8), "usual_burst_share": 0.75, "max_burst": 12}

CLASSIC = Profile(
    name="classic",
    summary="shaped on the original machine: about one press in three fires, never 4 dry in a row",
    # Fitted to the published schedule's shape, the best description of the original: of its 27
    # fire runs, 7 are pairs (after one fire, 7/27 = 0.26 fire again) and none longer; the dry gaps
    # after a run are 1 press (3 of 27), 2 (13) or 3 (11): hazards 3/27 = 0.11 after one dry press,
    # 13/24 = 0.54 after two, and certain after three. Stationary fire rate 0.354 (34/96). The
    # first press after a reset is dry, as in the schedule.
    fires=Chain(first_press=0.0, after_fire=(0.26, 0.0), after_dry=(0.11, 0.54, 1.0)),
    bursts=CLASSIC_BURSTS,
    targets=Targets(
        fire_rate=0.354,
        fire_rate_tolerance=0.005,
        max_dry_streak=3,
        max_fire_run=2,
        first_press_dry=True,
        **CLASSIC_BURST_TARGETS,
    ),
)

SCHEDULE = Profile(
    name="schedule",
    summary="the published power-on schedule, 34 fires in 96 presses, repeated; classic bursts",
    fires=Schedule(SCHEDULE_FIRE_PRESSES, SCHEDULE_PERIOD),
    # The account gives only which presses fire; the sizes come from the classic distribution.
    bursts=CLASSIC_BURSTS,
    targets=Targets(
        fire_rate=len(SCHEDULE_FIRE_PRESSES) / SCHEDULE_PERIOD,
        # 100,000 presses end part-way through a period.
        fire_rate_tolerance=0.001,
        max_dry_streak=3,
        max_fire_run=2,
        first_press_dry=True,
        **CLASSIC_BURST_TARGETS,
    ),
)

TENSION = Profile(
    name="tension",
    summary="the fire chance starts at 0.10 and rises 0.15 per dry press, certain after 6",
    # Chance of the next press = 0.10 + 0.15 * dry streak = 0.10 + 0.90 * tension, so tension is how
    # close the next press is to certain. After a fire the chance falls back to 0.10; a third fire
    # in a row ends the run. Stationary fire rate 0.310.
    fires=Chain(
        first_press=0.10,
        after_fire=(0.10, 0.10, 0.0),
        after_dry=(0.25, 0.40, 0.55, 0.70, 0.85, 1.0),
    ),
    bursts=CLASSIC_BURSTS,
    targets=Targets(
        fire_rate=0.310,
        fire_rate_tolerance=0.005,
        max_dry_streak=6,
        max_fire_run=3,
        first_press_dry=False,
        **CLASSIC_BURST_TARGETS,
    ),
)

EXTREME = Profile(
    name="extreme",
    summary="fires more often, heavier bursts up to 20, and a rare all-in that empties the hopper",
    # Runs of up to three fires (0.40 to continue after one, 0.20 after two); dry gaps of 1-3
    # presses (0.40, then 0.60, then certain). Stationary fire rate 0.446.
    fires=Chain(first_press=0.40, after_fire=(0.40, 0.20, 0.0), after_dry=(0.40, 0.60, 1.0)),
    bursts=EXTREME_BURSTS,
    all_in_chance=0.015,
    targets=Targets(
        fire_rate=0.446,
        fire_rate_tolerance=0.005,
        max_dry_streak=3,
        max_fire_run=3,
        first_press_dry=False,
        usual_bursts=(5, 12),
        usual_burst_share=0.70,
        max_burst=20,
        all_in_share=(0.01, 0.02),
    ),
)

_BUILT_IN = {profile.name: profile for profile in (CLASSIC, SCHEDULE, TENSION, EXTREME)}


def get_profile(name: str, sequence: Sequence[int] = ()) -> Profile:
    """The profile called ``name``. ``sequence`` (card counts, 0 = dry) is used by ``fixed`` only,
    so a configuration can keep its sequence while it tries another profile."""
    if name == "fixed":
        return Profile(
            name="fixed",
            summary="the configured card counts of successive presses, repeated",
            fires=FixedSequence(tuple(sequence)),
        )
    try:
        return _BUILT_IN[name]
    except KeyError:
        raise ValueError(
            f"unknown ejection profile {name!r}; allowed: " + ", ".join(PROFILE_NAMES)
        ) from None


class EjectionPolicy:
    """Decides each press with a profile, remembering the presses since the last reset."""

    def __init__(self, profile: Profile, rng: random.Random):
        self.profile = profile
        self._rng = rng
        self._burst_sizes = range(1, len(profile.bursts) + 1)
        self._burst_cum_weights = list(accumulate(profile.bursts))
        self.reset()

    @property
    def name(self) -> str:
        return self.profile.name

    @property
    def dry_streak(self) -> int:
        """Dry presses in a row since the last fire or reset."""
        return self._dry_streak

    @property
    def tension(self) -> float:
        """0 after a fire or a reset, rising with each dry press to 1 at the profile's longest
        dry run (:attr:`Profile.full_tension_at`)."""
        return min(1.0, self._dry_streak / self.profile.full_tension_at)

    def reset(self) -> None:
        """Forget the press history: after a reload, when the lid closes, at start."""
        self._presses = 0
        self._dry_streak = 0
        self._fire_run = 0

    def decide(self, hopper: int | None) -> Outcome:
        """The outcome of the next press. ``hopper`` (the core's estimate, or None) only sizes an
        all-in: an ordinary burst is not trimmed to it, since the estimate can be off and the
        core's feed timeout is what finds the hopper empty."""
        press = self._presses + 1
        rule = self.profile.fires
        match rule:
            case FixedSequence():
                outcome = Outcome(rule.cards_on(press))
            case Schedule():
                outcome = self._fire(press, hopper) if rule.fires_on(press) else DRY
            case Chain():
                chance = rule.fire_chance(press, self._fire_run, self._dry_streak)
                outcome = self._fire(press, hopper) if self._rng.random() < chance else DRY
        self._presses = press
        if outcome.cards:
            self._fire_run += 1
            self._dry_streak = 0
        else:
            self._fire_run = 0
            self._dry_streak += 1
        return outcome

    def _fire(self, press: int, hopper: int | None) -> Outcome:
        # Never all-in on the first press after a reset: a fresh hopper is not emptied at once.
        if press > 1 and self._rng.random() < self.profile.all_in_chance:
            # An estimate of 0 while presses still reach the policy is stale: treat it as unknown,
            # or the all-in would ask for 0 cards and look like a dry press.
            known = hopper is not None and hopper > 0
            return Outcome(hopper if known else ALL_IN_UNKNOWN_HOPPER, all_in=True)
        size = self._rng.choices(self._burst_sizes, cum_weights=self._burst_cum_weights)[0]
        return Outcome(size)


def policy_for(profile: str, sequence: Sequence[int], rng: random.Random) -> EjectionPolicy:
    """The policy of ``[ejection] profile`` (and its ``sequence``, used by ``fixed`` only)."""
    return EjectionPolicy(get_profile(profile, sequence), rng)


def _histogram(counter: Counter[int]) -> dict[str, int]:
    # String keys: the dict is the same before and after a JSON round trip (the CLI gets it so).
    return {str(key): counter[key] for key in sorted(counter)}


def profile_stats(profile: Profile, presses: int, seed: int) -> dict:
    """Simulate ``presses`` presses from a reset with an unlimited hopper (``hopper=None``).

    Returns a JSON-ready dict: ``profile``, ``seed``, ``presses``, ``fires``, ``fire_rate``,
    ``max_dry_streak`` (counting a dry run still open at the end), ``dry_streak_histogram``
    (for each fire, the dry presses since the previous fire or the start: "0" counts fires that
    follow a fire), ``fire_run_histogram`` (runs of n fires in a row), ``burst_histogram`` (cards
    of each burst), ``mean_burst`` and ``all_in`` (count). All-ins are counted apart from bursts:
    with no hopper their size is only the :data:`ALL_IN_UNKNOWN_HOPPER` ceiling. Histogram keys
    are strings of the numbers, in increasing order.
    """
    if presses < 0:
        raise ValueError(f"presses must be 0 or more, not {presses}")
    policy = EjectionPolicy(profile, random.Random(seed))
    dry_before_fire: Counter[int] = Counter()
    fire_runs: Counter[int] = Counter()
    bursts: Counter[int] = Counter()
    fires = all_in = dry = run = max_dry = 0
    for _ in range(presses):
        outcome = policy.decide(None)
        if not outcome.cards:
            if run:
                fire_runs[run] += 1
                run = 0
            dry += 1
            max_dry = max(max_dry, dry)
            continue
        fires += 1
        dry_before_fire[dry] += 1
        dry = 0
        run += 1
        if outcome.all_in:
            all_in += 1
        else:
            bursts[outcome.cards] += 1
    if run:
        fire_runs[run] += 1
    burst_count = sum(bursts.values())
    return {
        "profile": profile.name,
        "seed": seed,
        "presses": presses,
        "fires": fires,
        "fire_rate": round(fires / presses, 4) if presses else 0.0,
        "max_dry_streak": max_dry,
        "dry_streak_histogram": _histogram(dry_before_fire),
        "fire_run_histogram": _histogram(fire_runs),
        "burst_histogram": _histogram(bursts),
        "mean_burst": round(sum(k * n for k, n in bursts.items()) / burst_count, 3)
        if burst_count
        else 0.0,
        "all_in": all_in,
    }


BAR_WIDTH = 40


def stats_for_profile(name: str, sequence: Sequence[int], presses: int, seed: int) -> dict:
    """:func:`profile_stats` of the profile called ``name`` (``sequence`` as in the configuration).

    :raises ConfigError: an unknown name, or ``fixed`` with no sequence: it has nothing to play.
    """
    if name == "fixed" and not sequence:
        raise ConfigError(
            "profile 'fixed' needs a sequence of card counts to play: set [ejection] sequence,"
            " e.g. sequence = [0, 3, 0, 5]"
        )
    try:
        profile = get_profile(name, sequence)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    return profile_stats(profile, presses, seed)


def _format_histogram(title: str, histogram: dict) -> list[str]:
    """One titled block of bars, scaled so the largest count fills BAR_WIDTH."""
    lines = [title]
    if not histogram:
        return lines + ["   (none)"]
    # Keys are strings after a JSON round trip and ints when built by hand: order by number.
    rows = sorted((int(key), count) for key, count in histogram.items())
    total = sum(count for _, count in rows)
    largest = max(count for _, count in rows)
    label_width = len(str(rows[-1][0]))
    for value, count in rows:
        bar = "#" * round(BAR_WIDTH * count / largest)
        lines.append(
            f"  {value:>{label_width}} | {bar:<{BAR_WIDTH}} {count:>7} {100 * count / total:5.1f} %"
        )
    return lines


def format_stats(stats: dict) -> str:
    """The text report of ``launcherctl profile stats``: :func:`profile_stats` with histograms."""
    lines = [
        f"profile {stats['profile']}: {stats['presses']} presses (seed {stats['seed']})",
        f"  fires {stats['fires']}, fire rate {stats['fire_rate']:.4f}",
        f"  longest dry streak {stats['max_dry_streak']}",
        f"  mean burst {stats['mean_burst']:.2f} cards, all-in {stats['all_in']}",
        "",
    ]
    lines += _format_histogram("dry presses before a fire", stats["dry_streak_histogram"])
    lines.append("")
    lines += _format_histogram("fires in a row", stats["fire_run_histogram"])
    lines.append("")
    lines += _format_histogram("cards per burst", stats["burst_histogram"])
    return "\n".join(lines) + "\n"


__all__ = [
    "ALL_IN_UNKNOWN_HOPPER",
    "CLASSIC",
    "CLASSIC_BURSTS",
    "Chain",
    "DRY",
    "DRY_PRESSES_SEEN",
    "EXTREME",
    "EXTREME_BURSTS",
    "EjectionPolicy",
    "FixedSequence",
    "Outcome",
    "PROFILE_NAMES",
    "Profile",
    "SCHEDULE",
    "SCHEDULE_FIRE_PRESSES",
    "SCHEDULE_PERIOD",
    "Schedule",
    "TENSION",
    "Targets",
    "format_stats",
    "get_profile",
    "policy_for",
    "profile_stats",
    "stats_for_profile",
]
