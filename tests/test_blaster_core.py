"""The blaster core: insertions, blasts, jams, safety, sleep (firmware/blaster/core.py)."""

import random

import pytest

from firmware.blaster.policy import TRIGGER, BlastPolicy
from firmware.blaster.core import (
    FIRING, HALTED, JAMMED, READY, SLEEPING, Blaster, Release, Settings, SlotLevel, SlotLevels,
)
from firmware.events import Chime, EStop, Emit, Led, Persist, Reset, Restore, SleepNow, Tick, Wake

DEBOUNCE = 0.030


class Scripted:
    """A policy that fires on the insertions listed (1 = first insertion since start)."""

    name = "scripted"

    def __init__(self, fires, slots=4):
        self.slots = slots
        self.fires = set(fires)
        self.count = 0
        self.arms = []

    def arm(self, empty):
        self.arms.append(sorted(empty))

    def decide(self, slot, full_after):
        self.count += 1
        return self.count in self.fires or full_after >= self.slots


class Rig:
    def __init__(self, fires=(), settings=Settings(), policy=None):
        self.t = 0.0
        self.policy = policy or Scripted(fires, settings.slots)
        self.core = Blaster(settings, self.policy, 0.0)
        self.actions = []

    def feed(self, event, at=None):
        if at is not None:
            self.t = at
        out = self.core.handle(event, self.t)
        self.actions += out
        return out

    def wait(self, seconds):
        end = self.t + seconds
        while (d := self.core.next_deadline()) is not None and d <= end:
            self.feed(Tick(), d)
        self.t = end

    def insert(self, slot):
        self.feed(SlotLevel(slot, True))
        self.wait(DEBOUNCE + 0.001)

    def empty(self, *slots):
        for slot in slots:
            self.feed(SlotLevel(slot, False))
        self.wait(DEBOUNCE + 0.001)

    def emits(self, name):
        return [a.params for a in self.actions if isinstance(a, Emit) and a.name == name]

    def releases(self):
        return [a.ms for a in self.actions if isinstance(a, Release)]

    @property
    def status(self):
        return self.core.get_status()


def test_a_safe_insertion_leaves_the_card_in():
    rig = Rig()
    rig.insert(2)
    assert rig.emits("insert") == [
        {"insert_id": 1, "slot": 2, "request": None, "outcome": "safe", "slots": [False, True, False, False]}]
    assert rig.status["state"] == READY and rig.status["slots"] == [False, True, False, False]
    assert rig.status["last"] == {"insert_id": 1, "slot": 2, "outcome": "safe", "cards": 0}
    assert rig.releases() == [] and any(isinstance(a, Chime) for a in rig.actions)


def test_a_blast_pulses_and_counts_every_loaded_card_once_all_slots_read_empty():
    rig = Rig(fires={3})
    for slot in (1, 2, 4):
        rig.insert(slot)
    assert rig.status["state"] == FIRING and rig.releases() == [150]
    assert rig.status["actuator"]["on"] is True
    rig.wait(0.150)
    assert rig.releases() == [150, 0] and rig.status["actuator"]["on"] is False
    assert rig.emits("blast") == []  # not confirmed until the slots read empty
    rig.empty(1, 2, 4)
    [blast] = rig.emits("blast")
    assert blast["cards"] == 3 and blast["jammed"] is False and blast["insert_id"] == 3
    assert rig.status["state"] == READY and rig.status["cards_ejected"] == 3
    assert rig.status["last"] == {"insert_id": 3, "slot": 4, "outcome": "blast", "cards": 3}
    assert rig.policy.arms[-1] == [1, 2, 3, 4]  # armed again


def test_the_release_never_outlasts_max_on_ms():
    rig = Rig(fires={1}, settings=Settings(pulse_ms=400, max_on_ms=200))
    rig.insert(1)
    assert rig.releases() == [200]
    rig.wait(0.2)
    assert rig.releases() == [200, 0]


def test_a_slot_still_full_after_the_release_is_a_jam_cleared_when_it_empties():
    rig = Rig(fires={2})
    rig.insert(1)
    rig.insert(3)
    rig.wait(0.150)
    rig.empty(3)  # slot 1's card sticks
    rig.wait(0.4)
    assert rig.status["state"] == JAMMED
    assert rig.emits("jammed") == [{"insert_id": 2, "slots": [1]}]
    assert rig.releases() == [150, 0]  # actuator off, no retry
    assert rig.emits("blast") == []
    rig.empty(1)
    [blast] = rig.emits("blast")
    assert blast["cards"] == 2 and blast["jammed"] is True  # the stuck card counts once
    assert rig.status["state"] == READY and rig.status["cards_ejected"] == 2


def test_insertions_while_firing_or_jammed_are_not_judged():
    rig = Rig(fires={1})
    rig.insert(1)
    rig.insert(2)  # during the pulse
    assert rig.emits("ignored") == [{"slot": 2, "request": None, "reason": FIRING}]
    assert rig.policy.count == 1


def test_pulses_rest_between_blasts_and_a_blast_in_the_rest_waits():
    rig = Rig(fires={1, 2}, settings=Settings(rest_s=1.0))
    rig.insert(1)
    rig.wait(0.15)
    rig.empty(1)
    assert rig.status["state"] == READY
    rig.insert(2)  # 0.06 s after the pulse: within the 1 s rest
    assert rig.status["state"] == FIRING and rig.releases() == [150, 0]
    rig.wait(1.0)
    assert rig.releases() == [150, 0, 150]


def test_estop_turns_the_actuator_off_first_and_no_pulse_while_halted():
    rig = Rig(fires={1, 2})
    rig.insert(1)
    out = rig.feed(EStop("test"))
    assert out[0] == Release(0)
    assert rig.status["state"] == HALTED and rig.status["reason"] == "test"
    assert rig.emits("blast")[0]["ended"] == "halt"
    rig.wait(5)
    rig.empty(1)
    rig.insert(2)
    assert rig.emits("ignored")[-1]["reason"] == HALTED
    assert rig.releases() == [150, 0]
    rig.feed(Reset())
    assert rig.status["state"] == READY


def test_a_halt_is_kept_for_the_next_start_and_a_reset_clears_it():
    rig = Rig(fires={1})
    kept = [a for a in rig.feed(EStop("a hand at the slot")) if isinstance(a, Persist)]
    assert [(p.halt, p.on_time) for p in kept] == [("a hand at the slot", None)]
    cleared = [a for a in rig.feed(Reset()) if isinstance(a, Persist)]
    assert [(p.halt, p.on_time) for p in cleared] == [(None, None)]


def test_a_restored_halt_comes_up_halted_with_its_reason_and_never_fires():
    rig = Rig(fires={1})
    out = rig.feed(Restore({"id": "halted_after_crash"}))
    assert out[0] == Release(0)
    assert rig.status["state"] == HALTED and rig.status["reason"] == {"id": "halted_after_crash"}
    rig.insert(1)
    assert rig.releases() == [0] and rig.emits("ignored")[-1]["reason"] == HALTED
    assert rig.feed(Restore(None)) == [] and rig.status["state"] == HALTED


def test_a_pulse_cut_by_an_estop_still_rests_before_the_next():
    rig = Rig(fires={1, 2}, settings=Settings(rest_s=1.0))
    rig.insert(1)
    rig.feed(EStop("test"))
    rig.empty(1)
    rig.feed(Reset())
    rig.insert(2)  # 0.06 s after the cut: the blast waits for the rest
    assert rig.releases() == [150, 0] and rig.status["state"] == FIRING
    rig.wait(1.0)
    assert rig.releases() == [150, 0, 150]


def test_slot_bounce_is_one_insertion():
    rig = Rig()
    for level in (True, False, True, False, True):
        rig.feed(SlotLevel(1, level))
        rig.wait(0.005)
    rig.wait(DEBOUNCE)
    assert len(rig.emits("insert")) == 1
    rig.feed(SlotLevel(2, True))
    rig.wait(0.01)
    rig.feed(SlotLevel(2, False))
    rig.wait(0.1)
    assert len(rig.emits("insert")) == 1  # a glitch shorter than the debounce is nothing


def test_a_card_taken_out_by_hand_is_reported_and_its_slot_empty_again():
    rig = Rig()
    rig.insert(1)
    rig.empty(1)
    assert rig.emits("removed") == [{"slot": 1, "slots": [False] * 4}]


def test_levels_at_start_are_loaded_cards_not_insertions():
    rig = Rig()
    rig.feed(SlotLevels((True, False, False, True)))
    assert rig.emits("insert") == [] and rig.status["slots"] == [True, False, False, True]
    assert rig.policy.arms[-1] == [2, 3]


def test_the_last_empty_slot_fires_with_the_real_policy():
    for seed in range(50):
        rig = Rig(policy=BlastPolicy(TRIGGER, 4, random.Random(seed)))
        for slot in (1, 2, 3, 4):
            if rig.status["state"] != READY:
                break
            rig.insert(slot)
        assert len(rig.emits("blast")) + (rig.status["state"] == FIRING) == 1


def test_sleep_and_an_insertion_wakes_and_is_judged():
    rig = Rig(settings=Settings(sleep_after_s=10))
    rig.wait(10.5)
    assert rig.status["state"] == SLEEPING and Led("off") in rig.actions
    rig.insert(1)
    assert rig.status["state"] == READY and len(rig.emits("insert")) == 1
    rig.feed(SleepNow())
    rig.feed(Wake())
    assert rig.status["state"] == READY


def test_bad_requests_are_refused_and_change_nothing():
    rig = Rig()
    rig.feed(SlotLevel(5, True))
    rig.feed(Reset())
    refused = rig.emits("refused")
    assert [r["reason"] for r in refused] == [{"id": "refused_slot_number", "slots": 4}, {"id": "refused_not_halted"}]
    with pytest.raises(ValueError):
        Blaster(Settings(slots=3), Scripted((), 4), 0.0)


def test_the_request_behind_an_insertion_is_echoed():
    rig = Rig(fires={1})
    rig.feed(SlotLevel(1, True, request=7))
    rig.wait(0.05)
    assert rig.emits("insert")[0]["request"] == 7
    rig.wait(0.15)
    rig.empty(1)
    assert rig.emits("blast")[0]["request"] == 7
