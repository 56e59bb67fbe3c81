"""What the launcher shows and sounds: the LED of each state, the chime of a press, the dry press's
rising flashes and chimes, and the cues that follow them."""

from __future__ import annotations

from firmware.events import Action, Chime, Led
from firmware.launcher.states import HALTED, LAUNCHING, LID_OPEN, READY, SLEEPING


LAUNCH_FLASH_MS = 250  # launching: lively, slower than the alarms
FAST_FLASH_MS = 120  # jammed, empty: a hand is needed
ALERT_FLASH_MS = 1000  # halted: slow, unlike anything in normal play
DRY_FLASHES = 3
DRY_FLASH_SLOW_MS = 400  # a dry press at tension 0 ...
DRY_FLASH_FAST_MS = 80  # ... and at tension 1
DRY_CHIME_REPEATS = 4  # extra chimes after a dry press at tension 1 (0 at tension 0)
DRY_CHIME_GAP_SLOW_MS = 200
DRY_CHIME_GAP_FAST_MS = 40


class LauncherFeedback:
    """The LED and the chime. A part of :class:`~firmware.launcher.core.Launcher`,
    which composes it with the others and owns the state it reads and writes (``Launcher.__init__``)."""

    def _state_led(self, state: str) -> Led:
        if state == READY:
            return Led("on", self._feedback.led_brightness)
        if state in (SLEEPING, LID_OPEN):
            return Led("off")
        period = {LAUNCHING: LAUNCH_FLASH_MS, HALTED: ALERT_FLASH_MS}.get(state, FAST_FLASH_MS)
        return Led("flash", 1.0, period)

    def _tension(self) -> float:
        return min(1.0, max(0.0, float(self._policy.tension)))

    def _chime(self) -> list[Action]:
        return [Chime(1, self._feedback.chime_ms)] if self._feedback.chime else []

    def _dry_feedback(self, now: float) -> list[Action]:
        """Flash faster and chime more as tension rises, then back to steady on."""
        tension = self._tension()
        period = round(DRY_FLASH_SLOW_MS - (DRY_FLASH_SLOW_MS - DRY_FLASH_FAST_MS) * tension)
        self._cues = [(now + DRY_FLASHES * period / 1000, self._state_led(READY))]
        repeats = round(DRY_CHIME_REPEATS * tension)
        if self._feedback.chime and repeats:
            gap = round(DRY_CHIME_GAP_SLOW_MS - (DRY_CHIME_GAP_SLOW_MS - DRY_CHIME_GAP_FAST_MS) * tension)
            chime_ms = self._feedback.chime_ms
            self._cues.append((now + (chime_ms + gap) / 1000, Chime(repeats, chime_ms, gap)))
            self._cues.sort(key=lambda cue: cue[0])
        return [Led("flash", 1.0, period, DRY_FLASHES)]

    def _on_cue(self, at: float) -> list[Action]:
        return [self._cues.pop(0)[1]]

    def _flash_then_back(self, flash: Led, now: float) -> list[Action]:
        """A counted flash, then the state's own LED again."""
        self._cues = [(now + flash.period_ms * (flash.count or 1) / 1000, self._state_led(self._state))]
        return [flash]


__all__ = ["LauncherFeedback"]
