"""What a press means (``PressMeaning``), as the core applies it at the press (#24), over random sequences.

A press under ``cards N`` launches exactly N (outcome ``draw``) and never asks the ejection policy;
under ``nothing`` it runs no motor, counts nothing, and is ``ignored`` with the game's reason; under
``policy`` it is the policy's, as before. Whatever the order of meanings, presses, cards and waits.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from firmware.config import build_config
from firmware.launcher.core import Launcher
from firmware.launcher.ejection import Outcome
from firmware.events import BeamLevel, ButtonLevel, Emit, Launch, Motor, PressMeaning, Tick

CONFIG = build_config({"timing": {"jam_ms": 200, "feed_timeout_ms": 300, "launch_timeout_ms": 600,
                                  "max_on_ms": 100000, "sleep_after_s": 0}})
REASON = {"id": "press_settles_first", "what": [{"id": "what_now_drawn", "player": "Ann"}]}


class CountingPolicy:
    """Fires 3 at every press it is asked about, and counts them."""

    name = "counting"
    tension = 0.0
    dry_streak = 0

    def __init__(self):
        self.asked = 0

    def decide(self, hopper):
        self.asked += 1
        return Outcome(3)

    def reset(self):
        pass


MEANINGS = st.one_of(
    st.just(PressMeaning()),
    st.builds(PressMeaning, st.just("cards"), st.integers(1, 4), st.sampled_from([None, "Ann", "Bob"])),
    st.just(PressMeaning("nothing", reason=REASON)),
)
STEPS = st.lists(st.one_of(
    st.tuples(st.just("mean"), MEANINGS),
    st.tuples(st.just("launch"), st.none()),
    st.tuples(st.just("button"), st.none()),
    st.tuples(st.just("card"), st.none()),
    st.tuples(st.just("wait"), st.integers(1, 1500)),
), max_size=40)


class Driver:
    def __init__(self):
        self.policy = CountingPolicy()
        self.now = 10.0
        self.core = Launcher(CONFIG, self.policy, self.now, hopper=500)
        self.meaning = PressMeaning()
        self.pressed_under: dict[int, PressMeaning] = {}
        self.policy_presses = 0
        self.launching = False

    def handle(self, event) -> None:
        asked_before = self.policy.asked
        was_launching = self.launching
        actions = self.core.handle(event, self.now)
        emits = [a for a in actions if isinstance(a, Emit)]
        for emit in emits:
            params = emit.params
            if emit.name == "ignored" and params["reason"] == "decision_pending":
                assert self.meaning.means == "nothing" and params["message"] == self.meaning.reason
            if emit.name == "press" and not params["dispense"]:
                self.pressed_under[params["press_id"]] = self.meaning
                if self.meaning.means == "policy" and self.core.get_status()["state"] != "empty":
                    self.policy_presses += 1
                self.launching = True
            if emit.name == "launched":
                meant = self.pressed_under[params["press_id"]]
                if meant.means == "cards":
                    assert params["outcome"] in ("draw", "empty"), params
                    if params["outcome"] == "draw":
                        assert params["requested"] == meant.cards
                elif meant.means == "nothing":
                    assert params["outcome"] == "empty", params  # only an empty launcher answers it
                else:
                    assert params["outcome"] in ("burst", "dry", "empty")
                self.launching = False
        started = any(isinstance(a, Motor) and a.direction == "forward" for a in actions)
        if started and self.meaning.means == "nothing":
            assert was_launching, "the motor started on a press that meant nothing"
        assert self.policy.asked - asked_before <= 1
        assert self.policy.asked == self.policy_presses, "the policy was asked about a press it does not own"

    def wait(self, ms: float) -> None:
        target = self.now + ms / 1000
        while (deadline := self.core.next_deadline()) is not None and deadline <= target:
            self.now = max(self.now, deadline)
            self.handle(Tick())
        self.now = target


@settings(max_examples=300, deadline=None)
@given(STEPS)
def test_a_press_does_what_the_game_said_it_means(steps):
    driver = Driver()
    for kind, value in steps:
        if kind == "mean":
            driver.handle(value)
            driver.meaning = value
            status = driver.core.get_status()
            assert (status["press_means"], status["press_cards"], status["press_for"], status["press_reason"]) == (
                value.means, value.cards, value.player, value.reason)
        elif kind == "launch":
            driver.handle(Launch())
        elif kind == "button":
            driver.handle(ButtonLevel(True))
            driver.wait(30)
            driver.handle(ButtonLevel(False))
            driver.wait(30)
        elif kind == "card":
            driver.handle(BeamLevel(True))
            driver.wait(10)
            driver.handle(BeamLevel(False))
        else:
            driver.wait(value)


def test_a_bad_meaning_is_refused_and_changes_nothing():
    core = Launcher(CONFIG, CountingPolicy(), 0.0, hopper=10)
    for bad in (PressMeaning("burst"), PressMeaning("cards"), PressMeaning("cards", 0),
                PressMeaning("policy", 2), PressMeaning("nothing", reason="words")):
        emits = [a for a in core.handle(bad, 1.0) if isinstance(a, Emit)]
        assert [e.name for e in emits] == ["refused"]
        assert core.get_status()["press_means"] == "policy"


def test_a_meaning_told_again_says_nothing_new():
    core = Launcher(CONFIG, CountingPolicy(), 0.0, hopper=10)
    told = core.handle(PressMeaning("cards", 1, "Ann"), 1.0)
    assert [(a.name, a.params) for a in told] == [
        ("press_means", {"means": "cards", "cards": 1, "for": "Ann", "reason": None})]
    assert core.handle(PressMeaning("cards", 1, "Ann"), 2.0) == []
