"""launcherctl game's own lines in plain words (#40): ``game log`` and ``game history`` name the
ruleset by its box and say what they say in the language asked; ``--json`` keeps the ids."""

from __future__ import annotations

import json
import re

import pytest

from controller.text.messages import render
from harness.launcherd import ThreadDaemon
from test_plain_refusals import ENGLISH, leaks

HOPPER = '[sim]\nhopper = 112\n[ejection]\nprofile = "fixed"\nsequence = [3, 0, 2]\n'


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """Two matches: one set aside (unfinished), one at the table with a press undone."""
    with ThreadDaemon(tmp_path_factory.mktemp("cli"), HOPPER) as running:
        running.call("game/new", {"rules": "attack-2005", "players": ["Ann", "Bob"]})
        running.call("game/new", {"rules": "attack-mega-hit", "players": ["Ann", "Bob", "Cy"], "force": True})
        running.call("game/play", {"card": "hit-2", "color": "red"})
        running.call("launcher/press")
        running.call("game/undo")
        yield running


def ctl(running, lang: str, *args: str) -> str:
    done = running.ctl("--lang", lang, "game", *args)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("lang", ["en", "fr"])
@pytest.mark.parametrize("command", ["log", "history"])
def test_log_and_history_name_the_box_and_speak_the_language(table, command, lang):
    out = ctl(table, lang, command)
    assert render({"id": "ruleset:attack-mega-hit"}, lang) in out
    if command == "history":
        assert render({"id": "ruleset:attack-2005"}, lang) in out
        assert render({"id": "cli_history_playing"}, lang) in out
    else:
        assert render({"id": "cli_log_undone"}, lang) in out  # the press taken back
    # The command a line names ("game resume 1") and the dates stay as typed.
    said = re.sub(r"game resume \d+|\d{4}-\d\d-\d\dT\S+", " ", out)
    assert leaks(said, lang) == []
    if lang == "fr":
        assert sorted(set(re.findall(r"[^\W\d_]{3,}", said.casefold())) & ENGLISH) == []


def test_json_keeps_the_ids(table):
    done = table.ctl("game", "history", "--json")
    assert {match["rules"] for match in json.loads(done.stdout)} == {"attack-2005", "attack-mega-hit"}
