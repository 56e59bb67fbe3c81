"""A stand-in for the `lgpio` module, for gpiozero's real LGPIOFactory and LGPIOPin on any machine.

It keeps each line's mode, pull and level, records every call, and lets a test deliver an edge to
the callbacks gpiozero registered with ``callback()`` the way lgpio's own thread does: with the
kernel's timestamp in nanoseconds (CLOCK_MONOTONIC, lgpio's line requests leave the realtime flag
off), which may be well before the moment the callback runs.

    fake = FakeLgpio()
    monkeypatch.setitem(sys.modules, "lgpio", fake)   # then import gpiozero.pins.lgpio
    fake.edge(27, 0, time.monotonic_ns())               # the line went low then
"""

from __future__ import annotations

import threading
import time
import types

# lgpio's mode bits as gpiozero's LGPIOPin reads them (gpio_get_mode).
IS_OUT, IS_PULL_UP, IS_PULL_DOWN, IS_BIAS_DISABLE = 1 << 1, 1 << 5, 1 << 6, 1 << 7


class FakeLgpio(types.ModuleType):
    SET_PULL_NONE, SET_PULL_UP, SET_PULL_DOWN = IS_BIAS_DISABLE, IS_PULL_UP, IS_PULL_DOWN
    BOTH_EDGES, RISING_EDGE, FALLING_EDGE = 3, 1, 2

    class error(Exception):  # noqa: N801 - lgpio's own name
        pass

    def __init__(self) -> None:
        super().__init__("lgpio")
        self.calls: list[tuple] = []
        self.modes: dict[int, int] = {}
        self.levels: dict[int, int] = {}
        self.callbacks: dict[int, list] = {}
        self.driven: set[int] = set()  # inputs a test has set the level of
        # The kernel's GPIO chips by number, with their labels (gpio_get_chip_info); one open
        # fails as lgpio's does for a number missing here.
        self.chips: dict[int, str] = {0: "pinctrl-bcm2835"}
        self._lock = threading.Lock()

    def _record(self, *call) -> None:
        with self._lock:
            self.calls.append(call)

    # ---- the functions gpiozero's lgpio pins call ---------------------------------------------

    def gpiochip_open(self, chip):
        self._record("gpiochip_open", chip)
        if chip not in self.chips:
            raise self.error("can not open gpiochip")
        return 100 + chip

    def gpio_get_chip_info(self, handle):
        chip = handle - 100
        return (0, 54, f"gpiochip{chip}", self.chips[chip])

    def gpiochip_close(self, handle):
        self._record("gpiochip_close", handle)

    def gpio_claim_input(self, handle, gpio, flags=0):
        self._record("gpio_claim_input", gpio, flags)
        self.modes[gpio] = flags & (IS_PULL_UP | IS_PULL_DOWN | IS_BIAS_DISABLE)
        if gpio not in self.driven:  # a pulled input idles at its pull's level
            self.levels[gpio] = 1 if flags & IS_PULL_UP else 0

    def gpio_claim_output(self, handle, gpio, level=0, flags=0):
        self._record("gpio_claim_output", gpio)
        self.modes[gpio] = IS_OUT
        self.levels[gpio] = level

    def gpio_free(self, handle, gpio):
        self._record("gpio_free", gpio)

    def gpio_get_mode(self, handle, gpio):
        return self.modes.get(gpio, 0)

    def gpio_read(self, handle, gpio):
        return self.levels.get(gpio, 0)

    def gpio_write(self, handle, gpio, level):
        self._record("gpio_write", gpio, int(level))
        self.levels[gpio] = int(level)

    def tx_pwm(self, handle, gpio, frequency, duty, *rest):
        self._record("tx_pwm", gpio, frequency, duty)
        self.levels[gpio] = 1 if duty else 0

    def gpio_set_debounce_micros(self, handle, gpio, micros):
        self._record("gpio_set_debounce_micros", gpio, micros)

    def gpio_claim_alert(self, handle, gpio, edges, flags=0, notify=None):
        self._record("gpio_claim_alert", gpio, edges, flags)
        self.modes[gpio] = flags

    def callback(self, handle, gpio, edges, func):
        self._record("callback", gpio, edges)
        self.callbacks.setdefault(gpio, []).append(func)
        fake = self

        class Callback:
            def cancel(self) -> None:
                fake.callbacks.get(gpio, []).remove(func)

        return Callback()

    # ---- the kernel's side -------------------------------------------------------------------

    def edge(self, gpio: int, level: int, timestamp_ns: int) -> None:
        """The line changed to ``level`` at ``timestamp_ns``; call back now, in this thread."""
        self.levels[gpio] = level
        self.driven.add(gpio)
        for func in list(self.callbacks.get(gpio, [])):
            func(1, gpio, level, timestamp_ns)

    def edges_late(self, edges: list[tuple[int, int, int]]) -> threading.Thread:
        """Deliver ``(gpio, level, timestamp_ns)`` edges from another thread, as lgpio's does."""
        thread = threading.Thread(target=lambda: [self.edge(*edge) for edge in edges], name="lgpio")
        thread.start()
        return thread


def now_ns() -> int:
    """The kernel's clock for line events: CLOCK_MONOTONIC, as time.monotonic() reads it."""
    return time.monotonic_ns()
