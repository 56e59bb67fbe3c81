"""The motor driver's heartbeat: a pin the motor's loop toggles only while the motor is commanded on.

The pin (``[pins] motor_heartbeat``) feeds the driver's STBY/nSLEEP through a retriggerable
monostable (docs/build.md): every rising edge holds the driver enabled for the monostable's time,
93-128 ms (a 74HC123 with 220 kOhm and 1 uF), so the driver runs only while edges keep coming. They come from timers of the motor's own
asyncio loop, never from a thread of their own: a stalled loop, a frozen kernel, a dead Pi or a
line left at its last level (high or low) give no more edges, and the driver is disabled within
that time whatever the motor pins say.

The pin toggles every :data:`HALF_PERIOD_S`, a rising edge every 20 ms: a loop late by up to 70 ms
still brings the next rising edge inside the monostable's shortest time (93 ms); the loop's
lateness under load was p99 13-20 ms on x86 (docs/internals.md). A longer gap cuts the driver
until the next edge: docs/build.md says what follows. While the motor is off the pin is still,
and low: an idle launcher has no timer and no wakeup for it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

# Half the heartbeat's period: the pin changes level this often while the motor is commanded on.
HALF_PERIOD_S = 0.010


class Heartbeat:
    """Toggles ``write(level)`` every ``half_period_s`` on ``loop`` between :meth:`run` and :meth:`still`.

    Runs in the loop's thread only. ``write`` is the hardware's heartbeat output.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop, write: Callable[[bool], None],
                 half_period_s: float = HALF_PERIOD_S):
        self._loop = loop
        self._write = write
        self._half_period_s = half_period_s
        self._level = False
        self._timer: asyncio.TimerHandle | None = None

    @property
    def running(self) -> bool:
        """True while the pin is being toggled."""
        return self._timer is not None

    def run(self) -> None:
        """Start toggling, with a rising edge now (the driver wakes with the motor's command);
        nothing if it already runs: a change of duty or direction keeps the same rhythm."""
        if self._timer is not None:
            return
        self._set(True)
        self._timer = self._loop.call_later(self._half_period_s, self._toggle)

    def still(self) -> None:
        """Stop toggling and leave the pin low: the monostable runs out and disables the driver."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._level:
            self._set(False)

    def _toggle(self) -> None:
        self._set(not self._level)
        self._timer = self._loop.call_later(self._half_period_s, self._toggle)

    def _set(self, level: bool) -> None:
        self._level = level
        self._write(level)


__all__ = ["HALF_PERIOD_S", "Heartbeat"]
