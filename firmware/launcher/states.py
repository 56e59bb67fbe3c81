"""What the launcher core's parts share: its states, the motor's phases, the record of a press,
what it needs of an ejection policy, and the checks of a request's numbers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from firmware.events import Emit

READY = "ready"
LAUNCHING = "launching"
JAMMED = "jammed"
EMPTY = "empty"
LID_OPEN = "lid_open"
SLEEPING = "sleeping"
HALTED = "halted"
STATES = (READY, LAUNCHING, JAMMED, EMPTY, LID_OPEN, SLEEPING, HALTED)

# The phases of a motor that runs; None while it is still.
KICK, RUN, RETRACT, JOG, COAST = "kick", "run", "retract", "jog", "coast"
FEEDING = (KICK, RUN)
# The state each way of ending a launch leads to (a halt is entered by shutdown itself).
AFTER = {"done": READY, "timeout": READY, "motor_limit": READY, "cancelled": READY, "jam": JAMMED, "empty": EMPTY,
         "lid": LID_OPEN}
MIN_DUTY = 0.05  # as [motor] duty allows


class PolicyLike(Protocol):
    """What the core needs of an ejection policy (``firmware.launcher.ejection.EjectionPolicy``)."""

    name: str
    dry_streak: int
    tension: float

    def decide(self, hopper: int | None) -> Any:
        """An outcome with ``cards: int`` (0 = dry) and ``all_in: bool``."""

    def reset(self) -> None:
        """Forget the press history (reload, lid closed)."""


@dataclass
class PressRecord:
    """One counted press and what became of it; the record ``launched`` and ``last`` report."""

    press_id: int
    source: str
    request: int | str | None  # the caller's id, echoed in every Emit about this press
    outcome: str  # dry, burst, dispense, empty
    requested: int
    target: int | None  # cards to count before stopping; None: until the feed runs dry
    duty: float | None = None  # None: [motor] duty
    kick: bool = True
    cards: int = 0
    ended: str = ""  # set when resolved; for a burst already when the feeding ends, before the pulse

    def launched(self) -> Emit:
        return Emit("launched", {
            "press_id": self.press_id, "source": self.source, "request": self.request,
            "outcome": self.outcome, "cards": self.cards, "requested": self.requested,
            "ended": self.ended,
        })


def whole(value: Any, minimum: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= minimum


def valid_duty(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and MIN_DUTY <= value <= 1


__all__ = ["AFTER", "COAST", "EMPTY", "FEEDING", "HALTED", "JAMMED", "JOG", "KICK", "LAUNCHING", "LID_OPEN", "MIN_DUTY",
           "PolicyLike", "PressRecord", "READY", "RETRACT", "RUN", "SLEEPING", "STATES", "valid_duty", "whole"]
