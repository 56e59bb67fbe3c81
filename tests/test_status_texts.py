"""Every message id defined once, and every status text of every ruleset rendered in both languages (#21).

``status_inserts`` was defined twice in the message catalogue: the second (the blaster's status
line) silently replaced the game's, and ``game status`` crashed in Blast whenever an insertion was
owed. The walk below plays random legal actions in each ruleset and renders what ``launcherctl game
status`` and every action's reply print, in English and French, at each step. Its matches begin in
every way a table begins one (scorings, low targets, a first card, a colour alone), its rounds are
shown once won before their hands are entered, and together the walks must render every status
text (``STATUS_TEXTS``): one that none reaches fails the test, a new one included.
"""

from __future__ import annotations

import ast
import random
from collections import Counter
from pathlib import Path

import pytest

from controller.rules import game

from controller.layer import cli

from controller.text import messages, round_texts, table_texts
from controller.match import table as match_table
from controller.layer.cli import format_reply, format_status
from controller.text.messages import LANGUAGES
from controller.rules.game import RULESET_IDS
from controller.match.scores import SCORINGS
from firmware import i18n
from firmware.errors import ApiError
from firmware.text import messages as firmware_texts

# The modules whose tables make up the catalogues, firmware's and the game's.
SOURCES = [Path(module.__file__) for module in (firmware_texts, round_texts, table_texts)]
PLAYERS = ["Ann", "Bob", "Cy"]


def test_no_message_id_is_defined_twice():
    keys = Counter()
    for source in SOURCES:
        tree = ast.parse(source.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Dict) and _is_catalogue_part(tree, node):
                keys.update(key.value for key in node.keys
                            if isinstance(key, ast.Constant) and isinstance(key.value, str))
    twice = sorted(key for key, count in keys.items() if count > 1)
    assert not twice, f"defined twice in {[source.name for source in SOURCES]}: {twice}"
    # Across the parts too: each catalogue is their union, where a later one would win.
    parts = (firmware_texts.WORDS, firmware_texts.LAUNCHER, firmware_texts.BRINGUP, firmware_texts.DEMO,
             firmware_texts.API,
             round_texts.WORDS, round_texts.ROUND, table_texts.TABLE, table_texts.VOICE)
    assert sum(len(part) for part in parts) == len(messages.CATALOGUE)


def _is_catalogue_part(tree: ast.Module, node: ast.Dict) -> bool:
    """A dict literal assigned at module level to one of the catalogue's parts (``NAME: dict[str, Text]``)."""
    for statement in tree.body:
        if isinstance(statement, ast.AnnAssign) and statement.value is node:
            return isinstance(statement.target, ast.Name) and "Text" in ast.unparse(statement.annotation)
    return False


def _candidates(ruleset: str, status: dict) -> list[dict]:
    """Actions worth trying from here, in a random order (most are refused; the reducer says
    which are legal): the first legal one is taken, so no kind of move shadows another."""
    colors, cards = _deck(ruleset)
    targets = [name for name in status["match"]["seated"]]
    actions = [{"type": "play", "card": card, "color": random.choice(colors),
                "target": random.choice(targets) if card in ("wild-attack", "trade-hands") else None,
                "last": random.random() < 0.15}
               for card in random.sample(cards, min(6, len(cards)))]
    actions += [{"type": "press", "cards": random.choice((0, 1, 2))},
                {"type": "insert", "blast": True, "cards": 2}, {"type": "insert", "blast": False, "cards": 0},
                {"type": "uno", "player": random.choice(targets)}, {"type": "catch", "player": random.choice(targets)},
                {"type": "hint", "player": random.choice(targets)}, {"type": "pass"}, {"type": "accept"},
                {"type": "challenge"}, {"type": "challenge-result", "result": random.choice(("legal", "illegal"))},
                {"type": "first_attack", "color": colors[0], "target": random.choice(targets)},
                {"type": "minions", "counts": {name: 1 for name in targets}},
                {"type": "turn_up", "card": "4", "color": colors[0]}]
    if status.get("owed") and "cards" in status["owed"]:
        actions.append({"type": "press", "cards": status["owed"]["cards"]})
    if status.get("catchable"):
        actions.append({"type": "catch", "player": status["catchable"]})
    if "wild-attack" in cards:  # accepted once the player holds one card (#39)
        actions.append({"type": "play", "card": "wild-attack", "color": colors[0], "last": True,
                        "target": random.choice([name for name in targets if name != status["turn"]])})
    for discard in sorted({"discard-all", "discard-color"} & set(cards)):  # a whole hand of one colour
        if random.random() < 0.1:
            actions.append({"type": "play", "card": discard, "color": status["color"] or colors[0],
                            "last": True})
    random.shuffle(actions)
    return [{key: value for key, value in action.items() if value is not None and value is not False}
            for action in actions]


def _deck(ruleset: str) -> tuple[list[str], list[str]]:
    """The ruleset's colours and cards."""
    rs = game.ruleset(ruleset)
    return list(rs.colors), list(rs.cards)


def _new_table(ruleset: str) -> match_table.Table:
    """A match of ``ruleset`` begun in one of the ways a table begins one: any scoring, a low
    target (matches end, players leave), a first card turned up (an action, a wild, a wild attack),
    a colour without a card, or nothing told."""
    colors, cards = _deck(ruleset)
    start = random.choice(("card", "card", "color", "none"))
    first = ({"first_card": random.choice(cards), "color": random.choice(colors)} if start == "card"
             else {"color": random.choice(colors)} if start == "color" else {})
    if first.get("first_card", "").startswith("wild") and random.random() < 0.5:
        del first["color"]  # a wild turned up: the first player names the colour
    action = {"type": "new", "rules": ruleset, "players": PLAYERS, "scoring": random.choice(SCORINGS),
              "target": random.choice((30, 60, 500)), **first}
    try:
        return match_table.new_table(action)[0]
    except ApiError:
        return match_table.new_table({"type": "new", "rules": ruleset, "players": PLAYERS})[0]


def _ids(said, found: set) -> None:
    """Every message id in a message object, its parameters' messages included."""
    if isinstance(said, dict):
        if isinstance(said.get("id"), str):
            found.add(said["id"])
        for value in said.values():
            _ids(value, found)
    elif isinstance(said, list):
        for value in said:
            _ids(value, found)


def _walk(ruleset: str, steps: int = 300) -> set[str]:
    """Random legal play of ``ruleset``, rendered at every step in both languages as ``launcherctl
    game status`` and an action's reply print it; the message ids rendered."""
    random.seed(ruleset)
    rendered: set[str] = set()
    original = cli.text

    def text(said):
        _ids(said, rendered)
        return original(said)

    def show(table: match_table.Table) -> dict:
        status = {**match_table.status(table), "match_id": 1, "state_dir": "/var/lib/card-launcher"}
        for lang in LANGUAGES:
            with i18n.speaking(lang):
                shown = format_status(status)
                format_reply({**status, "messages": [], "message_objects": []})
            assert "%(" not in shown
        return status

    cli.text = text
    try:
        if "discard-all" in _deck(ruleset)[1]:  # a turned-up Discard All, its colour said or not (§5)
            for first in ({"first_card": "discard-all", "color": "red"}, {"first_card": "discard-all"}):
                show(match_table.new_table({"type": "new", "rules": ruleset, "players": PLAYERS, **first})[0])
        table = _new_table(ruleset)
        for _ in range(steps):
            status = show(table)
            if table.match_over or random.random() < 0.05:  # over, or the table starts another
                table = _new_table(ruleset)
            elif table.game.round_over:  # shown as it stands, then the hands are entered
                hands = {name: random.choice((3, 10, 40)) for name in status["match"]["seated"]}
                hands[status["winner"]] = 0
                table = _applied(table, {"type": "end_round", "winner": status["winner"], "hands": hands})
            else:
                for action in _candidates(ruleset, status):
                    try:
                        table, _ = match_table.apply(table, action)
                        break
                    except ApiError:
                        continue
                else:
                    table = _new_table(ruleset)  # nothing legal is left to try: another match
    finally:
        cli.text = original
    return rendered


def _applied(table: match_table.Table, action: dict) -> match_table.Table:
    """The table after ``action``, or a new match where the round cannot be ended so."""
    try:
        return match_table.apply(table, action)[0]
    except ApiError:
        return _new_table(table.game.ruleset)


# What game status and a reply print to say where the table stands (controller/layer/cli.py).
STATUS_TEXTS = frozenset(key for key in messages.GAME if key.startswith("status_"))


@pytest.mark.parametrize("ruleset", RULESET_IDS)
def test_every_status_text_of_every_ruleset_renders_in_both_languages(ruleset):
    rendered = _walk(ruleset)
    assert len(rendered & STATUS_TEXTS) > 8  # the walk went through several kinds of move


def test_the_walks_render_every_status_text():
    """A status text no walk reaches is a text never checked: a new one must be reached too."""
    rendered = set().union(*(_walk(ruleset) for ruleset in RULESET_IDS))
    assert len(STATUS_TEXTS) >= 27
    assert not STATUS_TEXTS - rendered, f"never rendered: {sorted(STATUS_TEXTS - rendered)}"


def test_a_log_written_before_colours_were_required_still_replays():
    """A match begun on an older version resumes: its colourless plays were accepted when logged."""
    logged = [{"type": "new", "rules": "attack-mega-hit", "players": PLAYERS},
              {"type": "play", "card": "hit-1", "by": "Ann"}, {"type": "press", "cards": 0, "by": "Bob"},
              {"type": "play", "card": "7", "by": "Cy"}]
    status = match_table.status(match_table.replay(logged))
    assert (status["turn"], status["top_card"], status["color"]) == ("Ann", "7", None)
    with pytest.raises(ApiError, match="7 has a colour"):  # a new play is refused all the same
        match_table.apply(match_table.replay(logged), {"type": "play", "card": "7"})
    classic_log = [{"type": "new", "rules": "classic", "players": PLAYERS, "first_card": "5"},
                   *[{"type": "press", "cards": 7}] * 3, {"type": "play", "card": "7", "by": "Ann"},
                   {"type": "catch", "player": "Ann"}]  # a catch the hand counts refuse now
    assert match_table.status(match_table.replay(classic_log))["queue"][0]["reason"] == "uno"
