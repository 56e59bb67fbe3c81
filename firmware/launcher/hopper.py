"""The hopper and its lid: the estimate of the cards left, a reload or a refill that sets it (with
its confirmation), and the lid opened to refill, which stops everything until it is closed."""

from __future__ import annotations

from firmware.events import Action, Chime, Emit, Led, LidLevel, Refill, Reload
from firmware.i18n import message
from firmware.launcher.states import EMPTY, HALTED, LID_OPEN, READY, SLEEPING, whole

# A refill is confirmed unlike any press: two long beeps and a quick flicker; one very long beep
# when the count is unknown (the hopper is full again, but the estimate is gone).
REFILL_CHIME = Chime(2, 300, 150)
REFILL_UNKNOWN_CHIME = Chime(1, 900, 0)
REFILL_FLASH = Led("flash", 1.0, 100, 6)


class LauncherHopper:
    """The hopper's estimate, reloads, refills and the lid. A part of
    :class:`~firmware.launcher.core.Launcher`, which composes it with the others and owns the
    state it reads and writes (``Launcher.__init__``)."""

    def _on_lid(self, event: LidLevel, now: float) -> list[Action]:
        is_open = bool(event.open)
        if is_open == self._lid_open:
            return []
        self._lid_open = is_open
        trace = self._trace(self._event_at, "lid", level=is_open)
        if self._state == HALTED:
            return trace
        if is_open:
            self._refill_deadline = None
            actions = trace + self._halt_motion(now) + self._end_jog("lid")
            if self._launch is not None:
                actions += self._resolve("lid")
            return actions + self._enter(LID_OPEN, now)
        # The original forgets its press count when the hopper is opened.
        self._policy.reset()
        actions = trace + self._enter(self._settled_state(), now)
        if self._bench_until is None:
            # The lid is opened to refill the hopper: closing it is the refill gesture (not while
            # a builder tests the switch in bench mode).
            actions.append(Emit("refill_wanted", {"source": "lid", "last_reload": self._last_reload}))
        return actions

    def _on_reload(self, event: Reload, now: float) -> list[Action]:
        if not whole(event.cards, 0):
            return self._refuse(event, message("refused_cards"))
        self._hopper = self._last_reload = event.cards
        if self._state in (READY, EMPTY, SLEEPING):
            self._policy.reset()
            self._awake_state = READY
            return self._enter(READY, now)
        return []

    def _on_refill(self, event: Refill, now: float) -> list[Action]:
        cards = event.cards
        if cards is not None and not whole(cards, 0):
            return self._refuse(event, message("refused_cards_or_unknown"))
        previous, self._hopper = self._hopper, cards
        if cards is not None:
            self._last_reload = cards
        actions: list[Action] = []
        if self._state in (READY, EMPTY, SLEEPING):
            self._policy.reset()
            self._awake_state = READY
            actions += self._enter(READY, now)
        actions += self._flash_then_back(REFILL_FLASH, now)
        if self._feedback.chime:
            actions.append(REFILL_CHIME if cards is not None else REFILL_UNKNOWN_CHIME)
        return actions + [Emit("refilled", {"source": str(event.source), "cards": cards, "previous": previous})]


__all__ = ["LauncherHopper", "REFILL_CHIME", "REFILL_FLASH", "REFILL_UNKNOWN_CHIME"]
