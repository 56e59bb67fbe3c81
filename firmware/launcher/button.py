"""The launch button: debounce, and the holds that mean more than a press (refill while empty,
reset while halted)."""

from __future__ import annotations

from firmware.events import Action, ButtonLevel, Emit, Reset
from firmware.launcher.states import EMPTY, HALTED, READY


class LauncherButton:
    """The button's edges into presses and holds. A part of :class:`~firmware.launcher.core.Launcher`,
    which composes it with the others and owns the state it reads and writes (``Launcher.__init__``)."""

    def _on_button(self, event: ButtonLevel, now: float) -> list[Action]:
        pressed = bool(event.pressed)
        if pressed == self._button_raw:
            return []
        self._button_raw = pressed
        if pressed:
            self._button_request = event.request
        if event.debounced:  # the backend waited for the level to hold
            self._button_deadline = None
            traced = self._trace(self._event_at, "button", level=pressed)
            return traced + (self._on_button_stable(now) if pressed != self._button_stable else [])
        # Every edge restarts the wait; an edge back to the debounced level cancels it.
        self._button_deadline = now + self._debounce_s if pressed != self._button_stable else None
        return self._trace(self._event_at, "button", level=pressed)

    def _on_button_stable(self, at: float) -> list[Action]:
        self._button_deadline = None
        self._button_stable = self._button_raw
        if not self._button_stable:
            self._refill_deadline = self._reset_deadline = None
            return []
        request, self._button_request = self._button_request, None
        if self._state == HALTED:
            # Held on, it is the reset (timed from the first edge); never a press.
            self._reset_deadline = at + max(0.0, self._reset_hold_s - self._debounce_s)
        if self._bench_until is not None:
            return self._trace(at, "press") + [self._ignored("button", request, "bench")]
        if self._holds and self._state in (READY, EMPTY):
            return self._resume("button", request, at)
        actions = self._press("ButtonLevel", "button", request, at)
        if self._state == EMPTY and self._refill_hold_s > 0:
            # The press in empty is answered at once as always; holding on is the refill gesture,
            # timed from the first edge like the hold a person counts.
            self._refill_deadline = at + max(0.0, self._refill_hold_s - self._debounce_s)
        return actions

    def _button_settled(self, pressed: bool) -> None:
        """Take ``pressed`` as the button's level as it stands, with no debounce under way: after a
        stall (its backlog of edges is levels), at a reset, at start. The raw and the debounced
        level are one again, so the next edge that differs is a press or a release; a debounce
        merely dropped would leave a release half-taken, and the next press would land on a
        "held" button and go unheard."""
        self._button_raw = self._button_stable = pressed
        self._button_deadline = self._button_request = None

    def _on_refill_hold(self, at: float) -> list[Action]:
        self._refill_deadline = None
        # Raw too: a finger lifted just before the hold time is not a hold, debounced or not.
        if self._state != EMPTY or not self._button_stable or not self._button_raw:
            return []
        return [Emit("refill_wanted", {"source": "button", "last_reload": self._last_reload})]

    def _on_reset_hold(self, at: float) -> list[Action]:
        self._reset_deadline = None
        # Raw too: a finger lifted just before the hold time is not a hold, debounced or not.
        if self._state != HALTED or not self._button_stable or not self._button_raw:
            return []
        return self._on_reset(Reset("button"), at)


__all__ = ["LauncherButton"]
