"""The launcher speaks French or English (issue #14): refusals, the halt reason and events carry
message objects; the daemon renders them in the request's language (else ``[daemon] language``),
and launcherctl sends its ``--lang`` with every request and renders what it shows in it."""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from controller.text.messages import render
from firmware import i18n
from firmware.client import Client
from firmware.tools.cli import format_event, format_outcome
from firmware.config import ConfigError, load_config
from firmware.extras.dealer import Dealer
from firmware.errors import ApiError
from firmware.daemon.replies import with_texts
from harness.launcherd import BIN, MOTOR_LIMITS, ThreadDaemon

NOT_SLEEPING = {"id": "refused_not_sleeping"}
FRENCH = '[daemon]\nlanguage = "fr"\n'


def refused(daemon: ThreadDaemon, method: str, lang: str | None = None) -> ApiError:
    with pytest.raises(ApiError) as info:
        daemon.call(method, lang=lang)
    assert info.value.code == ApiError.REFUSED
    return info.value


# ---- the daemon ---------------------------------------------------------------------------------


def test_a_refusal_comes_in_the_language_of_the_request_with_its_object(tmp_path):
    with ThreadDaemon(tmp_path) as running:
        french, english = refused(running, "launcher/wake", "fr"), refused(running, "launcher/wake", "en")
    assert french.message == render(NOT_SLEEPING, "fr") == "le lanceur n'est pas en veille"
    assert english.message == "not sleeping"
    assert french.data["message_object"] == english.data["message_object"] == NOT_SLEEPING
    assert french.data["state"] == "ready"


def test_the_motor_rest_rule_refuses_in_french_with_when_to_retry(tmp_path):
    with ThreadDaemon(tmp_path, MOTOR_LIMITS) as running:
        assert running.call("launcher/feed", {"count": 500})["ended"] == "timeout"
        assert running.call("launcher/feed", {"count": 500})["ended"] == "motor_limit"
        with pytest.raises(ApiError) as info:
            running.call("launcher/feed", {"count": 500}, lang="fr")
    error = info.value
    obj = error.data["message_object"]
    assert obj["id"] == "motor_needs_rest" and 0 < obj["seconds"] <= 60
    assert error.message == render(obj, "fr") and error.message.startswith("le moteur doit se reposer")
    assert 0 < error.data["retry_after_s"] <= 60


def test_daemon_language_french_speaks_french_to_a_request_without_lang(tmp_path):
    with ThreadDaemon(tmp_path, FRENCH) as running:
        assert refused(running, "launcher/wake").message == "le lanceur n'est pas en veille"
        assert refused(running, "launcher/wake", "en").message == "not sleeping"  # the request's wins
        assert running.call("status/get")["language"] == "fr"
    assert i18n.current() == i18n.locale_language()  # the daemon's language went with it


def test_the_halt_reason_is_shown_in_the_request_language_beside_its_object(tmp_path):
    stalled = i18n.message("stalled", seconds=2.5)
    with ThreadDaemon(tmp_path) as running:
        running.in_loop(running.daemon.shutdown, stalled)
        french, plain = running.call("status/get", lang="fr"), running.call("status/get")
    assert french["state"] == "halted" and french["reason_object"] == plain["reason_object"] == stalled
    assert french["reason"] == "le démon a été bloqué pendant 2,5 s ; moteur arrêté"
    assert plain["reason"] == "the daemon was stalled for 2.5 s; motor stopped"


def test_an_e_stop_keeps_its_own_words_and_has_no_object(tmp_path):
    with ThreadDaemon(tmp_path) as running:
        status = running.call("system/estop", {"reason": "hands in the slot"}, lang="fr")
    assert status["reason"] == "hands in the slot" and "reason_object" not in status


def test_events_carry_the_daemon_language_text_and_the_object(tmp_path):
    with ThreadDaemon(tmp_path, FRENCH) as running:
        with Client(running.daemon.socket_path, timeout=30, lang="en") as watcher:
            watcher.call("events/subscribe")
            refused(running, "launcher/wake", "en")
            event = next(m for m in watcher.messages() if m.get("event") == "refused")
    assert event["params"]["reason"] == "le lanceur n'est pas en veille"
    assert event["params"]["reason_object"] == NOT_SLEEPING


# ---- the configuration ------------------------------------------------------------------------------


def test_a_language_the_daemon_does_not_speak_is_refused_precisely(tmp_path):
    path = tmp_path / "launcher.toml"
    path.write_text('[daemon]\nlanguage = "de"\n')
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(info.value) == f"{path}: [daemon] language = \"de\": must be one of '', 'en', 'fr'"
    checked = subprocess.run([str(BIN / "launcherd"), "--check-config", str(path)], capture_output=True,
                             text=True, timeout=60)
    assert checked.returncode == 1 and '[daemon] language = "de"' in checked.stderr


@pytest.mark.parametrize("text, language", [("", ""), ('language = "en"', "en"), ('language = "fr"', "fr")])
def test_the_daemon_language_is_en_fr_or_empty_for_the_locale(tmp_path, text, language):
    path = tmp_path / "launcher.toml"
    path.write_text(f"[daemon]\n{text}\n")
    assert load_config(path).daemon.language == language


# ---- launcherctl -------------------------------------------------------------------------------------


def test_launcherctl_lang_fr_prints_a_refusal_in_french(daemon_process):
    proc = daemon_process()
    before = proc.ctl("--lang", "fr", "wake")
    after = proc.ctl("wake", "--lang", "fr", "--json")
    english = proc.ctl("--lang", "en", "wake")
    assert before.returncode == after.returncode == english.returncode == 1
    assert before.stderr == "launcherctl: le lanceur n'est pas en veille (état prêt)\n"
    assert json.loads(after.stdout)["error"]["message_object"] == NOT_SLEEPING
    assert english.stderr == "launcherctl: not sleeping (state ready)\n"


def test_launcherctl_lang_de_is_a_usage_error(tmp_path):
    result = subprocess.run([str(BIN / "launcherctl"), "--socket", str(tmp_path / "none.sock"), "--lang", "de",
                             "status"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and "--lang" in result.stderr and "'fr'" in result.stderr


def test_launcherctl_says_the_daemon_is_not_running_in_its_language(tmp_path):
    socket = tmp_path / "none.sock"
    result = subprocess.run([str(BIN / "launcherctl"), "--socket", str(socket), "--lang", "fr", "status", "--json"],
                            capture_output=True, text=True, timeout=60)
    error = json.loads(result.stdout)["error"]
    assert result.returncode == 3 and error["message_object"] == {"id": "not_running", "path": str(socket)}
    assert error["message"].startswith("launcherd ne tourne pas")


def test_launcherctl_follows_the_locale_without_lang(tmp_path):
    socket = tmp_path / "none.sock"
    env = {**os.environ, "LC_ALL": "", "LC_MESSAGES": "", "LANG": "fr_FR.UTF-8"}
    result = subprocess.run([str(BIN / "launcherctl"), "--socket", str(socket), "status"], capture_output=True,
                            text=True, timeout=60, env=env)
    assert result.returncode == 3 and "launcherd ne tourne pas" in result.stderr


OUTCOMES = [
    ({"event": "ignored", "reason": "sleeping"}, "the launcher was asleep: that press woke it (press again to launch)"),
    ({"event": "ignored", "reason": "launching"}, "press ignored: launching"),
    ({"event": "launched", "press_id": 3, "outcome": "dry", "cards": 0, "requested": 0, "ended": "done"},
     "press 3: nothing came out"),
    ({"event": "launched", "press_id": 4, "outcome": "empty", "cards": 0, "requested": 0, "ended": "empty"},
     "press 4: the hopper is empty: reload it (launcherctl reload N)"),
    ({"event": "launched", "press_id": 5, "outcome": "burst", "cards": 1, "requested": 1, "ended": "done"},
     "press 5: 1 card out"),
    ({"event": "launched", "press_id": 6, "outcome": "dispense", "cards": 2, "requested": 7, "ended": "jam"},
     "press 6: 2 cards out (asked for 7); ended by jam"),
    ({"event": "launched", "press_id": 7, "outcome": "burst", "cards": 3, "requested": 3, "ended": "timeout"},
     "press 7: 3 cards out; ended by timeout"),
    ({"event": "launched", "press_id": 8, "outcome": "dispense", "cards": 2, "requested": 9,
      "ended": "motor_limit"}, "press 8: 2 cards out (asked for 9); ended by motor_limit"),
]


@pytest.mark.parametrize("result, english", OUTCOMES)
def test_press_outcomes_read_as_before_in_english_and_are_translated(result, english):
    with i18n.speaking("en"):
        assert format_outcome(result) == english
    with i18n.speaking("fr"):
        french = format_outcome(result)
    assert french != english


def test_watch_renders_the_objects_of_an_event_in_launcherctl_language():
    event = {"event": "refused", "params": {"event": "Wake", "state": "ready", "reason": "not sleeping",
                                            "reason_object": NOT_SLEEPING}}
    with i18n.speaking("fr"):
        line = format_event(event)
    assert line == 'refused: event="Wake" state="ready" reason="le lanceur n\'est pas en veille"'
    with i18n.speaking("en"):
        assert format_event(event) == 'refused: event="Wake" state="ready" reason="not sleeping"'


# ---- the dealer ---------------------------------------------------------------------------------


def test_the_dealer_waits_with_the_core_reason_as_an_object():
    dealer = Dealer()
    (_, ask) = dealer.start(3, "z", 10.0)
    rest = {"id": "motor_needs_rest", "seconds": 1.9}
    # As the daemon's listeners hear it: the text in the daemon's language beside the object.
    out = dealer.on_event("refused", {"event": "Dispense", "request": ask.request, "state": "ready",
                                      "reason": "the motor needs 1.9 s of rest", "reason_object": rest,
                                      "retry_after_s": 1.9}, 10.0)
    assert [(e.params["state"], e.params["reason"]) for e in out] == [("waiting_motor", rest)]
    with i18n.speaking("fr"):
        shown = with_texts(out[0].params, None)
    assert shown["reason"] == "le moteur doit se reposer 1,9 s" and shown["reason_object"] == rest
