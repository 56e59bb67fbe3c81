"""The press rule's one keeper: whether what the game asks may move the motor (issue #36).

NO MOTION STARTS WITHOUT A PERSON'S FRESH PRESS. The game layer asks the launcher for cards
(``launcher/dispense``: a deal, a draw, a penalty) from many paths: a request's handler, a
background deal, a launcher event it takes in, its own start. Which of those may move the motor is
decided here, in launcherd (the game is a process of its own, firmware/daemon/gameport.py), not by
each path of the game: a bug in a game path, or a game process that lies, cannot bypass it.

Every dispense (and any other motion) the game asks names its **cause**: the person's action or
press it answers, by the token this keeper issued for it. launcherd issues one for each request it
forwards to the game, each launcher event it sends it and each registration of the game (its start);
the game keeps the token in a ``contextvars`` variable that asyncio tasks inherit
(controller/layer/remote.py), so a deal task started by ``game/new`` names ``game/new``'s token for
as long as it runs. A token this keeper did not issue (a restart of either side, a made-up one) is
no cause: what it asks never moves. launcherd judges the cause at the call (:meth:`PressKeeper.judge`):

- a **press** moves: a ``resume`` (the button or ``launcherctl resume`` or the page's Go on while
  something waits), a press the launcher ignored as ``decision_pending`` (the button, or
  ``launcher/launch``), a launch outcome of the button or ``launcher/launch``;
- an **action whose own effect is a deal** moves (:data:`DEALING_ACTIONS`: a new game's deal, a
  play (Draw Two, Wild Draw Four), a draw, an accept, a challenge's result, a catch's penalty,
  the Minions' counts, the next round's deal), unless an interruption came after it;
- an **interruption** ends every cause before it (:data:`INTERRUPTIONS`: an undo, a ``game
  resume``, an abandon, a repair; the game layer's start, which is a restart of either side; a
  halt, after which comes a reset): what such a cause asks waits for a press;
- **anything else** (an unrelated action such as ``game uno``, a reading, an event that is no
  press) never moves;
- a person's press after an interruption answers what was pending before it: the causes older
  than that press move again (the rest of a deal held by a restart goes on pile after pile).

A dispense judged "wait" is not refused: it is asked with ``wait_press`` set to the reason
(firmware/extras/dealer.py), so the dealer holds the core (status ``pending``, "the match was
resumed: press the button to go on (15 cards left to deal)") until a person's press. Any other
motion method the game asks (a feed, a launch, a jog) is refused. Sans-IO and thread-safe: the
requests are noted and the calls judged on the API's loop, the events on the motor's.
"""

from __future__ import annotations

import itertools
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from firmware.errors import Refused
from firmware.i18n import message

# The actions whose own effect may be cards to deal (controller/rules: the opening deal, Draw Two and
# Wild Draw Four, a draw, an accepted Wild Draw Four, a challenge's result, a catch's penalty, the
# Minions' discards, the next round).
DEALING_ACTIONS = frozenset({
    "game/new", "game/play", "game/draw", "game/accept", "game/challenge", "game/challenge-result",
    "game/catch", "game/minions", "game/end-round",
})
# Requests that end every cause before them, and what the wait then says it comes after.
INTERRUPTIONS = {"game/undo": "undo", "game/resume": "resume", "game/abandon": "abandon",
                 "game/repair": "repair"}
# What the game may not ask while its cause waits: every method that moves the motor. A dispense is
# held (``wait_press``); the others are refused.
MOTION_METHODS = frozenset({"launcher/dispense", "launcher/feed", "launcher/launch", "launcher/press",
                            "launcher/retract", "bringup/jog", "bringup/feed"})
DISPENSE = "launcher/dispense"
# A launcher event that is a person's press (its ``source``), and those that always are.
PRESS_SOURCES = frozenset({"button", "api"})
# The wait's reasons beyond the dealer's own "restart" and "reset" (firmware/extras/dealer.py).
UNRELATED = "unrelated"
LAYER_RESTART = "layer_restart"
RESTART, RESET = "restart", "reset"

REQUEST, PRESS, START, EVENT = "request", "press", "start", "event"
# How many issued causes the keeper remembers by token, for the game process's calls that name one
# (firmware/daemon/gameport.py); an older or unknown token is judged as no cause (unrelated).
KEPT_CAUSES = 4096


@dataclass(frozen=True)
class Cause:
    """What a call of the game answers: ``kind`` (a request, a person's press, the layer's start, an
    event that is no press), ``name`` (the method or event) and when (``token``, in the keeper's
    order)."""

    token: int
    kind: str
    name: str



def is_press(name: str, params: dict[str, Any]) -> bool:
    """A launcher event that is a person's press: a resume, a press ignored as a pending decision,
    a launch from the button or ``launcher/launch``."""
    source = params.get("source")
    if name == "resume":
        return True
    if name == "ignored":
        return params.get("reason") == "decision_pending" and source in PRESS_SOURCES
    return name == "launched" and source in PRESS_SOURCES


class PressKeeper:
    """The causes issued in order, the interruptions that ended them, the presses that answered them."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._tokens = itertools.count(1)
        self._ended_before = 0  # every cause up to this token was ended by an interruption
        self._ended_by: str | None = None  # that interruption's reason
        self._answered = 0  # a person's press after the last interruption: causes before it go on
        self._starts = 0
        self._issued: OrderedDict[int, Cause] = OrderedDict()  # token -> cause, the latest KEPT_CAUSES

    def _issue(self, kind: str, name: str) -> Cause:
        cause = Cause(next(self._tokens), kind, name)
        self._issued[cause.token] = cause
        if len(self._issued) > KEPT_CAUSES:
            self._issued.popitem(last=False)
        return cause

    def cause_of(self, token: Any) -> Cause | None:
        """The cause this keeper issued with ``token`` (None: unknown, too old, or not a token)."""
        if not isinstance(token, int) or isinstance(token, bool):
            return None
        with self._lock:
            return self._issued.get(token)

    def request(self, method: str) -> Cause:
        """A game request about to be served: its cause (an interruption ends what came before)."""
        with self._lock:
            cause = self._issue(REQUEST, method)
            if method in INTERRUPTIONS:
                self._interrupt(cause.token, INTERRUPTIONS[method])
            return cause

    def event(self, name: str, params: dict[str, Any]) -> Cause:
        """A launcher event about to be delivered to the game: a press, a halt (an interruption:
        after it a reset comes, which is no press), or neither."""
        with self._lock:
            press = is_press(name, params)
            cause = self._issue(PRESS if press else EVENT, name)
            if press:
                self._answered = cause.token
            elif name == "halted":
                self._interrupt(cause.token, RESET)
            return cause

    def started(self) -> Cause:
        """The game layer sets up: launcherd's start, or the layer's restart; an interruption."""
        with self._lock:
            self._starts += 1
            cause = self._issue(START, "setup")
            self._interrupt(cause.token, RESTART if self._starts == 1 else LAYER_RESTART)
            return cause

    def judge(self, cause: Cause | None) -> str | None:
        """None: what ``cause`` asks may move now. Else what it waits for a press after."""
        with self._lock:
            if cause is None:
                return UNRELATED  # asked outside anything the door stamped: nobody asked for it
            if cause.token < self._answered:
                return None  # a person pressed since the last interruption: what was pending goes on
            if cause.token <= self._ended_before:
                return self._ended_by
            if cause.kind == PRESS or (cause.kind == REQUEST and cause.name in DEALING_ACTIONS):
                return None
            return UNRELATED

    def checked(self, method: str, params: dict[str, Any], cause: Cause | None = None) -> dict[str, Any]:
        """The params of a call the game makes for ``cause`` (the cause its token named), judged:
        a dispense whose cause waits is asked with ``wait_press`` (the dealer holds it for a
        press); any other motion is refused (:class:`Refused`)."""
        if method not in MOTION_METHODS:
            return params
        after = self.judge(cause)
        if after is None:
            return params
        if method == DISPENSE:
            return {**params, "wait_press": after}
        raise Refused(message("keeper_holds", after=message(f"after_{after}")))

    def _interrupt(self, token: int, reason: str) -> None:
        self._ended_before, self._ended_by, self._answered = token, reason, 0


__all__ = ["DEALING_ACTIONS", "INTERRUPTIONS", "MOTION_METHODS", "Cause", "PressKeeper", "is_press"]
