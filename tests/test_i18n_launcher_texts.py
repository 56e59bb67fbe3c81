"""The launcher's last English-only texts are message objects (issue #14): the dealer's waits, the
launcher's API errors, the halt on an internal error, launcherctl's own lines and the log. English
reads as it always did; a request or a launcherctl with ``lang`` "fr" gets French."""

from __future__ import annotations

import logging
import random
import re
import subprocess
import threading

import pytest

from controller.text.messages import render
from firmware import i18n
from firmware.tools.cli import format_insert, format_outcome, format_status, report_error
from firmware.launcher.core import Launcher, Logged
from firmware.config import build_config
from firmware.extras.dealer import Dealer
from firmware.launcher.ejection import policy_for
from firmware.errors import ApiError
from firmware.events import Tick, Wake
from harness.launcherd import BIN, BLASTER, MOTOR_LIMITS, ThreadDaemon


def error_of(running: ThreadDaemon, method: str, params: dict | None = None, lang: str | None = None) -> ApiError:
    with pytest.raises(ApiError) as info:
        running.call(method, params, lang)
    return info.value


# ---- the dealer ---------------------------------------------------------------------------------


def test_a_dispense_waiting_for_a_stuck_card_says_so_in_the_language_of_each_request(tmp_path):
    with ThreadDaemon(tmp_path) as running:
        running.call("sim/jam")
        replies: list = []
        dispensing = threading.Thread(target=lambda: replies.append(running.call("launcher/dispense", {"count": 3})))
        dispensing.start()
        running.wait_for(lambda s: (s["dealer"]["current"] or {}).get("state") == "waiting_jam")
        french = running.call("status/get", lang="fr")["dealer"]["current"]
        english = running.call("status/get", lang="en")["dealer"]["current"]
        running.call("sim/clear")
        running.wait_for(lambda s: s["pending"] is not None)
        waiting = running.call("status/get", lang="fr")
        running.call("launcher/resume")
        dispensing.join(30)
    assert waiting["pending_text"] == waiting["dealer"]["current"]["reason"] == (
        "le bourrage est dégagé : appuyez sur le bouton pour continuer (2 cartes à distribuer)")
    assert french["reason"] == "une carte est coincée dans la fente : retirez-la"
    assert english["reason"] == "a card is stuck in the slot: pull it out"
    assert french["reason_object"] == english["reason_object"] == {"id": "dispense_waiting_jam"}
    assert replies[0]["state"] == "done" and replies[0]["cards"] == 3


@pytest.mark.parametrize("reason, english, french", [
    ({"id": "dispense_waiting_lid"}, "the lid is open", "le couvercle est ouvert"),
    ({"id": "dispense_waiting_empty"}, "the hopper is empty: reload it", "le réservoir est vide : rechargez-le"),
    ({"id": "dispense_busy_because", "reason": "jogging"}, "the launcher is busy (jogging)",
     "le lanceur est occupé (marche manuelle)"),
    ({"id": "dispense_misfeed_retry", "retry": 1, "retries": 2}, "misfeed: retry 1 of 2",
     "carte non entraînée : nouvel essai 1 sur 2"),
    ({"id": "dispense_halted", "reason": {"id": "stalled", "seconds": 2.5}},
     "the launcher halted: the daemon was stalled for 2.5 s; motor stopped",
     "le lanceur s'est arrêté : le démon a été bloqué pendant 2,5 s ; moteur arrêté"),
    ({"id": "dispense_halted", "reason": "stop!"}, "the launcher halted: stop!", "le lanceur s'est arrêté : stop!"),
    ({"id": "daemon_stopping"}, "launcherd is stopping", "launcherd s'arrête"),
])
def test_the_dealer_reasons_read_as_before_in_english_and_are_french_in_french(reason, english, french):
    assert render(reason, "en") == english
    assert render(reason, "fr") == french


def test_the_dealer_says_what_the_busy_launcher_is_doing_as_an_object():
    dealer = Dealer()
    (_, ask) = dealer.start(2, "z", 10.0)
    out = dealer.on_event("ignored", {"source": "dispense", "request": ask.request, "reason": "jogging"}, 10.0)
    assert out[0].params["reason"] == {"id": "dispense_busy_because", "reason": "jogging"}


def test_the_dealer_keeps_the_halt_reason_object_the_daemon_sent_beside_its_text():
    dealer = Dealer()
    dealer.start(2, "z", 10.0)
    stalled = {"id": "stalled", "seconds": 2.5}
    out = dealer.on_event("halted", {"reason": "the daemon was stalled for 2.5 s; motor stopped",
                                     "reason_object": stalled}, 11.0)
    outcome = out[-1].params
    assert outcome["state"] == "abandoned"
    assert outcome["reason"] == {"id": "dispense_halted", "reason": stalled}


# ---- the daemon's API errors and halt -------------------------------------------------------------------


def test_a_blaster_refuses_aim_and_a_second_sleep_in_the_language_of_the_request(tmp_path):
    with ThreadDaemon(tmp_path, BLASTER) as running:
        no_aim = error_of(running, "launcher/aim", {"angle": 10}, "fr")
        english = error_of(running, "launcher/aim", {"angle": 10}, "en")
        running.call("launcher/sleep")
        asleep = error_of(running, "launcher/sleep", lang="fr")
        asleep_english = error_of(running, "launcher/sleep", lang="en")
    assert no_aim.code == ApiError.UNAVAILABLE and no_aim.data["message_object"] == {"id": "blaster_no_aim"}
    assert no_aim.message == "le blaster n'a pas de servo de visée"
    assert english.message == "the card blaster has no aim servo"
    assert asleep.message == "mise en veille seulement depuis ready"
    assert asleep_english.message == "sleep only from ready" and asleep.data["state"] == "sleeping"


def test_aim_without_angle_or_seat_is_refused_in_french(tmp_path):
    with ThreadDaemon(tmp_path) as running:
        french = error_of(running, "launcher/aim", {}, "fr")
        english = error_of(running, "launcher/aim", {}, "en")
    assert french.code == ApiError.INVALID_PARAMS
    assert french.message == "launcher/aim demande angle, ou seat < seats"
    assert english.message == "launcher/aim needs angle, or seat < seats"


def test_an_internal_error_halts_with_a_reason_in_each_reader_language(tmp_path):
    with ThreadDaemon(tmp_path) as running:
        def fail(event, now):
            raise ZeroDivisionError("boom")

        def break_the_core():
            running.daemon.core.handle = fail
            running.daemon.feed(Tick())

        running.in_loop(break_the_core)
        french = running.call("status/get", lang="fr")
        english = running.call("status/get", lang="en")
    assert french["state"] == english["state"] == "halted"
    assert english["reason"] == "internal error: ZeroDivisionError: boom"
    assert french["reason"] == "erreur interne : ZeroDivisionError: boom"
    assert french["reason_object"] == {"id": "halted_internal_error", "error": "ZeroDivisionError: boom"}


# ---- launcherctl -------------------------------------------------------------------------------------


def test_launcherctl_says_when_to_retry_and_how_a_run_ended_in_its_language(daemon_process):
    proc = daemon_process(MOTOR_LIMITS)  # its minute's rest outlasts a busy machine's launcherctl runs
    assert proc.ctl("feed", "500").returncode == 0  # ended by the launch timeout
    cut = proc.ctl("--lang", "fr", "feed", "500")  # cut by the chain limit
    french = proc.ctl("--lang", "fr", "feed", "500")
    english = proc.ctl("--lang", "en", "feed", "500")
    assert cut.returncode == 0 and cut.stdout.rstrip().endswith("limite du moteur")
    assert french.returncode == english.returncode == 1
    assert re.fullmatch(r"launcherctl: le moteur doit se reposer \d+,\d s \(état prêt\)\n"
                        r"  le lanceur l'acceptera dans \d+(,\d+)? s : réessayez alors\n", french.stderr)
    assert re.fullmatch(r"launcherctl: the motor needs \d+\.\d s of rest \(state ready\)\n"
                        r"  the launcher will take it in \d+(\.\d+)? s: try again then\n", english.stderr)


def test_launcherctl_dispense_says_what_it_waits_for_in_its_language(daemon_process):
    proc = daemon_process()
    proc.call("sim/jam")
    dispense = subprocess.Popen([str(BIN / "launcherctl"), "--socket", str(proc.socket), "--lang", "fr",
                                 "dispense", "3"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = dispense.stderr.readline()
        proc.call("sim/clear")
        second = dispense.stderr.readline()
        proc.call("launcher/resume")
        out, rest = dispense.communicate(timeout=60)
    finally:
        dispense.kill()
    assert re.fullmatch(r"launcherctl: une carte est coincée dans la fente : retirez-la \(\d sur 3 sorties\)\n",
                        first), first
    assert "appuyez sur le bouton pour continuer" in second, second
    assert dispense.returncode == 0 and out.startswith("appui")


@pytest.mark.parametrize("ended, english", [
    ("halt", "press 9: 2 cards out (asked for 5); ended by halt"),
    ("refused", "press 9: 2 cards out (asked for 5); ended by refused"),
    ("motor_limit", "press 9: 2 cards out (asked for 5); ended by motor_limit"),
])
def test_every_ending_of_a_dispense_reads_as_before_in_english_and_is_translated(ended, english):
    result = {"event": "dispensed", "outcome": "dispense", "press_id": 9, "cards": 2, "requested": 5,
              "ended": ended}
    with i18n.speaking("en"):
        assert format_outcome(result) == english
    with i18n.speaking("fr"):
        assert "ended by" not in format_outcome(result)


def test_a_refusal_in_a_state_the_catalogue_does_not_know_is_shown_as_it_came(capsys):
    with i18n.speaking("fr"):
        report_error(None, {"code": 1, "message": "non", "state": "warming_up"})
    assert capsys.readouterr().err == "launcherctl: non (state warming_up)\n"


def test_launcherctl_says_a_daemon_that_does_not_answer_in_its_language():
    said = {"id": "not_answering", "path": "/run/x.sock"}
    assert render(said, "en") == "launcherd on /run/x.sock accepted the connection but did not answer in time"
    assert render(said, "fr") == "launcherd sur /run/x.sock a accepté la connexion mais n'a pas répondu à temps"


LAUNCHER_STATUS = {
    "state": "halted", "reason": "stop!", "profile": "classic", "presses": 3, "dry_streak": 1, "cards_ejected": 1,
    "hopper": None, "last": {"press_id": 3, "outcome": "burst", "cards": 1},
    "motor": {"on": True, "direction": "forward", "duty": 0.55}, "aim": 12.6,
    "sim": {"hopper": 95, "cards_out": 5, "stuck": True}}
BLASTER_STATUS = {
    "device": "blaster", "state": "ready", "profile": "rising", "slots": [True, False], "inserts": 2,
    "cards_ejected": 4, "last": {"insert_id": 2, "slot": 1, "outcome": "blast", "cards": 3}, "sim": {"stuck": 2}}


def test_the_status_reads_as_before_in_english_with_counted_cards():
    with i18n.speaking("en"):
        launcher, blaster = format_status(LAUNCHER_STATUS), format_status(BLASTER_STATUS)
    assert launcher == ("state      halted (stop!)\n"
                        "profile    classic\n"
                        "presses    3   dry streak 1\n"
                        "ejected    1 card   hopper unknown\n"
                        "last       press 3: burst, 1 card\n"
                        "motor      forward at 55%\n"
                        "aim        13 degrees\n"
                        "sim        hopper 95, cards out 5, a card is stuck")
    assert blaster == ("state      ready\n"
                       "profile    rising\n"
                       "slots      1:full 2:empty\n"
                       "inserts    2   ejected 4 cards\n"
                       "last       insert 2, slot 1: blast, 3 cards\n"
                       "sim        a card is stuck in slot 2")


def test_the_status_in_french_keeps_its_columns():
    with i18n.speaking("fr"):
        launcher, blaster = format_status(LAUNCHER_STATUS), format_status(BLASTER_STATUS)
    assert launcher == ("état       arrêté (stop!)\n"
                        "profil     classique\n"
                        "appuis     3   série à vide 1\n"
                        "éjectées   1 carte   réservoir inconnu\n"
                        "dernier    appui 3 : salve, 1 carte\n"
                        "moteur     avant à 55 %\n"
                        "visée      13 degrés\n"
                        "sim        réservoir 95, cartes sorties 5, une carte est coincée")
    assert blaster.splitlines()[2:4] == ["fentes     1:pleine 2:vide", "insertions 2   éjectées 4 cartes"]
    assert {line.index(line.split()[1]) for line in (launcher + "\n" + blaster).splitlines()} == {11}


def test_a_daemon_still_starting_shows_its_state_alone():
    with i18n.speaking("fr"):
        assert format_status({"state": "starting", "device": "launcher", "aim": None}) == "état       démarrage"
    with i18n.speaking("en"):
        assert format_status({"state": "starting", "device": "blaster"}) == "state      starting"


@pytest.mark.parametrize("result, english, french", [
    ({"event": "ignored", "slot": 2, "reason": "sleeping"}, "card in slot 2, not judged: the blaster is sleeping",
     "carte dans la fente 2, non jugée : état du blaster en veille"),
    ({"event": "insert", "insert_id": 3, "slot": 2, "outcome": "safe"}, "insert 3, slot 2: safe",
     "insertion 3, fente 2 : sans tir"),
    ({"event": "insert", "insert_id": 4, "slot": 1, "outcome": "blast"},
     "insert 4, slot 1: blast: every loaded card is shot out",
     "insertion 4, fente 1 : tir : toutes les cartes chargées sont projetées"),
])
def test_an_insertion_reads_as_before_in_english_and_is_french_in_french(result, english, french):
    with i18n.speaking("en"):
        assert format_insert(result) == english
    with i18n.speaking("fr"):
        assert format_insert(result) == french


def test_launcherctl_status_in_french(daemon_process):
    proc = daemon_process()
    french = proc.ctl("--lang", "fr", "status", check=True).stdout
    english = proc.ctl("status", check=True).stdout
    assert french.startswith("état       prêt\nprofil     ") and "moteur     arrêté" in french
    assert english.startswith("state      ready\nprofile    ") and "motor      off" in english


# ---- the log ----------------------------------------------------------------------------------------


def test_the_journal_reads_a_refusal_as_a_sentence_in_the_daemon_language(caplog):
    config = build_config({})
    core = Launcher(config, policy_for(config.ejection.profile, config.ejection.sequence, random.Random(1)), 0.0, None)
    caplog.set_level(logging.INFO, logger="firmware.launcher.core")
    try:
        i18n.set_daemon_language("fr")
        core.handle(Wake(), 1.0)
    finally:
        i18n.set_daemon_language(None)
    # As the journal has it: formatted when written, in the daemon's language.
    assert caplog.text.rstrip().endswith("in state ready: le lanceur n'est pas en veille")


def test_a_logged_reason_that_cannot_be_rendered_still_logs():
    assert str(Logged({"id": "no_such_message"})) == "{'id': 'no_such_message'}"
    assert str(Logged("stop!")) == "stop!"
