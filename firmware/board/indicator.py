"""An indicator output (the button's LED, the chime) that plays steady levels and on/off patterns
from one thread of its own, started with it.

gpiozero's ``blink()`` and ``beep()`` start a thread for each pattern and join the one before it,
and a steady ``value =`` joins a pattern thread still playing: 70 to 170 µs of the caller's time
for each LED or chime action on an x86 machine, many times that on a Pi or on a busy machine,
where the joined and the started thread must first be scheduled. The caller is the motor's loop,
and those actions were half of what it did for a press (sampled with py-spy during
bench/loaded.py's idle load), before the jam and count stops it times. Here a change is a write
under a lock and a notify, whatever is playing; the thread waits on a condition, so a steady output
has no wake-up at all.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from firmware.errors import HardwareError

# How long close() waits for the pattern's thread (it only ever waits on the condition).
CLOSE_WAIT_S = 1.0


class Indicator:
    """Plays on ``device`` (anything with a settable ``value``: a gpiozero LED, PWMLED, Buzzer).

    :meth:`steady` and :meth:`play` replace whatever was playing, at once, from any thread. Every
    write to the device happens under one lock and checks that its pattern is still the current
    one, so a step of a pattern just replaced never lands after the change that replaced it.
    """

    def __init__(self, device: Any, name: str):
        self._device = device
        self._changed = threading.Condition()
        self._generation = 0  # one more for each change: a pattern plays while it is current
        self._pattern: tuple[float, float, float, int | None] | None = None  # given, not yet taken
        self._written = device.value
        self._closed = False
        self._thread = threading.Thread(target=self._play, name=f"indicator-{name}", daemon=True)
        self._thread.start()

    def steady(self, value: float) -> None:
        """Hold ``value`` (0 is off) from now on."""
        with self._changed:
            self._check_open()
            self._generation += 1
            self._pattern = None
            self._write(value)
            self._changed.notify()  # a pattern's thread waiting out a step stops waiting

    def play(self, on_value: float, on_s: float, off_s: float, count: int | None) -> None:
        """``on_value`` for ``on_s``, then off for ``off_s``, ``count`` times (None: until the next
        change), starting now; off once done."""
        if count is None and on_s + off_s <= 0:
            raise ValueError("a pattern played until the next change needs a length above 0")
        if (count is not None and count < 0) or on_s < 0 or off_s < 0:
            raise ValueError(f"a pattern needs count, on_s and off_s >= 0, not {count}, {on_s}, {off_s}")
        with self._changed:
            self._check_open()
            self._generation += 1
            self._pattern = (on_value, on_s, off_s, count)
            self._changed.notify()

    def close(self) -> None:
        """Stop the pattern's thread (the device is the caller's to close). Idempotent."""
        with self._changed:
            if self._closed:
                return
            self._closed = True
            self._changed.notify()
        if self._thread is not threading.current_thread():
            self._thread.join(CLOSE_WAIT_S)

    @property
    def closed(self) -> bool:
        return self._closed

    def _check_open(self) -> None:
        if self._closed:
            raise HardwareError("the indicator has been closed")

    def _write(self, value: float) -> None:
        if value != self._written:
            self._device.value = value
            self._written = value

    def _play(self) -> None:
        with self._changed:
            while not self._closed:
                if self._pattern is None:
                    self._changed.wait()
                    continue
                generation, pattern, self._pattern = self._generation, self._pattern, None
                self._play_pattern(generation, *pattern)

    def _play_pattern(self, generation: int, on_value: float, on_s: float, off_s: float,
                      count: int | None) -> None:
        """Runs holding the lock, which each wait gives up."""
        def current() -> bool:
            return generation == self._generation and not self._closed

        due = time.monotonic()  # each step timed from the pattern's start: no drift
        played = 0
        while current() and (count is None or played < count):
            for value, seconds in ((on_value, on_s), (0, off_s)):
                if not current():
                    return
                self._write(value)
                due += seconds
                while current() and (left := due - time.monotonic()) > 0:
                    self._changed.wait(left)
            played += 1
        if current():
            self._write(0)


__all__ = ["Indicator"]
