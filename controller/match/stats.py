"""Match statistics from the game log (issue #12): what the table did, told afterwards.

:func:`match_stats` is a pure function over one match's logged actions (the rows of ``game/log``:
``seq``, ``ts``, ``action``, ``undone``); :func:`history_stats` adds matches up by player name. The
actions are replayed through ``controller.match.table`` step by step, so the figures follow the same rules
as the game: who pressed is whose move it was, a Hit's victim is the one the flow made owe it.

Definitions, where the words alone leave a choice:

- presses and cards taken: every press of a player, in every round; cards that fell out late count
  for the press they belong to.
- biggest burst: the most cards one press gave (late cards included).
- longest dry streak: a player's most presses in a row that gave nothing (a streak runs across
  rounds); ``launcher`` is the same for every press, whoever made it.
- hits sent: the presses a player's attack cards laid on others (a Hit card its hits, Wild All Hit
  one per victim, Wild Hit-Fire one); stacking on a Mega Hit sends the card's own hits.
- hits received: the presses a player had to take from attack cards, counted when they start
  pressing (a stacked Mega Hit counts only for whoever finally presses it); Hit-Fire counts as one.
- longest Mega Hit chain: the most hits a chain reached, with its cards and who pressed it.
- time per round: from the deal (the ``new`` action, or the previous ``end_round``) to the
  round's ``end_round``; the round being played is not timed.

``register_stats(daemon, service)`` adds ``game/stats``; ``launcherctl game stats`` prints it with
:func:`format_stats`.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sqlite3
import weakref
from datetime import datetime
from typing import Any, Iterable

from firmware.errors import ApiError, NotFound, Unavailable
from firmware.i18n import message

from controller.match import table
from controller.rules import game
from controller.rules.state import GameState, Owed, replaying, turn
from controller.text.wording import text

ATTACKS = frozenset({"hit", "attack", "mega-hit", "all-hit", "hit-fire", "last-card-attack"})


def _player() -> dict[str, Any]:
    return {"presses": 0, "cards": 0, "biggest_burst": 0, "longest_dry_streak": 0,
            "hits_sent": 0, "hits_received": 0, "rounds_won": 0}


def _seconds(start: str, end: str) -> float:
    return round((datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds(), 3)


class _Tally:
    """The running figures of one match while its actions are replayed.

    With ``journal``, every change to ``bursts`` (the one figure that grows with the match) is
    journalled, so that :meth:`mark` is cheap (the table is immutable, the rest is small) and
    :meth:`restore` goes back to a mark: how an undone action's figures go without a replay of
    the whole match.
    """

    def __init__(self, first: dict[str, Any], ts: str, journal: bool = False):
        self.journal: list[tuple[int | None, int | None]] | None = [] if journal else None
        with replaying():  # logged actions, accepted when they were logged (as table.replay does)
            self.table, _ = table.new_table(first)
        self.ruleset_id = self.table.game.ruleset
        self.hits = game.ruleset(self.ruleset_id).hits  # the Attack editions' only: none elsewhere
        self.players = {name: _player() for name in self.table.match.players}
        self.dry = dict.fromkeys(self.players, 0)
        self.launcher_dry = 0
        self.longest_launcher_dry = 0
        # press_id -> (presser, cards so far), packed in one small int (cards * seats + seat): a
        # match of 100,000 presses keeps one entry each, and a tuple each took 5 MB more.
        self._names = list(self.players)
        self._seats = {name: seat for seat, name in enumerate(self._names)}
        self.bursts: dict[int | None, int] = {}
        self.pending: list[tuple[Owed, str]] = []  # attack obligations not yet pressed
        self.chain: dict[str, Any] | None = None
        self.round_started = ts
        self.rounds: list[dict[str, Any]] = []

    def feed(self, action: dict[str, Any], ts: str) -> None:
        before = self.table.game
        kind = action.get("type")
        presser = action.get("by") or turn(before)
        with replaying():
            self.table, _ = table.apply(self.table, action)
        after = self.table.game
        if kind == "press":
            self._press(before, presser, action)
        elif kind == "cards":
            self._late(presser, action)
        elif kind in ("play", "first_attack"):
            self._attack(before, after, presser, action.get("card", "wild-attack"))
        elif kind == "end_round":
            self._round_over(before, action, ts)
        self._follow_chain(after)

    def _press(self, before: GameState, presser: str, action: dict[str, Any]) -> None:
        cards = action["cards"]
        figures = self.players[presser]
        figures["presses"] += 1
        figures["cards"] += cards
        self._burst(action.get("press_id"), presser, cards)
        figures["biggest_burst"] = max(figures["biggest_burst"], cards)
        self.dry[presser] = 0 if cards else self.dry[presser] + 1
        figures["longest_dry_streak"] = max(figures["longest_dry_streak"], self.dry[presser])
        self.launcher_dry = 0 if cards else self.launcher_dry + 1
        self.longest_launcher_dry = max(self.longest_launcher_dry, self.launcher_dry)
        front = before.queue[0] if before.queue else None
        for owed, victim in self.pending:
            if owed is front:
                figures_of = self.players[victim]
                figures_of["hits_received"] += 1 if owed.presses is None else owed.presses
                self.pending.remove((owed, victim))
                break

    def _burst(self, press_id: int | None, presser: str, cards: int) -> None:
        if self.journal is not None:
            self.journal.append((press_id, self.bursts.get(press_id)))
        self.bursts[press_id] = cards * len(self._names) + self._seats[presser]

    def _burst_of(self, press_id: int | None, presser: str) -> tuple[str, int]:
        packed = self.bursts.get(press_id)
        if packed is None:
            return presser, 0
        cards, seat = divmod(packed, len(self._names))
        return self._names[seat], cards

    def mark(self) -> dict[str, Any]:
        """What :meth:`restore` needs to come back to the figures as they are now."""
        return {"table": self.table, "players": {name: dict(f) for name, f in self.players.items()},
                "dry": dict(self.dry), "launcher_dry": self.launcher_dry,
                "longest_launcher_dry": self.longest_launcher_dry, "pending": list(self.pending),
                "chain": None if self.chain is None else dict(self.chain),
                "round_started": self.round_started, "rounds": list(self.rounds),
                "journal": len(self.journal) if self.journal is not None else None}

    def restore(self, mark: dict[str, Any]) -> None:
        """Back to the figures of ``mark`` (the latest of the marks still to come back to)."""
        while len(self.journal) > mark["journal"]:
            press_id, previous = self.journal.pop()
            if previous is None:
                del self.bursts[press_id]
            else:
                self.bursts[press_id] = previous
        self.table, self.launcher_dry = mark["table"], mark["launcher_dry"]
        self.longest_launcher_dry, self.round_started = mark["longest_launcher_dry"], mark["round_started"]
        self.players = {name: dict(f) for name, f in mark["players"].items()}
        self.dry, self.pending, self.rounds = dict(mark["dry"]), list(mark["pending"]), list(mark["rounds"])
        self.chain = None if mark["chain"] is None else dict(mark["chain"])

    def forget_journal(self, length: int) -> int:
        """Drop the first ``length`` journal entries (no mark left goes back that far)."""
        del self.journal[:length]
        return length

    def _late(self, presser: str, action: dict[str, Any]) -> None:
        cards = action["cards"]
        figures = self.players[presser]
        figures["cards"] += cards
        # A press first counted dry was not: the streaks it seemed to extend end with it.
        self.dry[presser] = 0
        self.launcher_dry = 0
        owner, so_far = self._burst_of(action.get("press_id"), presser)
        self._burst(action.get("press_id"), owner, so_far + cards)
        figures["biggest_burst"] = max(figures["biggest_burst"], so_far + cards)

    def _attack(self, before: GameState, after: GameState, by: str, card: str) -> None:
        fresh = [o for o in after.queue if o.reason in ATTACKS and not any(o is b for b in before.queue)]
        if not fresh:
            return
        if card in self.hits:
            sent = self.hits[card]
        else:  # Wild All Hit: one per victim; Hit-Fire: one "until cards come out"
            sent = len(fresh)
        self.players[by]["hits_sent"] += sent
        # A Mega Hit stacked on replaces the obligation: its victim passed it on, never pressed it.
        self.pending = [(o, v) for o, v in self.pending if any(o is a for a in after.queue)]
        self.pending += [(o, after.players[o.seat]) for o in fresh]

    def _follow_chain(self, state: GameState) -> None:
        for owed in state.queue:
            if owed.chain is not None and owed.chain.stacks > 0:
                if self.chain is None or owed.chain.hits > self.chain["hits"]:
                    self.chain = {"hits": owed.chain.hits, "cards": owed.chain.stacks + 1,
                                  "started_by": state.players[owed.chain.started_by],
                                  "pressed_by": state.players[owed.seat],
                                  "round": state.round_no}

    def _round_over(self, before: GameState, action: dict[str, Any], ts: str) -> None:
        winner = next((p for p in self.players if p.casefold() == str(action["winner"]).casefold()),
                      action["winner"])
        if winner in self.players:
            self.players[winner]["rounds_won"] += 1
        self.rounds.append({"round": before.round_no, "winner": winner,
                            "seconds": _seconds(self.round_started, ts)})
        self.round_started = ts
        self.pending = []

    def result(self) -> dict[str, Any]:
        biggest = max(((name, f["biggest_burst"]) for name, f in self.players.items()),
                      key=lambda item: item[1], default=(None, 0))
        driest = max(((name, f["longest_dry_streak"]) for name, f in self.players.items()),
                     key=lambda item: item[1], default=(None, 0))
        return {
            "ruleset": self.ruleset_id,
            "players": {name: dict(figures) for name, figures in self.players.items()},
            "biggest_burst": {"player": biggest[0], "cards": biggest[1]} if biggest[1] else None,
            "longest_dry_streak": {"player": driest[0], "presses": driest[1]} if driest[1] else None,
            "launcher_longest_dry_streak": self.longest_launcher_dry,
            "longest_mega_hit": None if self.chain is None else dict(self.chain),
            "rounds": [dict(played) for played in self.rounds],
            "round_in_play": None if self.table.match_over else self.table.game.round_no,
            "match_over": self.table.match_over,
        }


def match_stats(records: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """The statistics of one match from its log rows (``game/log``'s ``actions``); undone rows are skipped."""
    live = [r for r in records if not r.get("undone")]
    if not live:
        raise NotFound("an empty log: a match starts with a 'new' action")
    tally = _Tally(live[0]["action"], live[0]["ts"])
    for record in live[1:]:
        tally.feed(record["action"], record["ts"])
    return tally.result()


def history_stats(matches: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Every match's statistics added up by player name (``matches``: ``match_stats`` results with
    ``id`` and ``winner``); maxima stay maxima, counts add up."""
    totals = _Totals()
    for match in matches:
        totals.add(match)
    return totals.result()


class _Totals:
    """:func:`history_stats` one match at a time: the figures of every match but the table's are
    added up once and copied for each reading, the table's own added to the copy."""

    def __init__(self) -> None:
        self.players: dict[str, dict[str, Any]] = {}
        self.matches = 0
        self.rounds = 0
        self.round_ms = 0  # whole milliseconds (a round's seconds have three decimals): exact in any order

    def add(self, match: dict[str, Any]) -> None:
        self.matches += 1
        winners = match.get("winner")
        winners = winners if isinstance(winners, list) else [winners] if winners else []
        for name, figures in match["players"].items():
            total = self.players.setdefault(name, {**_player(), "matches": 0, "matches_won": 0})
            total["matches"] += 1
            total["matches_won"] += name in winners
            for key, value in figures.items():
                if key in ("biggest_burst", "longest_dry_streak"):
                    total[key] = max(total[key], value)
                else:
                    total[key] += value
        self.rounds += len(match["rounds"])
        self.round_ms += sum(round(r["seconds"] * 1000) for r in match["rounds"])

    def copy(self) -> "_Totals":
        copied = _Totals()
        copied.players = {name: dict(figures) for name, figures in self.players.items()}
        copied.matches, copied.rounds, copied.round_ms = self.matches, self.rounds, self.round_ms
        return copied

    def result(self) -> dict[str, Any]:
        return {"matches": self.matches, "players": self.players, "rounds": self.rounds,
                "average_round_seconds": round(self.round_ms / 1000 / self.rounds, 1) if self.rounds else None}


# ---- in the daemon: game/stats --------------------------------------------------------------


def _winners(text: str | None) -> list[str]:
    return text.split(" and ") if text else []


def stats_of(store: Any, current: int | None, match_id: int | None = None) -> dict[str, Any]:
    """``game/stats``: one match (the table's by default) and the whole history, from the store.

    Each finished or set-aside match's figures are kept in the log (``Store.keep_figures``) until
    its actions change, so only the matches changed since the last reading are replayed, not every
    match ever played; in memory, every match but the table's is added up once
    (:class:`_Others`), until one of them changes. The table's own match changes at every action:
    its figures are kept up in memory (:class:`_Live`), fed only the actions logged since the
    last reading. A press therefore costs a reading one action, at any log length.
    """
    others = _others(store, current)
    totals = others.totals.copy()
    chosen = others.figures.get(match_id if match_id is not None else current)
    if current is not None:
        # Kept in the log while its actions stay as they were (a match just resumed), else kept up.
        figures = store.figures("stats", [current]).get(current) or _live(store, current).figures(store)
        if figures is not None:
            _describe(figures, store.match(current))
            totals.add(figures)
            chosen = figures if match_id in (None, current) else chosen
    if match_id is not None and chosen is None:
        raise NotFound(message("no_match_stats", match=match_id))
    return {"match_id": None if chosen is None else chosen["id"],
            "match": None if chosen is None else dict(chosen), "history": totals.result()}


def _describe(figures: dict[str, Any], record: Any) -> dict[str, Any]:
    figures.update(id=record.id, winner=_winners(record.winner), started=record.started,
                   finished=record.finished)
    return figures


class _Others:
    """Every match's figures but the table's (``current``), added up, as the log was at
    ``version`` (``Store.others_version``)."""

    def __init__(self, store: Any, current: int | None) -> None:
        self.current = current
        self.version = store.others_version(current)
        self.totals = _Totals()
        self.figures: dict[int, dict[str, Any]] = {}
        records = [record for record in store.matches() if record.id != current]
        kept = store.figures("stats", [record.id for record in records])
        lives = _lives(store)
        for record in records:
            if record.id in kept:
                figures = kept[record.id]
            elif record.id in lives:  # the table's match until now: what it has, kept on disk
                figures = lives.pop(record.id).figures(store)
                store.keep_figures(record.id, "stats", figures)
            else:
                figures = _replayed_stats(store, record.id)
                store.keep_figures(record.id, "stats", figures)
            if figures is None:
                continue  # a match this version cannot replay has no figures; game/history says why
            self.figures[record.id] = _describe(figures, record)
            self.totals.add(figures)


def _others(store: Any, current: int | None) -> _Others:
    others = _OTHERS.get(store)
    if others is None or others.current != current or others.version != store.others_version(current):
        others = _OTHERS[store] = _Others(store, current)
    return others


def _replayed_stats(store: Any, match_id: int) -> dict[str, Any] | None:
    """A match's figures from its actions; None when this version cannot replay them."""
    try:
        return match_stats([r.to_json() for r in store.actions(match_id)])
    except ApiError:
        return None


# ---- the table's match, kept up as its actions come in -------------------------------------

MARK_EVERY = 256  # live actions between two marks: an undo replays at most this many (and what came after)
MARKS = 16  # marks kept: undos reaching back further than MARKS * MARK_EVERY actions replay the match
log = logging.getLogger("launcherd.game")
_CHUNK = 2000  # actions fed per turn of the game loop while catching up (keep_missing_figures)


class _Live:
    """One match's figures, kept up to date with its log by feeding only what is new.

    The log only ever changes in two ways (``controller.log.store``): an action is appended (a higher
    ``seq``), or the last live action is marked undone, which nothing makes live again. So the
    live actions up to the last one fed are always a prefix of those fed, and the last live one
    among them (one indexed look-up) says how many were undone: the figures go back to the latest
    mark at or before it and the live actions after the mark are fed again. Undos reaching back
    past every mark kept, or a match that cannot be replayed, start again from the ``new`` action.
    """

    def __init__(self, match_id: int) -> None:
        self.match_id = match_id
        self.tally: _Tally | None = None
        self.fed = 0  # live actions fed, the opening one included
        self.last_seq = 0  # the seq of the last one fed
        self.marks: list[tuple[int, int, dict[str, Any]]] = []  # (fed, last_seq, _Tally.mark())
        self.unreplayable = False

    def catch_up(self, store: Any, limit: int | None = None) -> bool:
        """Feed the actions logged since the last call (at most ``limit``); True when up to date."""
        db = store._db  # the store's own reading connection, on this (the game layer's) thread
        if self.tally is not None:
            row = db.execute("SELECT MAX(seq) FROM actions WHERE match_id = ? AND undone = 0 AND seq <= ?",
                             (self.match_id, self.last_seq)).fetchone()
            if row[0] != self.last_seq:
                self._rewind(row[0] or 0)
        query = ("SELECT seq, ts, action FROM actions WHERE match_id = ? AND undone = 0 AND seq > ?"
                 " ORDER BY seq")
        args: tuple = (self.match_id, self.last_seq)
        if limit is not None:
            query += " LIMIT ?"
            args += (limit,)
        rows = db.execute(query, args).fetchall()
        try:
            for seq, ts, text in rows:
                action = json.loads(text)
                if self.tally is None:
                    self.tally = _Tally(action, ts, journal=True)
                else:
                    self.tally.feed(action, ts)
                self.fed += 1
                self.last_seq = seq
                if self.fed % MARK_EVERY == 0:
                    self._mark()
        except ApiError:
            self.unreplayable = True
            self.last_seq = rows[-1][0]
        return limit is None or len(rows) < limit

    def figures(self, store: Any) -> dict[str, Any] | None:
        """The match's figures as its log says now (what :func:`match_stats` would replay)."""
        self.catch_up(store)
        if self.unreplayable or self.tally is None:
            return None
        return self.tally.result()

    def _mark(self) -> None:
        self.marks.append((self.fed, self.last_seq, self.tally.mark()))
        if len(self.marks) > MARKS:
            self.marks.pop(0)
            dropped = self.tally.forget_journal(self.marks[0][2]["journal"])
            self.marks = [(fed, seq, {**mark, "journal": mark["journal"] - dropped})
                          for fed, seq, mark in self.marks]

    def _rewind(self, last_live: int) -> None:
        """The actions after ``last_live`` were undone: back to the latest mark at or before it."""
        while self.marks and self.marks[-1][1] > last_live:
            self.marks.pop()
        if not self.marks or self.unreplayable:
            self.__init__(self.match_id)  # type: ignore[misc]
            return
        self.fed, self.last_seq, mark = self.marks[-1]
        self.tally.restore(mark)


_LIVES: "weakref.WeakKeyDictionary[Any, dict[int, _Live]]" = weakref.WeakKeyDictionary()
_OTHERS: "weakref.WeakKeyDictionary[Any, _Others]" = weakref.WeakKeyDictionary()


def _lives(store: Any) -> dict[int, _Live]:
    """The matches kept up in memory for ``store`` (a reopened log starts afresh)."""
    return _LIVES.setdefault(store, {})


def _live(store: Any, match_id: int) -> _Live:
    lives = _lives(store)
    if match_id not in lives:
        lives[match_id] = _Live(match_id)
    return lives[match_id]


class OneReplay:
    """One task replaying what the log lacks, shared by the readings that come while it runs, and
    not run again while the matches it covered stay as they were: the check alone reads and
    decodes every match's kept figures (8 ms at 250 matches), too much for every reading after a
    press."""

    def __init__(self) -> None:
        self._key: tuple | None = None
        self._task: asyncio.Future | None = None

    def of(self, store: Any, current: int | None, replay: Any) -> asyncio.Future:
        """The task for ``store`` with ``current`` the table's match: the running or finished one,
        or ``replay()`` started afresh (after a change, a failure or a cancel). A change while one
        runs starts another beside it: both keep the same figures, and the later one's check is
        then the one that stands, so a reading after it does not check again."""
        key = (store, current, None if store is None else store.others_version(current))
        task = self._task
        if (task is None or self._key != key
                or task.done() and (task.cancelled() or task.exception() is not None)):
            self._key, self._task = key, asyncio.ensure_future(replay())
        return self._task


async def _replayed_in_turns(store: Any, match_id: int) -> dict[str, Any] | None:
    """:func:`_replayed_stats`, :data:`_CHUNK` actions per turn of the game loop: one long match
    (100,000 actions: seconds) must not keep the loop from its heartbeat."""
    live = _Live(match_id)
    while not live.catch_up(store, _CHUNK):
        await asyncio.sleep(0)
    return live.figures(store)


async def keep_missing_figures(store: Any, current: int | None = None) -> None:
    """Replay the matches whose figures are not kept yet (a log written by an older version, a
    match set aside before its figures were read), a slice of one at a time, and catch the
    table's match up (``current``), the game loop answering between the slices: all at once, a
    100,000-action log took longer than the host waits for the loop's heartbeat, and the layer
    was restarted mid-way."""
    records = store.matches()
    kept = store.figures("stats", [record.id for record in records])
    lives = _lives(store)
    for record in records:
        if record.id not in kept and record.id != current and record.id not in lives:
            store.keep_figures(record.id, "stats", await _replayed_in_turns(store, record.id))
            await asyncio.sleep(0)
    if current is not None and current not in kept:
        live = _live(store, current)
        while not live.catch_up(store, _CHUNK):
            await asyncio.sleep(0)


def register_stats(daemon: Any, service: Any) -> None:
    """Add ``game/stats`` to the daemon's API, reading the game service's log, and start keeping
    the figures the log lacks (a log written by an older version) at once, on the game loop."""
    keeping = OneReplay()

    def kept() -> asyncio.Future:
        return keeping.of(service.store, service.match_id,
                          lambda: keep_missing_figures(service.store, service.match_id))

    async def handler(params: dict[str, Any]) -> dict[str, Any]:
        if service.store is None:
            raise Unavailable(message("log_not_open", path=str(service.log_path)))
        try:
            await asyncio.shield(kept())  # the readers and the start's task share one replay
            return stats_of(service.store, service.match_id, params["match"])
        except sqlite3.DatabaseError as exc:
            raise Unavailable(message("log_unreadable", reason=str(exc))) from None

    async def keep_at_start() -> None:
        """Replay what the log lacks before anyone asks: the first reading after a start with a
        long log written by an older version took 4 s (100,000 actions); a reading then waits for
        this same replay, not for one of its own."""
        try:
            if service.store is not None:
                started = asyncio.get_running_loop().time()
                await kept()
                await service.history_in_turns()
                log.info("game: the log's statistics and history are ready (%.1f s)",
                         asyncio.get_running_loop().time() - started)
        except (ApiError, sqlite3.Error) as exc:  # a damaged log, or one closed meanwhile
            log.info("game: the log's figures are kept at the first reading instead: %s", exc)

    daemon.api.register("game/stats", handler, {"match": (int, None)},
                        doc="statistics of a match (default: the table's) and of every match played",
                        version=lambda: log_version(service))
    starting = asyncio.ensure_future(keep_at_start())
    daemon.on_close(starting.cancel)


def log_version(service: Any) -> tuple[int | None, int | None, str | None]:
    """What the log's readings (statistics, history) are computed from: the log as written, the
    table's match, and the log's damage (a repair reopens it)."""
    store, damage = service.store, service.damage
    return (None if store is None else store.version, service.match_id,
            None if damage is None else damage.kind)


# ---- launcherctl game stats -----------------------------------------------------------------


def format_stats(result: dict[str, Any]) -> str:
    """``launcherctl game stats``: a table per player for the match, then the history, in the
    language launcherctl speaks (#40: its headings and lines from the catalogue, the ruleset by its
    box); ``--json`` keeps the figures as they came."""
    lines = []
    match = result.get("match")
    columns = (("label_presses", "presses"), ("stats_col_cards", "cards"), ("stats_col_burst", "biggest_burst"),
               ("stats_col_dry", "longest_dry_streak"), ("stats_col_sent", "hits_sent"),
               ("stats_col_received", "hits_received"), ("stats_col_won", "rounds_won"))
    history_columns = (("stats_col_matches", "matches"), ("stats_col_matches_won", "matches_won"))

    def figure_rows(players: dict[str, dict[str, Any]], shown: tuple[tuple[str, str], ...]) -> list[str]:
        player = text({"id": "label_player"})
        width = max([6, len(player), *(len(name) for name in players)])
        heads = [text({"id": head}) for head, _ in shown]
        widths = [max(7, len(head)) for head in heads]
        out = [f"{player:<{width}} " + " ".join(f"{h:>{w}}" for h, w in zip(heads, widths))]
        for name, figures in players.items():
            out.append(f"{name:<{width}} " + " ".join(f"{figures[key]:>{w}}" for (_, key), w in zip(shown, widths)))
        return out

    if match is None:
        lines.append(text({"id": "stats_no_match"}))
    else:
        lines.append(text(message("stats_match_head", match=result["match_id"], ruleset=match["ruleset"])))
        lines += figure_rows(match["players"], columns)
        burst, dry, chain = match["biggest_burst"], match["longest_dry_streak"], match["longest_mega_hit"]
        if burst:
            lines.append(text(message("stats_biggest_burst", player=burst["player"], cards=burst["cards"])))
        if dry:
            lines.append(text(message("stats_longest_dry", player=dry["player"], presses=dry["presses"])))
        if chain:
            lines.append(text(message("stats_longest_mega_hit", hits=chain["hits"], cards=chain["cards"],
                                      started_by=chain["started_by"], pressed_by=chain["pressed_by"])))
        for played in match["rounds"]:
            minutes, seconds = divmod(int(played["seconds"]), 60)
            lines.append(text(message("stats_round", round=played["round"], winner=str(played["winner"]),
                                      time=f"{minutes}:{seconds:02d}")))
    history = result["history"]
    lines.append(text(message("stats_history", matches=message("stats_n_matches", count=history["matches"]),
                              rounds=message("stats_n_rounds", count=history["rounds"]))))
    if history["players"]:
        lines += figure_rows(history["players"], columns + history_columns)
    if match is not None or history["players"]:
        lines.append(text({"id": "stats_columns"}))
    return "\n".join(lines)
