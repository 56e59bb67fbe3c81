"""Issue #15's scenarios on real Linux: launcherd installed by install.sh, run by systemd, on a
gpio-sim chip through lgpio. The test drives the world through the chip's sysfs `pull` files and
reads the outputs' `value`; rig.Mechanism stands in for the motor, the cards and the beam.

Timing limits are the issue's figures; where a step includes starting a Python process (the
ExecStopPost= safe-off), the measured cost of that step on this machine is added, because under
TCG a Python start takes seconds.

The tests run in file order and share one installed service (conftest.installed).
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import statistics
import time
import tomllib

import pytest

import rig
from conftest import FIGURES, READY_STATES, reload_if_run_out, restart_service, the_emulators_stall, wait_ready, write_config

SEQUENCE = [3, 0, 8, 1, 0, 12, 5]  # conftest.test_config's fixed profile
LAUNCH_TIMEOUT_S = 120  # for one launch's outcome under TCG


@pytest.fixture(scope="module")
def pins(installed):
    return rig.pins()


@pytest.fixture
def mech(chip, pins):
    with rig.Mechanism(chip, pins["motor_forward"], pins["motor_reverse"], pins["beam"]) as mech:
        yield mech


@contextlib.contextmanager
def realtime():
    """Run the block at real-time priority: a bounce the test writes within 3 ms must not be
    stretched by the guest's scheduler into a level that lasts a debounce time, which would be a
    real second press (and a test error, not the daemon's)."""
    before = os.sched_getscheduler(0), os.sched_getparam(0)
    os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(50))
    try:
        yield
    finally:
        os.sched_setscheduler(0, before[0], before[1])


def bounces(chip: rig.Chip, button: int, first: str, count: int) -> float:
    """`count` bounces then the settled level `first`; the longest gap between two writes."""
    other = "up" if first == "down" else "down"
    writes = []
    with realtime():
        for _ in range(count):
            chip.pull(button, first)
            writes.append(time.perf_counter())
            chip.pull(button, other)
            writes.append(time.perf_counter())
        chip.pull(button, first)
        writes.append(time.perf_counter())
    return max(b - a for a, b in zip(writes, writes[1:]))


def bounce_press(chip: rig.Chip, button: int, count: int = 5, hold_s: float = 0.1) -> float:
    """A press with `count` open-close bounces before the contact settles, then a release with
    as many (the issue asks for 5 within 3 ms); returns the longest gap between two writes."""
    gap = bounces(chip, button, "down", count)
    time.sleep(hold_s)
    return max(gap, bounces(chip, button, "up", count))


def motor_off(chip: rig.Chip, pins: dict) -> bool:
    return not (chip.high_within(pins["motor_forward"], rig.PWM_WINDOW_S)
                or chip.high_within(pins["motor_reverse"], rig.PWM_WINDOW_S))


def wait_motor_off(chip, pins, timeout: float) -> float:
    """Seconds until both motor lines stay low for a PWM period; AssertionError after timeout."""
    started = time.perf_counter()
    rig.wait_for(lambda: motor_off(chip, pins), timeout, 0.0, "the motor lines low")
    return time.perf_counter() - started


def settle(mech: rig.Mechanism, chip, pins, timeout: float = 30) -> None:
    """Until the motor is off and the launcher is out of `launching`."""
    wait_motor_off(chip, pins, timeout)
    rig.wait_for(lambda: rig.status()["state"] != "launching", timeout, 0.05, "the launch to end")


DEBOUNCE_S = 0.020  # the shipped button_debounce_ms, which the test config keeps


def press_until_motor_runs(chip, pins, api, mech, attempts: int = len(SEQUENCE), at_once=None) -> dict | None:
    """Presses until one fires (the fixed sequence has dry entries); its `press` event, with
    "edge_s": the seconds from the button's edge to the motor line, debounce subtracted.

    ``at_once``, if given, is called the moment the motor line is seen high, before anything
    else (a kill that must land while the motor runs: on a busy host the rig's next steps can
    take longer than a launch); nothing is then returned."""
    for _ in range(attempts):
        pressed = time.perf_counter()
        chip.pull(pins["button"], "down")
        try:
            rig.wait_for(lambda: chip.value(pins["motor_forward"]), 3, 0.0, "the motor")
            if at_once is not None:
                at_once()
                chip.pull(pins["button"], "up")
                return None
            edge_s = time.perf_counter() - pressed - DEBOUNCE_S
            chip.pull(pins["button"], "up")
            event = api.next_event("press", LAUNCH_TIMEOUT_S)
            return {**event, "edge_s": edge_s}
        except AssertionError:
            chip.pull(pins["button"], "up")
            api.next_event("press", LAUNCH_TIMEOUT_S)
            api.next_event("launched", LAUNCH_TIMEOUT_S)
            settle(mech, chip, pins)
    raise AssertionError(f"no press fired; status: {rig.status()}")


# ---- 1 -------------------------------------------------------------------------------------


def test_scenario_1_service_ready_access_and_no_sandbox_denial(installed, chip, pins, mech):
    assert "Keeping your /etc/card-launcher/launcher.toml" in installed[1]["stdout"]
    assert rig.sh("systemctl", "is-active", "launcherd").stdout.strip() == "active"
    assert rig.sh("systemctl", "is-enabled", "launcherd").stdout.strip() == "enabled"
    # Type=notify: active means READY=1 came; STATUS= carries the daemon's line.
    status_text = rig.sh("systemctl", "show", "-p", "StatusText", "--value", "launcherd").stdout.strip()
    assert status_text, "no STATUS= from the daemon"
    # The motor's loop (launcherd's main thread) got the short scheduler slice it asks for, where it
    # still asks for one: the unit's system call filter lets sched_setattr through
    # (firmware/daemon/motorloop.py; issue #38 keeps it only where a measurement of launcherd alone
    # asks for it).
    sched = rig.Path(f"/proc/{rig.main_pid()}/sched").read_text()
    found = re.search(r"^se\.slice\s*:\s*(\d+)", sched, re.MULTILINE)
    FIGURES["motor_loop_slice_ns"] = int(found[1]) if found else None
    asks = "sched_setattr" in (rig.CHECKOUT / "firmware" / "daemon" / "motorloop.py").read_text()
    assert found is None or not asks or int(found[1]) == 100_000, sched

    member = rig.sh("runuser", "-u", "maker", "--", "launcherctl", "status", "--json", check=False)
    assert member.returncode == 0, member.stderr
    assert '"state"' in member.stdout
    stranger = rig.sh("runuser", "-u", "stranger", "--", "launcherctl", "status", check=False)
    assert stranger.returncode != 0
    assert "ermission denied" in stranger.stderr or "refused" in stranger.stderr.lower(), stranger.stderr

    # A full game through launcherctl, the presses on the real button line.
    since = rig.sh("date", "+%Y-%m-%d %H:%M:%S").stdout.strip()
    ctl = ["runuser", "-u", "maker", "--", "launcherctl", "game"]
    rig.sh(*ctl, "new", "--players", "Ann,Bob", "--target", "20", "--force")
    rig.sh(*ctl, "play", "hit-1", "--color", "red", "--by", "Ann")
    api = rig.Api()
    api.call("events/subscribe")
    try:
        bounce_press(chip, pins["button"])
        api.next_event("launched", LAUNCH_TIMEOUT_S)
    finally:
        api.close()
    settle(mech, chip, pins)
    # Ann plays again (two players) and lays the six cards she still holds with a Discard All: a
    # round is won by a player who can have emptied their hand (the controller counts every hand).
    rig.sh(*ctl, "play", "discard-all", "--color", "red", "--by", "Ann", "--last")
    rig.sh(*ctl, "end-round", "--winner", "Ann", "Bob=37")
    final = rig.sh(*ctl, "status", "--json").stdout
    assert "Ann" in final
    # launcherd's journal and the game's (its own process since issue #38, which ran the game above).
    log = rig.journal("-u", "launcherd", "-u", rig.GAME, "--since", since)
    denials = [line for line in log.splitlines() if re.search(
        r"Operation not permitted|Permission denied|Read-only file system|seccomp|EPERM|EACCES|EROFS"
        r"|audit|denied", line)]
    assert not denials, "sandbox denials in the journal:\n" + "\n".join(denials)


# ---- 2 -------------------------------------------------------------------------------------


def count_to_stop(runs: list[tuple[float, list[float]]], count: int) -> float:
    """Seconds from the clearing of card ``count`` of a launch to its motor seen stopped."""
    clearings = [t for _, run in runs for t in run]
    stopped = next(stop for stop, run in runs if run and run[-1] >= clearings[count - 1])
    return stopped - clearings[count - 1]


# A count goes wrong only now and then (a fresh-clone run counted 8 of a burst of 9 once in its
# ~35 bursts): for a miss in one burst of 50, N bursts all pass with probability 0.98**N, so
# 150 bursts catch it 95 times in 100 (0.98**150 = 0.048), where 35 caught it about half the time.
BURSTS = 150
# The longest a stop may take after the count, the guest's own lateness taken out, where more than
# one card came out after it: one card's feed and crossing after the next card's feed (the rig's
# 60 + 15 + 60 ms), the time one late stop lets a single card through in.
ONE_CARD_MORE_S = 0.135
BURSTS_PER_REST = 40  # the motor's chain limit (max_on_ms) is reached after about 140 bursts


def test_scenario_2_bounced_presses_and_exact_counts_over_150_bursts(chip, pins, api, mech, guest_late):
    """Bounced presses are one press each and every card of every burst is counted, over
    BURSTS bursts (presses that gave cards): enough to catch a count wrong once in 50 bursts
    with 95 % certainty (1 - 0.98**150 = 0.95)."""
    presses = cards = overshoots = bursts = kernel_merged = 0
    spans = []
    guest_caused: list[dict] = []  # late stops and stall halts the guest's own lateness explains
    rig.api_call("launcher/reload", cards=10000)  # several hundred cards: never "empty" on the way
    rest_s = rig.motor_rest_s()
    # The kernel's record of launcherd's writes to the motor's lines: where the rig's mechanism
    # thread, sampling the lines from a guest the host left unscheduled, saw no reverse pulse or a
    # late stop, the trace says what launcherd wrote and when (the rig's miss, or launcherd's fault).
    reverse_line = rig.chip_base() + pins["motor_reverse"]
    forward_line = rig.chip_base() + pins["motor_forward"]
    missed_pulses = 0
    out = 0  # the cards of the burst before (none before the first)
    rig.trace_on()
    while bursts < BURSTS:
        if bursts and bursts % BURSTS_PER_REST == 0 and out:
            time.sleep(rest_s + 0.5)  # a chain of runs ends after motor_rest_ms, as the rule asks
        model_before, reverse_before = mech.cards, mech.reverse_seen
        status_before = rig.status()
        ejected_before, merged_before = status_before["cards_ejected"], status_before["merged_edges"]["beam"]
        runs_before = len(mech.runs)
        pressed_at = rig.now()
        spans.append(bounce_press(chip, pins["button"]))
        press = api.next_event("press", LAUNCH_TIMEOUT_S)["params"]
        launched = api.next_event("launched", LAUNCH_TIMEOUT_S)["params"]
        seen_at = time.perf_counter()
        settle(mech, chip, pins)
        presses += 1
        out = mech.cards - model_before
        assert launched["press_id"] == press["press_id"]
        if launched["ended"] == "halt":
            # A stall halt the guest's own lateness explains is the emulator's: reset as a person
            # would and go on. Any other halt fails. The cards whose edges came in the stall's
            # backlog are levels, not cards (docs/internals.md): the count is reported, not judged.
            halted = rig.status()
            said = the_emulators_stall(guest_late, halted, seen_at)
            assert said is not None, ("launcherd halted while the guest ran", halted.get("reason"), launched,
                                      guest_late.figures())
            rig.api_call("system/reset")
            counted = rig.status()["cards_ejected"] - ejected_before
            assert counted <= out, (launched, out, counted)
            guest_caused.append({"burst": bursts + 1, "halt": said, "out": out, "counted": counted})
            cards += out
            bursts += out > 0
            continue
        # Every card that left is counted, and nothing else (the last edge may still be on its
        # way to the daemon's loop: under TCG that takes tens of milliseconds).
        # A block the guest's kernel merged with its clearing (its interrupt thread ran after
        # both edges: firmware/launcher/hardware.py's StampedInput) never reaches the daemon, which says
        # so in status: such a card is the emulator's loss, not the count's.
        def counted_and_merged() -> tuple[int, int]:
            status = rig.status()
            return (status["cards_ejected"] - ejected_before, status["merged_edges"]["beam"] - merged_before)

        try:
            rig.wait_for(lambda: sum(counted_and_merged()) == out, 5, 0.05, "the count")
        except AssertionError:
            raise AssertionError((launched, out, counted_and_merged(),
                                  f"longest bounce gap {spans[-1] * 1e3:.2f} ms")) from None
        merged = counted_and_merged()[1]
        if merged:
            kernel_merged += merged
            cards += out
            bursts += 1
            continue  # the rig's card indices are not the daemon's: no overshoot judged on this one
        # The burst ran until its count; a card more only where the daemon's stop came later
        # than the next card (the model feeds one every feed_s of running after a clearing):
        # the stop is timed from the clearing of the card that made the count. A card that
        # clears during the reverse pulse is the launch's; one after it, the last press's.
        assert launched["requested"] <= launched["cards"] <= out, (launched, out)
        if out > launched["requested"]:
            runs = mech.runs[runs_before:]
            reaction = count_to_stop(runs, launched["requested"])
            counted_at = [t for _, run in runs for t in run][launched["requested"] - 1]
            # The guest's own lateness between the count and the stop: the vCPU ran nothing then.
            late = guest_late.late_within(counted_at, counted_at + reaction)
            if out == launched["requested"] + 1:
                # The stop came after the next card's feed: that card is the burst's.
                assert reaction > mech.feed_s, (launched, out, reaction)
                overshoots += 1
            else:
                # More cards than one late stop lets through: the emulator's only where, without the
                # guest's own lateness, the stop would have come within that one card's time. The
                # stop is launcherd's write of the forward line low in the kernel's trace where it is
                # there: the rig's mechanism thread, itself late on a loaded guest, sees the line low
                # later and feeds cards meanwhile, which launcherd then rightly counts.
                trace = rig.events((rig.TRACING / "trace").read_text().splitlines())
                written = [t - counted_at for t, level in rig.line_writes(trace, forward_line)
                           if not level and t >= counted_at]
                judged = min(reaction, written[0]) if written else reaction
                assert judged - late <= ONE_CARD_MORE_S, (
                    "cards after the count that the guest's lateness does not explain", launched, out,
                    f"count to stop {reaction * 1e3:.1f} ms as the rig saw it,"
                    f" {written[0] * 1e3 if written else float('nan'):.1f} ms to launcherd's write,"
                    f" guest late {late * 1e3:.1f} ms of it")
                guest_caused.append({"burst": bursts + 1, "requested": launched["requested"], "out": out,
                                     "count_to_stop_ms": round(reaction * 1e3, 1),
                                     "count_to_stop_written_ms": round(written[0] * 1e3, 1) if written else None,
                                     "guest_late_ms": round(late * 1e3, 1)})
        if launched["cards"]:
            try:
                rig.wait_for(lambda: mech.reverse_seen > reverse_before, 5, 0.01, "the reverse pulse")
            except AssertionError:
                trace = rig.events((rig.TRACING / "trace").read_text().splitlines())
                driven = [t for t, level in rig.line_writes(trace, reverse_line) if level and t >= pressed_at]
                # Which ending it was (only a count or a timeout pulses) and what the model saw.
                assert driven, ("no reverse pulse seen, and none in the kernel's trace", launched, out,
                                mech.runs[runs_before:], rig.status()["state"])
                missed_pulses += 1
                guest_caused.append({"burst": bursts + 1, "reverse_pulse_the_rig_missed": True})
        cards += out
        bursts += out > 0
    rig.trace_off()
    # One press event per physical press, however it bounced.
    assert not [event for event in api.events if event["event"] == "press"]
    # A merge now and then is the emulated CPU's; one burst in ten would be a kernel that reads
    # the beam too late for any card to be counted.
    assert kernel_merged <= BURSTS // 10, kernel_merged
    reactions = mech.stop_reactions
    FIGURES["scenario_2"] = {
        "presses": presses, "bursts": bursts, "cards": cards, "bounce_gap_ms_max": round(max(spans) * 1e3, 2),
        "count_to_motor_low_ms": {key: value if key == "n" else round(value / 1e3, 1)
                                  for key, value in rig.summary_us(reactions).items()}
        if reactions else None,
        "one_card_more_than_asked": overshoots,
        # Late stops (more than one card more) and stall halts that the guest's own lateness explains.
        "the_guest_caused": guest_caused,
        "blocks_the_kernel_merged": kernel_merged,
        "reverse_pulses_the_rig_missed": missed_pulses,
    }
    # Now and then a busy host keeps the rig from seeing a pulse; most of them it must see.
    assert missed_pulses <= BURSTS // 10, missed_pulses


# ---- 3 -------------------------------------------------------------------------------------


SCENARIO_3_JAMS = 5  # one stop timed on an emulator is one sample of its scheduler: judge the median


def test_scenario_3_a_held_beam_stops_the_motor_and_counts_the_card_once(chip, pins, api, mech, timer_late_s):
    jam_s = 0.4  # the shipped jam_ms, which the test config keeps
    stops, limits, edges = [], [], []
    for _ in range(SCENARIO_3_JAMS):
        mech.jam()
        ejected_before = rig.status()["cards_ejected"]
        model_before = mech.cards
        edge_s = press_until_motor_runs(chip, pins, api, mech)["edge_s"]
        blocked_at = rig.wait_for(lambda: mech.stuck() and mech.blocked_at, 30, 0.0005, "the stuck card")
        rig.wait_for(lambda: not chip.high_within(pins["motor_forward"], rig.PWM_WINDOW_S), 30, 0.0,
                     "the motor line low")
        stops.append(time.perf_counter() - rig.PWM_WINDOW_S - blocked_at)
        # The jam_ms + 5 ms, plus what this machine needs for the edge to reach the daemon
        # (measured on the press that started this launch) and for a timer to fire (measured).
        limits.append(jam_s + 0.005 + edge_s + 2 * timer_late_s)
        edges.append(edge_s)
        launched = api.next_event("launched", LAUNCH_TIMEOUT_S)["params"]
        assert launched["ended"] == "jam", launched
        assert rig.status()["state"] == "jammed"
        mech.clear()
        rig.wait_for(lambda: rig.status()["state"] == "ready", 30, 0.05, "ready after the card is pulled out")
        assert rig.status()["cards_ejected"] - ejected_before == mech.cards - model_before + 1
    stopped_after, limit = statistics.median(stops), statistics.median(limits)
    FIGURES["scenario_3"] = {"beam_held_to_motor_low_ms": round(stopped_after * 1e3, 1),
                             "beam_held_to_motor_low_max_ms": round(max(stops) * 1e3, 1),
                             "limit_ms": round(limit * 1e3, 1), "jams": len(stops),
                             "press_edge_to_motor_ms": round(statistics.median(edges) * 1e3, 1)}
    assert stopped_after <= limit, (f"motor low {stopped_after * 1e3:.1f} ms after the block, median of"
                                    f" {len(stops)} (limit {limit * 1e3:.1f}); each: {[round(s * 1e3, 1) for s in stops]}")


# ---- 4 -------------------------------------------------------------------------------------


def documented_pulls() -> dict[str, str]:
    """Config key -> "pull-up"/"pull-down"/"none" for every input row of wiring/pins.md."""
    pulls = {}
    for line in (rig.CHECKOUT / "wiring" / "pins.md").read_text().splitlines():
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if len(cells) == 6 and cells[4] == "input":
            key = cells[2].strip("`")
            pulls[key] = "pull-up" if "pull-up" in cells[5] else "pull-down" if "pull-down" in cells[5] else "none"
    return pulls


def test_scenario_4_lid_bias_as_wired_opening_stops_closing_forgets(chip, pins, api, mech):
    info = rig.sh("gpioinfo", "-c", chip.name).stdout
    documented = documented_pulls()
    assert set(documented) >= {"button", "beam", "lid"}
    for key, pull in documented.items():
        line = next(text for text in info.splitlines() if re.search(rf"\bline\s+{pins[key]}:", text))
        bias = re.search(r"bias=([a-z-]+)", line)
        assert (bias.group(1) if bias else "none") == pull, f"{key} (GPIO {pins[key]}): {line.strip()}"

    press_until_motor_runs(chip, pins, api, mech)
    chip.pull(22, "up")  # the lid opens: its contact to ground opens, the pull-up wins
    stop_s = wait_motor_off(chip, pins, 10)
    launched = api.next_event("launched", LAUNCH_TIMEOUT_S)["params"]
    assert launched["ended"] == "lid"
    assert rig.status()["state"] == "lid_open"
    FIGURES["scenario_4_lid_open_to_motor_low_ms"] = round(stop_s * 1e3, 1)
    chip.pull(22, "down")
    rig.wait_for(lambda: rig.status()["state"] == "ready", 30, 0.05, "ready after the lid closes")
    # The fixed sequence starts again: the press history is forgotten.
    assert rig.status()["dry_streak"] == 0
    bounce_press(chip, pins["button"])
    assert api.next_event("launched", LAUNCH_TIMEOUT_S)["params"]["requested"] == SEQUENCE[0]
    settle(mech, chip, pins)


# ---- 5, 6, 7: how the service ends ------------------------------------------------------------


def reset_after_crash() -> dict:
    """The service back after launcherd ended: halted when the motor may have been on (issue #20's
    latch, ``halted_after_crash``), then reset as a person would; the status it came back with."""
    wait_ready(states=("halted", *READY_STATES))
    came_back = rig.status()
    if came_back["state"] == "halted":
        rig.sh("launcherctl", "reset")  # first: whatever the reason, the next scenarios find it reset
        wait_ready()
        # A process stopped by SIGSTOP is sent SIGCONT with systemd's abort: its loop may then see
        # its own stall and latch "stalled" before the abort ends it. Either halt survived.
        assert came_back["reason_object"]["id"] in ("halted_after_crash", "stalled"), came_back
    return came_back


def game_state() -> dict:
    state = rig.api_call("game/status")
    return {key: value for key, value in state.items() if key not in ("updated", "now", "uptime_s")}


def test_scenario_5_sigkill_mid_launch_safe_off_and_the_game_resumes(chip, pins, api, mech, safe_off_s):
    rig.sh("launcherctl", "game", "new", "--players", "Ann,Bob,Cy", "--force")
    rig.sh("launcherctl", "game", "play", "hit-2", "--color", "red", "--by", "Ann")
    pid = rig.main_pid()
    # A reload starts the fixed sequence again: 3 cards, a dry press, then 8, long enough for the
    # kill to land in the middle of the launch (the test accepts a launch that ended first too).
    rig.sh("launcherctl", "reload", "100")
    for _ in range(SEQUENCE.index(8)):
        chip.pull(pins["button"], "down")
        api.next_event("press", LAUNCH_TIMEOUT_S)
        chip.pull(pins["button"], "up")
        api.next_event("launched", LAUNCH_TIMEOUT_S)
        settle(mech, chip, pins)
    before, model_before = game_state(), mech.cards
    presser = before["turn"]  # whose press this is
    chip.pull(pins["button"], "down")
    rig.wait_for(lambda: chip.value(pins["motor_forward"]), 3, 0.0, "the motor")
    chip.pull(pins["button"], "up")
    press_id = api.next_event("press", LAUNCH_TIMEOUT_S)["params"]["press_id"]
    rig.wait_for(lambda: mech.cards > model_before, 30, 0.005, "a first card")
    killed_at = rig.uptime()
    rig.sh("systemctl", "kill", "-s", "KILL", "launcherd")
    off_s = wait_motor_off(chip, pins, 30)
    out = mech.cards - model_before
    heard = [event["params"] for event in api.until_closed(30)
             if event["event"] == "launched" and event["params"].get("press_id") == press_id]
    # gpio-sim returns a released line to its pull, so the lines fall at the kill itself (a Pi
    # keeps the last level): that safe-off ran is read from its own line in the journal.
    safe_off_after = rig.safe_off_logged_after(killed_at, 60)
    rig.wait_for(lambda: rig.main_pid() not in (0, pid), 120, 0.2, "the restarted service")
    came_back = reset_after_crash()
    assert off_s <= 1
    after = game_state()
    # The reload advice follows the hopper, which a restart no longer knows.
    def acknowledged(state: dict) -> dict:
        return {key: value for key, value in state.items() if key != "reload_advice"}

    def player(state: dict, name: str) -> dict:
        return next(p for p in state["players"] if p["name"] == name)

    # Either the launch ended before the kill, and the game has the press with exactly the cards
    # that came out, or it was cut off, never acknowledged, and the game is exactly as before it
    # (the cards that came out are in a hand but not in the game's counts: docs/systemtest.md).
    # A launch whose outcome a client heard must be in the game.
    pressed = player(after, presser)["presses"] - player(before, presser)["presses"]
    FIGURES["scenario_5"] = {"kill_to_motor_low_ms": round(off_s * 1e3, 1),
                             "kill_to_safe_off_done_s": round(safe_off_after, 2), "cards_before_kill": out,
                             "safe_off_alone_s": round(safe_off_s, 2), "launch_ended_before_kill": bool(pressed),
                             "came_back_halted": came_back["state"] == "halted"}
    # Halted means the motor was on at the kill: the launch had not ended.
    assert not (pressed and came_back["state"] == "halted"), came_back
    if pressed or heard:
        assert pressed == 1 and player(after, presser)["cards_taken"] - player(before, presser)["cards_taken"] \
            == out, (heard, out, after, before)
    else:
        assert acknowledged(after) == acknowledged(before), (out, after, before)
    assert [p["name"] for p in after["players"]] == [p["name"] for p in before["players"]]
    assert after["round"] == before["round"] and after["ruleset"] == before["ruleset"]


def test_scenario_6_sigstop_watchdog_ends_it_and_safe_off_follows(chip, pins, api, mech):
    watchdog_s = int(rig.sh("systemctl", "show", "-p", "WatchdogUSec", "--value", "launcherd").stdout
                     .strip().removesuffix("s") or 0)
    assert watchdog_s > 0
    since = rig.sh("date", "+%Y-%m-%d %H:%M:%S").stdout.strip()
    pid = rig.main_pid()
    press_until_motor_runs(chip, pins, api, mech)
    stopped_at = rig.uptime()
    rig.sh("kill", "-STOP", str(pid))
    off_s = wait_motor_off(chip, pins, 120)
    safe_off_after = rig.safe_off_logged_after(stopped_at, 120)
    ended_after = rig.logged_after("Main process exited", stopped_at, 10)
    FIGURES["scenario_6"] = {"stop_to_motor_low_s": round(off_s, 2), "stop_to_exit_s": round(ended_after, 2),
                             "stop_to_safe_off_done_s": round(safe_off_after, 2), "watchdog_s": watchdog_s}
    rig.wait_for(lambda: rig.main_pid() not in (0, pid), 120, 0.2, "the restarted service")
    FIGURES["scenario_6"]["came_back_halted"] = reset_after_crash()["state"] == "halted"
    log = rig.journal("-u", "launcherd", "--since", since)
    assert re.search(r"[Ww]atchdog timeout", log), log[-3000:]
    # On gpio-sim the lines fall when the process dies (a Pi keeps them): the motor is low by
    # then, and safe-off, a Python start (seconds under TCG), follows; its time is reported.
    FIGURES["scenario_6"]["safe_off_killed_by_TimeoutStopSec"] = bool(
        re.search(r"State 'stop-post' timed out", log))
    assert ended_after <= watchdog_s + 2, f"the daemon ended {ended_after:.1f} s after SIGSTOP"
    assert off_s <= watchdog_s + 2, f"the motor line low {off_s:.1f} s after SIGSTOP"


def test_scenario_7_stop_is_clean_and_restart_loses_nothing(chip, pins, api, mech):
    rig.sh("systemd-analyze", "log-level", "debug")
    try:
        since = rig.sh("date", "+%Y-%m-%d %H:%M:%S").stdout.strip()
        press_until_motor_runs(chip, pins, api, mech)
        rig.sh("systemctl", "stop", "launcherd")
        assert motor_off(chip, pins)
        show = rig.sh("systemctl", "show", "-p", "Result,ExecMainStatus,ExecMainCode", "launcherd").stdout
        assert "Result=success" in show and "ExecMainStatus=0" in show, show
        log = rig.journal("--since", since)
        assert "STOPPING=1" in log, "no STOPPING=1 notification in the journal"
    finally:
        rig.sh("systemd-analyze", "log-level", "info")
    rig.sh("systemctl", "start", "launcherd")
    wait_ready()
    game, launcher = game_state(), rig.status()
    rig.sh("systemctl", "restart", "launcherd")
    wait_ready()
    assert game_state() == game
    assert rig.status()["hopper"] == launcher["hopper"]


# ---- 8 -------------------------------------------------------------------------------------


def test_scenario_8_sleep_and_wake_on_the_real_lines(chip, pins, mech):
    """Asleep: the driver's standby line low and the LED dark. What launcherd wrote to the LED is
    the kernel's trace: lgpio's PWM thread writes the LED's level at each cycle, so once it wrote
    the LED low after the standby line went low, a later write of 1 while asleep is launcherd's
    fault; a poll of the line from a guest the host left unscheduled is a figure beside it."""
    sleep_s = 5
    write_config(chip, sleep_after_s=sleep_s)
    try:
        standby, led = pins["motor_enable"], pins["led"]
        rig.trace_on()
        restart_service()
        assert chip.value(standby) == 1
        # Under TCG the start (the game layer's catch-up) can outlast sleep_after_s, and the lid
        # levels wait_ready writes again read as a refill a moment later, which wakes the launcher:
        # the LED is judged over a stretch the launcher slept through from end to end. It starts
        # once status says "sleeping": the standby line goes low first in the same batch, before
        # the LED's pattern thread has been stopped (a few ms under TCG).
        for _ in range(3):
            rig.wait_for(lambda: chip.value(standby) == 0 and rig.status()["state"] == "sleeping",
                         sleep_s + 60, 0.05, "the standby line low and the launcher asleep")
            led_share = chip.high_share(led, 0.5)
            if chip.value(standby) == 0 and rig.status()["state"] == "sleeping":
                break
        trace = rig.events(rig.trace_off())
        assert chip.value(standby) == 0 and rig.status()["state"] == "sleeping", "it never stayed asleep"
        base = rig.chip_base()
        standby_lows = [t for t, level in rig.line_writes(trace, base + standby) if not level]
        assert standby_lows, "the trace holds no write of the standby line low"
        asleep_at = standby_lows[-1]
        led_writes = [(t, level) for t, level in rig.line_writes(trace, base + led) if t >= asleep_at]
        dark_at = next((t for t, level in led_writes if not level), None)
        lit_after_dark = [t for t, level in led_writes if level and dark_at is not None and t > dark_at]
        FIGURES["scenario_8"] = {
            "led_high_share_polled_asleep": round(led_share, 3),
            "standby_low_to_led_low_ms": None if dark_at is None else round((dark_at - asleep_at) * 1e3, 1),
            "led_writes_asleep": len(led_writes)}
        print(f"\n[systemtest] asleep: the LED written low {FIGURES['scenario_8']['standby_low_to_led_low_ms']} ms"
              f" after the standby line; polled high in {led_share:.0%} of reads", flush=True)
        assert dark_at is not None or chip.value(led) == 0, f"the LED never written low asleep: {led_writes[:10]}"
        assert not lit_after_dark, f"the LED written high asleep, after it was dark: {lit_after_dark[:10]}"
        ejected, model_cards = rig.status()["cards_ejected"], mech.cards
        bounce_press(chip, pins["button"])
        rig.wait_for(lambda: chip.value(standby) == 1, 30, 0.01, "the standby line high again")
        rig.wait_for(lambda: rig.status()["state"] == "ready", 30, 0.05, "ready after the wake")
        time.sleep(1)
        assert not mech.motor_on and mech.cards == model_cards
        assert rig.status()["cards_ejected"] == ejected
    finally:
        write_config(chip)
        restart_service()


# ---- 9 -------------------------------------------------------------------------------------

# What launcherd.service leaves out, and why it says so: each is tried on the running unit.
HARDENING_TRIES = ("ProcSubset=pid", "PrivateDevices=yes")


def test_scenario_9_hardening_left_out_for_want_of_a_pi(chip, pins, mech):
    # PrivateUsers= was left out for want of a Pi; every scenario now runs with it.
    assert rig.sh("systemctl", "show", "-p", "PrivateUsers", "--value", "launcherd").stdout.strip() == "yes"
    dropin = rig.Path("/etc/systemd/system/launcherd.service.d/zz-systemtest-try.conf")
    works = {}
    try:
        for line in HARDENING_TRIES:
            name = line
            dropin.write_text(f"[Service]\n{line}\n")
            rig.sh("systemctl", "daemon-reload")
            rig.sh("systemctl", "restart", "launcherd", check=False)
            try:
                wait_ready(120)  # the game up too: a press means what the game says (nothing before it is back)
                api = rig.Api()
                api.call("events/subscribe")
                try:
                    bounce_press(chip, pins["button"])
                    api.next_event("launched", LAUNCH_TIMEOUT_S)
                finally:
                    api.close()
                settle(mech, chip, pins)
                works[name] = True
            except (AssertionError, OSError, RuntimeError):
                works[name] = False
    finally:
        dropin.unlink(missing_ok=True)
        rig.sh("systemctl", "daemon-reload")
        rig.sh("systemctl", "reset-failed", "launcherd", check=False)
        rig.sh("systemctl", "restart", "launcherd")
        wait_ready()
    security = rig.sh("systemd-analyze", "security", "--no-pager", "launcherd", check=False).stdout
    (rig.RESULTS / "systemd-analyze-security.txt").write_text(security)
    exposure = re.search(r"Overall exposure level for launcherd.service: ([0-9.]+)", security)
    FIGURES["scenario_9"] = {"works": works, "exposure": float(exposure.group(1)) if exposure else None}
    assert exposure, security[-2000:]
    assert float(exposure.group(1)) <= 1.0


# ---- 10, 11: nothing moves after a restart without a person (issue #20) -----------------------------


def restarted_after(pid: int) -> int:
    """The service's new main process once systemd has started it again; its pid."""
    rig.wait_for(lambda: rig.main_pid() not in (0, pid), 120, 0.2, "the restarted service")
    return rig.main_pid()


def test_scenario_10_the_latch_holds_across_five_segv_in_a_row(chip, pins, api):
    # A slow feed keeps the motor running half a second before any card, so the first SEGV lands
    # while it runs: with the fast feed a short burst could end before the kill (a launcher that
    # then rightly restarts ready, not halted).
    with rig.Mechanism(chip, pins["motor_forward"], pins["motor_reverse"], pins["beam"], feed_s=0.5) as mech:
        latch_across_five_segv(chip, pins, api, mech)


def latch_across_five_segv(chip, pins, api, mech: rig.Mechanism) -> None:
    pid = rig.main_pid()
    at_kill = {}

    def kill():
        at_kill["running"] = chip.value(pins["motor_forward"])
        os.kill(pid, signal.SIGSEGV)
    press_until_motor_runs(chip, pins, api, mech, at_once=kill)
    running_at_kill = at_kill["running"]
    wait_motor_off(chip, pins, 30)
    # The mechanism's own thread closes the run a moment later: count from there.
    rig.wait_for(lambda: not mech.motor_on, 10, 0.01, "the mechanism to see the motor stop")
    runs, reversed_before = len(mech.runs), mech.reverse_seen
    restarts = []
    try:
        assert running_at_kill, "the motor had stopped before the kill: the scenario needs it running"
        halted_five_times(pid, mech, runs, restarts)
    finally:
        # Whatever failed, the next scenarios find the service started and not halted.
        rig.sh("systemctl", "reset-failed", "launcherd", check=False)
        rig.sh("systemctl", "start", "launcherd", check=False)
        wait_ready(states=("halted", *READY_STATES))
        if rig.status()["state"] == "halted":
            rig.sh("launcherctl", "reset")
    wait_ready()
    assert len(mech.runs) == runs and mech.reverse_seen == reversed_before, "the motor ran without a press"
    fresh = rig.Api()
    fresh.call("events/subscribe")
    try:
        press = press_until_motor_runs(chip, pins, fresh, mech)
        fresh.next_event("launched", LAUNCH_TIMEOUT_S)
    finally:
        fresh.close()
    settle(mech, chip, pins)
    FIGURES["scenario_10"] = {"kills": 5, "kill_to_halted_ready_s": restarts, "motor_runs_while_halted": 0,
                              "press_to_motor_after_reset_ms": round(press["edge_s"] * 1e3, 1)}


def halted_five_times(pid: int, mech: rig.Mechanism, runs: int, restarts: list[float]) -> None:
    """Five starts after a SEGV each (the first with the motor on): each comes up halted, the
    motor line low throughout."""
    for kill in range(5):
        killed_at = time.monotonic()
        pid = restarted_after(pid)
        wait_ready(states=("halted",), game=False)
        restarts.append(round(time.monotonic() - killed_at, 1))
        status = rig.status()
        assert status["reason_object"] == {"id": "halted_after_crash"}, status
        assert not status["motor"]["on"] and not status["driver_enabled"]
        assert len(mech.runs) == runs and not mech.motor_on, f"the motor line rose after kill {kill + 1}"
        # Five crashes inside StartLimitIntervalSec would leave the unit failed (motor off, safe-off
        # run) after the fifth: a crash loop ends there. The scenario wants each start seen halted,
        # so it clears the count as someone at the launcher would with systemctl reset-failed.
        rig.sh("systemctl", "reset-failed", "launcherd", check=False)
        if kill < 4:
            rig.sh("systemctl", "kill", "-s", "SEGV", "launcherd")
    assert rig.status()["state"] == "halted"


def test_scenario_11_a_restart_mid_deal_waits_for_a_press(chip, pins, mech):
    rig.sh("launcherctl", "reload", "108")  # the whole classic deck: the deal waits for it (#40)
    out = mech.cards
    try:
        rig.sh("launcherctl", "game", "new", "--rules", "classic", "--players", "Ann,Bob,Cy", "--force")
        rig.wait_for(lambda: mech.cards - out >= 2, 60, 0.01, "the deal's first cards")
        rig.sh("systemctl", "restart", "launcherd")  # an upgrade, a reinstall: a clean stop and start
        wait_ready()
        rig.wait_for(lambda: rig.status()["pending"] is not None, 60, 0.1, "the deal held for a press")
        status = rig.status()
        assert status["pending"]["after"] == {"id": "after_restart"}, status["pending"]
        held_runs, held_cards = len(mech.runs), mech.cards
        owed = status["game"]["owed"]
        assert owed, status["game"]
        time.sleep(2)  # what the deal would have dealt by now, unheld
        assert (len(mech.runs), mech.cards, mech.motor_on) == (held_runs, held_cards, False), \
            "the motor ran after the restart without a press"
        api = rig.Api()
        api.call("events/subscribe")
        try:
            pressed = time.perf_counter()
            chip.pull(pins["button"], "down")
            resumed = api.next_event("resume", LAUNCH_TIMEOUT_S)
            chip.pull(pins["button"], "up")
            rig.wait_for(lambda: mech.cards > held_cards, 60, 0.01, "the deal going on")
            started_s = time.perf_counter() - pressed
        finally:
            api.close()
        rig.wait_for(lambda: rig.status()["game"]["owed"] is None, 120, 0.2, "the deal done")
        settle(mech, chip, pins)
        game = rig.status()["game"]
        assert [p["cards_taken"] for p in game["players"]] == [7, 7, 7], game
        assert rig.status()["presses"] == status["presses"], "the press that let the deal go on was a launch"
        FIGURES["scenario_11"] = {"cards_before_restart": held_cards - out, "press_to_deal_s": round(started_s, 2),
                                  "resumed": [p.get("id") for p in resumed["params"]["pending"]]}
    finally:
        rig.sh("launcherctl", "game", "abandon", check=False)


# ---- 12-14: outside the software (issue 20) --------------------------------------------------

MOVING_KEYS = ("motor_forward", "motor_reverse", "motor_enable", "motor_heartbeat")


def changes(chip: rig.Chip, line: int, window: float) -> list[float]:
    """perf_counter() of every change of the line's value seen in window seconds of reads."""
    end, seen = time.perf_counter() + window, []
    last = chip.value(line)
    while (now := time.perf_counter()) < end:
        value = chip.value(line)
        if value != last:
            seen.append(now)
            last = value
    return seen


def _first_line_after(pattern: str, since: float) -> str | None:
    for line in rig.journal("-u", "launcherd", "-g", pattern).splitlines():
        try:
            if float(line.partition("]")[0].strip("[ ")) >= since:
                return line
        except ValueError:
            continue
    return None


def safe_off_line(since: float, timeout: float = 60) -> str:
    """The journal's line of what ExecStopPost= drove low after since: safe-off's, or, where the
    unit's TimeoutStopSec= ended the stop-post phase before safe-off's Python start finished (TCG on
    a busy host: a Python start there can take longer than the whole phase is given, which on a Pi
    it does not), the no-Python step's (motor-pins-low, which ran first). A safe-off that failed
    ends the phase without a time-out and fails here."""
    rig.logged_after("safe-off: motor pins driven low|State 'stop-post' timed out", since, timeout)
    line = _first_line_after("safe-off: motor pins driven low", since)
    if line:
        return line
    native = _first_line_after("motor-pins-low: GPIO .* driven low", since)
    assert native, "the stop-post phase timed out with neither safe-off's line nor the no-Python step's"
    FIGURES.setdefault("stop_post_timed_out_after_the_native_step", []).append(native.partition("motor-pins-low:")[2].strip())
    return native


def killed_and_restarted(pid: int) -> None:
    """After a kill: the service systemd restarted, then what a restart may leave waiting (a
    latched halt, a hold) let go as a person would, so that the next scenario finds it ready."""
    rig.wait_for(lambda: rig.main_pid() not in (0, pid), 120, 0.2, "the restarted service")
    rig.wait_for(lambda: rig.sh("systemctl", "is-active", "launcherd", check=False).stdout.strip() == "active",
                 120, 0.2, "launcherd active (READY=1)")
    status = rig.wait_for(lambda: _status_or_none(), 120, 0.2, "launcherd answering")
    if status["state"] == "halted":
        rig.api_call("system/reset")
    reload_if_run_out()
    if rig.status().get("pending"):
        rig.api_call("launcher/resume")
    wait_ready()


def _status_or_none() -> dict | None:
    try:
        return rig.status()
    except (OSError, ValueError, RuntimeError):
        return None


def test_scenario_12_the_heartbeat_stops_within_100_ms_of_sigstop(chip, pins, api):
    """Still and low while the motor is off; toggling while it runs; no write from the SIGSTOP on.
    What launcherd wrote and when is the kernel's trace (rig.line_writes), not a poll of the line:
    a poll from the guest on a busy host measures the rig's scheduling as much as launcherd's.
    The same under two busy loops: tests/system/test_safe_when_gone.py."""
    heartbeat = pins["motor_heartbeat"]
    line = rig.chip_base() + heartbeat
    idle = changes(chip, heartbeat, 0.5)
    assert idle == [] and chip.value(heartbeat) == 0, "the heartbeat is still and low while the motor is off"
    pid = rig.main_pid()
    # No card comes: the motor runs until the feed timeout (1.5 s), long after the first rises.
    with rig.Mechanism(chip, pins["motor_forward"], pins["motor_reverse"], pins["beam"], feed_s=3600) as mech:
        rig.trace_on()
        press_until_motor_runs(chip, pins, api, mech)
        try:
            rig.wait_for(lambda: rig.rises_so_far(line) >= 2, 30, 0.05, "two heartbeat rises")
            forward_held = chip.value(pins["motor_forward"])
            os.kill(pid, signal.SIGSTOP)
            time.sleep(0.5)  # the span in which no write may come: the process is stopped
            trace = rig.events(rig.trace_off())
        finally:
            rig.sh("systemctl", "kill", "-s", "KILL", "launcherd")
    # The kernel's time of the SIGSTOP, not the rig's clock before its kill() (preemptible between).
    stopped = rig.signalled_at(trace, pid, signal.SIGSTOP)
    assert stopped is not None, "the trace holds no SIGSTOP for launcherd"
    writes = rig.line_writes(trace, line)
    last_s = max((t for t, _ in writes), default=stopped) - stopped
    FIGURES["scenario_12"] = {"heartbeat_writes_before_stop": len([w for w in writes if w[0] < stopped]),
                              "stop_to_last_heartbeat_write_ms": round(last_s * 1e3, 1),
                              "forward_line_high_at_the_stop": bool(forward_held)}
    killed_and_restarted(pid)
    assert sum(1 for t, level in writes if level and t < stopped) >= 2, writes
    # The motor may have reached its feed timeout on a slow guest: then the heartbeat was already
    # still, and the SIGSTOP proves nothing; while it ran, no write may follow the stop.
    assert last_s <= 0.1, f"launcherd wrote the heartbeat {last_s * 1e3:.0f} ms after SIGSTOP: {writes[-10:]}"


def test_scenario_13_safe_off_after_a_kill_drives_every_moving_pin_low(chip, pins, api):
    # A stop that fails (sim/fault) exists only under --sim; on real lines the nearest is a process
    # that dies with the motor on: safe-off must then claim every moving pin, the heartbeat too.
    # gpio-sim drops a line to its pull when its process dies (a Pi keeps it), so the lines read
    # low at once: what safe-off drove is read from its own line in the journal.
    moving = [pins[key] for key in MOVING_KEYS]
    with rig.Mechanism(chip, pins["motor_forward"], pins["motor_reverse"], pins["beam"], feed_s=0.5) as mech:
        press_until_motor_runs(chip, pins, api, mech)
        rig.wait_for(lambda: changes(chip, pins["motor_heartbeat"], 0.05), 5, 0.0, "the heartbeat toggling")
        pid = rig.main_pid()
        killed_at = rig.uptime()
        rig.sh("systemctl", "kill", "-s", "KILL", "launcherd")
        line = safe_off_line(killed_at)
    low = {bcm: chip.value(bcm) == 0 for bcm in moving}
    FIGURES["scenario_13"] = {"safe_off_line": line.partition("safe-off:")[2].strip(), "lines_low": low}
    killed_and_restarted(pid)
    for bcm in moving:
        assert re.search(rf"\bGPIO {bcm}\b", line), (bcm, line)
    assert all(low.values()), low


def test_scenario_14_a_blaster_install_holds_and_drives_the_blasters_pins(chip):
    boot = rig.Path("/boot/firmware/config.txt")
    made_dir = not boot.parent.exists()
    boot.parent.mkdir(parents=True, exist_ok=True)
    boot.write_text("# config.txt of the system test: install.sh adds its block below\n")
    rig.CONFIG.write_text(f'[pins]\nchip = {chip.number}\n[device]\nkind = "blaster"\n')
    shipped = tomllib.loads((rig.CHECKOUT / "firmware" / "launcher.toml").read_text())
    actuator = shipped["blaster"]["actuator"]
    try:
        started = time.monotonic()
        result = rig.sh("runuser", "-u", "maker", "--", "sudo", "systemd/install.sh", cwd=rig.CHECKOUT,
                        check=False, timeout=1800)
        install_s = time.monotonic() - started
        (rig.RESULTS / "install-blaster.log").write_text(result.stdout + result.stderr)
        assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
        block = boot.read_text().splitlines()
        rig.wait_for(lambda: (_status_or_none() or {}).get("device") == "blaster", 120, 0.2, "the blaster answering")
        pid = rig.main_pid()
        killed_at = rig.uptime()
        rig.sh("systemctl", "kill", "-s", "KILL", "launcherd")
        line = safe_off_line(killed_at)
        FIGURES["scenario_14"] = {"install_s": round(install_s, 1), "config_txt": block,
                                  "safe_off_line": line.partition("safe-off:")[2].strip()}
        assert f"gpio={actuator}=op,dl" in block, block
        assert re.search(rf"\bGPIO {actuator}\b", line) and not re.search(r"\bGPIO 1[23]\b", line), line
        assert chip.value(actuator) == 0
        rig.wait_for(lambda: rig.main_pid() not in (0, pid), 120, 0.2, "the restarted blaster")
    finally:
        boot.unlink(missing_ok=True)
        if made_dir:
            boot.parent.rmdir()
        write_config(chip)
        restart_service_released()


def restart_service_released() -> None:
    """restart_service(), letting go of what a restart may leave waiting (killed_and_restarted)."""
    pid = rig.main_pid()
    rig.sh("systemctl", "reset-failed", "launcherd", check=False)
    rig.sh("systemctl", "restart", "launcherd")
    killed_and_restarted(pid)


# ---- 15 ------------------------------------------------------------------------------------


def test_scenario_15_a_stop_that_fails_ends_launcherd_and_safe_off_follows(chip, pins):
    """Issue #20: a stop that cannot be applied ends launcherd at once with a failure code, so that
    systemd runs safe-off, and the launcher it restarts comes up halted. The stop fails through
    firmware/launcher/hardware.py's test hook, set in a drop-in (under --sim, sim/fault does the same)."""
    dropin = rig.Path("/etc/systemd/system/launcherd.service.d/zz-systemtest-stop-fails.conf")
    dropin.write_text("[Service]\nEnvironment=LAUNCHER_TEST_MOTOR_STOP_FAILS=1\n")
    try:
        rig.sh("systemctl", "daemon-reload")
        restart_service()
        pid, since = rig.main_pid(), rig.uptime()
        with rig.Mechanism(chip, pins["motor_forward"], pins["motor_reverse"], pins["beam"]):
            for _ in SEQUENCE:  # a fresh start begins the fixed sequence with a burst; dry ones are passed
                bounce_press(chip, pins["button"])
                try:
                    rig.wait_for(lambda: rig.main_pid() != pid, 15, 0.1, "launcherd ending on its failed stop")
                    break
                except AssertionError:
                    continue
        exited_s = rig.logged_after(r"Main process exited, code=exited, status=4", since, 60)
        line = safe_off_line(since)
        said = rig.journal("-u", "launcherd", "-g", "the stop could not be applied")
        rig.wait_for(lambda: rig.main_pid() not in (0, pid), 120, 0.2, "the restarted service")
        status = rig.wait_for(_status_or_none, 120, 0.2, "launcherd answering")
        FIGURES["scenario_15"] = {"exit_after_s": round(exited_s, 1), "state_after_restart": status["state"],
                                  "safe_off_line": line.partition("safe-off:")[2].strip()}
        assert said, "launcherd did not say why it ended"
        for key in ("motor_forward", "motor_reverse"):
            assert re.search(rf"\bGPIO {pins[key]}\b", line), (key, line)
        assert status["state"] == "halted", status  # the motor may have been on: latched
    finally:
        dropin.unlink(missing_ok=True)
        rig.sh("systemctl", "daemon-reload")
        restart_service_released()
