"""Where a press's time goes, from the button's edge to the motor's line.

`make systemtest` measures press to motor on the kernel's lines beside bare gpiozero on the same
chip; launcherd took about twice as long (issue 19: "trace where the time goes"). For each button
press that starts the motor, the daemon notes four moments on one clock (the loop's, monotonic):

- ``edge``: when the line changed, by the pin backend (lgpio: the kernel's timestamp of the edge);
- ``python``: when the backend's callback thread handed the edge to Python;
- ``loop``: when the motor's loop took the edge in (the hop from that thread to the loop);
- ``motor``: when the motor's line was written, after the debounce time (a press is a level
  held ``button_debounce_ms`` after its last edge; bare gpiozero hands that wait to the kernel).

``launcher/latency`` gives each stretch over the last presses (p50, p99, max, in ms), the debounce
time taken out of the last one. Nothing here runs unless a press starts the motor, and the
figures are computed only when asked.
"""

from __future__ import annotations

from collections import deque
from typing import Any

# How many presses the figures are taken over (the system test's run is 1,000).
KEPT_PRESSES = 1000
STRETCHES = ("edge_to_python", "python_to_loop", "loop_to_motor_past_debounce", "edge_to_motor_past_debounce")


class PressTrace:
    """The moments of each press that started the motor; fed by the daemon on its loop."""

    def __init__(self, debounce_s: float, keep: int = KEPT_PRESSES):
        self.debounce_s = debounce_s
        self._edge: tuple[float, float, float] | None = None
        self._presses: deque[tuple[float, float, float, float]] = deque(maxlen=keep)

    def pressed(self, edge: float | None, python: float, loop: float) -> None:
        """A press edge of the button (the last one counts: a bounce's restarts the debounce)."""
        self._edge = (python if edge is None else edge, python, loop)

    def motor_started(self, at: float) -> None:
        """The motor's line was written: the press before it, if any, is traced."""
        if self._edge is None:
            return
        edge, python, loop = self._edge
        self._edge = None
        self._presses.append((python - edge, loop - python, at - loop - self.debounce_s,
                              at - edge - self.debounce_s))

    def figures(self) -> dict[str, Any]:
        figures: dict[str, Any] = {"presses": len(self._presses),
                                   "debounce_ms": round(self.debounce_s * 1000, 3)}
        for index, name in enumerate(STRETCHES):
            values = sorted(press[index] * 1000 for press in self._presses)
            figures[name] = None if not values else {
                "p50_ms": round(_percentile(values, 50), 3), "p99_ms": round(_percentile(values, 99), 3),
                "max_ms": round(values[-1], 3)}
        return figures


def _percentile(ordered: list[float], percent: float) -> float:
    return ordered[min(len(ordered) - 1, int(len(ordered) * percent / 100))]
