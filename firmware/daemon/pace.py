"""How often launcherd serves the readings a client may ask without end (``game/stats``,
``game/history``): a pace shared by every connection, sans-IO.

Each reading costs the game thread and the API's thread a fraction of a millisecond of the
interpreter, and the motor's thread waits for the interpreter behind them. Clients that read
without pause kept the interpreter busy however cheap a reading was made (a cheaper reading was
only read more often): four of them tripled the motor's press-to-motor p99 (bench/loaded.py,
"readers"). Served at a pace, they cost the motor's thread a bounded share whatever they ask; a
reading past the pace waits its turn, it is never refused.
"""

from __future__ import annotations

# A table's pages read statistics and history when someone opens them: a few a second. Far above
# that, and at about 0.4 ms each, under 1% of the interpreter (four clients reading without pause
# made about 1,300 a second). launcher-web allows one address 4 such readings a second.
READINGS_PER_S = 20.0
# Readings served at once before the pace applies: every page of a table opening its statistics.
READINGS_BURST = 20


class Pace:
    """A virtual schedule (GCRA): ``burst`` at once, then one every ``1 / rate`` seconds, in the
    order asked. ``delay(now)`` books the next place and says how long its caller waits for it."""

    def __init__(self, rate: float = READINGS_PER_S, burst: int = READINGS_BURST):
        if rate <= 0 or burst < 1:
            raise ValueError(f"a pace needs a rate above 0 and a burst of at least 1, not {rate}, {burst}")
        self.interval = 1.0 / rate
        self.burst = burst
        self._booked_until: float | None = None  # when every place booked so far has been served

    def delay(self, now: float) -> float:
        """Book a place for a reading asked at ``now``; the seconds until it may be served (0: now)."""
        booked = now if self._booked_until is None else max(self._booked_until, now)
        self._booked_until = booked + self.interval
        return max(0.0, self._booked_until - self.burst * self.interval - now)


__all__ = ["Pace", "READINGS_BURST", "READINGS_PER_S"]
