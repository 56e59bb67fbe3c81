"""The game is a process of its own (launcher-game, issue #38), and launcherd never waits for it.

Through real processes: launcherd --sim, which starts launcher-game beside it and starts it again,
and launcher-game on launcherd's socket. The game process SIGKILLed mid-launch and mid-deal (the
motor stops on the count, the game comes back and takes the launch in once), SIGSTOPped (the
launcher never waits; it is killed and started again), crashing at every start (launcherd is
unaffected and says so), and launcherd restarted under a running game (it reconnects and catches
up). No test here judges the machine's speed: every wait is a bound on "it never came".
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
from pathlib import Path

import pytest

from firmware.client import Client
from firmware.errors import ApiError
from harness.deck import new_with_deck
from harness.launcherd import BIN, DaemonProcess
from harness.waits import HANG_S, wait_until

# A press of 6 cards at 8 cards a second: under way long enough to be killed in.
SLOW = "[sim]\ncards_per_second = 8.0\nhopper = 300\n[timing]\nfeed_timeout_ms = 1000\n" \
       "[ejection]\nprofile = \"fixed\"\nsequence = [6]\n"
ATTACK = {"rules": "attack-mega-hit", "players": ["Ann", "Bob", "Cy"]}
CLASSIC = {"rules": "classic", "players": ["Ann", "Bob", "Cy"], "options": {"deal_pause_s": "0"},
           "first_card": "5", "color": "red"}


def game_pid(daemon: DaemonProcess) -> int:
    """The launcher-game launcherd --sim started (its one child)."""
    children: list[str] = []

    def found() -> bool:
        children[:] = Path(f"/proc/{daemon.pid}/task/{daemon.pid}/children").read_text().split()
        return bool(children)
    wait_until(found, what="launcherd's game process")
    return int(children[0])


def game_back(daemon: DaemonProcess, old_pid: int) -> int:
    """Until a game process other than ``old_pid`` has registered; its pid."""
    pids: list[int] = []

    def back() -> bool:
        status = daemon.call("status/get")
        if status["game_layer"]["state"] != "up" or "game" not in status:
            return False
        pids[:] = [game_pid(daemon)]
        return pids[0] != old_pid
    wait_until(back, timeout=HANG_S * 2, what="the game process started again", interval=0.1)
    return pids[0]


def presses(daemon: DaemonProcess) -> list[int]:
    return [a["action"]["cards"] for a in daemon.call("game/log")["actions"]
            if a["action"]["type"] == "press" and not a["undone"]]


def motor_on(daemon: DaemonProcess) -> None:
    wait_until(lambda: daemon.call("status/get")["motor"]["on"], what="the motor running", interval=0.005)


def press_in_background(daemon: DaemonProcess) -> tuple[threading.Thread, list]:
    outcome: list = []

    def press() -> None:
        with Client(daemon.socket, timeout=HANG_S) as client:
            outcome.append(client.call("launcher/press"))
    thread = threading.Thread(target=press, daemon=True)
    thread.start()
    return thread, outcome


def test_the_game_killed_mid_launch_the_motor_stops_on_the_count_and_the_launch_is_taken_in_once(tmp_path):
    with DaemonProcess(tmp_path, SLOW) as daemon:
        new_with_deck(daemon.call, ATTACK)
        pid = game_pid(daemon)
        thread, outcome = press_in_background(daemon)
        motor_on(daemon)
        os.kill(pid, signal.SIGKILL)
        thread.join(HANG_S)
        assert outcome and outcome[0]["cards"] == 6  # the count, whatever the game did
        assert not daemon.call("status/get")["motor"]["on"]
        game_back(daemon, pid)
        assert presses(daemon) == [6]  # caught up on once
        daemon.call("status/get")
        assert presses(daemon) == [6]


def test_the_game_killed_mid_deal_the_pile_stops_on_its_count_and_the_rest_waits_for_a_press(tmp_path):
    with DaemonProcess(tmp_path, SLOW) as daemon:
        new_with_deck(daemon.call, CLASSIC)
        pid = game_pid(daemon)
        wait_until(lambda: daemon.call("status/get")["cards_ejected"] >= 2, what="the deal under way",
                   interval=0.005)
        os.kill(pid, signal.SIGKILL)
        wait_until(lambda: not daemon.call("status/get")["motor"]["on"], what="the pile's end")
        game_back(daemon, pid)
        status = daemon.wait_for(lambda s: s["pending"] is not None and s.get("game"))
        # The game's restart held the rest of the deal: nothing is dealt before a person presses.
        assert status["pending"]["after"] == {"id": "after_layer_restart"}
        ejected = status["cards_ejected"]
        assert daemon.call("status/get")["cards_ejected"] == ejected
        daemon.call("launcher/press")
        status = daemon.wait_for(lambda s: s.get("game") and s["game"]["owed"] is None
                                 and s["dealer"]["current"] is None and not s["motor"]["on"], timeout=HANG_S * 2)
        assert {p["name"]: p["hand"] for p in status["game"]["players"]} == {"Ann": 7, "Bob": 7, "Cy": 7}
        assert status["cards_ejected"] == 21  # each card once: none dealt twice, none lost


def test_the_game_stopped_the_launcher_never_waits_and_the_game_is_started_again(tmp_path):
    with DaemonProcess(tmp_path, SLOW) as daemon:
        new_with_deck(daemon.call, ATTACK)
        pid = game_pid(daemon)
        os.kill(pid, signal.SIGSTOP)  # never continued: the watchdog of launcherd --sim kills it
        assert daemon.call("launcher/press")["cards"] == 6  # the press meaning is the core's
        assert daemon.call("status/get")["state"] == "ready"
        with pytest.raises(ApiError) as refused:
            daemon.call("game/status")  # not answered: refused, never waited for for ever
        assert refused.value.code == ApiError.UNAVAILABLE
        game_back(daemon, pid)
        assert presses(daemon) == [6]  # the press made while it was stopped, taken in once


def test_a_game_that_crashes_at_every_start_leaves_launcherd_unaffected_and_it_says_so(tmp_path):
    not_a_dir = tmp_path / "not-a-dir"
    not_a_dir.write_text("a file where the game's state dir should be\n")
    daemon = DaemonProcess(tmp_path, SLOW, log_file=True, args=("--game-state-dir", str(not_a_dir)))
    daemon.start(game=False)  # the socket answers without the game
    try:
        wait_until(lambda: daemon.log().count("launcher-game exited") >= 2, what="two failed starts",
                   interval=0.1)
        status = daemon.call("status/get")
        assert status["game_layer"]["state"] == "down"
        assert status["game_layer"]["reason_object"]["id"] == "game_layer_failed"
        with pytest.raises(ApiError) as refused:
            daemon.call("game/status")
        assert refused.value.code == ApiError.UNAVAILABLE
        assert refused.value.message_object["id"] == "game_layer_failed"
        # A press means nothing while no game says what it means: never a burst the game did not ask.
        assert status["press_means"] == "nothing"
        assert daemon.call("launcher/dispense", {"count": 3})["cards"] == 3  # the launcher works
        assert daemon.call("status/get")["state"] == "ready"
    finally:
        daemon.stop()


def test_launcherd_restarted_under_a_running_game_it_reconnects_and_catches_up(tmp_path):
    state = tmp_path / "state"
    game = None
    first = DaemonProcess(tmp_path, SLOW, args=("--no-game",)).start()
    try:
        game = subprocess.Popen([str(BIN / "launcher-game"), "--socket", str(first.socket),
                                 "--state-dir", str(state / "game")], stdin=subprocess.DEVNULL)
        first.wait_for_game()
        new_with_deck(first.call, ATTACK)
        assert first.call("launcher/press")["cards"] == 6
        wait_until(lambda: presses(first) == [6], what="the press logged")
        # The game stopped, a press, then launcherd killed and started again: the press is in the
        # outcome record only, until the game is back.
        os.kill(game.pid, signal.SIGSTOP)
        assert first.call("launcher/press")["cards"] == 6
        first.process.kill()
        first.process.wait(HANG_S)
        first.kill()
        second = DaemonProcess(tmp_path, SLOW, args=("--no-game",)).start(game=False)
        try:
            os.kill(game.pid, signal.SIGCONT)
            second.wait_for_game()
            wait_until(lambda: presses(second) == [6, 6], what="the press caught up on")
            second.call("status/get")
            assert presses(second) == [6, 6]  # once
        finally:
            second.stop()
    finally:
        first.stop()
        if game is not None:
            try:
                os.kill(game.pid, signal.SIGCONT)
            except ProcessLookupError:
                pass
            game.terminate()
            game.wait(HANG_S)


def test_the_game_launcherd_starts_yields_the_cpu_to_it_as_its_unit_makes_it_on_a_pi(tmp_path):
    """launcher-game.service's Nice=: launcherd --sim starts the game so too, and launcherd keeps
    its own priority (when the machine is short of CPU, the motor's daemon wins)."""
    unit = Path(__file__).resolve().parent.parent / "systemd" / "launcher-game.service"
    unit_nice = [int(line.split("=", 1)[1]) for line in unit.read_text().splitlines() if line.startswith("Nice=")]

    def nice_of(pid: int) -> int:  # /proc/PID/stat's 19th field, after the command in parentheses
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[16])
    with DaemonProcess(tmp_path, SLOW) as daemon:
        game, launcherd = nice_of(game_pid(daemon)), nice_of(daemon.pid)
    assert unit_nice == [game] and game > 0
    assert launcherd == os.nice(0)


def test_the_game_launcherd_started_ends_when_launcherd_is_killed_and_launcherd_loads_no_ctypes(tmp_path):
    """SIGKILL gives launcherd no time to stop its child: the game asks the kernel for a SIGTERM at
    its parent's death itself (PR_SET_PDEATHSIG), so that launcherd need not load ctypes to ask it
    between fork and exec, and no orphaned game is left holding the state dir's lock."""
    with DaemonProcess(tmp_path, SLOW) as daemon:
        game = game_pid(daemon)
        mapped = Path(f"/proc/{daemon.pid}/maps").read_text()
        daemon.process.send_signal(signal.SIGKILL)
        daemon.process.wait(HANG_S)

        def gone() -> bool:
            try:  # a zombie no one reaps (its parent is gone) is reaped by init: gone from /proc
                return Path(f"/proc/{game}/stat").read_text().rsplit(")", 1)[1].split()[0] in ("Z", "X")
            except FileNotFoundError:
                return True
        wait_until(gone, what="the game process's end after launcherd's SIGKILL")
    assert "_ctypes" not in mapped and "libffi" not in mapped
