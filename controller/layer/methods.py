"""The ``game/...`` methods of the game layer: their parameters, their docs, and the service's
handler each one calls; cards and colors typed in any language are logged by their ids.
"""

from __future__ import annotations

from typing import Any, Callable

from firmware.daemon.registry import Param
from firmware.errors import InvalidParams

from controller.layer.reading import LOG_PAGE_MAX
from controller.log.joincode import JoinCode
from controller.match.scores import SCORINGS, looks_like_total
from controller.match.stats import log_version
from controller.rules.ruledoc import rules_data
from controller.text.messages import card_id, color_id


def _named(params: dict[str, Any]) -> dict[str, Any]:
    """Cards and colors given by their names in any language ("Double attaque", "rouge") as ids.

    A name that is none is left as typed: the ruleset (or the score counter) then says what it
    has, which is more help than a list of every card of every box.
    """
    named = dict(params)
    for key, to_id in (("card", card_id), ("first_card", card_id), ("color", color_id)):
        if named.get(key) is not None:
            named[key] = _id_or_typed(to_id, named[key])
    if isinstance(named.get("hands"), dict):
        named["hands"] = {name: _hand_named(hand) for name, hand in named["hands"].items()}
    return named


def _id_or_typed(to_id: Callable[[str], str], name: str) -> str:
    try:
        return to_id(name)
    except InvalidParams:
        return name


def _hand_named(hand: Any) -> Any:
    """A hand typed as cards ("7,Appuyer 2 fois,wild") with each card's id; a total as it is.

    A signed or decimal number ("-3") is no card's name (the name of "3" forgives the dash): it
    is left for the counter to refuse, with what a hand may be.
    """
    if not isinstance(hand, str):
        return hand
    return ",".join(name if looks_like_total(name) else _id_or_typed(card_id, name) for name in hand.split(","))


def _present(params: dict[str, Any]) -> dict[str, Any]:
    """Parameters given (absent optional ones are None): the action is logged without the gaps."""
    return {key: value for key, value in params.items() if value is not None and value is not False}


def _new(service: Any, params: dict[str, Any]) -> dict[str, Any]:
    force = params.pop("force")
    return service.start({"type": "new", **_present(_named(params))}, force=force)


def register(daemon: Any, service: Any) -> None:
    """Every ``game/...`` method but the join code's, each answered by ``service`` (a GameService)."""
    def r(name: str, handler: Callable[[dict[str, Any]], Any], *args: Any, **kwargs: Any) -> None:
        daemon.register(name, service.told_first(handler), *args, **kwargs)
    # Any language's name of a color or a card (_named); each ruleset then checks its own.
    color = (str, None)
    act = service.act

    r("game/new", lambda p: _new(service, dict(p)), {
        # The ruleset is checked by the game, whose refusal names the boxes (#40).
        "rules": str, "players": list, "dealer": (str, None),
        "first_card": (str, None), "color": color, "options": (dict, None),
        "scoring": Param(str, "standard", choices=SCORINGS), "target": Param(int, 500, minimum=1),
        "force": (bool, False),
    }, doc="start a match: players in seat order; its first round is dealt (force: even while"
           " another match is being played, which stays resumable)")
    r("game/resume", lambda p: service.resume_match(p["match"]), {"match": Param(int, minimum=1)},
      doc="make an earlier match (game/history) the table's again")
    r("game/abandon", lambda p: service.abandon(), doc="set the match aside (game/resume brings it back)")
    r("game/refill-count", lambda p: service.refill_count(),
      doc="cards a refill of the hopper holds: the deck less the hands and the discard pile's top card")
    r("game/repair", lambda p: service.repair(),
      doc="fix what game/status reports about the log (moves a damaged log aside)")
    r("game/rules", lambda p: rules_data(p["rules"]), {"rules": (str, None)},
      doc="the cards of a ruleset (or of every ruleset), their points, and the scoring variants")
    r("game/play", lambda p: act({"type": "play", **_present(_named(p))}), {
        "card": str, "color": color, "target": (str, None), "last": (bool, False), "by": (str, None),
    }, doc="the player whose move it is plays a card")
    r("game/first-attack", lambda p: act({"type": "first_attack", **_present(_named(p))}), {
        "color": str, "target": str, "by": (str, None),
    }, doc="the colour and victim of a turned-up wild-attack")
    for kind, doc in (("uno", "a player calls Uno"), ("catch", "a player is caught without Uno"),
                      ("hint", "a player gave advice (2005, 2010)")):
        r(f"game/{kind}", lambda p, kind=kind: act({"type": kind, "player": p["player"]}),
          {"player": str}, doc=doc)
    r("game/turn-up", lambda p: act({"type": "turn_up", **_present(_named(p))}), {"card": str, "color": color},
      doc="classic, despicable-me-4, blast: the card turned up after an ignored first card (or one not told)")
    r("game/insert", lambda p: service.insert_typed({**_present(p), "blast": p["blast"], "cards": p["cards"]}), {
        "blast": (bool, False), "cards": Param(int, 0, minimum=0), "by": (str, None),
    }, doc="blast: the player whose move it is inserted a card (blast: it fired and gave cards)")
    r("game/draw", lambda p: service.draw(p["by"]), {"by": (str, None)},
      doc="classic: the player whose move it is draws exactly one card (the launcher deals it)")
    for kind, doc in (("pass", "classic: the player who drew keeps the card; turn over"),
                      ("challenge", "classic: the next player challenges the Wild Draw Four"),
                      ("accept", "classic: the next player accepts the Wild Draw Four (dealt 4)")):
        r(f"game/{kind}", lambda p, kind=kind: act({"type": kind, **_present(p)}), {"by": (str, None)}, doc=doc)
    r("game/challenge-result", lambda p: act({"type": "challenge-result", "result": p["result"]}),
      {"result": Param(str, choices=("legal", "illegal"))},
      doc="classic: what the shown hand proved: legal (the challenger is dealt 6) or illegal (4 back)")
    r("game/minions", lambda p: act({"type": "minions", "counts": p["counts"]}), {"counts": dict},
      doc="despicable-me-4: how many cards each other player discarded for Wild Mega Minions Power")
    r("game/undo", lambda p: service.undo(), doc="take back the last action of the match")
    r("game/status", lambda p: service.fresh_status(),
      doc="the round, whose move it is, the match, where the log is and what is wrong with it")
    r("game/log", lambda p: service.log_of_match(p["limit"], p["before"], p["words"]), {
        "limit": Param(int, None, minimum=1, maximum=LOG_PAGE_MAX), "before": Param(int, None, minimum=1),
        "words": Param(bool, False),
    }, doc="the match's actions, undone ones included (limit: only the last so many, before: of those"
           " before that seq, a page at a time; more: older ones come before; words: each action also"
           " in words, said and text)",
      version=lambda: log_version(service))
    r("game/end-round", lambda p: act({"type": "end_round", **_present(_named(p))}), {
        "winner": str, "hands": dict, "first_card": (str, None), "color": color,
    }, doc="score the round (hands: name -> points or cards) and deal the next")
    r("game/edit-round", lambda p: act({"type": "edit_round", **_present(_named(p))}), {
        "round": Param(int, minimum=1), "hands": dict,
    }, doc="correct the hands of an ended round")
    r("game/scores", lambda p: service.scores(p["csv"]), {"csv": (bool, False)},
      doc="the score table (csv: as CSV text)")
    r("game/history", lambda p: service.history_in_turns(p["limit"], p["before"]), {
        "limit": Param(int, None, minimum=1), "before": Param(int, None, minimum=1),
    }, doc="every match played, oldest first (limit: only the last so many, before: of those before"
           " that match, a page at a time)", version=lambda: log_version(service))


def register_code(daemon: Any, codes: JoinCode) -> None:
    """``game/code`` and ``game/code/check``: the table's join code, for launcher-web (#12)."""
    def code(params: dict[str, Any]) -> dict[str, str]:
        if not params["new"]:
            return {"code": codes.code}
        rotated = codes.rotate()
        # Without the code itself: events reach every subscriber, and the page relays them.
        daemon.publish("game/code_changed", {})
        return {"code": rotated}

    daemon.register("game/code", code, {"new": (bool, False)},
                        doc="the table's join code (new: rotate it, the old one stops working)")
    daemon.register("game/code/check", lambda p: {"valid": codes.check(p["code"])},
                        {"code": str}, doc="whether a join code is the table's")
