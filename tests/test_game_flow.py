"""Game flow through launcherd (#10): matches that are not dropped, who acted, advice that is current,
undo that says where the cards are, a turned-up attack that still counts presses, the rules page."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from harness.launcherd import ThreadDaemon
from controller.rules import ruledoc
from controller.rules.points import POINTS
from controller.rules.game import RULESET_IDS
from controller.match.scores import SCORING_RULES
from firmware.errors import ApiError

LAUNCHERCTL = str(Path(sys.executable).with_name("launcherctl"))
THREE = {"rules": "attack-mega-hit", "players": ["Ann", "Bob", "Cy"]}
BURSTS = """
[ejection]
profile = "fixed"
sequence = [3, 0, 2]
"""
RULES_PAGE = Path(__file__).resolve().parent.parent / "docs" / "rules.md"


def ctl(running: ThreadDaemon, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([LAUNCHERCTL, "--socket", str(running.daemon.socket_path), "game", *args],
                          capture_output=True, text=True, timeout=30)


def test_a_running_match_is_not_dropped_by_game_new_and_can_be_resumed(tmp_path):
    with ThreadDaemon(tmp_path) as running:
        running.call("game/new", THREE)
        running.call("game/play", {"card": "7", "color": "red"})
        with pytest.raises(ApiError) as refused:
            running.call("game/new", {**THREE, "players": ["Dee", "Eve"]})
        assert refused.value.code == ApiError.REFUSED
        assert "start a new game anyway" in refused.value.message and "set it aside" in refused.value.message
        forced = running.call("game/new", {**THREE, "players": ["Dee", "Eve"], "force": True})
        assert forced["match_id"] == 2 and forced["messages"][0] == "match 1 is set aside: resume it from the history to bring it back"
        history = ctl(running, "history")
        assert "not finished (game resume 1)" in history.stdout and "being played" in history.stdout
        resumed = running.call("game/resume", {"match": 1})
        assert resumed["match_id"] == 1 and resumed["turn"] == "Bob"  # where match 1 was left
        assert "match 2 is set aside: resume it from the history to bring it back" in resumed["messages"]
    with ThreadDaemon(tmp_path) as again:  # the choice is the table's, kept across a restart
        assert again.call("game/status")["match_id"] == 1
        abandoned = ctl(again, "abandon")
        assert abandoned.returncode == 0 and "match 1 is set aside" in abandoned.stdout
        with pytest.raises(ApiError) as none:
            again.call("game/status")
        assert none.value.code == ApiError.NOT_FOUND
        assert again.call("game/new", THREE)["match_id"] == 3  # nothing running: no --force needed
        with pytest.raises(ApiError) as missing:
            again.call("game/resume", {"match": 9})
        assert missing.value.code == ApiError.NOT_FOUND


def test_the_log_says_who_acted(tmp_path):
    with ThreadDaemon(tmp_path, BURSTS) as running:
        running.call("game/new", THREE)
        running.call("game/play", {"card": "hit-1", "color": "red"})
        assert running.call("launcher/launch")["cards"] == 3  # Bob's press
        running.call("game/uno", {"player": "Cy"})
        shown = ctl(running, "log").stdout.splitlines()
        # In words (#40); the ids stay in the log's actions (--json).
        assert re.search(r" Ann plays Hit 1 \(red\)$", shown[2])
        assert re.search(r" Bob pressed: 3 cards$", shown[3])
        assert re.search(r" Cy called Uno$", shown[4])
        actions = running.call("game/log", {"words": True})["actions"]  # each action in words too
        assert actions[1]["action"] == {"type": "play", "card": "hit-1", "color": "red", "by": "Ann"}
        assert actions[3]["said"] == {"id": "action_uno", "player": "Cy"} and actions[3]["text"] == "Cy called Uno"


def test_replies_follow_a_reload_made_while_the_launcher_was_ready(tmp_path):
    with ThreadDaemon(tmp_path) as running:
        running.call("game/new", THREE)
        running.call("launcher/reload", {"cards": 0})
        assert running.call("game/play", {"card": "7", "color": "red"})["reload_advice"]["text"].startswith("the launcher is empty")
        running.call("launcher/reload", {"cards": 112})
        reply = ctl(running, "play", "5")
        assert reply.returncode == 0 and "empty" not in reply.stdout
        assert running.call("game/status")["reload_advice"] == {
            "hopper": 112, "reload": False, "text": "the launcher holds about 112 cards",
            "text_object": {"id": "hopper_holds", "hopper": 112}}


def test_game_new_and_each_new_round_say_how_many_cards_to_load_after_dealing(tmp_path):
    with ThreadDaemon(tmp_path) as running:
        started = running.call("game/new", {**THREE, "players": ["Ann", "Bob", "Cy", "Dee"]})
        assert started["messages"][-1] == ("deal 7 cards each by hand (28), turn one up, load the other 83"
                                           " into the launcher and reload the hopper: 83 cards")
        running.call("game/play", {"card": "discard-all", "color": "red", "last": True})  # seven red: out
        ended = running.call("game/end-round", {"winner": "Ann", "hands": {"Bob": 3, "Cy": 4, "Dee": 5}})
        assert ended["messages"][-1].endswith("reload the hopper: 83 cards")
        old_box = running.call("game/new", {"rules": "attack-2005", "players": ["A", "B"], "force": True})
        assert old_box["messages"][-1].endswith("load the rest into the launcher and reload the hopper with"
                                                " how many they are")


def test_undoing_a_press_says_the_cards_came_out_and_who_holds_them(tmp_path):
    with ThreadDaemon(tmp_path, BURSTS) as running:
        running.call("game/new", THREE)
        assert running.call("launcher/launch")["cards"] == 3  # Ann's press: 3 cards, her turn is over
        undone = ctl(running, "undo")
        assert undone.returncode == 0, undone.stderr
        assert ("undone: Ann pressed: 3 cards. Those 3 cards did come out of the launcher and"
                " Ann holds them") in undone.stdout
        assert "then reload the hopper with how many it holds" in undone.stdout
        status = running.call("game/status")
        assert status["turn"] == "Ann" and status["players"][0]["cards_taken"] == 0


def test_a_press_while_the_turned_up_attack_waits_lands_in_the_game(tmp_path):
    with ThreadDaemon(tmp_path, BURSTS) as running:
        running.call("game/new", {**THREE, "first_card": "wild-attack"})
        assert running.call("launcher/launch")["cards"] == 3
        status = running.call("game/status")
        assert status["players"][0]["cards_taken"] == 3 and status["awaiting"] == "first_attack"
        assert running.call("game/log")["actions"][-1]["action"] == {
            "type": "press", "cards": 3, "press_id": 1, "by": "Ann"}


def test_status_says_where_the_game_log_is(tmp_path):
    with ThreadDaemon(tmp_path) as running:
        running.call("game/new", THREE)
        assert running.call("game/status")["state_dir"] == str(tmp_path / "state" / "game")
        assert f"game log in {tmp_path / 'state'}" in ctl(running, "status").stdout
        running.call("game/abandon")
        with pytest.raises(ApiError) as none:
            running.call("game/status")
        assert f"the game log is {tmp_path / 'state' / 'game' / 'game.sqlite3'}" in none.value.message


def _page_tables(page: str) -> dict[str, dict[str, int]]:
    """Ruleset id -> card -> points, as the page's tables show them."""
    shown: dict[str, dict[str, int]] = {}
    current = None
    for line in page.splitlines():
        heading = re.match(r"## `([\w-]+)`", line)
        if heading:
            current = shown.setdefault(heading.group(1), {})
        row = re.match(r"\| `([\w-]+)` \| (\d+) \|", line)
        if row and current is not None:
            current[row.group(1)] = int(row.group(2))
    return shown


def test_the_rules_page_and_launcherctl_game_rules_show_the_ruleset_data(tmp_path):
    page = RULES_PAGE.read_text()
    assert page == ruledoc.markdown(), "docs/rules.md is stale: python -m controller.rules.ruledoc > docs/rules.md"
    assert _page_tables(page) == {name: dict(POINTS[name]) for name in RULESET_IDS}
    for variant, rule in SCORING_RULES.items():
        assert f"- `{variant}`: {rule}." in page
    with ThreadDaemon(tmp_path) as running:
        shown = ctl(running, "rules", "attack-2005")
        assert shown.returncode == 0, shown.stderr
        assert re.search(r"^  Trade Hands \(trade-hands\) +30 +4 ", shown.stdout, re.M)
        assert "attack-mega-hit" not in shown.stdout and "elimination: " in shown.stdout
        every = json.loads(ctl(running, "rules", "--json").stdout)
        assert [r["id"] for r in every["rulesets"]] == list(RULESET_IDS)
        assert {c["card"]: c["points"] for c in every["rulesets"][0]["cards"]} == dict(POINTS["attack-mega-hit"])
        assert ctl(running, "rules", "uno-flip").returncode == 2
        with pytest.raises(ApiError) as unknown:
            running.call("game/rules", {"rules": "uno-flip"})
        assert unknown.value.code == ApiError.INVALID_PARAMS


def test_match_statistics_are_served_by_the_game_layer(tmp_path):
    with ThreadDaemon(tmp_path, BURSTS) as running:
        running.call("game/new", THREE)
        running.call("launcher/launch")
        assert isinstance(running.call("game/stats"), dict)
        shown = ctl(running, "stats")
        assert shown.returncode == 0, shown.stderr
        assert "Ann" in shown.stdout


def test_game_history_comes_a_page_at_a_time_from_the_cli(tmp_path):
    with ThreadDaemon(tmp_path) as running:
        for _ in range(4):
            running.call("game/new", {**THREE, "force": True})

        def matches(*args: str) -> list[int]:
            shown = ctl(running, "history", "--json", *args)
            assert shown.returncode == 0, shown.stderr
            return [entry["id"] for entry in json.loads(shown.stdout)]

        assert matches() == [1, 2, 3, 4]
        assert matches("--limit", "2") == [3, 4]
        assert matches("--limit", "2", "--before", "3") == [1, 2]
        refused = ctl(running, "history", "--limit", "0")
        assert refused.returncode != 0 and "limit" in refused.stderr
