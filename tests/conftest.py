"""Shared fixtures on the harness (tests/harness/): launcherd as a process, the web stack."""

from __future__ import annotations

import gc
import os
import threading

import pytest
from hypothesis import settings

from harness.launcherd import DaemonProcess
from harness.web import Stack

# The suite checks English texts unless a test asks for French: a developer's French locale
# (which launcherctl, launcherd and the voice follow) must not change what the tests read. A test
# that wants the locale's effect sets LANG itself, which wins once LC_ALL and LC_MESSAGES are gone.
for _variable in ("LC_ALL", "LC_MESSAGES", "LANGUAGE"):
    os.environ.pop(_variable, None)
os.environ["LANG"] = "C.UTF-8"

# Hypothesis's own deadline (200 ms an example) judges the machine's speed: an example that a busy
# machine did not run for 200 ms fails as "unreliable timings" though every assertion held. No
# example has a deadline: a property's verdict is its assertions.
settings.register_profile("make-test", deadline=None)
settings.load_profile("make-test")


def pytest_collection_finish(session):
    """Leave the modules and the collected tests out of every later garbage collection.

    A worker holds about 130,000 tracked objects once it has collected the suite, and a full
    collection walks them all with the GIL held (110-230 ms), whichever thread runs it: a
    thread daemon in the same process then runs no deadline meanwhile, and a collection under
    load halted one "stalled for 0.5 s" mid-launch (stall_ms is 250). They live for the whole
    session anyway; launcherd freezes its own start-up heap the same way.
    """
    gc.collect()
    gc.freeze()


@pytest.fixture
def daemon_process(tmp_path):
    """``daemon_process(extra_config, **options)`` starts a :class:`DaemonProcess`; all are killed after."""
    started: list[DaemonProcess] = []

    def start(extra_config: str = "", **kwargs) -> DaemonProcess:
        proc = DaemonProcess(tmp_path, extra_config, **kwargs).start()
        started.append(proc)
        return proc

    yield start
    for proc in started:
        proc.kill()


@pytest.fixture
def stack():
    """launcherd --sim and launcher-web, for one test."""
    running = Stack().start()
    yield running
    running.close()


@pytest.fixture
def held_restart(monkeypatch):
    """A game whose connection ended (tests/harness/launcherd.py's ThreadDaemon: the game on a
    thread) connects again only once the test lets it (``.set()``): what a test checks while the
    game is away is checked while it is away, however long a busy machine takes to get there."""
    from controller.layer import process

    allowed = threading.Event()
    monkeypatch.setattr(process, "RESTART_GATE", allowed)
    return allowed
