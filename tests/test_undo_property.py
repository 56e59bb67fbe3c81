"""Undo in the dealer games, as a property (#21): over random legal sequences of moves, undoing back
to the start deals nothing new and gives back the starting state.

The game service runs on the stand-in launcher of ``tests/test_game_dealer.py`` (the layer interface
only, every dispense recorded): the launcher deals the opening hands and every card owed, the moves
are chosen among those the round allows, then ``game/undo`` is asked until nothing is left to undo.
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

import pytest

from harness.deck import DECKS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.match import table as match_table
from firmware.errors import ApiError, Refused
from test_game_dealer import Launcher, new, settle
from controller.layer.service import GameService

PLAYERS = ["Ann", "Bob", "Cy"]
COLORS = {"classic": ("red", "yellow", "green", "blue"), "despicable-me-4": ("blue", "orange", "purple", "yellow")}
VOLATILE = {"reload_advice", "state_dir", "match_id"}


def _moves(rules: str) -> list[dict]:
    """Every move worth trying; the round refuses those it does not allow now."""
    colors = COLORS[rules]
    cards = ["3", "7", "skip", "reverse", "draw-two"]
    moves = [{"type": "play", "card": card, "color": color} for card in cards for color in colors]
    moves += [{"type": "play", "card": wild, "color": colors[0]} for wild in ("wild", "wild-draw-four")]
    if rules == "despicable-me-4":
        moves.append({"type": "play", "card": "wild-mega-minions", "color": colors[1]})
        moves.append({"type": "minions", "counts": {"Ann": 1, "Bob": 1, "Cy": 1}})
    moves += [{"type": "draw"}, {"type": "pass"}, {"type": "accept"}, {"type": "challenge"},
              {"type": "challenge-result", "result": "legal"}, {"type": "challenge-result", "result": "illegal"}]
    moves += [{"type": kind, "player": name} for kind in ("uno", "catch") for name in PLAYERS]
    return moves


def _legal(service: GameService, moves: list[dict]) -> list[dict]:
    legal = []
    for move in moves:
        checked = {"type": "press", "cards": 1} if move["type"] == "draw" else move
        if move["type"] == "minions":  # every other player but the one who played it
            played = service.table.game.players[(service.table.game.active - 1) % len(PLAYERS)]
            checked = {**move, "counts": {n: 1 for n in PLAYERS if n != played}}
            move = checked
        try:
            match_table.apply(service.table, checked)
        except ApiError:
            continue
        legal.append(move)
    return legal


def _shown(service: GameService) -> dict:
    return {key: value for key, value in service.status().items() if key not in VOLATILE}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=st.sampled_from(sorted(COLORS)), picks=st.lists(st.integers(0, 10_000), max_size=25))
def test_undo_back_to_the_start_deals_nothing_new_and_gives_back_the_start(rules, picks):
    async def scenario():
        with tempfile.TemporaryDirectory() as state_dir:
            launcher = Launcher(Path(state_dir))
            launcher.hopper = DECKS[rules]  # the whole deck is loaded (the deal waits for it, #40)
            service = GameService(launcher, sleep=lambda seconds: asyncio.sleep(0))
            service.open()
            service.start(new(rules, PLAYERS, deal_pause_s="0"))
            start = _shown(service)
            await settle()
            moves = _moves(rules)
            for pick in picks:
                legal = _legal(service, moves)
                if not legal or service.table.game.round_over:
                    break
                move = legal[pick % len(legal)]
                if move["type"] == "draw":
                    await service.draw(None)
                else:
                    service.act(move)
                await settle()
            dealt = len(launcher.dispensed())
            for _ in service.store.actions(service.match_id)[1:]:  # one undo per action since the start
                service.undo()
                await settle()
            with pytest.raises(Refused, match="nothing to undo"):
                service.undo()
            assert len(launcher.dispensed()) == dealt  # no undo made the launcher deal
            back = _shown(service)
            # The start's deal owed again waits for a person's press now (#36), and a press says so.
            meant, was = back.pop("press_means", None), start.pop("press_means", None)
            assert back == start
            assert meant == was or (meant["reason"]["id"] == "press_deals_held"
                                    and was["reason"]["id"] == "press_settles_first"), (meant, was)
            service.close()

    asyncio.run(scenario())
