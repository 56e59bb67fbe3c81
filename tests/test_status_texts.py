"""Every message id defined once, and every status text of every ruleset rendered in both languages (#21).

``status_inserts`` was defined twice in ``controller/messages.py``: the second (the blaster's status
line) silently replaced the game's, and ``game status`` crashed in Blast whenever an insertion was
owed. The walk below plays random legal actions in each ruleset and renders what ``launcherctl game
status`` and every action's reply print, in English and French, at each step.
"""

from __future__ import annotations

import ast
import random
from collections import Counter
from pathlib import Path

import pytest

from controller import classic, messages, rulesets
from controller import table as tables
from controller.points import COLORS
from controller.cli import format_reply, format_status
from controller.messages import LANGUAGES
from controller.rulesets import RULESET_IDS
from firmware import i18n
from firmware.errors import ApiError

SOURCE = Path(messages.__file__)
PLAYERS = ["Ann", "Bob", "Cy"]


def test_no_message_id_is_defined_twice():
    tree = ast.parse(SOURCE.read_text())
    keys = Counter()
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            keys.update(key.value for key in node.keys if isinstance(key, ast.Constant) and isinstance(key.value, str)
                        and isinstance(node, ast.Dict) and _is_catalogue_part(tree, node))
    twice = sorted(key for key, count in keys.items() if count > 1)
    assert not twice, f"defined twice in controller/messages.py: {twice}"
    # Across the parts too: the catalogue is their union, where a later one would win.
    parts = (messages._WORDS, messages._GAME, messages._LAUNCHER, messages._BRINGUP, messages._VOICE)
    assert sum(len(part) for part in parts) == len(messages.CATALOGUE)


def _is_catalogue_part(tree: ast.Module, node: ast.Dict) -> bool:
    """A dict literal assigned at module level to one of the catalogue's parts."""
    for statement in tree.body:
        if isinstance(statement, ast.AnnAssign) and statement.value is node:
            return isinstance(statement.target, ast.Name) and statement.target.id.startswith("_")
    return False


def _candidates(ruleset: str, status: dict) -> list[dict]:
    """Actions worth trying from here (most are refused; the reducer says which are legal)."""
    colors, cards = _deck(ruleset)
    actions = [{"type": "play", "card": card, "color": random.choice(colors),
                "target": random.choice(PLAYERS) if card in ("wild-attack", "trade-hands") else None}
               for card in random.sample(cards, min(6, len(cards)))]
    actions += [{"type": "press", "cards": random.choice((0, 1, 2))},
                {"type": "insert", "blast": True, "cards": 2}, {"type": "insert", "blast": False, "cards": 0},
                {"type": "uno", "player": random.choice(PLAYERS)}, {"type": "catch", "player": random.choice(PLAYERS)},
                {"type": "hint", "player": random.choice(PLAYERS)}, {"type": "pass"}, {"type": "accept"},
                {"type": "challenge"}, {"type": "challenge-result", "result": random.choice(("legal", "illegal"))},
                {"type": "first_attack", "color": colors[0], "target": "Bob"},
                {"type": "minions", "counts": {name: 1 for name in PLAYERS}},
                {"type": "turn_up", "card": "4", "color": colors[0]}]
    if status.get("owed") and "cards" in status["owed"]:
        actions.append({"type": "press", "cards": status["owed"]["cards"]})
    return [{key: value for key, value in action.items() if value is not None} for action in actions]


def _deck(ruleset: str) -> tuple[list[str], list[str]]:
    """The ruleset's colours and cards."""
    try:
        flow = classic.get(ruleset)
    except ApiError:
        return list(COLORS), list(rulesets.get(ruleset).cards)
    return list(flow.colors), list(flow.cards)


@pytest.mark.parametrize("ruleset", RULESET_IDS)
def test_every_status_text_of_every_ruleset_renders_in_both_languages(ruleset):
    random.seed(ruleset)
    first = {"first_card": "skip", "color": "red"} if ruleset == "blast" else {}
    table, _ = tables.new_table({"type": "new", "rules": ruleset, "players": PLAYERS, **first})
    seen = set()
    for _ in range(300):
        status = {**tables.status(table), "match_id": 1, "state_dir": "/var/lib/card-launcher"}
        for lang in LANGUAGES:
            with i18n.speaking(lang):
                shown = format_status(status)
                format_reply({**status, "messages": [], "message_objects": []})
            assert "%(" not in shown
        seen.add(format_status(status).splitlines()[1].split(" - ")[-1][:20])
        for action in _candidates(ruleset, status):
            try:
                table, _ = tables.apply(table, action)
                break
            except ApiError:
                continue
        if table.game.round_over:
            table, _ = tables.apply(table, {"type": "end_round", "winner": status["winner"] or "Ann",
                                            "hands": {name: 0 for name in PLAYERS}})
    assert len(seen) > 2  # the walk went through several kinds of move


def test_a_log_written_before_colours_were_required_still_replays():
    """A match begun on an older version resumes: its colourless plays were accepted when logged."""
    logged = [{"type": "new", "rules": "attack-mega-hit", "players": PLAYERS},
              {"type": "play", "card": "hit-1", "by": "Ann"}, {"type": "press", "cards": 0, "by": "Bob"},
              {"type": "play", "card": "7", "by": "Cy"}]
    status = tables.status(tables.replay(logged))
    assert (status["turn"], status["top_card"], status["color"]) == ("Ann", "7", None)
    with pytest.raises(ApiError, match="7 has a colour"):  # a new play is refused all the same
        tables.apply(tables.replay(logged), {"type": "play", "card": "7"})
    classic_log = [{"type": "new", "rules": "classic", "players": PLAYERS, "first_card": "5"},
                   *[{"type": "press", "cards": 7}] * 3, {"type": "play", "card": "7", "by": "Ann"},
                   {"type": "catch", "player": "Ann"}]  # a catch the hand counts refuse now
    assert tables.status(tables.replay(classic_log))["queue"][0]["reason"] == "uno"
