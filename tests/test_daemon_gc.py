"""launcherd leaves its start-up heap out of later garbage collections, and runs the others at the
motor's rest (firmware/daemon/heap.py): a full collection holds the GIL for as long as it walks
every tracked object, whichever thread runs it, and the motor's loop runs no deadline meanwhile."""

from __future__ import annotations

import asyncio
import gc
from contextlib import contextmanager

from firmware.daemon import driver, heap, launcherd


def test_launcherd_freezes_what_its_start_built_once_it_is_ready(tmp_path, monkeypatch):
    walked_after_ready, thresholds = [], []

    async def run(daemon, ready=None):
        daemon.heap = heap.HeapKeeper(asyncio.get_running_loop(), lambda: True)
        try:
            ready(daemon)  # what Daemon.run does once READY is sent
            walked_after_ready.append(len(gc.get_objects()))  # what a full collection would walk
            thresholds.append(gc.get_threshold())
        finally:
            daemon.heap.give_back()
        return 0

    monkeypatch.setattr(driver.Daemon, "run", run)
    with frozen_as_it_was():
        assert launcherd.main(["--sim", "--state-dir", str(tmp_path / "state"),
                               "--socket", str(tmp_path / "launcher.sock")]) == 0
    # Everything the start left alive is frozen: a collection right after walks almost nothing
    # (the daemon, its config and loop alone are hundreds of objects).
    assert walked_after_ready and walked_after_ready[0] < 100, walked_after_ready
    assert thresholds[0][2] == heap.NEVER  # no full collection but the motor loop's own, at rest


def test_a_collection_after_the_freeze_walks_only_what_came_after():
    with frozen_as_it_was():
        heap.freeze_startup_heap()
        assert len(gc.get_objects()) < 1000  # a test process holds far more: all of it frozen
        kept = [[index] for index in range(5000)]  # new objects, after the freeze
        assert len(gc.get_objects()) >= len(kept)


@contextmanager
def frozen_as_it_was():
    """The test process's heap frozen afterwards as before (tests/conftest.py freezes it once
    the suite is collected): only what these tests froze is let go."""
    before = gc.get_freeze_count()
    try:
        yield
    finally:
        gc.unfreeze()
        if before:
            gc.freeze()
