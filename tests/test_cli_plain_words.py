"""launcherctl game's own lines in plain words (#40): ``game log``, ``game history``, ``game stats``
and ``game rules`` name the ruleset (and the cards) by the box and say what they say in the language
asked; ``--json`` keeps the ids."""

from __future__ import annotations

import json
import re

import pytest

from controller.rules.game import RULESET_IDS
from controller.rules import ruledoc
from controller.rules.ruledoc import rules_data
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


# ---- launcherctl game rules ------------------------------------------------------------------

RULES = list(RULESET_IDS)


@pytest.fixture(scope="module")
def rules_daemon(tmp_path_factory):
    """A daemon to ask the rules of (no game needed)."""
    with ThreadDaemon(tmp_path_factory.mktemp("rules")) as running:
        yield running


def _box_name(kind: str, name: str, lang: str) -> str:
    return render({"id": f"{kind}:{name}"}, lang)


def _typed_left_out(out: str, shown: dict) -> str:
    """The rules' text less what a person types as it is typed: the ids beside the names ("Appuyer
    2 fois (hit-2)", "UNO Blast (blast)"), the options' names and values (their lines, doc included),
    the scorings' names, the command-line flags and commands ("--color", "game challenge")."""
    typed = {rs["id"] for rs in shown["rulesets"]} | {card["card"] for rs in shown["rulesets"] for card in rs["cards"]}
    out = re.sub(r"\((" + "|".join(map(re.escape, sorted(typed, key=len, reverse=True))) + r")\)", " ", out)
    values = {word for rs in shown["rulesets"] for name, option in rs["options"].items()
              for word in (name, *option["choices"]) if not word.isdigit()}
    lines = []
    for line in out.splitlines():
        if line.lstrip().startswith("--option "):
            line = re.sub(r"^\s*--option \S+", " ", line)
            line = re.sub(r"(?<![\w-])(" + "|".join(map(re.escape, sorted(values, key=len, reverse=True))) + r")(?![\w-])",
                          " ", line)
        lines.append(line)
    out = "\n".join(lines)
    out = re.sub(r"(?<![\w-])(" + "|".join(map(re.escape, shown["scorings"])) + r")(?![\w-])", " ", out)
    return re.sub(r"--[a-z-]+( N)?|\bgame [a-z]+", " ", out)


@pytest.mark.parametrize("ruleset", RULES)
def test_rules_in_french_say_every_word_in_french(rules_daemon, ruleset):
    out = ctl(rules_daemon, "fr", "rules", ruleset)
    shown = json.loads(rules_daemon.ctl("game", "rules", ruleset, "--json").stdout)
    (rs,) = shown["rulesets"]
    assert out.splitlines()[0].startswith(f"{_box_name('ruleset', ruleset, 'fr')} ({ruleset})")
    for card in rs["cards"]:
        if not card["card"].isdigit():  # the box's name, the id a person types beside it
            assert f"  {_box_name('card', card['card'], 'fr')} ({card['card']}) " in out
    said = _typed_left_out(out, shown)
    assert leaks(said, "fr") == []
    assert sorted(set(re.findall(r"[^\W\d_]{3,}", said.casefold())) & ENGLISH) == []
    bare = {card["card"] for card in rs["cards"] if not card["card"].isdigit()} | set(RULES)  # a number is its name
    assert sorted(set(re.findall(r"[\w-]+", said)) & bare) == []  # no card or ruleset id elsewhere


@pytest.mark.parametrize("ruleset", RULES)
def test_rules_in_english_keep_the_ids_a_person_types(rules_daemon, ruleset):
    out = ctl(rules_daemon, "en", "rules", ruleset)
    shown = json.loads(rules_daemon.ctl("game", "rules", ruleset, "--json").stdout)
    (rs,) = shown["rulesets"]
    assert out.splitlines()[0].startswith(f"{_box_name('ruleset', ruleset, 'en')} ({ruleset})")
    for card in rs["cards"]:
        name = card["card"] if card["card"].isdigit() else f"{_box_name('card', card['card'], 'en')} ({card['card']})"
        assert re.search(rf"^  {re.escape(name)} +{card['points']} +", out, re.M), name
        for note in card["notes"]:  # the English notes rules_data gives
            assert note in out
    for name, option in rs["options"].items():
        assert f"--option {name}=" in out and option["doc"] in out
    for name, rule in shown["scorings"].items():
        assert f"  {name}: {rule}" in out
    assert leaks(_typed_left_out(out, shown), "en") == []


def test_rules_json_is_the_same_in_every_language(rules_daemon):
    plain, english, french = (json.loads(rules_daemon.ctl(*lang, "game", "rules", "--json").stdout)
                              for lang in ((), ("--lang", "en"), ("--lang", "fr")))
    assert plain == english == french == rules_data()


def test_every_english_text_of_the_rules_has_its_message():
    """The prose the rulesets carry in English (deck notes, option docs, scorings) and the cards'
    notes are the English texts of catalogue entries, which launcherctl game rules translates."""
    data = rules_data()
    prose = [*data["scorings"].values()]
    for rs in data["rulesets"]:
        prose += [rs["deck_note"], *(option["doc"] for option in rs["options"].values())]
        prose += [note for card in rs["cards"] for note in card["notes"]]
    assert [text for text in prose if text not in ruledoc._prose()] == []
