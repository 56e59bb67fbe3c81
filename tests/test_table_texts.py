"""Texts for the table never name a command (#24): nobody at the table types one.

Every message a table can be shown (the page, the voice, game/message events, replies and refusals
of the game and of the launcher) is rendered in English and in French, and none may read as a
command line: ``launcherctl ...``, ``game resume 1``, ``reload 83``, ``dispense 1``, an option
``--force``, an API method ``game/status``. The messages of the command-line tools themselves
(launcherctl's own lines, the bring-up dialogues) are theirs: they are the ids only those tools use.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from controller.text.messages import CATALOGUE, LANGUAGES, render
from test_messages import sample

ROOT = Path(__file__).resolve().parent.parent
# The command-line tools: what only they say may name their commands.
CLI_MODULES = ("controller/layer/cli.py", "controller/layer/game_parser.py", "firmware/tools/cli.py", "firmware/tools/bringup_cli.py", "firmware/extras/calibrate.py",
               "firmware/tools/demo.py", "firmware/daemon/launcherd.py",
               "controller/voice/sound.py",
               "controller/rules/ruledoc.py")  # launcherctl game rules and docs/rules.md: typed names, --color
COMMAND = re.compile(
    r"launcherctl|launcherd --|systemctl|\bsudo\b"
    r"|\bgame (new|undo|resume|abandon|repair|turn-up|end-round|play|press|insert|draw|pass|catch|uno"
    r"|challenge|accept|minions)\b"
    r"|\b(reload|dispense|feed|insert) (N|\d+)\b|\bdf -h\b|(^|\s)--[a-z]|(?<![/\w])(game|launcher|status|sim)/[a-z]")
# Where the catalogues define the ids: naming one there is no use of it.
CATALOGUE_MODULES = ("firmware/text/messages.py", "controller/text/messages.py", "controller/text/round_texts.py",
                     "controller/text/table_texts.py")
# Errors that answer a program calling the API with what it cannot do: they name the API's methods.
API_CALLER_IDS = frozenset({"aim_needs_angle_or_seat", "press_needs_sim"})


def _literal_ids(path: Path) -> set[str]:
    text = path.read_text()
    return {found for found in re.findall(r"[\"']([a-z0-9_:\-]+)[\"']", text) if found in CATALOGUE}


def table_ids() -> list[str]:
    """Every id but those only the command-line tools use (ids built at run time count as the table's)."""
    sources = [p for p in list((ROOT / "controller").rglob("*.py")) + list((ROOT / "firmware").rglob("*.py"))
               if str(p.relative_to(ROOT)) not in CATALOGUE_MODULES]
    cli, elsewhere = set(), set()
    for path in sources:
        (cli if str(path.relative_to(ROOT)) in CLI_MODULES else elsewhere).update(_literal_ids(path))
    return sorted(set(CATALOGUE) - (cli - elsewhere) - API_CALLER_IDS)


def test_the_walk_covers_the_game_and_the_launcher_and_leaves_out_the_tools_own_lines():
    ids = table_ids()
    for message_id in ("set_aside", "hopper_low", "dealing_advice", "tell_turned_up", "what_now_challenge",
                       "press_settles_first", "no_card_hopper_empty"):
        assert message_id in ids
    for message_id in ("status_round_won", "status_reset_how", "not_running", "press_empty"):
        assert message_id not in ids


@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_text_for_the_table_names_a_command(lang):
    commands = {message_id: text for message_id in table_ids()
                if COMMAND.search(text := render(sample(message_id), lang))}
    assert commands == {}


def test_the_check_catches_a_command_form():
    for text in ("tell it: launcherctl reload 83", "game resume 1 brings it back", "reload 83",
                 "turn up another (dispense 1)", "start another with --force", "see game/status"):
        assert COMMAND.search(text), text
    for text in ("reload the hopper: about 83 cards", "resume match 1 from the page", "Bob: accept 4 cards,"
                 " or challenge Lea", "the game log is /var/lib/launcher/game.sqlite"):
        assert not COMMAND.search(text), text


def test_launcherctl_adds_the_command_that_does_what_the_table_is_told(daemon_process):
    launcherd = daemon_process()
    started = launcherd.ctl("game", "new", "--rules", "attack-mega-hit", "--players", "Ann,Bob,Cy,Dee", check=True)
    assert ("load the other 83 into the launcher and reload the hopper: 83 cards (at a terminal:"
            " launcherctl reload 83)") in started.stdout
    set_aside = launcherd.ctl("game", "abandon", check=True)
    assert "match 1 is set aside: resume it from the history to bring it back (at a terminal:" \
           " launcherctl game resume 1)" in set_aside.stdout
    # The same reply through the API, as the page reads it, names no command.
    assert "launcherctl" not in " ".join(launcherd.call("game/new", {"rules": "attack-mega-hit",
                                                                     "players": ["Ann", "Bob"]})["messages"])
