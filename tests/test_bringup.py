"""launcherctl selftest, jog and inputs end to end: launcherd in a thread (which loads bring-up), the
CLI run in-process against its socket. In simulation the mechanism plays the person's part; on mock
pins without the simulation, a scripted person answers the prompts."""

from __future__ import annotations

import io
import json
import threading

import pytest


from firmware.extras import bringup
from firmware.tools import bringup_cli
from firmware.tools.cli import main as launcherctl
from firmware.config import load_config
from firmware.board.pins import HEADER_PINS
from harness.launcherd import ThreadDaemon, write_config
from harness.waits import HANG_S, wait_until


class BringupDaemon(ThreadDaemon):
    """ThreadDaemon, also on mock pins without the simulation (``sim=False``)."""

    def __init__(self, tmp_path, extra_config: str = "", sim: bool = True, **kwargs):
        super().__init__(tmp_path, extra_config, **kwargs)
        if not sim:
            from firmware.daemon.driver import Daemon
            from firmware.launcher.sim import sim_pin_factory

            config = load_config(write_config(tmp_path, extra_config))
            self.daemon = Daemon(config, sim=False, socket_path=tmp_path / "t.sock",
                                 state_dir=tmp_path / "state", pin_factory=sim_pin_factory(),
                                 load_layers=False)


class Answers(io.StringIO):
    """A terminal with a person who gives these answers, in order."""

    def isatty(self) -> bool:
        return True


def ctl(daemon: ThreadDaemon, capsys, *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = launcherctl(["--socket", str(daemon.daemon.socket_path), *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def no_terminal(monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO(""))


@pytest.fixture(autouse=True)
def servo_settles_at_once(monkeypatch):
    """The simulated servo is where it was sent at once: the sweep need not wait for it at each end."""
    monkeypatch.setattr(bringup, "SERVO_SETTLE_S", 0.01)


@pytest.fixture
def quick_jogs(monkeypatch):
    """The selftest's jogs 50 ms each instead of 300: each still runs the motor through the core
    and ends ``done`` (what the step judges), in a sixth of the time."""
    monkeypatch.setattr(bringup_cli, "SELFTEST_JOG_MS", 50)


def test_the_header_table_agrees_with_gpiozero_board_data():
    from gpiozero.pins.mock import MockFactory

    header = MockFactory(revision="a02082").board_info.headers["J8"]
    assert HEADER_PINS == {int(info.name.removeprefix("GPIO")): number
                           for number, info in header.pins.items() if info.name.startswith("GPIO")}


def test_selftest_in_the_sim_passes_every_step_and_reports_json(tmp_path, capsys, no_terminal, quick_jogs):
    with BringupDaemon(tmp_path) as d:
        code, out, _ = ctl(d, capsys, "selftest", "--json")
        report = json.loads(out)
        assert code == 0 and report["sim"] is True
        assert [s["step"] for s in report["steps"]] == [
            "led", "chime", "motor_forward", "motor_reverse", "standby", "beam", "button", "lid", "servo"]
        assert {s["result"] for s in report["steps"]} == {"pass"}, report
        assert report["passed"] == 9 and report["failed"] == report["skipped"] == 0
        assert {s["judged_by"] for s in report["steps"]} == {"sim"}
        # The launcher is back to normal: bench mode off, the button launches again.
        status = d.call("status/get")
        assert status["state"] == "ready" and status["bringup"]["bench"] is False
        assert d.call("launcher/press")["event"] == "launched"


def test_selftest_human_output_names_each_step(tmp_path, capsys, no_terminal, quick_jogs):
    with BringupDaemon(tmp_path) as d:
        code, out, _ = ctl(d, capsys, "selftest")
    assert code == 0, out
    assert "[pass] break-beam: seen active, then back" in out and "9 passed, 0 failed, 0 skipped" in out
    assert "wheel must be free" in out and "block the beam" in out and "press the launch button" in out


def test_a_failing_step_says_what_to_check_with_the_wiring_row(tmp_path, capsys, no_terminal):
    # Motor limits too short for the selftest's jog: both motor steps and standby fail, refused.
    limits = """
[timing]
max_on_ms = 290
launch_timeout_ms = 200
feed_timeout_ms = 150
jam_ms = 100
"""
    with BringupDaemon(tmp_path, limits) as d:
        code, out, _ = ctl(d, capsys, "selftest", "--json")
    report = json.loads(out)
    assert code == 1
    steps = {s["step"]: s for s in report["steps"]}
    forward = steps["motor_forward"]
    assert forward["result"] == "fail" and "max_on_ms (290)" in forward["detail"]
    assert "[pins] motor_forward = GPIO 12 (header pin 32)" in forward["check"]
    assert any("PWMA" in line for line in forward["check"])
    assert steps["standby"]["result"] == "fail"
    assert steps["beam"]["result"] == "pass" and report["failed"] == 3


def test_without_the_sim_a_person_answers_and_inputs_time_out_with_the_pin_level(tmp_path, capsys, monkeypatch,
                                                                                 quick_jogs):
    monkeypatch.setattr(bringup_cli, "WAIT_S", 0.3)
    # LED no, chime yes, wheel free yes, forward yes, reverse skip, standby yes
    monkeypatch.setattr("sys.stdin", Answers("n\ny\ny\ny\ns\ny\n"))
    with BringupDaemon(tmp_path, sim=False) as d:
        code, out, _ = ctl(d, capsys, "selftest", "--json")
    report = json.loads(out)
    steps = {s["step"]: s for s in report["steps"]}
    assert code == 1 and report["sim"] is False
    assert steps["led"]["result"] == "fail" and steps["led"]["judged_by"] == "person"
    assert "[pins] led = GPIO 23 (header pin 16)" in steps["led"]["check"]
    assert steps["chime"]["result"] == "pass" and steps["motor_forward"]["result"] == "pass"
    assert steps["motor_reverse"]["result"] == "skipped" and steps["standby"]["result"] == "pass"
    beam = steps["beam"]
    assert beam["result"] == "fail" and beam["detail"] == "nothing seen in 0 s"
    assert beam["check"][0] == ("[pins] beam = GPIO 27 (header pin 13), reads high now (active low,"
                                " internal pull-up)")
    assert steps["lid"]["result"] == "skipped" and steps["servo"]["result"] == "skipped"


def test_without_a_person_nothing_moves_and_what_needs_eyes_is_skipped(tmp_path, capsys, monkeypatch,
                                                                         no_terminal):
    monkeypatch.setattr(bringup_cli, "WAIT_S", 0.2)
    with BringupDaemon(tmp_path, sim=False) as d:
        code, out, _ = ctl(d, capsys, "selftest", "--json")
        assert d.daemon.core.get_status()["cards_ejected"] == 0
    steps = {s["step"]: s for s in json.loads(out)["steps"]}
    assert steps["led"]["result"] == "skipped" and "--yes" in steps["led"]["detail"]
    assert steps["motor_forward"]["result"] == "skipped"
    assert steps["motor_forward"]["detail"] == "nobody said the wheel is free"


def test_yes_takes_the_daemons_word_where_it_did_its_part(tmp_path, capsys, monkeypatch, no_terminal, quick_jogs):
    monkeypatch.setattr(bringup_cli, "WAIT_S", 0.2)
    with BringupDaemon(tmp_path, sim=False) as d:
        code, out, _ = ctl(d, capsys, "selftest", "--json", "--yes")
    steps = {s["step"]: s for s in json.loads(out)["steps"]}
    assert [steps[k]["result"] for k in ("led", "chime", "motor_forward", "motor_reverse", "standby")] == ["pass"] * 5
    assert steps["led"]["judged_by"] == "daemon"
    assert steps["button"]["result"] == "fail"  # nobody pressed it: the daemon saw nothing


def test_a_person_blocking_the_beam_is_seen_without_the_sim(tmp_path, capsys, monkeypatch, no_terminal):
    """The person: drives the beam pin low and back when the CLI starts waiting for it, then the
    button's (both active low) so that no step waits its whole WAIT_S for nothing."""
    monkeypatch.setattr(bringup_cli, "WAIT_S", 5.0)
    with BringupDaemon(tmp_path, sim=False) as d:
        pins = {"beam": d.daemon.pin_factory.pin(27), "button": d.daemon.pin_factory.pin(17)}
        calls = []
        real = bringup_cli.Client.call

        def call(self, method, params=None):
            if method == "bringup/wait-input" and params["input"] in pins:
                pin = pins[params["input"]]
                act = pin.drive_low if params["active"] else pin.drive_high
                calls.append((params["input"], params["active"]))
                threading.Timer(0.1, lambda: d.daemon.loop.call_soon_threadsafe(act)).start()
            return real(self, method, params)

        monkeypatch.setattr(bringup_cli.Client, "call", call)
        code, out, _ = ctl(d, capsys, "selftest", "--json")
        assert d.daemon.core.get_status()["cards_ejected"] == 0 and d.daemon.core.get_status()["state"] == "ready"
    report = json.loads(out)
    assert "steps" in report, out
    steps = {s["step"]: s for s in report["steps"]}
    assert calls == [("beam", True), ("beam", False), ("button", True), ("button", False)]
    assert steps["beam"]["result"] == "pass" and steps["beam"]["judged_by"] == "daemon"
    assert steps["button"]["result"] == "pass"


def test_selftest_refuses_to_start_unless_ready(tmp_path, capsys, no_terminal):
    with BringupDaemon(tmp_path) as d:
        d.call("system/estop", {"reason": "test"})
        code, _, err = ctl(d, capsys, "selftest")
    assert code == 1 and "halted" in err


@pytest.mark.parametrize("command", [["selftest"], ["calibrate", "--cards", "2"]])
def test_selftest_and_calibrate_refuse_to_start_while_something_waits_for_a_press(tmp_path, capsys, no_terminal,
                                                                                  command):
    """Their bench mode is entered on purpose and runs the motor: not while a dispense held after a
    jam waits for a press, whose count their cards would join (#36)."""
    from harness.waits import wait_for_status

    with BringupDaemon(tmp_path) as d, d.client() as dealer:
        d.call("sim/jam")
        dealer.send("launcher/dispense", {"count": 4})
        wait_for_status(d.call, lambda s: s["state"] == "jammed")
        d.call("sim/clear")
        before = wait_for_status(d.call, lambda s: s["pending"] is not None)
        code, out, err = ctl(d, capsys, *command)
        after = d.call("status/get")
    assert code == 1 and "waits for a press" in err and "press the button" in err, (out, err)
    assert after["sim"]["cards_out"] == before["sim"]["cards_out"] and after["bringup"]["bench"] is False
    assert after["pending"] == before["pending"]


# ---- jog and inputs -------------------------------------------------------------------------------


def test_jog_runs_through_the_core_and_reports(tmp_path, capsys):
    with BringupDaemon(tmp_path) as d:
        code, out, _ = ctl(d, capsys, "jog", "reverse", "--ms", "120", "--duty", "0.4")
        assert code == 0 and out.strip() == "reverse 120 ms at 40%: done"
        code, out, _ = ctl(d, capsys, "jog", "forward", "--ms", "50", "--duty", "0.3", "--json")
        assert code == 0 and json.loads(out)["jogged"]["ended"] == "done"


def test_jog_beyond_the_limits_or_with_the_lid_open_is_refused(tmp_path, capsys):
    with BringupDaemon(tmp_path) as d:
        code, _, err = ctl(d, capsys, "jog", "forward", "--ms", "25000", "--duty", "0.3")
        assert code == 1 and "max_on_ms" in err
        code, _, err = ctl(d, capsys, "jog", "forward", "--ms", "100", "--duty", "0.01")
        assert code == 1 and "duty" in err
        d.call("sim/lid", {"open": True})
        code, _, err = ctl(d, capsys, "jog", "forward", "--ms", "100", "--duty", "0.3")
        assert code == 1 and "lid_open" in err
        d.call("system/estop", {})
        d.call("sim/lid", {"open": False})
        code, _, err = ctl(d, capsys, "jog", "forward", "--ms", "100", "--duty", "0.3")
        assert code == 1 and "halted" in err


def test_jog_refused_by_the_rest_rule_says_when_to_retry(tmp_path, capsys):
    # A rest far longer than a busy machine takes between two jogs: the chain stays spent.
    limits = ("[timing]\nmax_on_ms = 400\nlaunch_timeout_ms = 300\nfeed_timeout_ms = 200\njam_ms = 100\n"
              "motor_rest_ms = 60000\n")
    with BringupDaemon(tmp_path, limits) as d:
        assert ctl(d, capsys, "jog", "forward", "--ms", "350", "--duty", "0.3")[0] == 0
        code, out, _ = ctl(d, capsys, "--json", "jog", "forward", "--ms", "200", "--duty", "0.3")
    error = json.loads(out)["error"]
    assert code == 1 and "rest" in error["message"] and 0 < error["retry_after_s"] <= 60


def test_inputs_shows_levels_pins_and_the_level_read(tmp_path, capsys):
    with BringupDaemon(tmp_path) as d:
        code, out, _ = ctl(d, capsys, "inputs")
        assert code == 0
        assert "button  released  GPIO 17 (header pin 11) reads high (active low, pull-up)" in out
        d.call("sim/lid", {"open": True})
        code, out, _ = ctl(d, capsys, "inputs", "--json")
    lid = json.loads(out)["inputs"]["lid"]
    assert lid["active"] is True and lid["level"] == "high" and lid["header"] == HEADER_PINS[lid["gpio"]]


def test_inputs_watch_prints_each_edge_live(tmp_path, capsys):
    with BringupDaemon(tmp_path) as d:
        lines: list[str] = []
        subscribed, done = threading.Event(), threading.Event()

        def watch():
            from firmware.client import Client

            with Client(d.daemon.socket_path) as client:
                client.call("events/subscribe")
                subscribed.set()
                for message in client.messages():
                    if message.get("event") == "trace" and message["params"].get("what") == "lid":
                        lines.append(json.dumps(message["params"]))
                        if len(lines) == 2:
                            done.set()
                            return

        watcher = threading.Thread(target=watch, daemon=True)
        watcher.start()
        assert subscribed.wait(HANG_S)  # edges before the subscription would never reach it
        d.call("bringup/bench", {"seconds": 30})
        d.call("sim/lid", {"open": True})
        d.call("sim/lid", {"open": False})
        assert done.wait(HANG_S)
        assert [json.loads(line)["level"] for line in lines] == [True, False]
        # Leaving bench mode restores the lid's refill gesture and the button.
        d.call("bringup/bench", {"seconds": 0})
        assert d.call("status/get")["bringup"]["bench"] is False


def test_docs_bringup_names_every_method_and_the_numbers_the_code_uses(tmp_path):
    from pathlib import Path

    from firmware.config import load_config as defaults

    text = (Path(__file__).resolve().parent.parent / "docs" / "bringup.md").read_text()
    with BringupDaemon(tmp_path) as d:
        methods = [m["method"] for m in d.daemon.registry.describe() if m["method"].startswith("bringup/")]
    assert len(methods) == 8 and all(f"`{m}`" in text for m in methods)
    assert defaults().timing.refill_hold_ms == 2000 and "for 2 seconds (`[timing] refill_hold_ms`" in text
    jog = f"{bringup_cli.SELFTEST_JOG_MS} ms each way at {bringup_cli.SELFTEST_JOG_DUTY:.0%}".replace("%", " %")
    assert jog in text and f"({bringup_cli.WAIT_S:.0f} s each)" in text
    for command in ("selftest", "jog", "inputs", "calibrate"):
        assert f"launcherctl {command}" in text


def test_launcherctl_inputs_watch_prints_edges_and_leaves_bench_mode_on_ctrl_c(tmp_path):
    import signal
    import subprocess
    import sys
    from pathlib import Path

    with BringupDaemon(tmp_path) as d:
        watch = subprocess.Popen(
            [str(Path(sys.executable).parent / "launcherctl"), "--socket", str(d.daemon.socket_path),
             "inputs", "--watch", "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            first = json.loads(_read_json_object(watch.stdout))  # the levels, then one line per edge
            assert first["inputs"]["lid"]["active"] is False
            # Bounds on a hang, not on speed (a 4 s poll that went on regardless, and a 10 s wait
            # for the exit, failed twice on a loaded machine).
            wait_until(lambda: d.call("status/get")["bringup"]["bench"], 60, "bench mode")
            d.call("sim/lid", {"open": True})
            d.call("sim/lid", {"open": False})
            edges = [json.loads(watch.stdout.readline()) for _ in range(2)]
            assert [(e["what"], e["level"]) for e in edges] == [("lid", True), ("lid", False)]
        finally:
            watch.send_signal(signal.SIGINT)
            code = watch.wait(60)
        assert code == 0
        wait_until(lambda: d.call("status/get")["bringup"]["bench"] is False, 60, "bench mode left")


def _read_json_object(stream) -> str:
    """The first, indented JSON object of a stream: up to its closing brace at the line start."""
    lines = []
    while True:
        line = stream.readline()
        lines.append(line)
        if line.rstrip() == "}":
            return "".join(lines)


# ---- in French (issue #14) -----------------------------------------------------------------------------


def test_selftest_speaks_french_with_lang_fr(tmp_path, capsys, no_terminal, quick_jogs):
    with BringupDaemon(tmp_path) as d:
        code, out, _ = ctl(d, capsys, "--lang", "fr", "selftest")
    assert code == 0, out
    assert "[ok] faisceau : vu actif, puis revenu" in out and "9 réussis, 0 en échec, 0 passés" in out
    assert "la roue doit être libre" in out and "coupez le faisceau" in out
    assert "Bouton : appuyez sur le bouton de lancement maintenant (dans les 3 s)." in out


def test_a_french_person_answers_oui_non_passer(tmp_path, capsys, monkeypatch, quick_jogs):
    monkeypatch.setattr(bringup_cli, "WAIT_S", 0.3)
    # LED non, chime oui, wheel free o, forward oui, reverse p(asser), standby o
    monkeypatch.setattr("sys.stdin", Answers("non\noui\no\noui\np\no\n"))
    with BringupDaemon(tmp_path, sim=False) as d:
        code, out, _ = ctl(d, capsys, "--lang", "fr", "selftest", "--json")
    steps = {s["step"]: s for s in json.loads(out)["steps"]}
    assert [steps[k]["result"] for k in ("led", "chime", "motor_forward", "motor_reverse", "standby")] == [
        "fail", "pass", "pass", "skipped", "pass"]
    assert steps["led"]["title"] == "LED du bouton" and steps["beam"]["detail"] == "rien vu en 0 s"
    assert "[pins] led = GPIO 23 (broche 16 du connecteur)" in steps["led"]["check"]


def test_jog_and_inputs_in_french(tmp_path, capsys):
    with BringupDaemon(tmp_path) as d:
        code, out, _ = ctl(d, capsys, "--lang", "fr", "jog", "reverse", "--ms", "120", "--duty", "0.4")
        assert code == 0 and out.strip() == "arrière 120 ms à 40\u00a0% : terminé"  # Babel: a no-break space
        code, out, _ = ctl(d, capsys, "--lang", "fr", "inputs")
    assert code == 0
    assert "bouton    relâché   GPIO 17 (broche 11 du connecteur) lit high (actif low, pull-up)" in out
