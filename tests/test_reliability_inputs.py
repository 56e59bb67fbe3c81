"""Inputs at scale: contact bounce, a held button, beam glitches, a beam that never clears.

Mostly through the sans-IO core (``firmware.launcher.core.Launcher``) with an injected clock, which makes a
thousand presses or an hour of a stuck sensor a matter of milliseconds, with the driver's own rule
for time: a ``Tick`` at every ``next_deadline()`` on the way, and edges at the moment they happen.
Then the same through the real daemon, on the mock pins the daemon reads (gpiozero's MockFactory,
driven from this thread in real time), to show the edges reach the core as the core expects.

All of it runs in ``make test`` (the core's 1,000 bursts take well under a second); ``make soak``
adds 1,000 bounced presses through the daemon in real time.
"""

from __future__ import annotations

import random
import threading
import time
from pathlib import Path

import pytest

from harness.launcherd import ThreadDaemon
from harness.waits import HANG_S
from firmware.client import Client
from firmware.config import build_config
from firmware.launcher.core import Launcher
from firmware.launcher.ejection import policy_for
from firmware.events import BeamLevel, ButtonLevel, Dispense, Emit, Launch, Motor, Tick

T0 = 5000.0
SEED = 1234
DRY = {"ejection": {"profile": "fixed", "sequence": [0]}}


class Clocked:
    """The core and a clock: ``at(t, event)`` runs the deadlines due before ``t``, then the event."""

    def __init__(self, sections: dict, hopper: int | None = None):
        self.config = build_config(sections)
        self.core = Launcher(self.config, policy_for(self.config.ejection.profile, self.config.ejection.sequence, random.Random(SEED)), T0, hopper)
        self.now = T0
        self.log: list[tuple[float, object]] = []

    def advance(self, to: float, tick_every: float | None = None) -> None:
        """Let time pass to ``to``: a Tick at each deadline (and every ``tick_every`` s, if given)."""
        for _ in range(10_000_000):
            deadline = self.core.next_deadline()
            regular = self.now + tick_every if tick_every else None
            due = min((d for d in (deadline, regular) if d is not None), default=None)
            if due is None or due > to:
                break
            self._handle(Tick(), max(due, self.now))
        else:
            raise AssertionError("the core keeps asking for ticks without time passing")
        self.now = max(self.now, to)

    def at(self, t: float, event) -> list:
        self.advance(t)
        return self._handle(event, t)

    def _handle(self, event, t: float) -> list:
        self.now = max(self.now, t)
        actions = self.core.handle(event, self.now)
        self.log += [(self.now, action) for action in actions]
        return actions

    def emits(self, name: str) -> list[tuple[float, dict]]:
        return [(t, a.params) for t, a in self.log if isinstance(a, Emit) and a.name == name]

    def motors(self) -> list[Motor]:
        return [a for _, a in self.log if isinstance(a, Motor)]


def bounced(rng: random.Random, start: float, level: bool, bounces: int = 5, within: float = 0.005
            ) -> list[tuple[float, bool]]:
    """An edge to ``level`` and ``bounces`` flickers back and forth, all within ``within`` seconds."""
    times = sorted(rng.uniform(0, within) for _ in range(2 * bounces))
    edges = [(start, level)]
    for i, offset in enumerate(times):
        edges.append((start + offset, level if i % 2 else not level))
    return edges  # ends on ``level``: the flickers come in pairs


# ---- the button -----------------------------------------------------------------------------------


@pytest.mark.parametrize("debounce_ms", [20, 6])
def test_a_thousand_bursts_of_five_bounces_are_a_thousand_presses(debounce_ms):
    """Press and release both bounce 5 times within 5 ms; each press counts once, the release never."""
    rng = random.Random(SEED + debounce_ms)
    rig = Clocked({**DRY, "timing": {"button_debounce_ms": debounce_ms}})
    debounce = debounce_ms / 1000
    t = T0 + 1
    settled_presses = []
    for _ in range(1000):
        edges = bounced(rng, t, True)
        for when, level in edges:
            rig.at(when, ButtonLevel(level))
        settled_presses.append(edges[-1][0])
        t = edges[-1][0] + debounce + rng.uniform(0.001, 0.5)  # held, past the debounce
        edges = bounced(rng, t, False)
        for when, level in edges:
            rig.at(when, ButtonLevel(level))
        t = edges[-1][0] + debounce + rng.uniform(0.001, 0.5)  # released, past the debounce
    rig.advance(t + 1)
    presses = rig.emits("press")
    assert len(presses) == 1000
    assert [p["press_id"] for _, p in presses] == list(range(1, 1001))
    assert all(p["source"] == "button" for _, p in presses)
    launched = rig.emits("launched")
    assert len(launched) == 1000 and {p["outcome"] for _, p in launched} == {"dry"}
    assert rig.emits("ignored") == []
    # Each press counts exactly one debounce time after its last bounce, not before, not later.
    for (when, _), settled in zip(presses, settled_presses):
        assert when == pytest.approx(settled + debounce, abs=1e-9)
    assert rig.core.get_status()["presses"] == 1000


def test_bounces_longer_than_five_ms_but_shorter_than_the_debounce_are_still_one_press():
    rng = random.Random(SEED)
    rig = Clocked(DRY)  # 20 ms debounce
    t = T0 + 1
    for _ in range(200):
        edges = bounced(rng, t, True, bounces=rng.randint(1, 20), within=0.018)
        for when, level in edges:
            rig.at(when, ButtonLevel(level))
        t = edges[-1][0] + 0.05
        for when, level in bounced(rng, t, False, bounces=rng.randint(1, 20), within=0.018):
            rig.at(when, ButtonLevel(level))
        t += 0.1
    rig.advance(t + 1)
    assert len(rig.emits("press")) == 200


def test_a_button_held_for_a_minute_is_one_press():
    rng = random.Random(SEED)
    rig = Clocked(DRY)
    for when, level in bounced(rng, T0 + 1, True):
        rig.at(when, ButtonLevel(level))
    # Held: the driver ticks whenever it likes (here every 10 ms) and at every deadline.
    rig.advance(T0 + 61, tick_every=0.01)
    assert len(rig.emits("press")) == 1
    for when, level in bounced(rng, T0 + 61, False):
        rig.at(when, ButtonLevel(level))
    rig.advance(T0 + 70, tick_every=0.01)
    assert len(rig.emits("press")) == 1 and len(rig.emits("launched")) == 1
    assert rig.core.get_status()["state"] == "ready"
    # The next real press counts again: the long hold did not wedge the debounce.
    for when, level in bounced(rng, T0 + 71, True):
        rig.at(when, ButtonLevel(level))
    rig.advance(T0 + 72)
    assert [p["press_id"] for _, p in rig.emits("press")] == [1, 2]


# ---- the beam -------------------------------------------------------------------------------------


@pytest.mark.parametrize("filter_ms", [2, 10, 25])
def test_beam_glitches_shorter_than_the_filter_are_never_cards(filter_ms):
    """Thousands of glitches between real cards, during launches and at rest: only cards count."""
    rng = random.Random(SEED + filter_ms)
    # The on-time rules are not what this test is about: 50 launches close together would break them.
    rig = Clocked({"timing": {"beam_filter_ms": filter_ms, "card_crossing_ms": 40, "max_duty": 1.0,
                              "max_on_ms": 120_000},
                   "sim": {"block_ms": 30}}, hopper=100_000)
    filter_s = filter_ms / 1000
    t = T0 + 1
    glitches = real = 0

    def glitch(start: float) -> float:
        nonlocal glitches
        rig.at(start, BeamLevel(True))
        end = start + rng.uniform(0, filter_s - 0.0001)  # strictly shorter than the filter
        rig.at(end, BeamLevel(False))
        glitches += 1
        return end

    for launch in range(50):
        count = rng.randint(1, 20)
        rig.at(t, Dispense(count, "dispense"))
        for _ in range(count):
            for _ in range(rng.randint(0, 8)):
                t = glitch(t + rng.uniform(0.001, 0.03))
            t += rng.uniform(0.005, 0.05)
            rig.at(t, BeamLevel(True))  # a real card: at least the filter, at most a crossing
            t += rng.uniform(filter_s, 0.04)
            rig.at(t, BeamLevel(False))
            real += 1
        t += 0.3  # the reverse pulse ends, the launch is resolved
        rig.advance(t)
        for _ in range(rng.randint(0, 20)):  # and at rest, the motor stopped
            t = glitch(t + rng.uniform(0.001, 0.2))
        t += 0.1
    rig.advance(t + 1)
    launched = rig.emits("launched")
    assert len(launched) == 50
    assert all(p["ended"] == "done" and p["cards"] == p["requested"] for _, p in launched), launched
    assert len(rig.emits("card")) == real
    status = rig.core.get_status()
    assert status["cards_ejected"] == real and status["state"] == "ready"
    assert glitches > 1000


def _stuck(rig: Clocked, start: float, hours: float = 1.0) -> None:
    """The beam blocks at ``start`` and never clears; presses keep coming every 1.7 s."""
    rig.at(start, BeamLevel(True))
    t = start
    while t < start + hours * 3600:
        t += 1.7
        rig.at(t, Launch())
        rig.advance(t + 0.5, tick_every=0.25)


def test_a_beam_that_never_clears_during_a_burst_is_one_jam():
    rig = Clocked({"ejection": {"profile": "fixed", "sequence": [5]}}, hopper=100)
    rig.at(T0 + 1, Launch())
    rig.at(T0 + 1.05, BeamLevel(True))
    rig.at(T0 + 1.06, BeamLevel(False))  # one card came out
    _stuck(rig, T0 + 1.1)
    jam_at = T0 + 1.1 + rig.config.timing.jam_ms / 1000
    assert [p for _, p in rig.emits("jammed")] == [{"press_id": 1}]
    assert [p["count"] for _, p in rig.emits("card")] == [1, 2]  # the stuck card, once
    (when, launched), = rig.emits("launched")
    assert launched["ended"] == "jam" and launched["cards"] == 2
    assert when == pytest.approx(jam_at)
    motors = rig.motors()
    assert motors[-1] == Motor("stop") and len(motors) == 2 + (rig.config.motor.duty < rig.config.motor.kick_below)
    stop_at = max(t for t, a in rig.log if isinstance(a, Motor))
    assert stop_at == pytest.approx(jam_at)  # the motor stopped at the jam, never ran again
    status = rig.core.get_status()
    assert status["state"] == "jammed" and status["cards_ejected"] == 2 and status["presses"] == 1
    ignored = rig.emits("ignored")
    assert len(ignored) > 2000 and {p["reason"] for _, p in ignored} == {"jammed"}


def test_a_beam_that_never_clears_at_rest_is_one_jam():
    rig = Clocked(DRY, hopper=100)
    rig.at(T0 + 1, Launch())  # a dry press: the motor never ran
    _stuck(rig, T0 + 2)
    assert len(rig.emits("jammed")) == 1 and len(rig.emits("card")) == 1
    assert rig.motors() == []  # the motor never ran, before or after the jam
    assert rig.core.get_status()["cards_ejected"] == 1


def test_a_beam_blocked_from_power_on_is_a_jam_and_no_card():
    rig = Clocked(DRY, hopper=100)
    _stuck(rig, T0)
    assert len(rig.emits("jammed")) == 1 and rig.emits("card") == []
    status = rig.core.get_status()
    assert status["state"] == "jammed" and status["cards_ejected"] == 0 and status["presses"] == 0


# ---- the same through the real daemon --------------------------------------------------------------


class PinDaemon(ThreadDaemon):
    """The thread daemon on a mock pin factory this test holds: it drives the button pin itself."""

    def __init__(self, tmp_path: Path, extra: str = ""):
        from firmware.launcher.sim import sim_pin_factory

        self.factory = sim_pin_factory()
        super().__init__(tmp_path, extra, seed=SEED, pin_factory=self.factory)
        self.button = self.factory.pin(self.daemon.config.pins.button)

    def set_button(self, pressed: bool) -> None:
        # Active low: pressed is the pin pulled to ground.
        if pressed:
            self.button.drive_low()
        else:
            self.button.drive_high()


def _spin_until(deadline: float) -> None:
    """Wait to a monotonic time more precisely than time.sleep does for sub-millisecond gaps."""
    while (left := deadline - time.monotonic()) > 0:
        if left > 0.002:
            time.sleep(left - 0.001)


def bounced_presses_through_the_daemon(tmp_path: Path, presses: int, hold_s: float = 0.03) -> dict:
    """Press and release ``presses`` times on the mock button pin, every edge bounced."""
    rng = random.Random(SEED)
    extra = '[ejection]\nprofile = "fixed"\nsequence = [0]\n[timing]\nbutton_debounce_ms = 20\n'
    with PinDaemon(tmp_path, extra) as pins:
        with pins.client() as watcher:
            watcher.call("events/subscribe")
            names: list[str] = []
            reader = threading.Thread(target=_events_until, args=(watcher, "last", names), daemon=True)
            reader.start()
            started = time.monotonic()
            for _ in range(presses):
                for level in (True, False):
                    for when, value in bounced(rng, time.monotonic(), level):
                        _spin_until(when)
                        pins.set_button(value)
                    _spin_until(time.monotonic() + hold_s)
            elapsed = time.monotonic() - started
            time.sleep(0.2)  # long past the last debounce: a spurious press would be due by now
            # And run by now: the loop has taken every deadline due before the first of two turns
            # of its own (a late loop's come before the second), however late a busy machine ran it.
            pins.in_loop(lambda: None)
            pins.in_loop(lambda: None)
            watcher.sock.sendall(b'{"id": "last", "method": "status/get"}\n')
            reader.join(HANG_S)
            assert not reader.is_alive()
        with pins.client() as client:
            status = client.call("status/get")
    assert names.count("press") == presses, names[-10:]
    assert names.count("launched") == presses and "ignored" not in names
    assert status["presses"] == presses and status["last"]["outcome"] == "dry"
    return {"presses": presses, "seconds": round(elapsed, 1)}


def _events_until(client: Client, request_id: str, names: list[str]) -> None:
    """Read a subscriber's events (names into ``names``) until the reply to ``request_id``."""
    for message in client.messages():
        if "event" in message:
            names.append(message["event"])
        elif message.get("id") == request_id:
            return


def events_until_reply(client: Client, method: str) -> list[str]:
    """The names of the events a subscriber received before the reply to one more request.

    Replies and events share one queue per client: everything published before the request was
    handled comes before its reply.
    """
    request_id = client.send(method)
    names = []
    for message in client.messages():
        if "event" in message:
            names.append(message["event"])
        elif message.get("id") == request_id:
            return names
    raise AssertionError("no reply")


def test_bounced_presses_through_the_daemon_pins(tmp_path):
    """make test: 25 presses, each edge bouncing 5 times within 5 ms, on the pin the daemon reads."""
    stats = bounced_presses_through_the_daemon(tmp_path, 25)
    print(f"\nbounced presses through the daemon: {stats}")


@pytest.mark.soak
def test_a_thousand_bounced_presses_through_the_daemon_pins(tmp_path):
    """make soak: the issue's 1,000 bursts, in real time, through gpiozero and the asyncio driver."""
    stats = bounced_presses_through_the_daemon(tmp_path, 1000)
    print(f"\nbounced presses through the daemon: {stats}")


def test_a_stuck_beam_through_the_daemon_is_one_jam(tmp_path):
    """The daemon with its simulation: a card sticks in the slot during a burst and stays; many
    jam_ms later it is still one jam and one card, the motor is off and presses are refused until
    it is pulled out."""
    with ThreadDaemon(tmp_path, '[ejection]\nprofile = "fixed"\nsequence = [5]\n[timing]\njam_ms = 60\n') as proc, \
            proc.client() as watcher:
        watcher.call("events/subscribe")
        proc.call("sim/jam")
        outcome = proc.call("launcher/launch")
        assert outcome["ended"] == "jam" and outcome["cards"] == 1
        time.sleep(0.3)  # five times jam_ms: time that would bring a second jam if any could come
        status = proc.call("status/get")
        assert status["state"] == "jammed" and status["motor"]["on"] is False
        assert status["cards_ejected"] == 1 and status["sim"]["cards_out"] == 1
        refused = [proc.call("launcher/launch") for _ in range(20)]
        assert {(r["event"], r["reason"]) for r in refused} == {("ignored", "jammed")}
        assert proc.call("status/get")["cards_ejected"] == 1
        proc.call("sim/clear")
        seen = events_until_reply(watcher, "status/get")
        state = proc.call("status/get")["state"]
    assert seen.count("jammed") == 1 and seen.count("card") == 1, seen
    assert state == "ready"
