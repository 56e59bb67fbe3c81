"""The press rule has one keeper (issue #36): findings 1, 2 and 5 of the attack on ``--sim``, each
through a real launcherd --sim (a process where a ``kill -9`` is part of it, else in a thread) on its
socket and launcherctl.

1. A deal held by an undo is not dealt by the next unrelated game action (``game uno``), also after a
   ``kill -9`` and a restart; a press of the button deals it.
2. ``game abandon`` then ``game resume N`` deals nothing by itself, with or without a restart.
5. While a dispense waits for a press after a jam, no method moves the motor (``launcher/feed``,
   ``launcher/retract``, ``bringup/jog``; ``launcher/launch`` is the button's press: it lets the
   dispense go on and launches nothing), and the aim servo turns neither then nor while halted or
   with the lid open; game actions then just do not aim.
"""

from __future__ import annotations

import pytest

from firmware.errors import ApiError
from harness.launcherd import DaemonProcess, ThreadDaemon, launcherctl_in_process
from harness.waits import HANG_S, wait_for_status

PLAYERS = "Ann,Bob,Cy"
CLASSIC = ["game", "new", "--rules", "classic", "--players", PLAYERS, "--first-card", "5", "--color", "red"]
SLOW = "[sim]\ncards_per_second = 8.0\nhopper = 200\n[timing]\nfeed_timeout_ms = 1000\n"
MOTOR_PIN = 12  # [pins] motor_forward's default


def ctl(socket, *args: str) -> dict:
    """launcherctl as typed (its own main, in this process), with --json: what it answered."""
    import json

    result = launcherctl_in_process(socket, "--json", *args)
    assert result.returncode == 0, (args, result.stderr, result.stdout)
    return json.loads(result.stdout)


def ctl_classic(socket) -> dict:
    """The classic deck reloaded (its opening deal waits for it, #40), then ``game new``."""
    ctl(socket, "reload", "108")
    return ctl(socket, *CLASSIC)


def dealt(call) -> dict:
    """The status once nothing is owed or being dealt."""
    from harness.waits import wait_for_status

    return wait_for_status(call, lambda s: s.get("game") and s["game"]["owed"] is None
                           and s["dealer"]["current"] is None and not s["motor"]["on"], timeout=60)


def settled(call) -> dict:
    """The status once what the last reply set going has had its turns: a deal task the game
    started would by then have aimed, asked its dispense and started the motor (each a crossing
    between the game's loop and the motor's, which ``status/get`` waits for)."""
    for _ in range(8):
        status = call("status/get")
    return status


def nothing_moved(status: dict, out: int) -> None:
    assert status["sim"]["cards_out"] == out, "cards came out without a press"
    assert status["motor"]["on"] is False
    current = status["dealer"]["current"]
    assert current is None or current["state"] == "waiting_press", current


def draw_two_undone(socket, call) -> int:
    """Bob dealt 2 by Ann's Draw Two, then the Draw Two's deal undone: the cards out so far."""
    ctl(socket, "game", "play", "draw-two", "--color", "red")
    dealt(call)
    undone = ctl(socket, "game", "undo")
    assert undone["owed"]["player"] == "Bob" and undone["owed"]["cards"] == 2
    return settled(call)["sim"]["cards_out"]


# ---- 1. an undo's held deal and the next unrelated action ----------------------------------------


def test_after_an_undo_the_next_unrelated_action_deals_nothing_and_a_press_deals_the_cards(tmp_path):
    with ThreadDaemon(tmp_path) as running:
        ctl_classic(running.daemon.socket_path)
        dealt(running.call)
        out = draw_two_undone(running.daemon.socket_path, running.call)

        ctl(running.daemon.socket_path, "game", "uno", "Ann")  # unrelated: its effect is no deal
        status = settled(running.call)
        nothing_moved(status, out)
        assert status["game"]["owed"] == {"player": "Bob", "cards": 2, **status["game"]["owed"]}
        assert running.pin_state(MOTOR_PIN) == 0

        # What a press does now is said before it (the table's status) and by it: it deals them.
        said = {"id": "press_deals_held", "player": "Bob", "cards": 2}
        assert ctl(running.daemon.socket_path, "game", "status")["press_means"]["reason"] == said
        pressed = ctl(running.daemon.socket_path, "press")  # a person's press deals them
        assert pressed["message_object"] == said, pressed
        assert pressed["message"] == "the 2 cards owed (Bob's first) waited for a press: this one deals them"
        status = dealt(running.call)
        assert status["sim"]["cards_out"] == out + 2
        # Bob lost his turn to the Draw Two: a press is the next player's draw again. The game tells
        # the core what a press means once its deal task has ended, a crossing of its own after the
        # motor stopped: awaited (a bound on a hang), not read at once.
        status = wait_for_status(running.call, lambda s: s["press_means"] != "nothing")
        assert (status["press_means"], status["press_for"]) == ("cards", status["game"]["turn"])


def test_after_an_undo_and_a_kill_the_next_unrelated_action_deals_nothing(tmp_path):
    first = DaemonProcess(tmp_path).start()
    ctl_classic(first.socket)
    dealt(first.call)
    draw_two_undone(first.socket, first.call)
    first.process.kill()
    first.process.wait(HANG_S)

    with DaemonProcess(tmp_path) as second:
        status = settled(second.call)
        out = status["sim"]["cards_out"]  # a restarted sim's mechanism counts from 0
        assert status["state"] == "ready" and status["game"]["owed"]["player"] == "Bob"
        ctl(second.socket, "game", "uno", "Ann")
        nothing_moved(settled(second.call), out)
        second.call("launcher/press")
        assert dealt(second.call)["sim"]["cards_out"] == out + 2


def test_an_action_with_cards_of_its_own_deals_nothing_an_undo_held_before_a_press(tmp_path):
    """A catch's penalty (an action whose own effect is a deal) after an undo held Bob's Draw Two:
    the undo's cards are no effect of the catch, and a deal goes through the queue in order, so
    neither is dealt before a press; the press deals both."""
    with ThreadDaemon(tmp_path) as running:
        socket = running.daemon.socket_path
        ctl(socket, "reload", "108")
        ctl_classic(socket)
        dealt(running.call)
        for _ in range(5):  # each plays a card, five times round: Ann holds 2
            for _ in PLAYERS.split(","):
                ctl(socket, "game", "play", "5", "--color", "red")
        out = draw_two_undone(socket, running.call)  # Ann is down to 1 and called no Uno

        caught = ctl(socket, "game", "catch", "Ann")
        status = settled(running.call)
        nothing_moved(status, out)
        queue = [(q["player"], q["cards"]) for q in status["game"]["queue"]]
        assert sorted(queue) == [("Ann", 2), ("Bob", 2)], queue
        assert any(said["id"] == "deal_held_first" for said in caught["message_objects"]), caught
        assert running.pin_state(MOTOR_PIN) == 0

        running.call("launcher/press")
        status = dealt(running.call)
        assert status["sim"]["cards_out"] == out + 4
        log = running.call("game/log")["actions"]
        assert [(a["action"]["by"], a["action"]["cards"]) for a in log[-2:]] == queue


# ---- 2. abandon, then resume ---------------------------------------------------------------------


def _abandoned_mid_deal(socket, call) -> int:
    """A classic deal under way, set aside: its match number."""
    from harness.waits import wait_for_status

    match = ctl_classic(socket)["match_id"]
    wait_for_status(call, lambda s: s["motor"]["on"] and s["cards_ejected"] >= 2, timeout=30)
    ctl(socket, "game", "abandon")
    wait_for_status(call, lambda s: s["dealer"]["current"] is None and not s["motor"]["on"], timeout=30)
    return match


def _resumed_waits_then_a_press_deals_the_rest(running, match: int) -> None:
    status = settled(running.call)
    out = status["sim"]["cards_out"]
    socket = running.daemon.socket_path if isinstance(running, ThreadDaemon) else running.socket
    resumed = ctl(socket, "game", "resume", str(match))
    status = settled(running.call)
    nothing_moved(status, out)
    assert any(said["id"] == "deal_waits_resumed" for said in resumed["message_objects"]), resumed
    owed = sum(7 - p["cards_taken"] for p in status["game"]["players"])
    assert owed > 0
    running.call("launcher/press")
    status = dealt(running.call)
    assert [p["cards_taken"] for p in status["game"]["players"]] == [7, 7, 7]
    assert status["sim"]["cards_out"] - out == owed


def test_abandon_then_resume_deals_nothing_until_a_press(tmp_path):
    with ThreadDaemon(tmp_path, SLOW) as running:
        match = _abandoned_mid_deal(running.daemon.socket_path, running.call)
        running.in_loop(running.daemon.sim.set_feed_rate, 200.0)  # the rest of the deal, quickly
        _resumed_waits_then_a_press_deals_the_rest(running, match)


def test_abandon_a_kill_then_resume_deals_nothing_until_a_press(tmp_path):
    first = DaemonProcess(tmp_path, SLOW).start()
    match = _abandoned_mid_deal(first.socket, first.call)
    first.process.kill()
    first.process.wait(HANG_S)
    with DaemonProcess(tmp_path) as second:
        _resumed_waits_then_a_press_deals_the_rest(second, match)


def test_a_restart_mid_deal_then_abandon_and_resume_deals_nothing_until_a_press(tmp_path):
    from harness.waits import wait_for_status

    first = DaemonProcess(tmp_path, SLOW).start()
    match = ctl_classic(first.socket)["match_id"]
    wait_for_status(first.call, lambda s: s["motor"]["on"] and s["cards_ejected"] >= 2, timeout=30)
    first.stop()  # SIGTERM mid-deal: the motor stops, the deal waits for a press at the next start
    with DaemonProcess(tmp_path) as second:
        status = wait_for_status(second.call, lambda s: s["pending"] is not None, timeout=30)
        assert status["pending"]["after"] == {"id": "after_restart"}
        ctl(second.socket, "game", "abandon")
        wait_for_status(second.call, lambda s: s["pending"] is None and s["dealer"]["current"] is None)
        _resumed_waits_then_a_press_deals_the_rest(second, match)


# ---- 5. nothing moves while a press is awaited; the aim servo neither, nor halted or lid open ------


def test_while_a_dispense_waits_for_a_press_after_a_jam_no_method_moves_the_motor(tmp_path):
    from harness.waits import wait_for_status

    with ThreadDaemon(tmp_path) as running, running.client() as dealer:
        running.call("sim/jam")
        dealer.send("launcher/dispense", {"count": 5})
        wait_for_status(running.call, lambda s: s["state"] == "jammed")
        running.call("sim/clear")
        status = wait_for_status(running.call, lambda s: s["pending"] is not None)
        assert status["pending"]["after"] == {"id": "after_jam"}
        out, presses = status["sim"]["cards_out"], status["presses"]
        for method, params in (("launcher/feed", {"count": 3}), ("launcher/retract", {}),
                               ("bringup/jog", {"direction": "forward", "ms": 200, "duty": 0.5}),
                               ("bringup/jog", {"direction": "reverse", "ms": 200, "duty": 0.5}),
                               # calibration's feed and the inputs' watch enter bench mode by
                               # themselves: that is no bench mode entered on purpose
                               ("bringup/feed", {"count": 2, "duty": 0.5}),
                               ("bringup/wait-input", {"input": "button", "active": True, "since": 0,
                                                       "timeout_s": 0.1}),
                               ("bringup/jog", {"direction": "forward", "ms": 200, "duty": 0.5}),
                               ("launcher/aim", {"angle": 20})):
            with pytest.raises(ApiError) as refused:
                running.call(method, params)
            assert refused.value.code == ApiError.REFUSED, (method, refused.value.message)
            assert "waits for a press" in refused.value.message, (method, refused.value.message)
        result = launcherctl_in_process(running.daemon.socket_path, "feed", "2")
        assert result.returncode != 0 and "waits for a press" in result.stderr
        status = running.call("status/get")
        assert status["sim"]["cards_out"] == out and status["motor"]["on"] is False
        assert status["pending"] is not None and running.pin_state(MOTOR_PIN) == 0
        assert status["bringup"]["bench"] is False

        # A launch is the button's press: it lets the dispense go on, and is no launch itself.
        assert running.call("launcher/launch")["event"] == "resume"
        reply = next(m for m in dealer.messages() if "result" in m)["result"]
        assert reply["cards"] == 5 and reply["state"] == "done"
        assert running.call("status/get")["presses"] == presses, "the press that let it go on launched nothing"


def test_bench_mode_entered_on_purpose_lets_a_jog_run_while_a_press_is_awaited(tmp_path):
    from harness.waits import wait_for_status

    with ThreadDaemon(tmp_path) as running, running.client() as dealer:
        running.call("sim/jam")
        dealer.send("launcher/dispense", {"count": 3})
        wait_for_status(running.call, lambda s: s["state"] == "jammed")
        running.call("sim/clear")
        wait_for_status(running.call, lambda s: s["pending"] is not None)
        running.call("bringup/bench", {"seconds": 30})
        assert running.call("bringup/jog", {"direction": "reverse", "ms": 50, "duty": 0.5})["jogged"]["ended"] == "done"
        running.call("bringup/bench", {"seconds": 0})
        with pytest.raises(ApiError) as refused:
            running.call("bringup/jog", {"direction": "reverse", "ms": 50, "duty": 0.5})
        assert refused.value.message_object["id"] == "refused_pending"


@pytest.mark.parametrize("stop", ["estop", "lid"])
def test_the_aim_servo_does_not_turn_halted_or_with_the_lid_open_and_game_actions_do_not_aim(tmp_path, stop):
    with ThreadDaemon(tmp_path) as running:
        running.call("game/new", {"rules": "attack-mega-hit", "players": PLAYERS.split(",")})
        facing = settled(running.call)["aim"]
        if stop == "estop":
            running.call("system/estop", {"reason": "test"})
        else:
            running.call("sim/lid", {"open": True})
        with pytest.raises(ApiError) as refused:
            running.call("launcher/aim", {"angle": 30})
        assert refused.value.message_object["id"] == ("aim_not_halted" if stop == "estop" else "aim_not_lid_open")
        reply = ctl(running.daemon.socket_path, "game", "play", "5", "--color", "red")  # its move turns to Bob
        assert "error" not in reply
        status = settled(running.call)
        assert status["aim"] == facing and status["game"]["turn"] == "Bob"
