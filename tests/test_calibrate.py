"""Calibration: the pure analysis on made-up runs, the line-based TOML editor, and launcherctl
calibrate against the simulated mechanism, whose timings are known ([sim] block_ms,
cards_per_second): it must find them within the tolerances below."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest

from firmware import i18n
from firmware.extras.calibrate import CalibrationError, analyse, measure, toml_snippet, update_toml, write_config
from firmware.config import build_config, default_toml, load_config
from test_bringup import BringupDaemon, ctl

LAUNCHERD = Path(sys.executable).parent / "launcherd"
# What calibration must find in the sim, on a machine however busy: the sim's blocks and feed times
# are at least as long as configured (the loop's wake-up latency only lengthens them, by as much as
# the machine's load makes it), within these of the configured values on the short side.
CROSSING_TOLERANCE_MS = 4.0
RATE_TOLERANCE = 0.10


def run(duty, cards, first_ms, period_ms, block_ms, ended="done", requested=None, skip=()):
    """A feed as bringup/feed reports it: a card every period_ms after first_ms, each blocking block_ms."""
    beam, t = [], first_ms
    for i in range(cards):
        if i in skip:
            t += period_ms  # a slip: the card comes one period late
        beam += [[t / 1000, True], [(t + block_ms) / 1000, False]]
        t += period_ms
    return {"duty": duty, "requested": requested or cards, "cards": cards, "ended": ended,
            "motor": [[0.0, "forward", duty]], "beam": beam}


# ---- measuring and proposing ----------------------------------------------------------------------


def test_measure_finds_crossings_gaps_periods_and_the_first_card():
    m = measure(run(0.5, 4, first_ms=90, period_ms=100, block_ms=10))
    assert m.crossings_ms == pytest.approx([10] * 4)
    assert m.gaps_ms == pytest.approx([90] * 3) and m.periods_ms == pytest.approx([100] * 3)
    assert m.first_feed_ms == pytest.approx(90) and m.misfeeds == 0 and m.clean


def test_a_slip_and_a_feed_that_ran_dry_are_misfeeds_and_a_jam_is_not_clean():
    assert measure(run(0.4, 5, 100, 100, 10, skip=(3,))).misfeeds == 1
    dry = measure(run(0.4, 2, 100, 100, 10, ended="empty", requested=5))
    assert dry.misfeeds == 1 and not dry.clean
    stuck = run(0.4, 2, 100, 100, 10, ended="jam")
    stuck["beam"].append([0.5, True])
    assert measure(stuck).jammed and not measure(stuck).clean


def test_analyse_proposes_with_the_stated_margins():
    runs = [run(0.4, 5, 160, 125, 12), run(0.6, 5, 110, 83, 10), run(0.8, 5, 80, 62, 9)]
    result = analyse(runs, build_config({}))
    assert result["proposed"] == {
        "motor": {"duty": 0.6, "kick_duty": 0.8, "kick_ms": 40},
        "timing": {"card_crossing_ms": 18, "jam_ms": 118, "feed_timeout_ms": 310},
    }
    assert set(result["margins"]) == {"duty", "kick_duty", "kick_ms", "card_crossing_ms", "jam_ms",
                                      "feed_timeout_ms"}
    assert result["measured"]["cards_per_second_at_full_duty"] == pytest.approx(1000 / 83 / 0.6, rel=0.01)
    # The proposal passes the configuration's checks.
    build_config({section: dict(body) for section, body in result["proposed"].items()})


def test_a_duty_with_misfeeds_is_not_used_and_is_reported():
    runs = [run(0.4, 5, 160, 125, 12, skip=(2,)), run(0.6, 5, 110, 83, 10), run(0.8, 5, 80, 62, 9)]
    result = analyse(runs, build_config({}))
    assert result["proposed"]["motor"]["duty"] == 0.8
    assert any("duty 0.4: 1 misfeed" in w for w in result["warnings"])


def test_nothing_clean_proposes_nothing_and_says_what_to_try():
    result = analyse([run(0.2, 1, 900, 100, 10, ended="empty", requested=5)], build_config({}))
    assert result["proposed"] == {} and any("higher duties" in w for w in result["warnings"])


def test_the_snippet_is_toml_that_reads_back():
    proposed = {"motor": {"duty": 0.6}, "timing": {"jam_ms": 118}}
    import tomllib

    assert tomllib.loads(toml_snippet(proposed)) == proposed


# ---- the TOML editor --------------------------------------------------------------------------------

USER_FILE = """# my launcher
[motor]
duty = 0.7   # was too fast at 0.9
retract_ms = 60

[timing]
# the beam
jam_ms = 400
sleep_after_s = 600

[ejection]
profile = "tension"
"""


def test_update_keeps_comments_order_and_other_settings():
    text = update_toml(USER_FILE, {"motor": {"duty": 0.6, "kick_ms": 30}, "timing": {"jam_ms": 118},
                                   "feedback": {"chime_ms": 100}})
    assert text.splitlines()[:5] == ["# my launcher", "[motor]", "duty = 0.6   # was too fast at 0.9",
                                     "retract_ms = 60", "kick_ms = 30"]
    assert "# the beam\njam_ms = 118\nsleep_after_s = 600\n" in text
    assert 'profile = "tension"' in text and text.endswith("[feedback]\nchime_ms = 100\n")


def test_update_of_the_shipped_file_changes_only_the_value_lines():
    text = update_toml(default_toml(), {"motor": {"duty": 0.55}, "timing": {"feed_timeout_ms": 321}})
    before, after = default_toml().splitlines(), text.splitlines()
    changed = [(a, b) for a, b in zip(before, after) if a != b]
    assert len(before) == len(after) and changed == [("duty = 0.7", "duty = 0.55"),
                                                     ("feed_timeout_ms = 1500", "feed_timeout_ms = 321")]


@pytest.mark.parametrize("text", ["motor.duty = 0.7\n", "motor = { duty = 0.7 }\n"])
def test_a_file_it_cannot_edit_safely_is_refused(text):
    with pytest.raises(CalibrationError, match="cannot change safely|break the file"):
        update_toml(text, {"motor": {"duty": 0.6}})


def test_write_refuses_a_result_that_would_fail_check_config_and_leaves_the_file(tmp_path):
    path = tmp_path / "launcher.toml"
    path.write_text("[timing]\nlaunch_timeout_ms = 300\njam_ms = 100\nfeed_timeout_ms = 200\n")
    before = path.read_text()
    with pytest.raises(CalibrationError, match="feed_timeout_ms = 400: must be shorter than launch_timeout_ms"):
        write_config(path, {"timing": {"feed_timeout_ms": 400}})
    assert path.read_text() == before and [p.name for p in tmp_path.iterdir()] == ["launcher.toml"]


def test_write_keeps_the_file_mode(tmp_path):
    path = tmp_path / "launcher.toml"
    path.write_text(USER_FILE)
    path.chmod(0o640)
    write_config(path, {"motor": {"duty": 0.6}})
    assert path.stat().st_mode & 0o777 == 0o640 and load_config(path).motor.duty == 0.6


# ---- against the simulated mechanism ----------------------------------------------------------------

SIM = """
[sim]
cards_per_second = 20.0
block_ms = 20
[timing]
card_crossing_ms = 40
jam_ms = 400
feed_timeout_ms = 1500
"""


def test_calibrate_finds_the_sims_own_timings_and_writes_a_valid_config(tmp_path, capsys):
    with BringupDaemon(tmp_path, SIM) as d:
        config = Path(d.daemon.config.source)
        config.write_text("# tuned by hand\n" + config.read_text())
        code, out, err = ctl(d, capsys, "calibrate", "--json", "--cards", "4", "--duties", "0.5,0.8",
                             "--write")
    assert code == 0, err
    result = json.loads(out)
    crossing = result["measured"]["crossing_ms"]["median"]
    assert crossing >= 20 - CROSSING_TOLERANCE_MS  # the sim's 20 ms blocks, not shorter
    assert result["measured"]["cards_per_second_at_full_duty"] <= 20.0 * (1 + RATE_TOLERANCE)
    for measured in result["runs"]:
        assert measured["cards"] == 4 and measured["clean"]  # every card out, no misfeed, no jam
        expected = 1000 / (20 * measured["duty"])
        assert measured["first_feed_ms"] >= expected * (1 - RATE_TOLERANCE)
    proposed = result["proposed"]
    assert proposed["motor"]["duty"] == 0.8
    assert proposed["timing"]["card_crossing_ms"] >= 20 * 1.5
    assert proposed["timing"]["jam_ms"] > proposed["timing"]["card_crossing_ms"]
    assert proposed["timing"]["feed_timeout_ms"] >= 2 * 1000 / (20 * 0.8)
    assert result["written"] == str(config)
    assert config.read_text().startswith("# tuned by hand\n")
    written = load_config(config)
    assert written.sim.block_ms == 20 and written.timing.card_crossing_ms == proposed["timing"]["card_crossing_ms"]
    check = subprocess.run([str(LAUNCHERD), "--check-config", str(config)], capture_output=True, text=True)
    assert check.returncode == 0, check.stderr


def test_calibrate_prints_a_table_and_the_snippet(tmp_path, capsys):
    with BringupDaemon(tmp_path, SIM) as d:
        code, out, _ = ctl(d, capsys, "calibrate", "--cards", "2", "--duties", "0.9")
    assert code == 0
    assert "duty 0.9: 2 of 2 cards (done)" in out and "[timing]\ncard_crossing_ms = " in out
    assert "proposed (margins used):" in out


def test_calibrate_write_without_a_file_is_a_usage_error(tmp_path, capsys):
    with BringupDaemon(tmp_path) as d:
        # As if the daemon ran on the built-in defaults: it has no file to write.
        d.daemon.config = dataclasses.replace(d.daemon.config, source="<defaults>")
        code, _, err = ctl(d, capsys, "calibrate", "--write", "--cards", "1", "--duties", "0.9")
    assert code == 2 and "--config FILE" in err


# ---- in French (issue #14) -----------------------------------------------------------------------------


def test_the_warnings_and_margins_are_in_the_current_language():
    runs = [run(0.4, 5, 160, 125, 12, skip=(2,)), run(0.6, 5, 110, 83, 10), run(0.8, 5, 80, 62, 9)]
    with i18n.speaking("en"):
        english = analyse(runs, build_config({}))
    with i18n.speaking("fr"):
        french = analyse(runs, build_config({}))
    assert english["warnings"] == ["duty 0.4: 1 misfeed, 0 jams: not used"]
    assert french["warnings"] == ["cycle 0,4 : 1 raté, 0 bourrage : non retenu"]
    assert english["margins"]["jam_ms"] == "x4.0 the longest crossing seen, at least card_crossing_ms + 100 ms"
    assert english["margins"]["kick_ms"].startswith("50% of the first-card time at kick_duty, from 20 to 300 ms")
    assert french["margins"]["kick_duty"] == "le plus haut cycle propre essayé"
    assert french["proposed"] == english["proposed"]


def test_calibrate_prints_its_table_in_french_with_the_same_columns(tmp_path, capsys):
    with BringupDaemon(tmp_path, SIM) as d:
        code, out, _ = ctl(d, capsys, "--lang", "fr", "calibrate", "--cards", "2", "--duties", "0.9")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "calibration : 2 cartes à chaque cycle parmi 0.9"
    assert "  cycle 0.9 : 2 cartes sur 2 (terminé)" in lines and "proposition (marges utilisées) :" in lines
    header = next(line for line in lines if line.startswith("cycle cartes"))
    row = lines[lines.index(header) + 1]
    assert len(header) - len("bourrage") == len(row) - len("non") and row.endswith("non")


def test_a_file_calibration_cannot_edit_is_refused_in_the_current_language():
    with i18n.speaking("fr"), pytest.raises(CalibrationError, match="^x.toml : TOML invalide, non modifié : "):
        update_toml("[motor\n", {"motor": {"duty": 0.6}}, "x.toml")
    with i18n.speaking("en"), pytest.raises(CalibrationError, match="^x.toml: not valid TOML, not edited: "):
        update_toml("[motor\n", {"motor": {"duty": 0.6}}, "x.toml")
