"""Issue #38's scenarios on real Linux: the game (controller/) in its own process, launcher-game,
a systemd unit of its own beside launcherd, installed by install.sh (conftest.installed), on
launcherd's socket. The game process is killed (SIGKILL) mid-launch and mid-deal, stopped
(SIGSTOP), stopped cleanly and crashing at every start, under systemd: the launcher never waits for
it, the motor stops on its count whatever the game does, and the game, started again by systemd,
takes in what happened meanwhile exactly once (from launcherd's outcome record). Last, install.sh
moves an older install's game state into the game's own directory.

Nothing here is timed against a figure: under TCG a Python start takes seconds and the guest's
timing is the host's. What is judged is the product's: which process moved the motor, what was
counted, what the game holds afterwards, what systemd did. Waits for something that must come use
HANG_S, which only says "it never came".

The tests run in file order after test_scenarios.py's and share its installed service.
"""

from __future__ import annotations

import os
import pwd
import re
import signal
import subprocess
import time

import pytest

import rig
from conftest import FIGURES, wait_game_up, wait_ready
from test_scenarios import LAUNCH_TIMEOUT_S, game_state, press_until_motor_runs, settle

HANG_S = 240  # a game process's start under TCG (a Python start, its log, the catch-up) and some


@pytest.fixture(scope="module")
def pins(installed):
    return rig.pins()


@pytest.fixture
def mech(chip, pins):
    with rig.Mechanism(chip, pins["motor_forward"], pins["motor_reverse"], pins["beam"]) as mech:
        yield mech


def player(state: dict, name: str) -> dict:
    return next(p for p in state["players"] if p["name"] == name)


def counted() -> tuple[int, int]:
    """launcherd's count of cards so far, and the beam edges the guest's kernel merged (a card the
    emulated CPU's late interrupt thread lost: scenario 2 says why it is not the count's)."""
    status = rig.status()
    return status["cards_ejected"], status["merged_edges"]["beam"]


def game_back_after(pid: int) -> int:
    """systemd started the game again (a new main process), it registered and caught up: its pid."""
    rig.wait_for(lambda: rig.game_pid() not in (0, pid), HANG_S, 0.2, f"{rig.GAME} started again by systemd")
    wait_game_up(HANG_S)
    return rig.game_pid()


def without_reload_advice(state: dict) -> dict:
    return {key: value for key, value in state.items() if key != "reload_advice"}


def game_layer() -> dict:
    return rig.status().get("game_layer") or {}


def unavailable_reason(method: str = "game/status") -> str:
    """The error a game/* request gets (it must get one): its text."""
    with pytest.raises(RuntimeError) as caught:
        rig.api_call(method)
    return str(caught.value)


def no_motion(mech: rig.Mechanism, seconds: float) -> tuple[int, int, bool]:
    """What the mechanism saw move during ``seconds`` of waiting (a span in which nothing may)."""
    runs, cards = len(mech.runs), mech.cards
    time.sleep(seconds)
    return len(mech.runs) - runs, mech.cards - cards, mech.motor_on


# ---- 16 ------------------------------------------------------------------------------------


def test_scenario_16_the_game_is_a_unit_of_its_own_and_launcherd_holds_no_game(installed, chip, pins, mech):
    """launcher-game installed, enabled and started by install.sh; Type=notify (active means
    READY=1: registered and caught up), a watchdog, launcherd's user; its state in its own
    directory; launcherd with no SQLite in its process. Stopped cleanly, the launcher goes on and
    says the game is away: a press means nothing (never a random burst), game/* is refused at once."""
    assert any("launcher-game.service" in line for line in installed[0]["stdout"].splitlines()
               if line.startswith("+ install -m 0644"))
    for query, expected in (("is-active", "active"), ("is-enabled", "enabled")):
        assert rig.sh("systemctl", query, rig.GAME, check=False).stdout.strip() == expected, query
    shown = dict(line.split("=", 1) for line in rig.sh(
        "systemctl", "show", "-p", "Type,WatchdogUSec,Restart,User,StateDirectory,NRestarts", rig.GAME
    ).stdout.splitlines() if "=" in line)
    assert shown["Type"] == "notify" and shown["Restart"] == "always", shown
    assert shown["WatchdogUSec"] not in ("0", "infinity", ""), shown
    # launcherd never depends on the game.
    daemon_deps = rig.sh("systemctl", "show", "-p", "Wants,Requires,BindsTo,Requisite,After", "launcherd").stdout
    assert rig.GAME not in daemon_deps, daemon_deps

    game, daemon = rig.game_pid(), rig.main_pid()
    account = pwd.getpwnam("card-launcher")
    for pid in (game, daemon):
        assert _uids(pid) == [account.pw_uid] * 4, (pid, _uids(pid))
    assert game_layer()["state"] == "up"

    # The game's state in its own directory, none of it in launcherd's.
    log = rig.GAME_STATE / "game.sqlite3"
    assert log.exists() and log.stat().st_uid == account.pw_uid, sorted(p.name for p in rig.GAME_STATE.iterdir())
    assert not (rig.Path("/var/lib/card-launcher") / "game.sqlite3").exists()
    # launcherd holds no SQLite: neither the module nor the library is mapped, no game log is open.
    maps = rig.Path(f"/proc/{daemon}/maps").read_text()
    assert "sqlite" not in maps, [line for line in maps.splitlines() if "sqlite" in line][:3]
    opened = _opened(daemon)
    assert not [path for path in opened if "sqlite" in path or "launcher-game" in path], opened
    game_maps = rig.Path(f"/proc/{game}/maps").read_text()
    FIGURES["scenario_16"] = {"game_has_sqlite_mapped": "sqlite" in game_maps,
                              "launcherd_rss_kb": _rss_kb(daemon), "game_rss_kb": _rss_kb(game),
                              "game_restarts_so_far": int(shown["NRestarts"])}

    # Stopped cleanly: launcherd goes on, unchanged, and says the game is away. The hopper reloaded
    # first: an empty launcher answers a press as empty whatever it means.
    rig.api_call("launcher/reload", cards=1000)
    api = rig.Api()
    api.call("events/subscribe")
    try:
        rig.sh("systemctl", "stop", rig.GAME)
        assert rig.main_pid() == daemon and rig.sh("systemctl", "is-active", "launcherd").stdout.strip() == "active"
        layer = rig.wait_for(lambda: game_layer() if game_layer().get("state") != "up" else None, HANG_S, 0.1,
                             "launcherd saying the game is gone")
        refused = unavailable_reason()
        status = rig.status()
        assert status["press_means"] == "nothing", status
        assert (status.get("press_reason") or {}).get("id") == "press_game_away", status.get("press_reason")
        chip.pull(pins["button"], "down")
        # A press that means nothing is no press: launcherd says it ignored it, and why.
        ignored = api.next_event("ignored", LAUNCH_TIMEOUT_S)["params"]
        chip.pull(pins["button"], "up")
        moved = no_motion(mech, 2)  # what a burst would have run by now
        assert moved == (0, 0, False), f"the motor ran on a press with the game away: {moved}, {ignored}"
        assert (ignored.get("message_object") or {}).get("id") == "press_game_away", ignored
        FIGURES["scenario_16"].update({"game_layer_while_stopped": layer, "game_request_while_stopped": refused,
                                       "press_while_stopped": ignored.get("message")})
    finally:
        api.close()
        rig.sh("systemctl", "start", rig.GAME)
    wait_game_up(HANG_S)
    assert rig.main_pid() == daemon, "launcherd restarted around the game's stop and start"

    # launcherd restarted under a running game (an upgrade): the same game process connects again
    # and registers again; systemd neither stops nor starts it with launcherd.
    def restarts() -> int:
        return int(rig.sh("systemctl", "show", "-p", "NRestarts", "--value", rig.GAME).stdout or 0)
    game, restarted = rig.game_pid(), restarts()
    rig.sh("systemctl", "restart", "launcherd")
    wait_ready(HANG_S)
    assert rig.game_pid() == game and restarts() == restarted, "the game process was restarted with launcherd"
    FIGURES["scenario_16"]["game_reconnected_after_launcherds_restart"] = True


def _uids(pid: int) -> list[int]:
    """The process's real, effective, saved and file-system uids (/proc/PID/status)."""
    line = next(line for line in rig.Path(f"/proc/{pid}/status").read_text().splitlines() if line.startswith("Uid:"))
    return [int(word) for word in line.split()[1:]]


def _opened(pid: int) -> set[str]:
    """What the process has open (a descriptor closed meanwhile is left out)."""
    opened = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            opened.add(os.readlink(f"/proc/{pid}/fd/{fd}"))
        except OSError:
            pass
    return opened


def _rss_kb(pid: int) -> int | None:
    found = re.search(r"^VmRSS:\s+(\d+) kB", rig.Path(f"/proc/{pid}/status").read_text(), re.M)
    return int(found.group(1)) if found else None


# ---- 17 ------------------------------------------------------------------------------------


def test_scenario_17_the_game_sigkilled_mid_launch_the_motor_stops_on_the_count_and_the_game_takes_it_once(
        chip, pins, api, mech):
    rig.sh("launcherctl", "game", "new", "--players", "Ann,Bob,Cy", "--force")
    rig.sh("launcherctl", "game", "play", "hit-2", "--color", "red", "--by", "Ann")
    rig.sh("launcherctl", "reload", "100")  # the fixed sequence from its start: a burst of 3 first
    before = game_state()
    presser = before["turn"]  # whose press this is
    (ejected_before, merged_before), model_before = counted(), mech.cards
    pid, daemon = rig.game_pid(), rig.main_pid()
    killed = {}

    def kill() -> None:
        killed["at"] = time.perf_counter()
        os.kill(pid, signal.SIGKILL)  # the moment the motor line is seen high: mid-launch
    press_until_motor_runs(chip, pins, api, mech, at_once=kill)
    launched = api.next_event("launched", LAUNCH_TIMEOUT_S)["params"]
    settle(mech, chip, pins)
    out = mech.cards - model_before
    rig.wait_for(lambda: sum(x - y for x, y in zip(counted(), (ejected_before, merged_before))) == out, 10, 0.05,
                 "launcherd's count of what came out")
    ejected, merged = counted()
    # launcherd ran the launch to its count with the game gone (a card whose beam edges the guest's
    # kernel merged never reached it: then the count is the emulator's, reported, not judged).
    # "done": it ended on its count; a card that clears during the stop's coast is the launch's too
    # (scenario 2: a late stop on a busy guest lets one through), so at least the count.
    if merged == merged_before:
        assert launched["ended"] == "done", launched
        assert launched["cards"] >= launched["requested"] > 0, launched
    assert rig.main_pid() == daemon, "launcherd restarted with the game's kill"
    # While the game is away (systemd starts it again after RestartSec=), a press means nothing:
    # seen where the status read came before the game was back.
    status = rig.status()
    away = None
    if (status.get("game_layer") or {}).get("state") != "up":
        away = {"press_means": status["press_means"], "press_reason": (status.get("press_reason") or {}).get("id")}
        assert away == {"press_means": "nothing", "press_reason": "press_game_away"}, away

    new_pid = game_back_after(pid)
    after = game_state()
    taken = player(after, presser)
    assert taken["presses"] - player(before, presser)["presses"] == 1, (before, after)
    assert taken["cards_taken"] - player(before, presser)["cards_taken"] == launched["cards"], (launched, before, after)
    # Exactly once: another start of the game (a clean one) takes in nothing more.
    rig.sh("systemctl", "restart", rig.GAME)
    wait_game_up(HANG_S)
    assert game_state() == after, "the launch was taken in again by the next start of the game"
    said = rig.journal("-u", rig.GAME, "-n", "40", "-o", "cat")
    FIGURES["scenario_17"] = {"launched": {k: launched[k] for k in ("requested", "cards", "ended")}, "out": out,
                              "merged": merged - merged_before, "away_seen": away,
                              "game_pid": [pid, new_pid], "game_said_caught_up": bool(re.search("catch|caught", said))}


# ---- 18 ------------------------------------------------------------------------------------


def test_scenario_18_the_game_sigkilled_mid_deal_the_rest_waits_for_a_press_and_no_card_counts_twice(
        chip, pins, mech):
    rig.sh("launcherctl", "reload", "108")  # the whole classic deck: the deal waits for it (#40)
    (ejected_before, merged_before), out_before = counted(), mech.cards
    try:
        rig.sh("launcherctl", "game", "new", "--rules", "classic", "--players", "Ann,Bob,Cy", "--force")
        rig.wait_for(lambda: mech.cards - out_before >= 2, 60, 0.01, "the deal's first cards")
        pid = rig.game_pid()
        os.kill(pid, signal.SIGKILL)
        killed_after = mech.cards - out_before
        # The dispense under way stops on its count, the game or no game.
        settle(mech, chip, pins, timeout=LAUNCH_TIMEOUT_S)
        game_back_after(pid)
        # Back, the game owes the rest of the deal; nothing it asks moves the motor until a press.
        state = rig.wait_for(lambda: (rig.status().get("game") or {}) or None, HANG_S, 0.2, "the game's status")
        held_cards = mech.cards
        if state.get("owed"):
            moved = no_motion(mech, 2)  # what the deal would have dealt by now, unheld
            assert moved == (0, 0, False), f"the motor ran after the game's restart without a press: {moved}"
            api = rig.Api()
            api.call("events/subscribe")
            try:
                chip.pull(pins["button"], "down")
                rig.wait_for(lambda: mech.cards > held_cards, LAUNCH_TIMEOUT_S, 0.01, "the deal going on after a press")
                chip.pull(pins["button"], "up")
            finally:
                chip.pull(pins["button"], "up")
                api.close()
        rig.wait_for(lambda: (rig.status().get("game") or {}).get("owed") is None, HANG_S, 0.2, "the deal done")
        settle(mech, chip, pins)
        game = rig.status()["game"]
        taken = [p["cards_taken"] for p in game["players"]]
        ejected, merged = counted()
        FIGURES["scenario_18"] = {"cards_before_the_kill": killed_after, "cards_when_back": held_cards - out_before,
                                  "owed_when_back": bool(state.get("owed")), "taken": taken,
                                  "counted": ejected - ejected_before, "merged": merged - merged_before}
        assert taken == [7, 7, 7], game
        # Every card launcherd counted is in one hand, once: none lost with the game, none twice.
        assert sum(taken) == ejected - ejected_before, (taken, ejected - ejected_before)
    finally:
        rig.sh("launcherctl", "game", "abandon", check=False)


# ---- 19 ------------------------------------------------------------------------------------


def test_scenario_19_the_game_sigstopped_the_launcher_goes_on_and_the_games_watchdog_restarts_it(
        chip, pins, api, mech):
    watchdog_s = rig.sh("systemctl", "show", "-p", "WatchdogUSec", "--value", rig.GAME).stdout.strip()
    rig.sh("launcherctl", "game", "new", "--players", "Ann,Bob", "--force")
    rig.sh("launcherctl", "reload", "100")
    before = game_state()
    presser = before["turn"]
    pid, daemon = rig.game_pid(), rig.main_pid()
    since = rig.sh("date", "+%Y-%m-%d %H:%M:%S").stdout.strip()
    # Never continued by the test: systemd's watchdog ends it (its abort comes with a SIGCONT).
    os.kill(pid, signal.SIGSTOP)
    # The launcher never waits for the game: a press fires and runs to its count, status answers.
    merged_before = counted()[1]
    press_until_motor_runs(chip, pins, api, mech)
    launched = api.next_event("launched", LAUNCH_TIMEOUT_S)["params"]
    settle(mech, chip, pins)
    if counted()[1] == merged_before:  # scenario 17 says why a merged edge is not judged
        assert launched["ended"] == "done" and launched["cards"] >= launched["requested"] > 0, launched
    assert rig.status()["state"] in ("ready", "empty"), rig.status()["state"]
    # A game request is refused (not answered, or the game already gone), never left hanging.
    refused = unavailable_reason() if rig.game_pid() == pid else None
    new_pid = game_back_after(pid)
    log = rig.journal("-u", rig.GAME, "--since", since)
    assert re.search(r"[Ww]atchdog timeout", log), log[-3000:]
    assert rig.main_pid() == daemon, "launcherd restarted with the game's stop"
    after = game_state()
    assert player(after, presser)["presses"] - player(before, presser)["presses"] == 1, (before, after)
    assert player(after, presser)["cards_taken"] - player(before, presser)["cards_taken"] == launched["cards"]
    FIGURES["scenario_19"] = {"watchdog": watchdog_s, "game_request_while_stopped": refused,
                              "game_pid": [pid, new_pid]}


# ---- 20 ------------------------------------------------------------------------------------


def test_scenario_20_a_game_that_crashes_at_every_start_leaves_launcherd_as_it_is(chip, pins, mech):
    """A drop-in points the game at a state dir it cannot make (the read-only /usr): it ends at
    every start with a failure, and systemd starts it again every RestartSec= (no start limit).
    launcherd stays up and unchanged, says the game is not there, and a press moves nothing."""
    dropin = rig.Path(f"/etc/systemd/system/{rig.GAME}.service.d/zz-systemtest-crash.conf")
    dropin.parent.mkdir(parents=True, exist_ok=True)
    command = rig.sh("systemctl", "show", "-p", "ExecStart", "--value", rig.GAME).stdout
    executable = re.search(r"path=(\S+)", command).group(1)
    dropin.write_text("[Service]\nExecStart=\n"
                      f"ExecStart={executable} --socket {rig.SOCKET} --state-dir /usr/lib/launcher-game-unusable"
                      f" --config {rig.CONFIG}\n")
    daemon = rig.main_pid()
    rig.api_call("launcher/reload", cards=1000)  # not empty: an empty launcher answers a press as empty
    try:
        rig.sh("systemctl", "daemon-reload")
        rig.sh("systemctl", "restart", rig.GAME, check=False)
        starts = lambda: int(rig.sh("systemctl", "show", "-p", "NRestarts", "--value", rig.GAME).stdout or 0)  # noqa: E731
        first = starts()
        rig.wait_for(lambda: starts() >= first + 2, HANG_S, 0.5, "the game started again after its failures")
        assert rig.main_pid() == daemon and rig.sh("systemctl", "is-active", "launcherd").stdout.strip() == "active"
        layer = game_layer()
        assert layer.get("state") != "up" and layer.get("reason"), layer
        refused = unavailable_reason()
        status = rig.status()
        assert status["press_means"] == "nothing", status
        chip.pull(pins["button"], "down")
        time.sleep(0.2)
        chip.pull(pins["button"], "up")
        moved = no_motion(mech, 2)
        assert moved == (0, 0, False), f"the motor ran on a press with the game crashing: {moved}"
        said = rig.journal("-u", rig.GAME, "-n", "20", "-o", "cat")
        FIGURES["scenario_20"] = {"restarts_seen": starts() - first, "game_layer": layer, "refused": refused,
                                  "game_said": said.splitlines()[-3:]}
    finally:
        dropin.unlink(missing_ok=True)
        rig.sh("systemctl", "daemon-reload")
        rig.sh("systemctl", "restart", rig.GAME, check=False)
    wait_game_up(HANG_S)
    assert rig.main_pid() == daemon


# ---- 21 ------------------------------------------------------------------------------------


def test_scenario_21_install_sh_moves_an_older_installs_game_state_into_the_games_own_directory(installed):
    """An install from before launcher-game kept the game's log and join code in launcherd's state
    directory. Put back there (both services stopped, as an older launcherd would have left them),
    the next install.sh moves them into /var/lib/launcher-game, and the game comes back with the
    same game (the same match, the same join code)."""
    before = game_state()
    code = rig.GAME_STATE / "join-code"
    code_before = code.read_text() if code.exists() else None
    old = rig.Path("/var/lib/card-launcher")
    rig.sh("systemctl", "stop", rig.GAME, "launcherd")
    names = [path.name for path in rig.GAME_STATE.iterdir()
             if path.name.startswith("game.sqlite3") or path.name == "join-code"]
    assert "game.sqlite3" in names, names
    for name in names:
        os.rename(rig.GAME_STATE / name, old / name)
    started = time.monotonic()
    log = rig.RESULTS / "install-move.log"
    with log.open("w") as output:
        result = subprocess.run(["runuser", "-u", "maker", "--", "sudo", "systemd/install.sh"], cwd=rig.CHECKOUT,
                                stdout=output, stderr=subprocess.STDOUT, timeout=1800)
    text = log.read_text()
    assert result.returncode == 0, text[-3000:]
    assert "Moving the game's state" in text, text[-3000:]
    wait_ready(HANG_S)
    assert (rig.GAME_STATE / "game.sqlite3").exists()
    assert not [name for name in names if (old / name).exists()], sorted(p.name for p in old.iterdir())
    # The reload advice follows the hopper, which launcherd's restart no longer knows (scenario 5).
    assert without_reload_advice(game_state()) == without_reload_advice(before)
    if code_before is not None:
        assert code.read_text() == code_before
    FIGURES["scenario_21"] = {"moved": sorted(names), "install_s": round(time.monotonic() - started, 1)}
