"""The card blaster core (UNO Blast, rules.md §6): a sans-IO state machine like the launcher's.

The driver feeds every slot-sensor edge and request to :meth:`Blaster.handle` with the time it
happened, applies the actions that come back (:class:`Release` for the actuator; ``Led``, ``Chime``
and ``Emit`` as for the launcher) and feeds a ``Tick`` at :meth:`Blaster.next_deadline`. Nothing
here reads a clock or touches a pin.

Settled rules:

- Timers run in deadline order before the event given to ``handle``; ``now`` never runs backwards.
  Device actions come before ``Emit`` events in one list, as in ``firmware/launcher/core.py``.
- Slots are numbered from 1. A slot's sensor counts once its raw level has stayed the same for
  ``debounce_ms`` after its last edge. Empty to full is an *insertion*; full to empty outside a
  blast is a card taken out by hand (``removed``).
- An insertion in ``ready`` (or ``sleeping``, which it wakes: the card is in, it must be judged)
  asks the policy, given the slot and how many slots are full with it. ``safe``: nothing moves.
  ``blast``: state ``firing``. An insertion in ``firing``, ``jammed`` or ``halted`` is not judged
  (``ignored``); the card stays and goes out with the next blast.
- A blast pulses the release actuator for ``pulse_ms`` (never longer than ``max_on_ms``: the
  hardware layer times the pulse itself, so a stalled loop cannot hold it on). Pulses are at least
  ``rest_ms`` apart; a blast decided in the rest waits for its end. The cards of a blast are the
  slots full when the pulse starts.
- After the pulse the blast is confirmed as soon as every slot reads empty, and its ``blast``
  event gives ``cards``. A slot still full ``settle_ms`` after the pulse is a jam: actuator off
  (it already is), state ``jammed`` and a ``jammed`` event naming the slots. The jam clears when
  every slot reads empty; the blast is then confirmed with all its cards (``jammed: true``): the
  stuck card is the blaster's too and counts once.
- ``EStop`` (or :meth:`shutdown`): actuator off first, an open blast is settled at once with the
  cards whose slots read empty (``ended: "halt"``), ``halted`` until ``Reset``. The actuator is
  never pulsed while halted. ``Reset`` leads to ``ready``; cards still in slots are loaded cards.
- The blaster is armed (the policy draws again) whenever it becomes ready after a blast or a
  reset, and at start; the draw is among the empty slots.
- ``SlotLevels`` (once, at start) are levels: a full slot is a loaded card, not an insertion.
- A refusal's ``reason`` is a message object, as in the launcher's core; the driver renders it,
  and the log shows its text in the daemon's language.
- Sleep after ``sleep_after_s`` in ``ready`` without activity (0: never); ``Wake``/``SleepNow``
  as for the launcher. LED: ``ready`` on at ``led_brightness``; ``firing`` and ``jammed`` flash
  fast, ``halted`` slowly, ``sleeping`` off. A chime on every insertion.
"""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from firmware.blaster.policy import BlastPolicy, get_profile
from firmware.config import Section
from firmware.events import Chime, EStop, Emit, Led, Persist, Reset, Restore, SleepNow, Tick, Wake
from firmware.launcher.core import Logged
from firmware.i18n import Message, message

log = logging.getLogger(__name__)

READY = "ready"
FIRING = "firing"
JAMMED = "jammed"
SLEEPING = "sleeping"
HALTED = "halted"
STATES = (READY, FIRING, JAMMED, SLEEPING, HALTED)

FAST_FLASH_MS = 120
ALERT_FLASH_MS = 1000


@dataclass(frozen=True)
class Settings:
    """What the core needs, in seconds, from ``[blaster]``, ``[feedback]`` and ``[timing]``."""

    slots: int = 4
    debounce_s: float = 0.030
    pulse_ms: int = 150
    max_on_ms: int = 500
    rest_s: float = 1.0
    settle_s: float = 0.4
    led_brightness: float = 1.0
    chime: bool = True
    chime_ms: int = 120
    sleep_after_s: float = 300.0

    @classmethod
    def from_sections(cls, blaster: Section, feedback: Section, timing: Section) -> "Settings":
        return cls(
            slots=blaster.slots, debounce_s=blaster.debounce_ms / 1000, pulse_ms=blaster.pulse_ms,
            max_on_ms=blaster.max_on_ms, rest_s=blaster.rest_ms / 1000,
            settle_s=blaster.settle_ms / 1000, led_brightness=feedback.led_brightness,
            chime=feedback.chime, chime_ms=feedback.chime_ms, sleep_after_s=float(timing.sleep_after_s),
        )


# ---- events and actions of the blaster (beside firmware/events.py's shared ones) --------------


@dataclass(frozen=True)
class SlotLevel:
    """Slot ``slot``'s card sensor changed (already mapped from the pin level): ``full`` or not.

    ``request``: the API request behind a simulated insertion; its ``insert`` event carries it.
    """

    slot: int
    full: bool
    request: int | None = None


@dataclass(frozen=True)
class SlotLevels:
    """Every slot's level, read once by the driver at start (slot 1 first)."""

    full: tuple[bool, ...]


@dataclass(frozen=True)
class Release:
    """Pulse the release actuator for ``ms`` (the driver times it; the wiring's one-shot bounds
    it without the process); 0: off now."""

    ms: int


@dataclass
class _Insert:
    """One judged insertion and, for a blast, what came of it."""

    insert_id: int
    slot: int
    request: int | None
    outcome: str  # safe, blast
    cards: int = 0
    loaded: frozenset[int] = field(default_factory=frozenset)  # slots full when the pulse started

    def last(self) -> dict[str, Any]:
        return {"insert_id": self.insert_id, "slot": self.slot, "outcome": self.outcome,
                "cards": self.cards}


def _hardware_first(actions: list) -> list:
    return [a for a in actions if not isinstance(a, Emit)] + [a for a in actions if isinstance(a, Emit)]


class Blaster:
    """The blaster's state machine; see the module docstring. ``now`` is the driver's clock (s)."""

    def __init__(self, settings: Settings, policy: BlastPolicy, now: float):
        if policy.slots != settings.slots:
            raise ValueError(f"the policy has {policy.slots} slots, the blaster {settings.slots}")
        self._s = settings
        self._policy = policy
        self._now = now
        self._state = READY
        self._reason: Message | str | None = None
        n = settings.slots
        self._raw = [False] * n
        self._full = [False] * n  # debounced
        self._deadline: list[float | None] = [None] * n
        self._request: list[int | None] = [None] * n
        self._inserts = 0
        self._cards_ejected = 0
        self._last: _Insert | None = None
        self._blast: _Insert | None = None  # the open blast: firing or jammed
        self._actuator_on = False
        self._pulse_end: float | None = None
        self._rest_end = float("-inf")  # pulses are at least rest_s apart
        self._pending_at: float | None = None  # a blast waiting for the rest to end
        self._settle_end: float | None = None
        self._last_activity = now
        policy.arm(range(1, n + 1))
        self._handlers: dict[type, Callable[[Any, float], list]] = {
            SlotLevel: self._on_slot, SlotLevels: self._on_levels, Tick: lambda event, now: [],
            EStop: lambda event, now: self.shutdown(str(event.reason), now), Reset: self._on_reset,
            SleepNow: self._on_sleep_now, Wake: self._on_wake, Restore: self._on_restore,
        }

    # ---- the driver's interface ----------------------------------------------------------

    def handle(self, event: Any, now: float) -> list:
        """Run the timers due by ``now``, then ``event``; return the actions to apply, in order."""
        now = max(now, self._now)
        actions = self._expire(now)
        self._now = now
        handler = self._handlers.get(type(event))
        if handler is None:
            return _hardware_first(actions + self._refuse(event, message("refused_unknown_event")))
        if not isinstance(event, Tick):
            self._last_activity = now
        return _hardware_first(actions + handler(event, now))

    def next_deadline(self) -> float | None:
        return min((at for at, _ in self._timers()), default=None)

    def shutdown(self, reason: Message | str, now: float) -> list:
        """Actuator off first, settle an open blast, ``halted`` until ``Reset``; once.

        ``reason``: a message object, or the words given with an ``EStop``."""
        if self._state == HALTED:
            return []
        now = max(now, self._now)
        self._now = now
        self._reason = reason if isinstance(reason, Mapping) else str(reason)
        actions: list = [Release(0)]
        if self._actuator_on:  # a cut pulse heated the coil too: the rest still applies
            self._rest_end = now + self._s.rest_s
        self._actuator_on = False
        self._pulse_end = self._pending_at = self._settle_end = None
        if self._blast is not None:
            empty = frozenset(s for s in self._blast.loaded if not self._full[s - 1])
            actions += self._confirm(empty, "halt")
        actions += self._enter(HALTED, now)
        # Kept in the latch file: an e-stop or a fault is still there after a restart, until a reset.
        actions.append(Persist(self._reason, None, now))
        actions.append(Emit("halted", {"reason": self._reason}))
        return _hardware_first(actions)

    def get_status(self) -> dict[str, Any]:
        """``slots``: one boolean per slot, slot 1 first, True while a card is in it."""
        return {
            "state": self._state,
            "slots": list(self._full),
            "inserts": self._inserts,
            "cards_ejected": self._cards_ejected,
            "last": None if self._last is None else self._last.last(),
            "profile": self._policy.name,
            "actuator": {"on": self._actuator_on},
            "reason": self._reason,
        }

    # ---- timers --------------------------------------------------------------------------

    def _timers(self) -> list[tuple[float, Callable[[float], list]]]:
        timers: list[tuple[float, Callable[[float], list]]] = []
        if self._pulse_end is not None:
            timers.append((self._pulse_end, self._on_pulse_end))
        for index, deadline in enumerate(self._deadline):
            if deadline is not None:
                timers.append((deadline, lambda at, i=index: self._on_stable(i, at)))
        if self._pending_at is not None:
            timers.append((self._pending_at, self._pulse))
        if self._settle_end is not None:
            timers.append((self._settle_end, self._on_settled))
        if self._state == READY and self._s.sleep_after_s > 0:
            timers.append((self._last_activity + self._s.sleep_after_s, self._go_to_sleep))
        return timers

    def _expire(self, now: float) -> list:
        actions: list = []
        while True:
            due = [timer for timer in self._timers() if timer[0] <= now]
            if not due:
                return actions
            at, fire = min(due, key=lambda timer: timer[0])
            self._now = at
            actions += fire(at)

    # ---- slots ---------------------------------------------------------------------------

    def _slot_index(self, slot: object) -> int | None:
        if isinstance(slot, bool) or not isinstance(slot, int) or not 1 <= slot <= self._s.slots:
            return None
        return slot - 1

    def _on_slot(self, event: SlotLevel, now: float) -> list:
        index = self._slot_index(event.slot)
        if index is None:
            return self._refuse(event, message("refused_slot_number", slots=self._s.slots))
        full = bool(event.full)
        if full == self._raw[index]:
            return []
        self._raw[index] = full
        if full:
            self._request[index] = event.request
        # Every edge restarts the wait; an edge back to the debounced level cancels it.
        self._deadline[index] = now + self._s.debounce_s if full != self._full[index] else None
        return []

    def _on_levels(self, event: SlotLevels, now: float) -> list:
        levels = tuple(bool(level) for level in event.full)
        if len(levels) != self._s.slots:
            return self._refuse(event, message("refused_slot_levels", slots=self._s.slots, levels=len(levels)))
        self._raw = list(levels)
        self._full = list(levels)
        self._deadline = [None] * self._s.slots
        if self._state == READY:
            self._policy.arm(self._empty())
        return []

    def _empty(self) -> list[int]:
        return [i + 1 for i, full in enumerate(self._full) if not full]

    def _on_stable(self, index: int, at: float) -> list:
        self._deadline[index] = None
        self._full[index] = self._raw[index]
        self._last_activity = at
        slot = index + 1
        if not self._full[index]:
            return self._on_emptied(slot, at)
        request, self._request[index] = self._request[index], None
        return self._on_insert(slot, request, at)

    def _on_insert(self, slot: int, request: int | None, now: float) -> list:
        actions: list = []
        if self._state == SLEEPING:
            actions += self._enter(READY, now)
        if self._state != READY:
            return actions + [Emit("ignored", {"slot": slot, "request": request, "reason": self._state})]
        self._inserts += 1
        full = sum(self._full)
        fires = self._policy.decide(slot, full)
        record = _Insert(self._inserts, slot, request, "blast" if fires else "safe")
        self._last = record
        actions += self._chime()
        actions.append(Emit("insert", {"insert_id": record.insert_id, "slot": slot, "request": request,
                                       "outcome": record.outcome, "slots": list(self._full)}))
        if not fires:
            return actions
        self._blast = record
        actions += self._enter(FIRING, now)
        if now < self._rest_end:
            self._pending_at = self._rest_end
            return actions
        return actions + self._pulse(now)

    def _on_emptied(self, slot: int, at: float) -> list:
        if self._blast is not None and self._state in (FIRING, JAMMED):
            if self._pulse_end is None and self._pending_at is None and not any(self._full):
                return self._confirm(self._blast.loaded, "done") + self._ready(at)
            return []
        if self._state in (READY, SLEEPING):
            return [Emit("removed", {"slot": slot, "slots": list(self._full)})]
        return []

    # ---- the release ---------------------------------------------------------------------

    def _pulse(self, at: float) -> list:
        assert self._blast is not None
        self._pending_at = None
        self._blast.loaded = frozenset(i + 1 for i, full in enumerate(self._full) if full)
        ms = min(self._s.pulse_ms, self._s.max_on_ms)
        self._actuator_on = True
        self._pulse_end = at + ms / 1000
        return [Release(ms)]

    def _on_pulse_end(self, at: float) -> list:
        self._actuator_on = False
        self._pulse_end = None
        self._rest_end = at + self._s.rest_s
        actions: list = [Release(0)]
        if self._blast is not None and not any(self._full):
            return actions + self._confirm(self._blast.loaded, "done") + self._ready(at)
        self._settle_end = at + self._s.settle_s
        return actions

    def _on_settled(self, at: float) -> list:
        self._settle_end = None
        assert self._blast is not None
        stuck = [i + 1 for i, full in enumerate(self._full) if full]
        if not stuck:
            return self._confirm(self._blast.loaded, "done") + self._ready(at)
        return self._enter(JAMMED, at) + [Emit("jammed", {"insert_id": self._blast.insert_id,
                                                          "slots": stuck})]

    def _confirm(self, out: frozenset[int], ended: str) -> list:
        """Close the open blast: its cards are the loaded slots ``out`` that came out."""
        assert self._blast is not None
        record, self._blast = self._blast, None
        self._settle_end = None
        record.cards = len(out)
        self._cards_ejected += record.cards
        return [Emit("blast", {"insert_id": record.insert_id, "slot": record.slot,
                               "request": record.request, "cards": record.cards,
                               "jammed": self._state == JAMMED, "ended": ended})]

    def _ready(self, at: float) -> list:
        self._policy.arm(self._empty())
        return self._enter(READY, at)

    # ---- states, requests ----------------------------------------------------------------

    def _on_reset(self, event: Reset, now: float) -> list:
        if self._state != HALTED:
            return self._refuse(event, message("refused_not_halted"))
        self._reason = None
        return _hardware_first(self._ready(now) + [Persist(None, None, now)])

    def _on_restore(self, event: Restore, now: float) -> list:
        """What the last run left in the latch file: a halt comes back halted with its reason.
        The blaster keeps no on-time (its release is a pulse the hardware ends) and no "may be
        on" flag: a restarted blaster fires only on a card put in, a person's own act."""
        return [] if event.halt is None else self.shutdown(event.halt, now)

    def _go_to_sleep(self, at: float) -> list:
        return self._enter(SLEEPING, at)

    def _on_sleep_now(self, event: SleepNow, now: float) -> list:
        if self._state != READY:
            return self._refuse(event, message("refused_sleep_blaster"))
        return self._enter(SLEEPING, now)

    def _on_wake(self, event: Wake, now: float) -> list:
        if self._state != SLEEPING:
            return self._refuse(event, message("refused_not_sleeping"))
        return self._enter(READY, now)

    def _enter(self, state: str, now: float) -> list:
        if state == self._state:
            return []
        previous, self._state = self._state, state
        self._last_activity = now
        return [self._led(state), Emit("state", {"state": state, "previous": previous})]

    def _led(self, state: str) -> Led:
        if state == READY:
            return Led("on", self._s.led_brightness)
        if state == SLEEPING:
            return Led("off")
        return Led("flash", 1.0, ALERT_FLASH_MS if state == HALTED else FAST_FLASH_MS)

    def _chime(self) -> list:
        return [Chime(1, self._s.chime_ms)] if self._s.chime else []

    def _refuse(self, event: object, reason: Message) -> list:
        log.info("refused %r in state %s: %s", event, self._state, Logged(reason))
        return [Emit("refused", {"event": type(event).__name__, "request": getattr(event, "request", None),
                                 "state": self._state, "reason": reason})]


def build(blaster: Section, feedback: Section, timing: Section, rng: random.Random, now: float) -> Blaster:
    """The core of a configured blaster, its policy ``[blaster] profile`` drawing from ``rng``."""
    settings = Settings.from_sections(blaster, feedback, timing)
    return Blaster(settings, BlastPolicy(get_profile(blaster.profile), blaster.slots, rng), now)


__all__ = [
    "Blaster", "FIRING", "HALTED", "JAMMED", "READY", "Release", "SLEEPING", "STATES", "Settings",
    "SlotLevel", "SlotLevels", "build",
]
