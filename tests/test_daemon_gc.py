"""launcherd leaves its start-up heap out of later garbage collections: a full collection holds
the GIL for as long as it walks every tracked object, whichever thread runs it, and the motor's
loop runs no deadline meanwhile."""

from __future__ import annotations

import gc

from firmware.daemon import driver, launcherd


def test_launcherd_freezes_what_its_start_built_once_it_is_ready(tmp_path, monkeypatch):
    frozen_at_ready = []

    async def run(daemon, ready=None):
        before = gc.get_freeze_count()
        ready(daemon)  # what Daemon.run does once READY is sent
        frozen_at_ready.append(gc.get_freeze_count() - before)
        return 0

    monkeypatch.setattr(driver.Daemon, "run", run)
    try:
        assert launcherd.main(["--sim", "--state-dir", str(tmp_path / "state"),
                               "--socket", str(tmp_path / "launcher.sock")]) == 0
    finally:
        gc.unfreeze()  # this test process keeps collecting all it holds
    # Everything the start left alive: gc.get_objects() no longer lists it for any collection.
    assert frozen_at_ready and frozen_at_ready[0] > 1000, frozen_at_ready


def test_a_collection_after_the_freeze_walks_only_what_came_after():
    try:
        launcherd.freeze_startup_heap()
        assert len(gc.get_objects()) < 1000  # a test process holds far more: all of it frozen
        kept = [[index] for index in range(5000)]  # new objects, after the freeze
        assert len(gc.get_objects()) >= len(kept)
    finally:
        gc.unfreeze()
