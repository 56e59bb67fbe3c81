"""The browser tests' Chromium: one headless context the size of a phone per test, and every
test here skipped where Debian's chromium package (which .ci/run installs) is absent."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.browser import CHROMIUM, chromium

HERE = Path(__file__).parent


def pytest_collection_modifyitems(items):
    if not Path(CHROMIUM).exists():
        absent = pytest.mark.skip(reason=f"{CHROMIUM} is absent (apt install chromium)")
        for item in items:
            if HERE in Path(item.fspath).parents:
                item.add_marker(absent)


@pytest.fixture
def browser_context():
    sync_api = pytest.importorskip("playwright.sync_api")
    with chromium(sync_api) as context:
        yield context
