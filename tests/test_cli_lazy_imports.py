"""launcherctl imports only what a command needs, when it runs: registering every command (which
each call does) imports neither the pins' library, nor the game's rules, nor the catalogue (Babel)."""

import subprocess
import sys

import pytest

from controller.layer.game_parser import RULESETS, SCORING_NAMES
from controller.match.scores import SCORINGS
from controller.rules.game import RULESET_IDS
from controller.rules.rulesets import DEFAULT_RULESET
from firmware.tools.cli import EXIT_USAGE, build_parser, main

HEAVY = ("gpiozero", "babel", "controller.rules", "controller.text.messages", "firmware.config",
         "firmware.daemon", "firmware.extras.calibrate", "segno", "statistics", "asyncio")

# Runs launcherctl --help in a fresh interpreter and lists the modules it imported.
PROBE = """
import sys
from firmware.tools.cli import main
try:
    main(["--help"])
except SystemExit:
    pass
print("\\n".join(sorted(sys.modules)), file=sys.stderr)
"""


def test_launcherctl_help_imports_neither_the_pins_nor_the_game_nor_the_catalogue():
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=60)
    assert "game" in done.stdout and "selftest" in done.stdout  # every entry point's commands were registered
    imported = done.stderr.split()
    assert [name for name in imported if name.startswith(HEAVY)] == []


def test_the_registries_names_are_the_choices_and_are_shown_as_argparse_shows_choices(capsys):
    assert list(RULESETS) == list(RULESET_IDS) and DEFAULT_RULESET in RULESETS
    assert list(SCORING_NAMES) == list(SCORINGS)
    with pytest.raises(SystemExit):
        main(["game", "new", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    assert "--rules {" + ",".join(RULESET_IDS) + "}" in shown
    assert "--scoring {" + ",".join(SCORINGS) + "}" in shown


def test_an_unknown_ruleset_is_a_usage_error_naming_the_rulesets(capsys):
    assert main(["game", "new", "--players", "Ann,Bob", "--rules", "chess"]) == EXIT_USAGE
    said = capsys.readouterr().err
    assert "invalid choice: 'chess'" in said and repr(RULESET_IDS[0]) in said


@pytest.mark.parametrize("scoring", SCORINGS)
def test_each_scoring_is_accepted(scoring):
    args = build_parser().parse_args(["game", "new", "--players", "Ann,Bob", "--scoring", scoring])
    assert args.scoring == scoring and args.rules is None  # left out: game/new is sent the default ruleset
