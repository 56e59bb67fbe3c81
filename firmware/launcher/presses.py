"""What a press does and means: a press of the button, ``Launch`` or ``Dispense`` into a burst, a dry
press, a draw or nothing; the holds a press resumes; the meaning the game sets ahead."""

from __future__ import annotations

from typing import Any

from firmware import i18n
from firmware.events import Action, Dispense, Emit, Hold, Launch, PressMeaning, Resume
from firmware.i18n import message
from firmware.launcher.states import (
    EMPTY, HALTED, JAMMED, LAUNCHING, LID_OPEN, MIN_DUTY, READY, SLEEPING, PressRecord, valid_duty, whole,
)


PRESS_MEANINGS = ("policy", "cards", "nothing")
MAX_PRESS_CARDS = 500  # as launcher/dispense allows


class LauncherPresses:
    """Presses, holds and the press's meaning. A part of :class:`~firmware.launcher.core.Launcher`,
    which composes it with the others and owns the state it reads and writes (``Launcher.__init__``)."""

    def _on_launch(self, event: Launch, now: float) -> list[Action]:
        if self._holds and self._state in (READY, EMPTY) and self._bench_until is None:
            # A press from software is the button's press: while something waits for a press,
            # it lets that go on and launches nothing (the button would only resume too).
            return self._resume(str(event.source), event.request, now)
        return self._press("Launch", str(event.source), event.request, now)

    def _on_dispense(self, event: Dispense, now: float) -> list[Action]:
        if not whole(event.count, 1):
            return self._refuse(event, message("refused_count"))
        if event.duty is not None and not valid_duty(event.duty):
            return self._refuse(event, message("refused_duty", minimum=MIN_DUTY))
        if self._held_still():
            return self._refuse(event, self._refused_pending())
        return self._press("Dispense", str(event.source), event.request, now, dispense=event.count,
                           duty=event.duty, kick=bool(event.kick))

    def _press(self, kind: str, source: str, request: int | str | None, now: float,
               dispense: int | None = None, duty: float | None = None, kick: bool = True) -> list[Action]:
        """A press from the button, ``Launch`` (``dispense`` None) or ``Dispense`` (``kind``)."""
        actions: list[Action] = []
        if self._state == SLEEPING:
            actions += self._enter(self._awake_state, now)
            if dispense is None:
                return actions + [self._ignored(source, request, SLEEPING)]
        if self._state in (LAUNCHING, JAMMED, LID_OPEN, HALTED):
            return actions + [self._ignored(source, request, self._state)]
        if self._jog is not None:
            return actions + [self._ignored(source, request, "jogging")]
        meaning = self._meaning if dispense is None else None
        if meaning is not None and meaning.means == "nothing" and self._state != EMPTY:
            # A decision is pending: no motion, nothing counted; the table is told what to settle.
            return actions + [Emit("ignored", {"source": source, "request": request, "reason": "decision_pending",
                                               "message": meaning.reason})]
        if self._state != EMPTY:
            # Asked before the policy decides: a refused press is not counted and moves no history.
            # Before the beam: the motor's rest is the longer wait, and it says when to try again.
            wait = self._on_time.wait(now, self._launch_need_s)
            if wait is not None:
                return actions + [self._refused_wait(kind, source, request, *wait)]
            if self._beam_blocked:
                # A hand or a card in the slot: the motor would pull it in, or push against it.
                return actions + [self._ignored(source, request, "beam_blocked")]

        if self._state == EMPTY:
            outcome, requested, target = "empty", dispense or 0, None
        elif dispense is not None:
            outcome, requested, target = "dispense", dispense, dispense
        elif meaning is not None and meaning.means == "cards":
            outcome, requested, target = "draw", int(meaning.cards), int(meaning.cards)
        else:
            decision = self._policy.decide(self._hopper)
            cards = max(0, int(decision.cards))
            if decision.all_in:
                outcome, target = "burst", None
                requested = cards if self._hopper is None else self._hopper
            else:
                outcome, requested, target = ("burst" if cards else "dry"), cards, cards
        self._launch_ids += 1
        if dispense is None:
            self._presses += 1
        record = PressRecord(self._launch_ids, source, request, outcome, requested, target, duty, kick)
        self._last = record
        actions += [Emit("press", {"press_id": record.press_id, "source": source, "request": request,
                                   "dispense": dispense is not None})] + self._chime()
        if outcome == "empty":
            record.ended = "empty"
            return actions + [self._state_led(EMPTY), record.launched()]
        if outcome == "dry":
            record.ended = "done"
            return actions + self._dry_feedback(now) + [record.launched()]
        return actions + self._start_launch(record, now)

    @staticmethod
    def _ignored(source: str, request: int | str | None, reason: str) -> Emit:
        return Emit("ignored", {"source": source, "request": request, "reason": reason})

    def _on_hold(self, event: Hold, now: float) -> list[Action]:
        before = self._pending()
        if event.what is None:
            self._holds.pop(str(event.owner), None)
        else:
            self._holds[str(event.owner)] = event.what
        after = self._pending()
        return [] if after == before else [Emit("pending", {"pending": after})]

    def _on_resume(self, event: Resume, now: float) -> list[Action]:
        if not self._holds:
            return self._refuse(event, message("refused_nothing_pending"))
        if self._state not in (READY, EMPTY, SLEEPING):
            return self._refuse(event, message("refused_resume_state"))
        actions = self._enter(self._awake_state, now) if self._state == SLEEPING else []
        return actions + self._resume(str(event.source), event.request, now)

    def _resume(self, source: str, request: int | str | None, now: float) -> list[Action]:
        """A person said "go on": every hold is released, and nothing else happens."""
        released = list(self._holds.values())
        self._holds.clear()
        return self._trace(now, "resume") + self._chime() + [
            Emit("resume", {"source": source, "request": request, "pending": released}),
            Emit("pending", {"pending": None})]

    def _pending(self) -> Any:
        return next(iter(self._holds.values()), None)

    def _held_still(self) -> bool:
        """Something waits for a person's press: no request moves the motor before it (a feed, a
        jog, a reverse pulse), unless bring-up's bench mode was entered on purpose. What holds
        (the dealer) asks its own run only once the press has released it."""
        return bool(self._holds) and self._bench_until is None

    def _refused_pending(self) -> Any:
        return message("refused_pending", what=self._pending())

    def _meaning_params(self, prefix: str = "") -> dict[str, Any]:
        """What a press means now: ``means``, ``cards``, ``for`` (the player), ``reason``."""
        meaning = self._meaning
        return {f"{prefix}means": meaning.means, f"{prefix}cards": meaning.cards,
                f"{prefix}for": meaning.player, f"{prefix}reason": meaning.reason}

    def _on_press_meaning(self, event: PressMeaning, now: float) -> list[Action]:
        if event.means not in PRESS_MEANINGS:
            return self._refuse(event, message("refused_press_means"))
        if event.means == "cards" and not (whole(event.cards, 1) and event.cards <= MAX_PRESS_CARDS):
            return self._refuse(event, message("refused_count"))
        if event.means != "cards" and event.cards is not None:
            return self._refuse(event, message("refused_count"))
        if event.player is not None and not isinstance(event.player, str):
            return self._refuse(event, message("refused_press_means"))
        if event.reason is not None and not i18n.is_message(event.reason):
            return self._refuse(event, message("refused_press_means"))
        meaning = PressMeaning(event.means, event.cards, event.player,
                               None if event.reason is None else dict(event.reason))
        if meaning == self._meaning:
            return []
        self._meaning = meaning
        return [Emit("press_means", self._meaning_params())]


__all__ = ["LauncherPresses"]
