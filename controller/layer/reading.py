"""The reading side of the game layer's service: the match's log, its scores, the history of every
match (with the summaries kept in the log), and how many cards a refill of the hopper holds.
"""

from __future__ import annotations

import json

import asyncio
import weakref
from typing import Any

from firmware.daemon.registry import Encoded
from firmware.errors import ApiError, NotFound

from controller.log.store import Store
from controller.match import table
from controller.match.scores import scores, scores_csv
from controller.match.stats import OneReplay
from controller.rules import game
from controller.rules.rulesets import deck_size
from controller.rules.state import HAND
from controller.text import advice, wording

# The longest page of game/log one request may ask for (the whole log: no limit).
LOG_PAGE_MAX = 1000


class Reading:
    """Part of :class:`~controller.layer.service.GameService`: what the table reads, changing nothing."""

    def refill_count(self) -> dict[str, int | None]:
        """``game/refill-count``: the cards a refill puts in the hopper, as far as the game knows.

        The whole deck but the players' hands and the card on the discard pile. A hand is the 7
        dealt, plus every card its player received this round, less one card per play: a Discard
        All lays more than one, so hands are over-counted and the refill under-counted, and the
        reload advice comes early rather than late. None without a running round or a known deck.
        While the round's opening deal waits for its deck (``load_deck``), the whole deck: the table
        loads it all, and the refill gesture (the lid closed) must not count it short of the deck.
        """
        current = self.table
        if self.match_id is None or current is None or current.match_over:
            return {"cards": None}
        if self._deck_wait is not None:
            return {"cards": self._deck_wait}
        ruleset = current.game.ruleset
        size = deck_size(game.ruleset(ruleset))
        if size is None:
            return {"cards": None}
        hands = dict.fromkeys(current.game.players, HAND)
        with self._reading() as store:
            for row in store.actions(self.match_id):
                action = row.action
                if action["type"] == "end_round":
                    hands = dict.fromkeys(hands, HAND)
                elif action.get("by") in hands and action["type"] in ("press", "cards"):
                    hands[action["by"]] += int(action.get("cards") or 0)
                elif action.get("by") in hands and action["type"] == "play":
                    hands[action["by"]] = max(0, hands[action["by"]] - 1)
        return {"cards": max(0, size - sum(hands.values()) - 1)}

    def log_of_match(self, limit: int | None = None, before: int | None = None,
                     words: bool = False) -> dict[str, Any]:
        """``game/log``: the current match and its actions, undone ones included, in log order.
        ``limit``: only its last so many (of those before seq ``before``), a page at a time; ``more``
        says whether older ones come before the page (ask again with ``before`` its first seq).
        Without ``limit`` the whole log, which grows with the match: a reader asking often (the
        page's /api/state) asks for a page (a 2,000-action log is 262 KB)."""
        with self._reading() as store:  # a log that is not open says why before "no game"
            if self.match_id is None:
                raise NotFound(advice.no_game(self.log_path))
            if limit is None:
                rows = store.actions(self.match_id, include_undone=True)
                rows = [row for row in rows if before is None or row.seq < before]
                more = False
            else:
                rows, more = store.last_actions(self.match_id, limit, before)
            # ``words``: each action in words too (#40: for a reader who shows the log to people;
            # launcherctl game log says them itself); the ids stay in the actions.
            shown = _in_words if words else (lambda record: record)
            return {"match": store.match(self.match_id).to_json(), "actions": [shown(r.to_json()) for r in rows],
                    "more": more}

    def scores(self, csv: bool) -> dict[str, Any]:
        """``game/scores``: the counter's view of the match, or its CSV table."""
        match = self._table().match
        return {"csv": scores_csv(match)} if csv else scores(match)

    async def history_in_turns(self, limit: int | None = None, before: int | None = None) -> Encoded:
        """``game/history``, as JSON text: every match, oldest first, with its rounds and totals; the
        table's own is ``current``. ``limit``: only the last so many (of those before match
        ``before``), for a page at a time.

        A match's rounds and totals are kept in the log until its actions change
        (``Store.keep_figures``), and every match's line but the table's is kept in memory, with its
        JSON text, until one of them changes (:class:`_Lines`): a reading after a press builds and
        encodes the table's line alone (encoding every line again was 2.4 of the 2.6 ms a reading of
        250 matches cost the game thread, time the motor's thread waits for the GIL at each turn).
        The matches whose summary is not kept yet (a log written by an older version) are first
        replayed one at a time, the game loop answering between them (a 100,000-action log took
        longer than the host waits for a heartbeat). One replay of every missing summary at a time:
        the readings that come meanwhile (the start's, a page's, another client's) wait for it
        instead of replaying the same matches beside it."""
        await asyncio.shield(self._keeping_summaries.of(self.store, self.match_id, self._keep_missing_summaries))
        with self._reading() as store:
            lines = _lines(store, self.match_id)
            return Encoded("[" + ",".join(
                lines.text(match_id) or encoded(self._history_line(store, lines, match_id))
                for match_id in lines.shown(limit, before)) + "]")

    def _history_line(self, store: Store, lines: "_Lines", match_id: int) -> dict[str, Any]:
        if match_id != self.match_id:
            entry = lines.entries.get(match_id)
            # One that cannot be replayed is said again, in the language of each request.
            return entry if entry is not None else _line(store, store.match(match_id))
        entry = _line(store, store.match(match_id), None if self.table is None else _summary(self.table))
        entry["current"] = True
        return entry

    async def _keep_missing_summaries(self) -> None:
        with self._reading() as store:
            records = store.matches()
            missing = set(record.id for record in records) - set(store.figures("summary", [r.id for r in records]))
        for match_id in sorted(missing - {self.match_id}):
            with self._reading() as store:
                _replayed_summary(store, match_id)
            await asyncio.sleep(0)


class _Lines:
    """game/history's line of every match but the table's (``current``), as the log was at
    ``version`` (``Store.others_version``); ``order``: every match's id, the table's included."""

    def __init__(self, store: Store, current: int | None) -> None:
        self.current = current
        self.version = store.others_version(current)
        records = store.matches()
        self.order = [record.id for record in records]
        self.entries: dict[int, dict[str, Any]] = {}
        kept = store.figures("summary", self.order)
        for record in records:
            if record.id != current:
                entry = _line(store, record, kept.get(record.id))
                if "error" not in entry:
                    self.entries[record.id] = entry
        self._texts: dict[int, Encoded] = {}

    def shown(self, limit: int | None, before: int | None) -> list[int]:
        """The matches a page of game/history shows: the last ``limit`` of those before ``before``."""
        ids = [match_id for match_id in self.order if before is None or match_id < before]
        return ids[-limit:] if limit is not None else ids

    def text(self, match_id: int) -> Encoded | None:
        """A kept line's JSON text (encoded once), None for the table's line or one not kept."""
        text = self._texts.get(match_id)
        if text is None and match_id in self.entries:
            text = self._texts[match_id] = encoded(self.entries[match_id])
        return text


def _lines(store: Store, current: int | None) -> _Lines:
    lines = _LINES.get(store)
    if lines is None or lines.current != current or lines.version != store.others_version(current):
        lines = _LINES[store] = _Lines(store, current)
    return lines


_LINES: "weakref.WeakKeyDictionary[Store, _Lines]" = weakref.WeakKeyDictionary()


def _line(store: Store, record: Any, summary: dict[str, Any] | None = None) -> dict[str, Any]:
    """One match's line: its record, ``current`` false, and its summary (``summary``, or the one
    kept in the log, or replayed and kept)."""
    entry = {**record.to_json(), "current": False}
    if summary is None:
        kept = store.figures("summary", [record.id])
        summary = kept[record.id] if record.id in kept else _replayed_summary(store, record.id)
    entry.update(summary)
    return entry


def _replayed_summary(store: Store, match_id: int) -> dict[str, Any]:
    """A match's summary from its actions, kept in the log; an error's words when it cannot be
    replayed (not kept: the reason is said in the language of each request)."""
    try:
        summary = _summary(table.replay(r.action for r in store.actions(match_id)))
    except ApiError as exc:
        return {"rounds": None, "totals": None, "error": exc.message}
    store.keep_figures(match_id, "summary", summary)
    return summary


def _summary(replayed: table.Table) -> dict[str, Any]:
    """A match's line in game/history: how many rounds, and the totals."""
    return {"rounds": len(replayed.match.rounds), "totals": scores(replayed.match)["totals"]}




def encoded(value: Any) -> Encoded:
    """``value``'s JSON text, sent as it is (a kept history line is encoded once)."""
    return value if isinstance(value, Encoded) else Encoded(json.dumps(value, separators=(",", ":"), default=str))


def _in_words(record: dict[str, Any]) -> dict[str, Any]:
    """A log record with its action in words (#40): ``said`` (the message) and ``text`` (in the
    request's language) beside the action, whose ids stay as they are."""
    said = advice.action_said(record["action"])
    return {**record, "said": said, "text": wording.text(said)}
