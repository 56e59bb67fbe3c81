"""Shared fixtures on the harness (tests/harness/): launcherd as a process, the web stack."""

from __future__ import annotations

import os

import pytest

from harness.launcherd import DaemonProcess
from harness.web import Stack

# The suite checks English texts unless a test asks for French: a developer's French locale
# (which launcherctl, launcherd and the voice follow) must not change what the tests read. A test
# that wants the locale's effect sets LANG itself, which wins once LC_ALL and LC_MESSAGES are gone.
for _variable in ("LC_ALL", "LC_MESSAGES", "LANGUAGE"):
    os.environ.pop(_variable, None)
os.environ["LANG"] = "C.UTF-8"


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
