"""The dealer: "dispense exactly N" over a mechanism that misfeeds, jams and runs dry.

The core's ``Dispense(count)`` runs the motor until ``count`` cards are counted at the beam, and
ends early on a jam, an empty feed, the lid, a motor limit or a halt. The dealer turns one request
for N cards into as many core dispenses as it takes, each for what is still missing, and follows
the core's ``Emit`` events to know what every one of them gave. It is sans-IO like the core: the
driver feeds it every launcher event with the time, feeds the core the events it returns, and
calls :meth:`Dealer.tick` at :meth:`Dealer.next_deadline`.

Rules, as settled here:

- Never N+1: a core dispense is asked only for what is missing, only while no other one of the
  dealer's is running, and cards are counted per press from ``card`` and ``launched`` (a card that
  finishes crossing after its launch was resolved is a ``card`` of that press, and counts).
- No motion without a person's press: after anything a person had to put right (a jam pulled out,
  the lid closed, the hopper reloaded, a hand in the slot), and after a motor rest, the dispense
  does not go on by itself. It reports ``waiting_press`` and holds the core (``Hold``: status
  ``pending``) until a press of the button or ``launcher/resume`` (the core's ``resume``); that
  press is no launch. Misfeed retries and queued requests go on by themselves: nobody touched
  the machine and it never stopped for a reason of its own.
- A jam: the core stops the motor and counts the stuck card then (never again when it is pulled
  out). The dealer reports ``waiting_jam``, then ``waiting_press`` when the core leaves ``jammed``.
  If the stuck card was the last one, the dispense is done once it has been pulled out.
- What a person was asked to put right (a jam, the lid, a reload) is owed a press even when the
  dispense that waited for it ended meanwhile (cancelled, or done by a stuck last card): the next
  one waits for it too, until a person's press: a ``resume``, or the button pressed in ``ready``.
- A misfeed: a run ending ``empty`` while the hopper is believed to hold cards (the core's
  estimate before the run, less the cards of the run) is retried up to ``misfeed_retries`` times
  in a row; the core's ``empty`` is left with ``Reload(believed)``, which restores the estimate
  the feed timeout zeroed. Never when the retry, if it saw no card either, would be the core's
  last blind run (its ``empty`` says ``blind_runs`` and ``blind_runs_limit``): the wiring halt
  comes only after a person's reload and press, never from a retry nobody asked for. An
  unknown estimate is not a belief: the dealer waits for a reload.
  Then, and for a hopper believed empty, the dealer reports ``waiting_empty`` and goes on when the
  core leaves ``empty`` (a reload or a refill).
- A motor-limit refusal (``refused`` with ``retry_after_s``) waits that long, then for a press; a run cut by the
  motor's chain limit (``ended = "motor_limit"``) is asked again at once, and the core's refusal
  says how long to rest. A refusal without a retry time ends the dispense as ``failed``.
- The lid waits for it to close, then for a press; a press of someone else's running
  (``ignored``: ``launching``, ``jogging``, ...) waits for the core to be ready, or ``poll_s`` at
  most; a blocked beam (``ignored``: ``beam_blocked``) waits for a press.
- A halt (e-stop, fault) abandons the running dispense and every queued one, with the cards so far.
- ``wait_press`` (``"restart"``, ``True`` alike, or ``"reset"``): the dispense waits for a press
  before its first run, saying after what. Asked while the core is ``halted`` it is
  ``waiting_reset`` (nothing held: no press can go on) until the core leaves ``halted``, then
  ``waiting_press``: a halted launcher waits for its reset first, and a reset is no press.
- Requests are served one at a time in the order they came; the others are ``queued``.

Outputs are core events (``Dispense``, ``Reload``) and ``Emit``s: ``dealer/dispense`` for progress
and ``dealer/dispensed`` for the outcome, both with ``request``, ``count``, ``cards``,
``remaining``, ``state``, ``reason`` and ``press_ids``. A ``reason`` is a message object (players
read it during a deal: what the dispense waits for, why it ended), the dealer's own or the one the
core gave (a motor rule's wait, a refusal); ``DealerService`` (``firmware/extras/dispense.py``) sends its text beside it
(``reason`` and ``reason_object``), in the daemon's language for events and in the caller's for
replies and the status. The driver must feed the core events after
it has applied the whole batch of actions that led to them (``loop.call_soon``), never from
inside a listener: ``DealerService`` (``firmware/extras/dispense.py``) does that on launcherd's
loop and serves ``launcher/dispense``. :func:`deal` plans the classic deal as steps for a driver. docs/dealer.md
has the table of cases and the daemon's integration.
"""

from __future__ import annotations

import logging
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Literal, Union

from firmware.errors import InvalidParams
from firmware.events import Cancel, Dispense, Emit, Hold, Reload
from firmware.i18n import Message, message

log = logging.getLogger(__name__)

PROGRESS = "dealer/dispense"
OUTCOME = "dealer/dispensed"
# Waits, as reported in ``state``; the dispense goes on by itself after each.
WAITING_JAM, WAITING_EMPTY, WAITING_LID = "waiting_jam", "waiting_empty", "waiting_lid"
WAITING_MOTOR, WAITING_BUSY = "waiting_motor", "waiting_busy"
# Waiting for a person's press before the motor moves again (and why: a catalogue id).
WAITING_PRESS = "waiting_press"
HOLD_OWNER = "dealer"
# A dispense asked with ``wait_press`` waits before its first run, and says after what: a restart
# (the game's deal after launcherd started; ``true`` means this) or a reset (the rest of a deal a
# halt abandoned). Asked while the launcher is halted, it first waits for the reset.
AFTER_RESTART, AFTER_RESET = "restart", "reset"
# What the press rule's keeper (firmware/daemon/keeper.py) holds a game's dispense after: its cause
# was ended by an undo, a resumed match, an abandon, a repair or the game's restart, or was no
# action that deals.
AFTER_INTERRUPTION = ("undo", "resume", "abandon", "repair", "layer_restart", "unrelated")
WAIT_PRESS_REASONS = (AFTER_RESTART, AFTER_RESET, *AFTER_INTERRUPTION)
WAITING_RESET = "waiting_reset"
_AFTER_WAIT = {WAITING_JAM: "after_jam", WAITING_LID: "after_lid", WAITING_EMPTY: "after_reload",
               WAITING_MOTOR: "after_rest", "beam_blocked": "after_beam", AFTER_RESTART: "after_restart",
               AFTER_RESET: "after_reset", **{after: f"after_{after}" for after in AFTER_INTERRUPTION}}
# The least wait after a refusal: a retry time rounded to 0 (a rest that ends in under a
# millisecond) must not become a loop of refusals at one instant.
MIN_WAIT_S = 0.01
QUEUED, DISPENSING, RETRYING = "queued", "dispensing", "retrying"
DONE, ABANDONED, FAILED = "done", "abandoned", "failed"
# What the dealer waits for in each core state but ``ready`` (and ``halted``, which ends it).
_WAIT_FOR_STATE = {"jammed": WAITING_JAM, "lid_open": WAITING_LID, "empty": WAITING_EMPTY,
                   "launching": WAITING_BUSY}
# What each wait says to the players (catalogue ids).
_WAIT_REASONS = {WAITING_JAM: "dispense_waiting_jam", WAITING_LID: "dispense_waiting_lid",
                 WAITING_EMPTY: "dispense_waiting_empty", WAITING_BUSY: "dispense_waiting_busy"}
# The core's state once a launch has ended so (``launched`` comes before the ``state`` event).
_AFTER = {"done": "ready", "timeout": "ready", "motor_limit": "ready", "cancelled": "ready", "jam": "jammed",
          "empty": "empty", "lid": "lid_open", "halt": "halted"}

Output = Union[Dispense, Reload, Hold, Cancel, Emit]


@dataclass
class _Job:
    """One request for ``count`` cards and everything the dealer knows of it."""

    request: Any
    count: int
    source: str
    number: int = 0  # the dealer's own, in the request ids of its core dispenses
    cards: dict[int, int] = field(default_factory=dict)  # press_id -> cards counted for it
    runs: int = 0  # core dispenses asked for, for their request ids
    running: str | None = None  # request id of the core dispense under way
    hopper_before: int | None = None  # the core's estimate when the running press began
    misfeeds: int = 0  # runs in a row that ended empty with cards believed in the hopper
    blind: tuple[int, int] | None = None  # the core's blind runs in a row and halt limit, last empty
    state: str = QUEUED
    reason: Message | str | None = None  # an e-stop's words are the only text
    resume_at: float | None = None  # waiting_motor, waiting_busy: ask again then
    cancelled: Message | None = None  # cancel_all while its run was under way: why, for the outcome
    wait_press: str | None = None  # waits for a person's press before its first run, after this
    reported: tuple | None = None  # the last progress sent, so that nothing is sent twice

    @property
    def total(self) -> int:
        return sum(self.cards.values())

    def params(self) -> dict[str, Any]:
        return {"request": self.request, "count": self.count, "cards": self.total,
                "remaining": max(0, self.count - self.total), "state": self.state, "reason": self.reason,
                "press_ids": list(self.cards)}


class Dealer:
    """Exact dispenses over the launcher core. See the module docstring.

    :param state: the core's state now (``get_status()["state"]``); later ``state`` events keep it.
    :param misfeed_retries: runs in a row that may end empty with cards believed in the hopper
        before the dealer waits for a reload.
    :param poll_s: how long to wait before asking again when the core was busy with another press.
    """

    def __init__(self, state: str = "ready", *, misfeed_retries: int = 2, poll_s: float = 0.5):
        if isinstance(misfeed_retries, bool) or not isinstance(misfeed_retries, int) or misfeed_retries < 0:
            raise InvalidParams(f"misfeed_retries must be a whole number of at least 0, not {misfeed_retries!r}")
        if not poll_s > 0:
            raise InvalidParams(f"poll_s must be more than 0, not {poll_s!r}")
        self._core_state = state
        self._asleep_from = "ready"  # the state a sleeping core wakes to
        self._misfeed_retries = misfeed_retries
        self._poll_s = float(poll_s)
        self._job: _Job | None = None
        self._queue: deque[_Job] = deque()
        self._jobs = 0  # every job gets a number, for the request ids of its core dispenses
        self._holding: Message | None = None  # what the core holds for a press on the dealer's behalf
        # What a person was last asked to put right (WAITING_JAM, WAITING_LID, WAITING_EMPTY) with no
        # press since: kept until their press, past the dispense that waited for it (cancelled, or
        # done by a stuck last card), since the next one must not start the motor at the hand that
        # has just pulled a card out.
        self._put_right: str | None = None

    # ---- the driver's interface ----------------------------------------------------------

    def start(self, count: int, request: Any, now: float, *, source: str = "dispense",
              state: str | None = None, wait_press: bool | str = False) -> list[Output]:
        """Begin (or queue behind the running one) a dispense of exactly ``count`` cards.

        ``request`` identifies it in every event about it. ``state`` (the core's, if given)
        corrects the dealer's view of it. ``wait_press``: nothing moves before a person's press,
        and the wait says after what: ``"restart"`` (or ``True``: the game's deal after launcherd
        started, nobody may be at the launcher) or ``"reset"`` (the rest of a deal a halt
        abandoned). Asked while the core is halted, it is ``waiting_reset`` until the core leaves
        ``halted``, then ``waiting_press``: a halted launcher waits for its reset first.

        :raises InvalidParams: ``count`` is not a whole number of at least 1, or ``wait_press``
            is neither true, false nor one of :data:`WAIT_PRESS_REASONS`.
        """
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise InvalidParams(f"count must be a whole number of at least 1, not {count!r}")
        after = wait_reason(wait_press)
        if state is not None:
            self._core_state = state
        job = _Job(request, count, str(source), wait_press=after)
        self._queue.append(job)
        if self._job is not None:
            return self._report(job)
        return self._next_job(now)

    def on_event(self, name: str, params: dict[str, Any], now: float, *,
                 hopper: int | None = None) -> list[Output]:
        """A launcher event (an ``Emit`` of the core); ``hopper``: the core's estimate now (read at ``press``)."""
        if name == "state":
            state = params.get("state", self._core_state)
            if state == "sleeping":
                # A sleeping core wakes to where it was: a Dispense there is a press in that state.
                self._asleep_from = params.get("previous", self._core_state)
            self._core_state = state
            if state == "halted":
                return self._abandon_all(message("dispense_launcher_halted"), now)
            if self._job is not None and self._job.state == WAITING_BUSY and state == "ready":
                self._job.resume_at = None  # the other press is over: no need to wait for the poll
            return self._advance(now)
        if name == "halted":
            self._core_state = "halted"
            # The object when the daemon has put the text beside it; an e-stop's words otherwise.
            reason = params.get("reason_object") or params.get("reason") or ""
            return self._abandon_all(message("dispense_halted", reason=reason), now)
        if name == "resume" or (name == "press" and params.get("source") == "button" and self._core_view() == "ready"):
            self._put_right = None  # a person's press: the one owed
        job = self._job
        if job is None:
            return []
        if name == "resume":
            # The core released every hold, ours with them: a person said go on.
            self._holding = None
            if job.state != WAITING_PRESS:
                return []
            job.state = DISPENSING
            return self._advance(now)
        if name == "card":
            press_id = params.get("press_id")
            if press_id not in job.cards:
                return []
            job.cards[press_id] = max(job.cards[press_id], int(params.get("count", 0)))
            if job.state == WAITING_PRESS:
                # A card still crossing when its run ended: the wait now says one card less.
                job.reason = _waiting_press_reason(job, job.reason["after"])
            return self._report(job) + self._advance(now)
        if name == "empty":
            # The feed timeout of our run: how near the core's wiring halt (blind runs) it is.
            if job.running is not None and params.get("press_id") in job.cards and "blind_runs" in params:
                job.blind = (int(params["blind_runs"]), int(params.get("blind_runs_limit", 0)))
            return []
        if job.running is None or params.get("request") != job.running:
            return []
        if name == "press":
            job.blind = None
            job.cards.setdefault(params["press_id"], 0)
            job.hopper_before = hopper
            return []
        if name not in ("launched", "ignored", "refused"):
            return []
        job.running = None
        if name == "launched":
            return self._on_launched(job, params, now)
        if name == "ignored":
            return self._on_ignored(job, params, now)
        return self._on_refused(job, params, now)

    def tick(self, now: float) -> list[Output]:
        """The deadline asked for has come: ask the core again."""
        job = self._job
        if job is None or job.resume_at is None or now < job.resume_at:
            return []
        job.resume_at = None
        core = self._asleep_from if self._core_state == "sleeping" else self._core_state
        if job.state == WAITING_MOTOR and core == "ready" and job.total < job.count:
            # The motor has rested: it starts again on a person's press, not by itself.
            return self._wait_for_press(job, WAITING_MOTOR)
        job.state = DISPENSING  # done meanwhile, or jammed: _advance says what it waits for
        return self._advance(now)

    def next_deadline(self) -> float | None:
        return None if self._job is None else self._job.resume_at

    def cancel(self, reason: Message, now: float) -> list[Output]:
        """Abandon everything (the daemon is stopping): each request gets its outcome."""
        return self._abandon_all(reason, now)

    def cancel_all(self, reason: Message, now: float) -> list[Output]:
        """What the dispenses were for is over: the queued ones and a waiting one are abandoned
        now, a run under way is stopped (``Cancel``) and its request abandoned once it has
        ended, with the cards it gave by then."""
        job = self._job
        if job is None or job.running is None:
            return self._abandon_all(reason, now)
        out: list[Output] = [Cancel(job.running)]
        job.cancelled = reason
        while self._queue:
            queued = self._queue.popleft()
            queued.state, queued.reason = ABANDONED, reason
            out += self._report(queued) + [Emit(OUTCOME, queued.params())]
        return out

    def get_status(self) -> dict[str, Any]:
        return {"current": None if self._job is None else self._job.params(),
                "queued": [job.request for job in self._queue]}

    # ---- the core's answers --------------------------------------------------------------

    def _on_launched(self, job: _Job, params: dict[str, Any], now: float) -> list[Output]:
        cards = int(params.get("cards", 0))
        press_id = params.get("press_id")
        if press_id is not None:
            job.cards[press_id] = max(job.cards.get(press_id, 0), cards)
        ended = params.get("ended")
        # Emitted before the core's ``state`` event of the same batch: where the core now stands.
        self._core_state = _AFTER.get(ended, self._core_state)
        if job.cancelled is not None:
            return self._finish(job, ABANDONED, job.cancelled, now)
        if cards:
            job.misfeeds = 0
        elif ended == "timeout":
            # A feed slower than the launch timeout: no card, yet never "empty". Bounded too.
            job.misfeeds += 1
            if job.misfeeds > self._misfeed_retries:
                return self._finish(job, FAILED, message("dispense_no_card_timeout"), now)
        if ended == "empty" and job.total < job.count:
            believed = None if job.hopper_before is None else job.hopper_before - cards
            # A retry goes on by itself, so it must never be the run that halts the launcher for a
            # blind beam: that one waits for a person's reload and press, like any other empty.
            halts_next = job.blind is not None and job.blind[1] > 0 and job.blind[0] + 1 >= job.blind[1]
            if (believed is not None and believed > 0 and job.misfeeds < self._misfeed_retries
                    and not halts_next):
                job.misfeeds += 1
                job.state = RETRYING
                job.reason = message("dispense_misfeed_retry", retry=job.misfeeds, retries=self._misfeed_retries)
                log.info("dispense %s: misfeed with %d cards believed in the hopper, retry %d",
                         job.request, believed, job.misfeeds)
                # The feed timeout took the hopper for empty; the belief says otherwise.
                return [Reload(believed)] + self._ask(job, now)
            job.state = self._put_right = WAITING_EMPTY
            job.reason = (message("dispense_reload") if believed is None or believed <= 0
                          else message("dispense_misfeeds", times=job.misfeeds + 1))
            return self._report(job)
        return self._advance(now)

    def _on_ignored(self, job: _Job, params: dict[str, Any], now: float) -> list[Output]:
        reason = params.get("reason")
        if reason in _WAIT_FOR_STATE or reason == "halted":
            self._core_state = reason
            return self._advance(now)
        if reason == "beam_blocked":
            # A hand or a card in the slot: once it is out, a person says when to go on.
            return self._wait_for_press(job, "beam_blocked")
        # Jogging, a hand in the slot in bench mode: nothing to wait for but time.
        job.state, job.reason = WAITING_BUSY, message("dispense_busy_because", reason=reason)
        job.resume_at = now + self._poll_s
        return self._report(job)

    def _on_refused(self, job: _Job, params: dict[str, Any], now: float) -> list[Output]:
        self._core_state = params.get("state", self._core_state)
        retry = params.get("retry_after_s")
        # The object when the daemon has put the text beside it, as its events do.
        reason = params.get("reason_object") or params.get("reason")
        if retry is None:
            return self._finish(job, FAILED, reason, now)
        job.state, job.reason = WAITING_MOTOR, reason
        job.resume_at = now + max(float(retry), MIN_WAIT_S)
        return self._report(job)

    # ---- going on ------------------------------------------------------------------------

    def _next_job(self, now: float) -> list[Output]:
        if self._job is not None or not self._queue:
            return []
        self._job = self._queue.popleft()
        self._jobs += 1
        self._job.number = self._jobs
        if self._job.wait_press is not None:
            if self._core_view() == "halted":
                # A halted launcher waits for its reset first: no press can go on before it.
                self._job.state, self._job.reason = WAITING_RESET, message("dispense_is_halted")
                return self._report(self._job)
            return self._wait_for_press(self._job, self._job.wait_press)
        self._job.state = DISPENSING
        return self._advance(now)

    def _core_view(self) -> str:
        """The core's state, a sleeping core's as the one it wakes to."""
        return self._asleep_from if self._core_state == "sleeping" else self._core_state

    def _advance(self, now: float) -> list[Output]:
        """Ask the core for what is missing if nothing stands in the way, else say what waits."""
        job = self._job
        if job is None or job.running is not None or job.resume_at is not None:
            return []
        core = self._core_view()
        if job.state == WAITING_RESET:
            # Reset: now the dispense waits for a person's press (a reset is no press).
            return [] if core == "halted" else self._wait_for_press(job, job.wait_press or AFTER_RESET)
        if job.total >= job.count and core != "jammed":
            # A last card stuck in the slot is handed over when it is pulled out.
            return self._finish(job, DONE, None, now)
        if core == "halted":
            return self._finish(job, ABANDONED, message("dispense_is_halted"), now)
        if core == "ready":
            if job.state == WAITING_PRESS:
                return []
            # A person has been at the machine, for this dispense or for one that ended meanwhile.
            after = job.state if job.state in (WAITING_EMPTY, WAITING_LID, WAITING_JAM) else self._put_right
            if after is not None:
                return self._wait_for_press(job, after)
            return self._ask(job, now)
        waiting = _WAIT_FOR_STATE.get(core)
        if waiting is None:
            return []
        if waiting == WAITING_BUSY:
            job.resume_at = now + self._poll_s
        else:
            self._put_right = waiting
        if job.state != waiting:
            job.state, job.reason = waiting, message(_WAIT_REASONS[waiting])
        return self._report(job)

    def _wait_for_press(self, job: _Job, after: str) -> list[Output]:
        if after in (WAITING_EMPTY, WAITING_LID, WAITING_JAM):
            job.misfeeds = 0  # a person has been at the machine
        job.state = WAITING_PRESS
        job.reason = _waiting_press_reason(job, message(_AFTER_WAIT[after]))
        return self._report(job)

    def _ask(self, job: _Job, now: float) -> list[Output]:
        job.runs += 1
        job.running = f"dealer:{job.number}:{job.runs}"
        if job.state != RETRYING:
            job.state, job.reason = DISPENSING, None
        return self._report(job) + [Dispense(job.count - job.total, job.source, job.running)]

    def _finish(self, job: _Job, state: str, reason: Message | str | None, now: float) -> list[Output]:
        job.state, job.reason, job.running, job.resume_at = state, reason, None, None
        if job.total > job.count:
            log.error("dispense %s: %d cards counted for %d asked", job.request, job.total, job.count)
        self._job = None
        return self._report(job) + [Emit(OUTCOME, job.params())] + self._next_job(now)

    def _abandon_all(self, reason: Message, now: float) -> list[Output]:
        out: list[Output] = []
        if self._job is not None:
            job, self._job = self._job, None
            self._queue.appendleft(job)
        while self._queue:
            job = self._queue.popleft()
            job.state, job.reason, job.running, job.resume_at = ABANDONED, reason, None, None
            out += self._report(job) + [Emit(OUTCOME, job.params())]
        return out

    def _report(self, job: _Job) -> list[Output]:
        """The job's progress when it changed, and the core's hold kept in step with it."""
        out: list[Output] = []
        current = self._job
        held = current.reason if current is not None and current.state == WAITING_PRESS else None
        if held != self._holding:
            out.append(Hold(HOLD_OWNER, held))
            self._holding = held
        params = job.params()
        key = (params["cards"], params["state"], params["reason"])
        if key == job.reported:
            return out
        job.reported = key
        return out + [Emit(PROGRESS, params)]


def _waiting_press_reason(job: _Job, after: Message) -> Message:
    """What a dispense waiting for a press tells the table: the cards still to come, and after what."""
    return message("dispense_waiting_press", count=job.count - job.total, after=after)


def wait_reason(wait_press: bool | str | None) -> str | None:
    """What a dispense's ``wait_press`` waits after: None (it does not wait), ``"restart"``
    (``True``, for the clients that send a flag) or ``"reset"``.

    :raises InvalidParams: anything else.
    """
    if wait_press is None or wait_press is False:
        return None
    if wait_press is True:
        return AFTER_RESTART
    if isinstance(wait_press, str) and wait_press in WAIT_PRESS_REASONS:
        return wait_press
    raise InvalidParams(f"wait_press must be true, false, {WAIT_PRESS_SHOWN}, not {wait_press!r}")


WAIT_PRESS_SHOWN = " or ".join(f'"{reason}"' for reason in WAIT_PRESS_REASONS)


# ---- the classic deal: a plan the driver executes --------------------------------------------


@dataclass(frozen=True)
class AimAt:
    """Turn the launcher to ``seat`` of ``seats`` (``launcher/aim``)."""

    seat: int
    seats: int


@dataclass(frozen=True)
class DealTo:
    """Dispense exactly ``cards`` to ``seat`` (``launcher/dispense``, through the dealer)."""

    seat: int
    cards: int


@dataclass(frozen=True)
class PauseFor:
    """Between two piles: ``seconds`` to hand the pile over, or (``press``) until the button."""

    seconds: float = 0.0
    press: bool = False


Step = Union[AimAt, DealTo, PauseFor]


def deal(seats: list[int], per_seat: int, pause: float | Literal["press"] = 2.0, *,
         aim: bool = False, of: int | None = None) -> list[Step]:
    """The classic deal as steps: ``per_seat`` cards to each of ``seats``, in that order.

    With ``aim`` (a servo) each pile is aimed at its seat (``of`` seats around the table, by
    default ``max(seats) + 1``) and nobody needs a pause; otherwise ``pause`` (seconds, or
    ``"press"``) comes between two piles so that the dealer can hand each one over.

    :raises InvalidParams: no seats, a seat twice, a count under 1, a bad pause, a seat outside ``of``.
    """
    if not seats:
        raise InvalidParams("a deal needs at least one seat")
    if len(set(seats)) != len(seats):
        raise InvalidParams(f"a seat is named twice: {seats}")
    if isinstance(per_seat, bool) or not isinstance(per_seat, int) or per_seat < 1:
        raise InvalidParams(f"per_seat must be a whole number of at least 1, not {per_seat!r}")
    if pause != "press" and (isinstance(pause, bool) or not isinstance(pause, (int, float)) or pause < 0):
        raise InvalidParams(f"pause must be seconds (0 or more) or 'press', not {pause!r}")
    total_seats = max(seats) + 1 if of is None else of
    if min(seats) < 0 or max(seats) >= total_seats:
        raise InvalidParams(f"seats must be from 0 to {total_seats - 1}, not {seats}")
    between = PauseFor(press=True) if pause == "press" else PauseFor(float(pause))
    steps: list[Step] = []
    for index, seat in enumerate(seats):
        if aim:
            steps.append(AimAt(seat, total_seats))
        elif index and (between.press or between.seconds > 0):
            steps.append(between)
        steps.append(DealTo(seat, per_seat))
    return steps


__all__ = [
    "ABANDONED", "DONE", "FAILED", "OUTCOME", "PROGRESS", "AimAt", "DealTo", "Dealer", "PauseFor", "Step", "deal",
    "WAIT_PRESS_SHOWN", "wait_reason",
]
