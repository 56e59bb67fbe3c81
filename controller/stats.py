"""Match statistics from the game log (issue #12): what the table did, told afterwards.

:func:`match_stats` is a pure function over one match's logged actions (the rows of ``game/log``:
``seq``, ``ts``, ``action``, ``undone``); :func:`history_stats` adds matches up by player name. The
actions are replayed through ``controller.table`` step by step, so the figures follow the same rules
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

``register_stats(daemon, service)`` adds ``game/stats``; ``add_cli(subparsers, parents)`` adds
``launcherctl game stats``.
"""

from __future__ import annotations

import argparse
import asyncio
import sqlite3
from datetime import datetime
from typing import Any, Iterable

from firmware.errors import ApiError, NotFound, Unavailable
from firmware.i18n import message

from . import game as games
from . import rulesets
from . import table as tables

ATTACKS = frozenset({"hit", "attack", "mega-hit", "all-hit", "hit-fire", "last-card-attack"})


def _player() -> dict[str, Any]:
    return {"presses": 0, "cards": 0, "biggest_burst": 0, "longest_dry_streak": 0,
            "hits_sent": 0, "hits_received": 0, "rounds_won": 0}


def _seconds(start: str, end: str) -> float:
    return round((datetime.fromisoformat(end) - datetime.fromisoformat(start)).total_seconds(), 3)


class _Tally:
    """The running figures of one match while its actions are replayed."""

    def __init__(self, first: dict[str, Any], ts: str):
        self.table, _ = tables.new_table(first)
        # Hits exist in the Attack rulesets only; blast and classic matches have no hits to send.
        ruleset_id = self.table.game.ruleset
        self.ruleset = rulesets.get(ruleset_id) if ruleset_id in rulesets.RULESETS else None
        self.ruleset_id = ruleset_id
        self.players = {name: _player() for name in self.table.match.players}
        self.dry = dict.fromkeys(self.players, 0)
        self.launcher_dry = 0
        self.longest_launcher_dry = 0
        self.bursts: dict[int | None, tuple[str, int]] = {}  # press_id -> (presser, cards so far)
        self.pending: list[tuple[games.Owed, str]] = []  # attack obligations not yet pressed
        self.chain: dict[str, Any] | None = None
        self.round_started = ts
        self.rounds: list[dict[str, Any]] = []

    def feed(self, action: dict[str, Any], ts: str) -> None:
        before = self.table.game
        kind = action.get("type")
        presser = action.get("by") or games.turn(before)
        self.table, _ = tables.apply(self.table, action)
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

    def _press(self, before: games.GameState, presser: str, action: dict[str, Any]) -> None:
        cards = action["cards"]
        figures = self.players[presser]
        figures["presses"] += 1
        figures["cards"] += cards
        self.bursts[action.get("press_id")] = (presser, cards)
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

    def _late(self, presser: str, action: dict[str, Any]) -> None:
        cards = action["cards"]
        figures = self.players[presser]
        figures["cards"] += cards
        # A press first counted dry was not: the streaks it seemed to extend end with it.
        self.dry[presser] = 0
        self.launcher_dry = 0
        owner, so_far = self.bursts.get(action.get("press_id"), (presser, 0))
        self.bursts[action.get("press_id")] = (owner, so_far + cards)
        figures["biggest_burst"] = max(figures["biggest_burst"], so_far + cards)

    def _attack(self, before: games.GameState, after: games.GameState, by: str, card: str) -> None:
        fresh = [o for o in after.queue if o.reason in ATTACKS and not any(o is b for b in before.queue)]
        if not fresh or self.ruleset is None:
            return
        if card in self.ruleset.hits:
            sent = self.ruleset.hits[card]
        else:  # Wild All Hit: one per victim; Hit-Fire: one "until cards come out"
            sent = len(fresh)
        self.players[by]["hits_sent"] += sent
        # A Mega Hit stacked on replaces the obligation: its victim passed it on, never pressed it.
        self.pending = [(o, v) for o, v in self.pending if any(o is a for a in after.queue)]
        self.pending += [(o, after.players[o.seat]) for o in fresh]

    def _follow_chain(self, state: games.GameState) -> None:
        for owed in state.queue:
            if owed.chain is not None and owed.chain.stacks > 0:
                if self.chain is None or owed.chain.hits > self.chain["hits"]:
                    self.chain = {"hits": owed.chain.hits, "cards": owed.chain.stacks + 1,
                                  "started_by": state.players[owed.chain.started_by],
                                  "pressed_by": state.players[owed.seat],
                                  "round": state.round_no}

    def _round_over(self, before: games.GameState, action: dict[str, Any], ts: str) -> None:
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
            "players": self.players,
            "biggest_burst": {"player": biggest[0], "cards": biggest[1]} if biggest[1] else None,
            "longest_dry_streak": {"player": driest[0], "presses": driest[1]} if driest[1] else None,
            "launcher_longest_dry_streak": self.longest_launcher_dry,
            "longest_mega_hit": self.chain,
            "rounds": self.rounds,
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
    players: dict[str, dict[str, Any]] = {}
    seconds: list[float] = []
    counted = 0
    for match in matches:
        counted += 1
        winners = match.get("winner")
        winners = winners if isinstance(winners, list) else [winners] if winners else []
        for name, figures in match["players"].items():
            total = players.setdefault(name, {**_player(), "matches": 0, "matches_won": 0})
            total["matches"] += 1
            total["matches_won"] += name in winners
            for key, value in figures.items():
                if key in ("biggest_burst", "longest_dry_streak"):
                    total[key] = max(total[key], value)
                else:
                    total[key] += value
        seconds += [r["seconds"] for r in match["rounds"]]
    return {"matches": counted, "players": players, "rounds": len(seconds),
            "average_round_seconds": round(sum(seconds) / len(seconds), 1) if seconds else None}


# ---- in the daemon: game/stats --------------------------------------------------------------


def _winners(text: str | None) -> list[str]:
    return text.split(" and ") if text else []


def stats_of(store: Any, current: int | None, match_id: int | None = None) -> dict[str, Any]:
    """``game/stats``: one match (the table's by default) and the whole history, from the store.

    Each match's figures are kept in the log (``Store.keep_figures``) until its actions change,
    so only the matches changed since the last reading are replayed, not every match ever played.
    """
    records = store.matches()
    kept = store.figures("stats", [record.id for record in records])
    matches = []
    chosen = None
    for record in records:
        if record.id in kept:
            figures = kept[record.id]
        else:
            figures = _replayed_stats(store, record.id)
            store.keep_figures(record.id, "stats", figures)
        if figures is None:
            continue  # a match this version cannot replay has no figures; game/history says why
        figures.update(id=record.id, winner=_winners(record.winner), started=record.started,
                       finished=record.finished)
        matches.append(figures)
        if record.id == (match_id if match_id is not None else current):
            chosen = figures
    if match_id is not None and chosen is None:
        raise NotFound(message("no_match_stats", match=match_id))
    return {"match_id": None if chosen is None else chosen["id"], "match": chosen,
            "history": history_stats(matches)}


def _replayed_stats(store: Any, match_id: int) -> dict[str, Any] | None:
    """A match's figures from its actions; None when this version cannot replay them."""
    try:
        return match_stats([r.to_json() for r in store.actions(match_id)])
    except ApiError:
        return None


async def keep_missing_figures(store: Any) -> None:
    """Replay the matches whose figures are not kept yet (a log written by an older version), one
    at a time, the game loop answering between them: all at once, a 100,000-action log took
    longer than the host waits for the loop's heartbeat, and the layer was restarted mid-way."""
    records = store.matches()
    kept = store.figures("stats", [record.id for record in records])
    for record in records:
        if record.id not in kept:
            store.keep_figures(record.id, "stats", _replayed_stats(store, record.id))
            await asyncio.sleep(0)


def register_stats(daemon: Any, service: Any) -> None:
    """Add ``game/stats`` to the daemon's API, reading the game service's log."""
    async def handler(params: dict[str, Any]) -> dict[str, Any]:
        if service.store is None:
            raise Unavailable(message("log_not_open", path=str(service.log_path)))
        try:
            await keep_missing_figures(service.store)
            return stats_of(service.store, service.match_id, params["match"])
        except sqlite3.DatabaseError as exc:
            raise Unavailable(message("log_unreadable", reason=str(exc))) from None

    daemon.api.register("game/stats", handler, {"match": (int, None)},
                        doc="statistics of a match (default: the table's) and of every match played")


# ---- launcherctl game stats -----------------------------------------------------------------


def format_stats(result: dict[str, Any]) -> str:
    """``launcherctl game stats``: a table per player for the match, then the history."""
    lines = []
    match = result.get("match")
    heads = ("presses", "cards", "burst", "dry", "sent", "recvd", "won")
    keys = ("presses", "cards", "biggest_burst", "longest_dry_streak", "hits_sent", "hits_received",
            "rounds_won")

    def table(players: dict[str, dict[str, Any]], extra: tuple[str, ...] = ()) -> list[str]:
        width = max([6, *(len(name) for name in players)])
        out = [f"{'player':<{width}} " + " ".join(f"{h:>7}" for h in heads + extra)]
        for name, figures in players.items():
            cells = [figures[k] for k in keys] + [figures[k] for k in extra]
            out.append(f"{name:<{width}} " + " ".join(f"{c:>7}" for c in cells))
        return out

    if match is None:
        lines.append("no match at the table")
    else:
        lines.append(f"match {result['match_id']} ({match['ruleset']})")
        lines += table(match["players"])
        if match["biggest_burst"]:
            lines.append(f"biggest burst: {match['biggest_burst']['player']}, "
                         f"{match['biggest_burst']['cards']} cards")
        if match["longest_dry_streak"]:
            lines.append(f"longest dry streak: {match['longest_dry_streak']['player']}, "
                         f"{match['longest_dry_streak']['presses']} presses")
        chain = match["longest_mega_hit"]
        if chain:
            lines.append(f"longest Mega Hit: {chain['hits']} hits in {chain['cards']} cards, "
                         f"started by {chain['started_by']}, pressed by {chain['pressed_by']}")
        for played in match["rounds"]:
            minutes, seconds = divmod(int(played["seconds"]), 60)
            lines.append(f"round {played['round']}: {played['winner']} won in {minutes}:{seconds:02d}")
    history = result["history"]
    lines.append(f"history: {history['matches']} match(es), {history['rounds']} round(s)")
    if history["players"]:
        lines += table(history["players"], ("matches", "matches_won"))
    return "\n".join(lines)


def _stats_command(args: argparse.Namespace, client: Any) -> int:
    from firmware.cli import print_result

    params = {} if args.match is None else {"match": args.match}
    return print_result(args, client.call("game/stats", params), format_stats)


def add_cli(subparsers: argparse._SubParsersAction, parents: list[argparse.ArgumentParser]) -> None:
    """Add ``stats`` to ``launcherctl game``'s subcommands."""
    p = subparsers.add_parser("stats", parents=parents, help="statistics of the match and of every match",
                              description="Presses, cards, bursts, dry streaks, hits, Mega Hit chains,"
                                          " rounds won and time per round.")
    p.add_argument("--match", type=int, metavar="N", help="another match (its number in game history)")
    p.set_defaults(func=_stats_command, parser=p)
