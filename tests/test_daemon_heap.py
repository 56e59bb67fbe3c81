"""launcherd's full garbage collections run on the motor's loop at its rest, never while the motor
runs (firmware/daemon/heap.py)."""

from __future__ import annotations

import asyncio
import gc

import pytest

from firmware.daemon import heap
from harness.waits import wait_until
from test_daemon_gc import frozen_as_it_was


def make_due() -> None:
    """As many middle-generation collections as would have started a full one."""
    for _ in range(heap.FULL_AFTER):
        gc.collect(1)


@pytest.fixture
def collector():
    """The collector's thresholds, callbacks and frozen heap as they were, after each test."""
    thresholds, callbacks = gc.get_threshold(), list(gc.callbacks)
    with frozen_as_it_was():
        yield
    gc.set_threshold(*thresholds)
    gc.callbacks[:] = callbacks


async def until(predicate, timeout: float = 5.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        assert loop.time() < deadline, "timed out"
        await asyncio.sleep(0.01)


def test_taking_over_freezes_the_start_and_turns_automatic_full_collections_off(collector):
    async def main():
        keeper = heap.HeapKeeper(asyncio.get_running_loop(), lambda: True)
        before = gc.get_threshold()
        keeper.take_over()
        keeper.take_over()  # once is enough
        assert gc.get_threshold() == (before[0], before[1], heap.NEVER)
        assert gc.get_freeze_count() > 0 and keeper.figures()["at_rest"]
        keeper.give_back()
        keeper.give_back()
        assert gc.get_threshold() == before
        assert not keeper.figures()["at_rest"]
    asyncio.run(main())


def test_a_due_collection_waits_for_the_rest_and_runs_once(collector):
    async def main():
        resting = [False]
        keeper = heap.HeapKeeper(asyncio.get_running_loop(), lambda: resting[0], rest_s=0.02)
        keeper.take_over()
        try:
            make_due()
            await until(lambda: keeper.figures()["due"])
            await asyncio.sleep(0.15)  # several rests' worth: the motor runs all along
            assert keeper.collections == 0
            resting[0] = True
            await until(lambda: keeper.collections == 1)
            figures = keeper.figures()
            assert not figures["due"] and figures["middle_since_full"] == 0
            assert figures["longest_ms"] >= figures["last_ms"] > 0
            await asyncio.sleep(0.1)
            assert keeper.collections == 1  # nothing due since: no collection, no timer
        finally:
            keeper.give_back()
    asyncio.run(main())


def test_nothing_is_due_without_enough_collections_and_given_back_nothing_runs(collector):
    async def main():
        keeper = heap.HeapKeeper(asyncio.get_running_loop(), lambda: True, rest_s=0.01)
        keeper.take_over()
        gc.collect(1)  # one middle collection: far from a full one's worth
        await asyncio.sleep(0.05)
        assert keeper.collections == 0 and not keeper.figures()["due"]
        make_due()
        keeper.give_back()  # launcherd stopping: its timer goes with it
        await asyncio.sleep(0.05)
        assert keeper.collections == 0
    asyncio.run(main())


def test_launcherd_collects_after_a_launch_once_the_motor_rests(tmp_path, collector):
    from harness.launcherd import ThreadDaemon

    motor_at_full_collections = []

    def watch(phase, info):
        if phase == "start" and info["generation"] == 2:
            motor_at_full_collections.append(running.daemon.pin_factory.pin(motor).state)

    with ThreadDaemon(tmp_path) as running:
        motor = running.daemon.config.pins.motor_forward
        running.in_loop(running.daemon.heap.take_over)  # what launcherd's main does once READY
        gc.callbacks.append(watch)
        assert running.call("system/heap")["at_rest"]
        make_due()
        wait_until(lambda: running.call("system/heap")["due"], 5.0, "a full collection due")
        assert running.call("launcher/launch")["outcome"]  # the motor ran (a card or not)
        figures = wait_until(lambda: (f := running.call("system/heap"))["collections"] and f, 10.0,
                             "the collection at rest")
        assert not figures["due"] and figures["longest_ms"] > 0
    assert motor_at_full_collections and not any(motor_at_full_collections)
    assert gc.get_threshold()[2] != heap.NEVER  # launcherd's way down gave the collector back
