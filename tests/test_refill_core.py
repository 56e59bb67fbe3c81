"""The refill gesture in the core (issue #13), on the fake clock: a long press while empty, or the lid
closed after it was opened, asks for a refill (``refill_wanted``); the driver answers with
``Refill(cards)``, which sets the estimate and confirms on the chime and the LED."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from firmware.launcher.hopper import REFILL_CHIME, REFILL_FLASH, REFILL_UNKNOWN_CHIME
from firmware.events import BeamLevel, ButtonLevel, Chime, Led, LidLevel, Refill, Reload
from test_core import Rig


def empty_rig(hopper=30, **sections) -> Rig:
    """A launcher that has just found its hopper empty (feed timeout on a burst)."""
    sections.setdefault("timing", {}).setdefault("refill_hold_ms", 2000)
    rig = Rig(script=[3, 3], hopper=hopper, **sections)
    rig.press(hold_ms=50)
    rig.wait(5000)
    assert rig.state == "empty"
    return rig


def test_a_long_press_while_empty_asks_for_a_refill_with_the_last_reload():
    rig = empty_rig(hopper=30)
    rig.send(Reload(0))  # nothing loaded: the last reload is now 0 ...
    rig.send(Reload(42))  # ... then 42 cards
    rig.wait(5000)
    rig.press(hold_ms=50)
    rig.wait(5000)
    assert rig.state == "empty"
    mark = rig.mark()
    rig.send(ButtonLevel(True))
    rig.wait(1999)
    assert rig.emits("refill_wanted", mark) == []
    assert [e["outcome"] for e in rig.emits("launched", mark)] == ["empty"]  # answered at once as before
    rig.wait(1)
    assert rig.emits("refill_wanted", mark) == [{"source": "button", "last_reload": 42}]
    rig.send(ButtonLevel(False), 500)
    assert rig.emits("refill_wanted", mark) == [{"source": "button", "last_reload": 42}]


def test_a_short_press_or_a_bouncy_release_before_the_hold_time_asks_nothing():
    rig = empty_rig()
    mark = rig.mark()
    rig.press(hold_ms=1500)
    rig.wait(3000)
    assert rig.emits("refill_wanted", mark) == []
    # Bounces shorter than the debounce during the hold do not restart it.
    rig.send(ButtonLevel(True))
    rig.wait(1000)
    rig.send(ButtonLevel(False))
    rig.send(ButtonLevel(True), 3)
    rig.wait(1000)
    assert rig.emits("refill_wanted", mark) == [{"source": "button", "last_reload": 30}]


def test_a_long_press_while_ready_is_one_press_and_no_refill():
    rig = Rig(script=[0], hopper=30, timing={"refill_hold_ms": 500})
    mark = rig.mark()
    rig.press(hold_ms=3000)
    assert rig.emits("refill_wanted", mark) == []
    assert len(rig.emits("launched", mark)) == 1


def test_refill_hold_ms_zero_turns_the_long_press_off():
    rig = empty_rig(timing={"refill_hold_ms": 0})
    mark = rig.mark()
    rig.press(hold_ms=10_000)
    assert rig.emits("refill_wanted", mark) == []


def test_closing_the_lid_asks_for_a_refill_opening_it_does_not():
    rig = Rig(hopper=50, pins={"lid": 22})
    mark = rig.mark()
    rig.send(LidLevel(True))
    assert rig.emits("refill_wanted", mark) == []
    rig.send(LidLevel(False), 3000)
    assert rig.emits("refill_wanted", mark) == [{"source": "lid", "last_reload": 50}]
    assert rig.state == "ready"


def test_refill_sets_the_estimate_returns_to_ready_and_confirms_distinctly():
    rig = empty_rig(hopper=30)
    mark = rig.mark()
    rig.send(Refill(80, "button"))
    assert rig.state == "ready" and rig.status["hopper"] == 80
    assert rig.emits("refilled", mark) == [{"source": "button", "cards": 80, "previous": 0}]
    assert REFILL_FLASH in rig.actions(mark) and REFILL_CHIME in rig.actions(mark)
    # Unlike any chime a press gives.
    assert [a for a in rig.actions()[:mark] if isinstance(a, Chime)] and REFILL_CHIME not in rig.actions()[:mark]
    # The flash ends, then the LED is the ready LED again.
    rig.wait(REFILL_FLASH.period_ms * REFILL_FLASH.count)
    assert [a for a in rig.actions(mark) if isinstance(a, Led)][-1] == Led("on", 1.0)
    assert rig.policy.resets >= 1
    # The next refill without a better count uses this one.
    assert rig.core.last_reload == 80


def test_refill_with_an_unknown_count_clears_the_estimate_and_says_so():
    rig = empty_rig()
    mark = rig.mark()
    rig.send(Refill(None, "lid"))
    assert rig.state == "ready" and rig.status["hopper"] is None
    assert REFILL_UNKNOWN_CHIME in rig.actions(mark) and REFILL_CHIME not in rig.actions(mark)
    assert rig.core.last_reload == 30  # an unknown count does not replace a known one


def test_refill_is_silent_when_the_chime_is_off_but_still_flashes():
    rig = empty_rig(feedback={"chime": False})
    mark = rig.mark()
    rig.send(Refill(10))
    assert not [a for a in rig.actions(mark) if isinstance(a, Chime)]
    assert REFILL_FLASH in rig.actions(mark)


def test_a_bad_refill_count_is_refused_and_changes_nothing():
    rig = empty_rig()
    for bad in (-1, 2.5, True, "7"):
        actions = rig.send(Refill(bad))
        assert [a.name for a in actions] == ["refused"]
    assert rig.state == "empty" and rig.status["hopper"] == 0


def test_refill_during_a_jam_sets_the_estimate_and_keeps_the_jam():
    rig = Rig(script=[3], hopper=30)
    rig.press(hold_ms=50)
    rig.send(BeamLevel(True), 50)
    rig.wait(1000)
    assert rig.state == "jammed"
    rig.send(Refill(60))
    assert rig.state == "jammed" and rig.status["hopper"] == 60


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.integers(25, 3000)), min_size=1, max_size=30))
def test_refill_wanted_comes_only_after_a_stable_hold_of_refill_hold_ms_while_empty(edges):
    """Edges further apart than the debounce: each refill_wanted follows a hold of the full time."""
    rig = empty_rig()
    mark = rig.mark()
    down_since = None
    level = False
    for pressed, after_ms in edges:
        before = len(rig.emits("refill_wanted", mark))
        rig.wait(after_ms)
        if len(rig.emits("refill_wanted", mark)) > before:
            assert down_since is not None and rig.now - down_since >= 2.0 - 1e-9
        if pressed != level:
            level = pressed
            down_since = rig.now if pressed else None
        rig.send(ButtonLevel(pressed))
    assert len(rig.emits("refill_wanted", mark)) <= len(edges)


def test_refill_hold_ms_is_documented_and_checked_against_the_debounce():
    import pytest

    from firmware.config import ConfigError, build_config, default_toml

    assert build_config({}).timing.refill_hold_ms == 2000 and "refill_hold_ms = 2000" in default_toml()
    assert build_config({"timing": {"refill_hold_ms": 0}}).timing.refill_hold_ms == 0
    with pytest.raises(ConfigError) as error:
        build_config({"timing": {"refill_hold_ms": 15, "button_debounce_ms": 20}}, "f.toml")
    assert str(error.value) == ("f.toml: [timing] refill_hold_ms = 15: must be 0 (off) or longer than"
                                " button_debounce_ms (20), or every press in empty would count as a refill")


def test_in_bench_mode_the_lid_is_a_switch_under_test_not_a_refill():
    from firmware.events import Bench

    rig = Rig(hopper=50, pins={"lid": 22})
    rig.send(Bench(60))
    mark = rig.mark()
    rig.send(LidLevel(True))
    rig.send(LidLevel(False), 500)
    assert rig.emits("refill_wanted", mark) == []
    assert [t["level"] for t in rig.emits("trace", mark) if t["what"] == "lid"] == [True, False]


def test_a_finger_lifted_just_before_the_hold_time_is_no_refill():
    """Found by the property above: released 20 ms early, the debounced level was still 'pressed'."""
    rig = empty_rig()
    mark = rig.mark()
    rig.send(ButtonLevel(True))
    rig.send(ButtonLevel(False), 1990)
    rig.wait(1000)
    assert rig.emits("refill_wanted", mark) == []
