"""What launcher-voice says and when: a pure object, events in, message objects out.

It is fed what the daemon's event stream tells (a game action with the game status after it, a jam,
an empty hopper) with the loop's clock, and keeps a short list of phrases waiting to be spoken.
The speaking loop asks :meth:`Announcer.next` for one phrase at a time, so two phrases are never
said at once. A phrase waits at most ``max_age`` seconds: at a table, "Bob, press twice" said after
Bob has pressed is worse than silence. A newer phrase about the same thing (whose move it is, the
latest burst) replaces one still waiting; alerts (jam, empty, a halt) go first, and the speaking
loop cuts short whatever else is playing when one comes (:meth:`Announcer.alert_waiting`).

Phrases are message objects of ``controller.text.messages``, so the decision does not depend on the
language: the speaking loop renders them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from firmware.errors import InvalidParams

# How much is said: quiet tells only what someone must do or fix, chatty tells every press.
VERBOSITY = {"quiet": 1, "normal": 2, "chatty": 3}
MAX_AGE_S = 3.0
MAX_WAITING = 4

# Slots: a newer phrase replaces a waiting one of the same slot.
ALERT, MOVE, BURST, ROUND = "alert", "move", "burst", "round"


@dataclass(frozen=True)
class Phrase:
    message: dict[str, Any]
    at: float  # when it was decided
    slot: str


class Announcer:
    """Decides the phrases of a game from the event stream; see the module docstring."""

    def __init__(self, verbosity: str = "normal", max_age: float = MAX_AGE_S):
        if verbosity not in VERBOSITY:
            raise InvalidParams(f"unknown verbosity {verbosity!r}; verbosities: " + ", ".join(VERBOSITY))
        self.level = VERBOSITY[verbosity]
        self.max_age = max_age
        self.waiting: list[Phrase] = []
        self._status: Mapping[str, Any] | None = None
        self._presser: str | None = None  # who made the latest press, while no other action came

    # ---- input -----------------------------------------------------------------------------

    def baseline(self, status: Mapping[str, Any] | None) -> None:
        """The game as it is when listening starts (or starts again): nothing is said about it."""
        self._status = status
        self._presser = None

    def game_action(self, action: Mapping[str, Any] | None, status: Mapping[str, Any] | None,
                    now: float) -> None:
        """A ``game/action`` event (``action`` None for an undo) and the game status after it."""
        before = self._status
        self._status = status
        kind = None if action is None else action.get("type")
        if kind == "press":  # the move of whoever's move it was; cards that come out late are theirs too
            self._presser = None if before is None else before.get("turn")
        presser = self._presser
        if kind in ("press", "cards") and presser is not None:
            cards = action.get("cards", 0)
            if cards:
                self._say(2, BURST, now, {"id": "voice_takes", "player": presser, "cards": cards})
            else:
                self._say(3, BURST, now, {"id": "voice_nothing", "player": presser})
        if status is not None:
            self._changes(before, status, now)

    def launcher_event(self, name: str, params: Mapping[str, Any], now: float) -> None:
        """A launcher event: only those a player must act on are said."""
        if name == "jammed":
            self._say(1, ALERT, now, {"id": "voice_jam"})
        elif name == "empty":
            self._say(1, ALERT, now, {"id": "voice_empty"})
        elif name == "halted":
            self._say(1, ALERT, now, {"id": "voice_halted"})
        elif name == "pending" and isinstance(params.get("pending"), Mapping):
            # What waits for a press and why, e.g. "the jam is cleared: press the button to go on".
            self._say(1, MOVE, now, dict(params["pending"]))
        elif name == "game/message" and (params.get("message") or {}).get("id") == "damage":
            self._say(1, ALERT, now, {"id": "voice_log_trouble"})  # a full disk, a damaged log: at once

    # ---- output ----------------------------------------------------------------------------

    def next(self, now: float) -> dict[str, Any] | None:
        """The message to say now, if any (:meth:`next_phrase`)."""
        phrase = self.next_phrase(now)
        return None if phrase is None else phrase.message

    def next_phrase(self, now: float) -> Phrase | None:
        """The phrase to say now, if any; phrases waiting longer than ``max_age`` are dropped."""
        self.waiting = [p for p in self.waiting if now - p.at <= self.max_age]
        if not self.waiting:
            return None
        alerts = [p for p in self.waiting if p.slot == ALERT]
        phrase = (alerts or self.waiting)[0]
        self.waiting.remove(phrase)
        return phrase

    def alert_waiting(self) -> bool:
        """Whether a jam, an empty hopper or a halt waits: it interrupts any other phrase."""
        return any(p.slot == ALERT for p in self.waiting)

    # ---- deciding ----------------------------------------------------------------------------

    def _say(self, level: int, slot: str, now: float, message: dict[str, Any]) -> None:
        if level > self.level:
            return
        waiting = [p for p in self.waiting if p.slot != slot]
        self.waiting = (waiting + [Phrase(message, now, slot)])[-MAX_WAITING:]

    def _changes(self, before: Mapping[str, Any] | None, status: Mapping[str, Any], now: float) -> None:
        """What the table must hear about the difference between two game statuses."""
        before = before or {}
        match = status.get("match") or {}
        if match.get("match_over") and not (before.get("match") or {}).get("match_over"):
            winner = match.get("winner")
            winners = winner if isinstance(winner, list) else [winner]
            self._say(1, ROUND, now, {"id": "match_winner", "winners": winners})
        elif status.get("round_over") and not (before.get("round_over")
                                               and before.get("round") == status.get("round")):
            self._say(1, ROUND, now, {"id": "voice_round_won", "player": status["winner"],
                                      "round": status["round"]})
        owed, chain = status.get("owed"), status.get("chain")
        old_chain = before.get("chain")
        if chain and chain["stacks"] and (old_chain is None or old_chain["hits"] != chain["hits"]
                                          or old_chain["target"] != chain["target"]):
            self._say(1, MOVE, now, {"id": "voice_mega_hit", "hits": chain["hits"],
                                     "player": chain["target"]})
        elif owed and _new_obligation(before.get("owed"), owed):
            self._say(1, MOVE, now, _press(owed))
        elif not owed and status.get("turn") and (status.get("turn") != before.get("turn")
                                                  or before.get("owed")):
            self._say(2, MOVE, now, {"id": "voice_turn", "player": status["turn"]})


def _new_obligation(old: Mapping[str, Any] | None, owed: Mapping[str, Any]) -> bool:
    """Whether ``owed`` is another obligation than ``old``, not ``old`` with a press done."""
    if old is None or old["player"] != owed["player"] or old["reason"] != owed["reason"]:
        return True
    if old["presses"] is None or owed["presses"] is None:
        return old["presses"] != owed["presses"]
    return owed["presses"] >= old["presses"]


def _press(owed: Mapping[str, Any]) -> dict[str, Any]:
    player, presses = owed["player"], owed["presses"]
    if presses is None:
        return {"id": "voice_press_until", "player": player}
    if presses == 2:
        return {"id": "voice_press_twice", "player": player}
    return {"id": "voice_press", "player": player, "presses": presses}


def likely_phrases(players: list[str]) -> list[dict[str, Any]]:
    """The phrases a round of these players will surely need, to render before they are said."""
    phrases: list[dict[str, Any]] = [{"id": "voice_jam"}, {"id": "voice_empty"}, {"id": "voice_halted"}]
    for player in players:
        phrases += [{"id": "voice_turn", "player": player},
                    {"id": "voice_press", "player": player, "presses": 1},
                    {"id": "voice_press_twice", "player": player}]
        phrases += [{"id": "voice_takes", "player": player, "cards": n} for n in range(1, 5)]
    return phrases
