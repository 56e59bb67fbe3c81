"""The game layer inside launcherd: ``game/...`` methods, presses attributed, the log kept.

Loaded by the daemon through the entry point ``card_launcher.extensions: game`` and given only the
layer interface of ``docs/internals.md``: it never touches a pin, it asks ``launcher/aim`` like any
client. Every change of the table is one action: checked by the pure reducer
(``controller.table``), appended to the SQLite log (``controller.store``) and committed, and only
then made the live state and answered. At start-up the current match is replayed from the log, so
a daemon killed at any moment comes back with every action it acknowledged.

Presses: a ``launched`` event from the button or from ``launcher/launch`` is the move of the player
whose turn it is, logged as ``{"type": "press", "cards", "press_id"}``. ``launcher/dispense`` is
exact dealing and not a move; a press answered "empty" gave nothing because the hopper was empty
and is not a move either (the player presses again after the reload).

All of it runs in the daemon's loop thread: handlers are synchronous, so two requests never
interleave between checking an action and logging it.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from contextlib import contextmanager
from typing import Any, Iterator

from firmware.api import Param
from firmware.errors import ApiError, NotFound, Refused, Unavailable

from . import table as tables
from .joincode import JoinCode
from .points import COLORS
from .rulesets import RULESETS
from .scores import SCORINGS, scores, scores_csv
from .store import Store

log = logging.getLogger("launcherd.game")

# Presses that are moves of the game; "dispense" deals exact counts outside the flow.
GAME_PRESS_SOURCES = frozenset({"button", "api"})
# Bursts of up to 12 cards have been seen (rules.md §2): below that, the next press may run dry.
RELOAD_BELOW = 12
RELOAD_HOW = ("shuffle the discard pile (all but its top card) into the hopper, then tell the"
              " launcher how many cards it holds: launcherctl reload N")


def reload_advice(hopper: int | None) -> dict[str, Any]:
    """When to reshuffle the discard pile into the launcher, from its estimate of the hopper."""
    if hopper is None:
        return {"hopper": None, "reload": False,
                "text": "the launcher does not know how many cards it holds: after loading it,"
                        " launcherctl reload N"}
    if hopper == 0:
        return {"hopper": 0, "reload": True, "text": "the launcher is empty: " + RELOAD_HOW}
    if hopper < RELOAD_BELOW:
        return {"hopper": hopper, "reload": True,
                "text": f"about {hopper} card(s) left in the launcher: " + RELOAD_HOW}
    return {"hopper": hopper, "reload": False, "text": f"the launcher holds about {hopper} cards"}


@contextmanager
def _writing() -> Iterator[None]:
    """A failed write (disk full, card gone) is refused like any action: the live state is unchanged."""
    try:
        yield
    except sqlite3.Error as exc:
        log.exception("game: writing the log failed")
        raise Unavailable(f"the game log cannot be written ({exc}); nothing was changed") from None


def _winner_text(table: tables.Table) -> str | None:
    winner = scores(table.match)["winner"]
    return " and ".join(winner) if isinstance(winner, list) else winner


class GameService:
    """The live table of one daemon: the current match, its log, and what the launcher reports."""

    def __init__(self, daemon: Any, store: Store | None, broken: str | None = None):
        self.daemon = daemon
        self.store = store
        # Why the game cannot be played (the store cannot be opened, the log cannot be replayed).
        self.broken = broken
        self.match_id: int | None = None
        self.table: tables.Table | None = None
        self.hopper: int | None = None
        self._low = False  # the hopper was last seen under RELOAD_BELOW: warn once per crossing
        self._last_press: tuple[int, str] | None = None  # (press_id, presser) of the last logged press
        self._tasks: set[asyncio.Future] = set()

    # ---- state ---------------------------------------------------------------------------

    def resume(self) -> None:
        """Rebuild the current match from its log (no effects are replayed, the aim excepted)."""
        match = self._store().current_match()
        if match is None:
            return
        self.match_id = match.id
        records = self.store.actions(match.id)
        try:
            self.table = tables.replay(record.action for record in records)
        except ApiError as exc:
            # A log this version cannot replay: keep it untouched and refuse to build on it.
            self.broken = (f"match {match.id} cannot be replayed ({exc.message}); its log is kept"
                           " (game log); start a new match with game new")
            log.error("%s", self.broken)
            return
        log.info("game: match %d resumed, %d action(s)", match.id, len(records))
        self._aim_at_turn()

    def _store(self) -> Store:
        if self.store is None:
            raise Unavailable(self.broken or "the game log is not open")
        return self.store

    def _table(self) -> tables.Table:
        if self.table is None:
            if self.broken:
                raise Unavailable(self.broken)
            raise NotFound("no game yet: start one with launcherctl game new --players A,B,...")
        return self.table

    def status(self) -> dict[str, Any]:
        """The table's status with the match id and the reload advice."""
        shown = tables.status(self._table())
        shown["match_id"] = self.match_id
        shown["reload_advice"] = reload_advice(self.hopper)
        return shown

    def fresh_status(self) -> dict[str, Any]:
        """``game/status``: a reload while the launcher is ready changes no state, so ask now."""
        self.follow_hopper()
        return self.status()

    def status_for_daemon(self) -> dict[str, Any] | None:
        """The ``game`` key of ``status/get``: None without a game, never an exception."""
        if self.table is None:
            return {"error": self.broken} if self.broken else None
        return self.status()

    # ---- acting --------------------------------------------------------------------------

    def act(self, action: dict[str, Any]) -> dict[str, Any]:
        """Check one action, log it, make it live, carry out its effects; the reply to send."""
        table, effects = tables.apply(self._table(), action)
        with _writing():
            seq = self._store().append(self.match_id, action, over=table.match_over,
                                       winner=_winner_text(table) if table.match_over else None)
        self.table = table
        self.daemon.publish("game/action", {"seq": seq, "match_id": self.match_id, "action": action})
        return self._reply(effects)

    def start(self, action: dict[str, Any]) -> dict[str, Any]:
        """A new match: checked, its first action logged, then live (the previous one stays in history)."""
        table, effects = tables.new_table(action)
        with _writing():
            self.match_id = self._store().start_match(action)
        self.table, self.broken, self._last_press = table, None, None
        self.daemon.publish("game/action", {"seq": None, "match_id": self.match_id, "action": action})
        return self._reply(effects)

    def undo(self) -> dict[str, Any]:
        """Take back the match's last live action (kept in the log, marked undone): a replay without it."""
        self._table()
        records = self._store().actions(self.match_id)
        if len(records) < 2:
            raise Refused("nothing to undo: the match has only just started (game new starts another)")
        last = records[-1]
        table = tables.replay(record.action for record in records[:-1])
        with _writing():
            self.store.undo(self.match_id, last.seq, over=table.match_over,
                            winner=_winner_text(table) if table.match_over else None)
        self.table, self._last_press = table, None
        self.daemon.publish("game/action", {"seq": last.seq, "match_id": self.match_id, "undone": True})
        self._aim_at_turn()
        reply = self._reply([{"type": "message", "text": f"undone: {_describe(last.action)}"}])
        reply["undone"] = last.action
        return reply

    def _reply(self, effects: list[dict[str, Any]]) -> dict[str, Any]:
        """Carry out effects (messages published, one aim) and build the reply: status + messages."""
        texts = []
        aim = None
        for effect in effects:
            if effect["type"] == "message":
                texts.append(effect["text"])
                self.publish_message(effect["text"])
            elif effect["type"] == "aim":
                aim = effect  # only where the launcher ends up matters: one servo move
            elif effect["type"] == "round_over":
                self.daemon.publish("game/round_over", {"winner": effect["winner"],
                                                        "round": self.table.game.round_no})
        if aim is not None:
            self._aim(aim["seat"], aim["seats"])
        return {**self.status(), "messages": texts}

    def publish_message(self, text: str) -> None:
        """A ``game/message`` event for whoever is watching the table."""
        self.daemon.publish("game/message", {"text": text, "match_id": self.match_id})

    def _aim_at_turn(self) -> None:
        """Face whoever's move it is (after a resume or an undo, which carry no aim effect)."""
        player = tables.status(self.table)["aim"]
        if player is not None:
            self._aim(*tables.seat_of(self.table, player))

    def _aim(self, seat: int, seats: int) -> None:
        """Turn the launcher to a chair, in the background: a servo must never hold up the game."""
        async def turn() -> None:
            try:
                await self.daemon.call("launcher/aim", {"seat": seat, "seats": seats})
            except Unavailable:
                pass  # no aim servo fitted: the launcher stays where it is
            except ApiError as exc:
                log.warning("game: aiming at seat %d of %d failed: %s", seat, seats, exc.message)

        task = asyncio.ensure_future(turn())
        self._tasks.add(task)  # a reference until it is done, or the loop may drop it
        task.add_done_callback(self._tasks.discard)

    # ---- launcher events -----------------------------------------------------------------

    def on_event(self, name: str, params: dict[str, Any]) -> None:
        """Every launcher event, in the loop: presses become moves; the hopper estimate is followed."""
        if name == "launched":
            self._launched(params)
        elif name == "card":
            self._late_card(params)
        if name in ("launched", "state"):
            self.follow_hopper()

    def _launched(self, params: dict[str, Any]) -> None:
        """A resolved press: the move of whose turn it is, unless it was no game press."""
        if params.get("source") not in GAME_PRESS_SOURCES or self.table is None:
            return
        press_id, cards = params.get("press_id"), params.get("cards", 0)
        if params.get("outcome") == "empty" or (params.get("ended") == "empty" and not cards):
            self.publish_message(f"press {press_id} gave nothing: the launcher is empty and the press"
                                 " does not count; reload it and press again")
            return
        presser = tables.status(self.table)["turn"]
        try:
            self.act({"type": "press", "cards": cards, "press_id": press_id})
        except ApiError as exc:
            self.publish_message(f"press {press_id} ({cards} card(s)) is not counted in the game:"
                                 f" {exc.message}")
            return
        self._last_press = (press_id, presser)

    def _late_card(self, params: dict[str, Any]) -> None:
        """A card counted after its press was resolved (it fell out late): it is the presser's too."""
        if self._last_press is not None and params.get("press_id") == self._last_press[0]:
            try:
                self.act({"type": "cards", "cards": 1, "press_id": params.get("press_id")})
            except ApiError as exc:
                self.publish_message(f"a card that came out late is not counted: {exc.message}")

    def follow_hopper(self) -> None:
        """Read the launcher's hopper estimate; say once when it falls low enough to reload.

        ``daemon.get_status`` also asks ``status_for_daemon``, which must therefore never come here.
        """
        self.hopper = self.daemon.get_status().get("hopper")
        advice = reload_advice(self.hopper)
        low = advice["reload"]
        if low and not self._low and self.table is not None:
            self.publish_message(advice["text"])
        self._low = low

    # ---- method handlers -----------------------------------------------------------------

    def log_of_match(self) -> dict[str, Any]:
        """``game/log``: the current match and all its actions, undone ones included."""
        if self.match_id is None:
            raise NotFound("no game yet: start one with launcherctl game new --players A,B,...")
        store = self._store()
        return {"match": store.match(self.match_id).to_json(),
                "actions": [r.to_json() for r in store.actions(self.match_id, include_undone=True)]}

    def scores(self, csv: bool) -> dict[str, Any]:
        """``game/scores``: the counter's view of the match, or its CSV table."""
        match = self._table().match
        return {"csv": scores_csv(match)} if csv else scores(match)

    def history(self) -> list[dict[str, Any]]:
        """Every match, oldest first, with its rounds and totals."""
        shown = []
        for record in self._store().matches():
            entry = record.to_json()
            try:
                if record.id == self.match_id and self.table is not None:
                    table = self.table
                else:
                    table = tables.replay(r.action for r in self.store.actions(record.id))
            except ApiError as exc:
                entry.update(rounds=None, totals=None, error=exc.message)
            else:
                entry.update(rounds=len(table.match.rounds), totals=scores(table.match)["totals"])
            shown.append(entry)
        return shown


def _describe(action: dict[str, Any]) -> str:
    """One line for an action, as the undo reply names it."""
    rest = " ".join(f"{key}={value}" for key, value in action.items() if key != "type" and value is not None)
    return f"{action['type']} {rest}".strip()


def _present(params: dict[str, Any]) -> dict[str, Any]:
    """Parameters given (absent optional ones are None): the action is logged without the gaps."""
    return {key: value for key, value in params.items() if value is not None and value is not False}


def setup(daemon: Any) -> GameService:
    """The ``card_launcher.extensions`` entry point: open the log, resume, register, subscribe."""
    try:
        store = Store.in_dir(daemon.state_dir)
    except (sqlite3.Error, OSError) as exc:
        # The launcher itself must still work: the game methods answer why they cannot.
        broken = (f"the game log {daemon.state_dir / 'game.sqlite3'} cannot be opened ({exc});"
                  " move it aside to start afresh")
        log.error("%s", broken)
        service = GameService(daemon, None, broken)
    else:
        service = GameService(daemon, store)
        daemon.on_close(store.close)
        service.resume()
    _register(daemon, service)
    _register_code(daemon, JoinCode(daemon.state_dir))
    daemon.subscribe(service.on_event)
    daemon.add_status("game", service.status_for_daemon)
    service.follow_hopper()  # the core is built before the layers: its estimate is there already
    return service


def _register(daemon: Any, service: GameService) -> None:
    r = daemon.api.register
    color = Param(str, None, choices=COLORS)
    act = service.act

    r("game/new", lambda p: service.start({"type": "new", **_present(p)}), {
        "rules": Param(str, choices=tuple(RULESETS)), "players": list, "dealer": (str, None),
        "first_card": (str, None), "color": color, "options": (dict, None),
        "scoring": Param(str, "standard", choices=SCORINGS), "target": Param(int, 500, minimum=1),
    }, doc="start a match: players in seat order; its first round is dealt")
    r("game/play", lambda p: act({"type": "play", **_present(p)}), {
        "card": str, "color": color, "target": (str, None), "last": (bool, False), "by": (str, None),
    }, doc="the player whose move it is plays a card")
    r("game/first-attack", lambda p: act({"type": "first_attack", **_present(p)}), {
        "color": Param(str, choices=COLORS), "target": str, "by": (str, None),
    }, doc="the colour and victim of a turned-up wild-attack")
    for kind, doc in (("uno", "a player calls Uno"), ("catch", "a player is caught without Uno"),
                      ("hint", "a player gave advice (2005, 2010)")):
        r(f"game/{kind}", lambda p, kind=kind: act({"type": kind, "player": p["player"]}),
          {"player": str}, doc=doc)
    r("game/undo", lambda p: service.undo(), doc="take back the last action of the match")
    r("game/status", lambda p: service.fresh_status(), doc="the round, whose move it is, the match")
    r("game/log", lambda p: service.log_of_match(), doc="the match's actions, undone ones included")
    r("game/end-round", lambda p: act({"type": "end_round", **_present(p)}), {
        "winner": str, "hands": dict, "first_card": (str, None), "color": color,
    }, doc="score the round (hands: name -> points or cards) and deal the next")
    r("game/edit-round", lambda p: act({"type": "edit_round", **_present(p)}), {
        "round": Param(int, minimum=1), "hands": dict,
    }, doc="correct the hands of an ended round")
    r("game/scores", lambda p: service.scores(p["csv"]), {"csv": (bool, False)},
      doc="the score table (csv: as CSV text)")
    r("game/history", lambda p: service.history(), doc="every match played")


def _register_code(daemon: Any, codes: JoinCode) -> None:
    """``game/code`` and ``game/code/check``: the table's join code, for launcher-web (#12)."""
    def code(params: dict[str, Any]) -> dict[str, str]:
        if not params["new"]:
            return {"code": codes.code}
        rotated = codes.rotate()
        # Without the code itself: events reach every subscriber, and the page relays them.
        daemon.publish("game/code_changed", {})
        return {"code": rotated}

    daemon.api.register("game/code", code, {"new": (bool, False)},
                        doc="the table's join code (new: rotate it, the old one stops working)")
    daemon.api.register("game/code/check", lambda p: {"valid": codes.check(p["code"])},
                        {"code": str}, doc="whether a join code is the table's")
