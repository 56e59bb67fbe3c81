"""The exit beam: a block long enough is a card, counted when it clears; one that lasts is a jam."""

from __future__ import annotations

import logging

from firmware.events import Action, BeamLevel, Emit
from firmware.launcher.states import EMPTY, FEEDING, JAMMED, LAUNCHING, READY, SLEEPING

log = logging.getLogger(__name__)


class LauncherBeam:
    """The beam's edges into cards and jams. A part of :class:`~firmware.launcher.core.Launcher`,
    which composes it with the others and owns the state it reads and writes (``Launcher.__init__``)."""

    def _on_beam(self, event: BeamLevel, now: float) -> list[Action]:
        blocked = bool(event.blocked)
        if blocked == self._beam_blocked:
            return []
        self._beam_blocked = blocked
        return self._trace(self._event_at, "beam", level=blocked) + self._beam_edge(blocked, now)

    def _since_edge(self, wait_s: float, now: float) -> float:
        """A deadline ``wait_s`` after the edge being handled happened, and not before ``now``."""
        return max(self._event_at + wait_s, now)

    def _beam_edge(self, blocked: bool, now: float) -> list[Action]:
        if blocked:
            # The jam deadline (block start + jam_ms) from the edge's own time, but not in the past.
            self._block_start, self._jam_counted = self._since_edge(self._jam_s, now) - self._jam_s, False
            self._block_edge_at = self._event_at
            if self._bench_until is not None and self._launch is None and self._phase is None:
                # Bring-up: a hand in the slot with the motor still is neither a card nor a jam.
                self._jam_counted = self._bench_block = True
            if self._feed_deadline is not None:
                self._feed_left, self._feed_deadline = self._feed_deadline - self._event_at, None
            return []
        if self._bench_block:
            self._bench_block = False
            return []
        if self._jam_counted:
            return self._enter(READY, now) if self._state == JAMMED else []
        card = self._event_at - self._block_edge_at >= self._filter_s
        if self._feed_left is not None:
            self._feed_deadline = now + (self._feed_timeout_s if card else self._feed_left)
            self._feed_left = None
        if not card:
            return []
        actions = self._count_card()
        launch = self._launch
        if (launch is not None and self._phase in FEEDING and launch.target is not None
                and launch.cards >= launch.target):
            actions += self._end_feeding("done", now)
        return actions

    def _count_card(self) -> list[Action]:
        """Give one card to the running launch, else to the last press."""
        record = self._launch or self._last
        if record is None:
            log.info("beam: a card before the first press is not counted")
            return []
        record.cards += 1
        self._cards_ejected += 1
        self._blind_runs = 0
        if self._hopper:
            self._hopper -= 1
        return [Emit("card", {"press_id": record.press_id, "count": record.cards})]

    def _on_jam(self, at: float) -> list[Action]:
        self._jam_counted = True
        actions = self._halt_motion(at) + self._end_jog("jam") + self._count_card()
        record = self._launch or self._last
        actions.append(Emit("jammed", {"press_id": None if record is None else record.press_id}))
        if self._launch is not None:
            actions += self._resolve("jam")
        if self._state in (READY, LAUNCHING, EMPTY, SLEEPING):
            actions += self._enter(JAMMED, at)
        return actions


__all__ = ["LauncherBeam"]
