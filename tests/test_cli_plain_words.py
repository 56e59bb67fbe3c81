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


# ---- launcherctl game stats ------------------------------------------------------------------

STATS_COLUMNS = ("label_presses", "stats_col_cards", "stats_col_burst", "stats_col_dry", "stats_col_sent",
                 "stats_col_received", "stats_col_won")


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """A Mega Hit match with a burst, a dry press and a round won, at the table."""
    with ThreadDaemon(tmp_path_factory.mktemp("stats"), HOPPER) as running:
        running.call("game/new", {"rules": "attack-mega-hit", "players": ["Ann", "Bob"]})
        running.call("game/play", {"card": "hit-2", "color": "red"})
        running.call("launcher/press")  # Bob: 3 cards
        running.call("launcher/press")  # Bob: none
        if running.call("game/status")["turn"] != "Ann":
            running.call("game/play", {"card": "7", "color": "red"})
        running.call("game/play", {"card": "discard-all", "color": "red", "last": True})  # Ann's six red: out
        running.call("game/end-round", {"winner": "Ann", "hands": {"Bob": 3}})
        yield running


def _columns_end_where_their_headings_end(header: str, rows: list[str], headings: list[str]) -> None:
    ends, at = [], 0
    for heading in headings:
        at = header.index(heading, at) + len(heading)
        ends.append(at)
    for row in rows:
        cells = [m.end() for m in re.finditer(r"\S+", row)][1:]  # after the player's name
        assert cells == ends, (header, row)


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_stats_speak_the_language_from_the_catalogue(played, lang):
    out = ctl(played, lang, "stats")
    lines = out.splitlines()
    said = {key: render({"id": key}, lang) for key in ("label_player", *STATS_COLUMNS)}
    head = render({"id": "stats_match_head", "match": 1, "ruleset": "attack-mega-hit"}, lang)
    assert lines[0] == head  # the ruleset by its box
    header = lines[1]
    assert header.split()[0] == said["label_player"]
    headings = [said[key] for key in STATS_COLUMNS]
    assert re.sub(r"\s+", " ", header).endswith(" ".join(headings))
    _columns_end_where_their_headings_end(header, lines[2:4], headings)
    assert [line.split()[0] for line in lines[2:4]] == ["Ann", "Bob"]
    # The lines say the figures --json gives, in the catalogue's words.
    match = json.loads(played.ctl("game", "stats", "--json").stdout)["match"]
    burst, dry = match["biggest_burst"], match["longest_dry_streak"]
    assert burst["cards"] == 3 and dry["presses"] == 1
    assert render({"id": "stats_biggest_burst", "player": burst["player"], "cards": 3}, lang) == lines[4]
    assert render({"id": "stats_longest_dry", "player": dry["player"], "presses": 1}, lang) == lines[5]
    minutes, seconds = divmod(int(match["rounds"][0]["seconds"]), 60)
    assert render({"id": "stats_round", "round": 1, "winner": "Ann", "time": f"{minutes}:{seconds:02d}"}, lang) == lines[6]
    history = render({"id": "stats_history", "matches": {"id": "stats_n_matches", "count": 1},
                      "rounds": {"id": "stats_n_rounds", "count": 1}}, lang)
    at = lines.index(history)
    history_headings = headings + [render({"id": key}, lang) for key in ("stats_col_matches", "stats_col_matches_won")]
    _columns_end_where_their_headings_end(lines[at + 1], lines[at + 2:at + 4], history_headings)
    assert lines[-1] == render({"id": "stats_columns"}, lang)
    assert leaks(out, lang) == []
    if lang == "fr":
        assert sorted(set(re.findall(r"[^\W\d_]{3,}", out.casefold())) & ENGLISH) == []


def test_stats_json_keeps_the_ids_in_every_language(played):
    english, french = (json.loads(played.ctl("--lang", lang, "game", "stats", "--json").stdout) for lang in ("en", "fr"))
    assert english == french
    assert english["match"]["ruleset"] == "attack-mega-hit" and english["match"]["biggest_burst"]["cards"] == 3
