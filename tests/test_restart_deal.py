"""A restart never deals by itself (issue #20): after launcherd ended mid-deal (a kill, a crash, a
power cut), what the log says is owed waits for a person's press (status ``pending``), and that
press is not also a draw. Through real launcherd --sim processes with the game layer."""

from __future__ import annotations

import asyncio
import time

from harness.deck import new_with_deck
from harness.launcherd import DaemonProcess, ThreadDaemon, launcherctl_in_process
from harness.waits import HANG_S
from test_game_dealer import new, table, settle

SLOW = "[sim]\ncards_per_second = 8.0\nhopper = 200\n[timing]\nfeed_timeout_ms = 1000\n"
PLAYERS = "Ann,Bob,Cy"


def test_a_restarted_game_asks_its_first_deal_to_wait_for_a_press(tmp_path):
    async def first_daemon():
        launcher, service = table(tmp_path)
        launcher.hold = asyncio.Event()  # the first pile is still coming out when the power goes
        service.start(new())
        await settle()
        service.close()
        return launcher

    async def second_daemon():
        launcher, service = table(tmp_path)
        await settle()
        return launcher

    first = asyncio.run(first_daemon())
    second = asyncio.run(second_daemon())
    assert [p.get("wait_press") for m, p in first.calls if m == "launcher/dispense"] == [False]
    waits = [p["wait_press"] for m, p in second.calls if m == "launcher/dispense"]
    assert waits[0] == "restart" and not any(waits[1:]), "only the first deal after the restart waits"


def test_a_kill_mid_deal_leaves_the_motor_off_until_a_reset_and_a_press(tmp_path):
    first = DaemonProcess(tmp_path, SLOW).start()
    # launcherctl's own main, as typed: the process under test is launcherd's, killed below.
    assert launcherctl_in_process(first.socket, "reload", "108").returncode == 0  # the whole deck
    new = launcherctl_in_process(first.socket, "game", "new", "--rules", "classic", "--players", PLAYERS)
    assert new.returncode == 0, new.stderr
    deadline = time.monotonic() + 20
    while not ((status := first.call("status/get"))["motor"]["on"] and status["cards_ejected"] >= 2):
        assert time.monotonic() < deadline, status
    first.process.kill()
    first.process.wait(HANG_S)

    with ThreadDaemon(tmp_path, SLOW) as running:
        # Halted, the deal waits for the reset first: nothing says a press would go on (#20).
        status = running.wait_for(lambda s: s["dealer"]["current"] is not None and s.get("game") is not None)
        assert status["state"] == "halted" and status["reason_object"] == {"id": "halted_after_crash"}
        assert status["dealer"]["current"]["state"] == "waiting_reset" and status["pending"] is None
        out = status["sim"]["cards_out"]
        assert running.call("system/reset")["state"] == "ready"
        status = running.call("status/get")
        pending = status["pending"]
        assert pending["id"] == "dispense_waiting_press" and pending["after"] == {"id": "after_restart"}
        assert status["pending_text"].startswith("the launcher has restarted: press the button to go on")
        assert status["dealer"]["current"]["state"] == "waiting_press"
        assert status["motor"]["on"] is False and status["sim"]["cards_out"] == out
        assert running.pin_state(12) == 0
        taken = [p["cards_taken"] for p in status["game"]["players"]]
        presses = status["presses"]

        running.in_loop(running.daemon.sim.set_feed_rate, 200.0)  # the rest of the deal, quickly
        assert running.call("launcher/press")["event"] == "resume"
        status = running.wait_for(lambda s: s["game"]["owed"] is None, timeout=60)
    assert status["presses"] == presses, "the press that let the deal go on was no launch"
    assert [p["cards_taken"] for p in status["game"]["players"]] == [7, 7, 7]
    assert sum(taken) < 21 and status["sim"]["cards_out"] - out == 21 - sum(taken)


def test_a_deal_halted_by_an_estop_waits_after_the_reset_for_a_press(tmp_path):
    """A halt abandons the deal's dispense; after the reset nothing comes out until a person
    presses (status ``pending``), and then exactly the rest of the deal (#20)."""
    with ThreadDaemon(tmp_path, SLOW) as running, running.client() as events:
        events.call("events/subscribe")
        new_with_deck(running.call, {"rules": "classic", "players": PLAYERS.split(","),
                                  "options": {"deal_pause_s": "0"}, "first_card": "5", "color": "red"})
        running.wait_for(lambda s: s["motor"]["on"] and s["cards_ejected"] >= 2, timeout=30)
        running.call("system/estop")
        # The game has logged what the abandoned dispense gave, and said the deal is short.
        next(m for m in events.messages() if m.get("event") == "game/message"
             and m["params"]["message"]["id"] == "deal_short")
        assert running.call("system/reset")["state"] == "ready"
        status = running.wait_for(lambda s: s["pending"] is not None)
        assert status["dealer"]["current"]["state"] == "waiting_press"
        # It says after what: the reset, not a restart, in each language.
        assert status["pending"]["after"] == {"id": "after_reset"}
        assert status["pending_text"].startswith("the launcher was reset: press the button to go on")
        french = running.call("status/get", lang="fr")["pending_text"]
        assert french.startswith("le lanceur a été réinitialisé : appuyez sur le bouton pour continuer"), french
        assert status["motor"]["on"] is False and running.pin_state(12) == 0
        out, presses = status["sim"]["cards_out"], status["presses"]
        taken = sum(p["cards_taken"] for p in status["game"]["players"])
        assert 0 < taken < 21 and out in (taken, taken + 1)  # a card crossing at the halt may be uncounted

        running.in_loop(running.daemon.sim.set_feed_rate, 200.0)  # the rest of the deal, quickly
        assert running.call("launcher/press")["event"] == "resume"  # a person presses: no launch
        status = running.wait_for(lambda s: s["game"]["owed"] is None and s["dealer"]["current"] is None,
                                  timeout=60)
        assert [p["cards_taken"] for p in status["game"]["players"]] == [7, 7, 7]
        assert status["sim"]["cards_out"] - out == 21 - taken
        assert status["presses"] == presses, "the press that let the deal go on was no launch"
