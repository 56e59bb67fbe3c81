"""The motor's on-time rules, however runs are chained: the chain's limit and its rest, the duty
share of a sliding window, and what a refused request is told (how long to wait, and why)."""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field

from firmware.events import OnTimeRecord, bound_runs
from firmware.i18n import Message, message

EPS = 1e-9  # float slack when comparing sums of on-time with a limit


@dataclass
class OnTime:
    """The motor's on-time, for the two rules that bound it however runs are chained.

    - Rest: runs separated by less than ``rest`` seconds off form one chain, and a chain's on-time
      (every direction, reverse pulses included) is at most ``max_on`` seconds.
    - Duty: over any ``window`` seconds the motor is on at most ``share`` of it.
    """

    max_on: float
    rest: float
    window: float
    share: float
    on_since: float | None = None
    off_since: float | None = None  # None: never ran, so rested
    chain: float = 0.0  # on-time of the current chain's finished runs
    runs: deque[tuple[float, float]] = field(default_factory=deque)  # finished runs, for the window

    def start(self, now: float) -> None:
        if self.off_since is None or now - self.off_since >= self.rest:
            self.chain = 0.0
        self.on_since = now

    def stop(self, now: float) -> None:
        if self.on_since is None:
            return
        self.chain += now - self.on_since
        self.runs.append((self.on_since, now))
        self.on_since, self.off_since = None, now
        while self.runs and self.runs[0][1] <= now - self.window:
            self.runs.popleft()
        # Every event's bookkeeping (the duty rule, the latch record) walks the runs: a burst of
        # presses must not make each press slower than the last.
        bound_runs(self.runs)

    def record(self) -> OnTimeRecord:
        return OnTimeRecord(self.chain, self.off_since, self.on_since, tuple(self.runs))

    def restore(self, record: OnTimeRecord, now: float) -> None:
        """Take over the last run's record (the motor is off now: a run it left open has ended)."""
        self.chain, self.off_since, self.on_since = record.chain, record.off_since, None
        self.runs = deque(run for run in record.runs if run[1] > now - self.window)
        bound_runs(self.runs)

    def chained(self, now: float) -> float:
        """The on-time of the chain the motor is in now (0 once it has rested)."""
        if self.on_since is not None:
            return self.chain + now - self.on_since
        if self.off_since is None or now - self.off_since >= self.rest:
            return 0.0
        return self.chain

    def limit_at(self) -> float | None:
        """When the running motor reaches the chain's limit; None while it is off."""
        return None if self.on_since is None else self.on_since + self.max_on - self.chain

    def _runs_until(self, now: float) -> list[tuple[float, float]]:
        runs = list(self.runs)
        if self.on_since is not None:
            runs.append((self.on_since, now))
        return runs

    def wait(self, now: float, need: float) -> tuple[float, Message] | None:
        """How long a request that may run the motor ``need`` seconds must wait, and why; None: now.

        The duty rule reserves the whole ``need`` (the motor may stop early, never run longer), so
        every window that ends during the run stays within the share. The rest rule holds up a
        request only once a chain has used all of ``max_on``; a run that reaches the limit is cut.
        """
        waits: list[tuple[float, Message]] = []
        if self.on_since is None and self.chained(now) >= self.max_on - EPS:
            left = self.off_since + self.rest - now  # type: ignore[operator]
            waits.append((left, rest_needed(left)))
        budget = self.share * self.window
        start = now + need - self.window
        excess = sum(max(0.0, b - max(a, start)) for a, b in self._runs_until(now)) + need - budget
        if excess > EPS:
            # Slide the window forward until enough past on-time has left it.
            slide = 0.0
            for a, b in self._runs_until(now):
                a = max(a, start)
                if b <= a:
                    continue
                if b - a >= excess:
                    slide = a + excess - start
                    break
                excess -= b - a
            waits.append((slide, message("motor_duty_window", share=self.share,
                                         window=shown_seconds(self.window), seconds=shown_seconds(slide))))
        return max(waits, key=lambda wait: wait[0], default=None)


def shown_seconds(value: float) -> float:
    """A duration as it is said: one decimal below 100 s, whole seconds above (the message's
    parameter carries the value shown, so that every language says the same number)."""
    return round(value, 1) if value < 100 else float(round(value))


def rest_needed(seconds: float) -> Message:
    return message("motor_needs_rest", seconds=shown_seconds(seconds))


def retry_after(wait: float) -> float:
    """A wait rounded up to the millisecond: a caller who waits that long is admitted."""
    return math.ceil(max(wait, 0.0) * 1000) / 1000


__all__ = ["EPS", "OnTime", "rest_needed", "retry_after", "shown_seconds"]
