"""The browser tests' Chromium: one headless Chromium for the tests of a module, a fresh context
the size of a phone for each test (its own cookies and storage: nothing of a test reaches the next),
and every test here skipped where Debian's chromium package (which .ci/run installs) is absent."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.browser import CHROMIUM, chromium, phone_context

HERE = Path(__file__).parent


def pytest_collection_modifyitems(items):
    if not Path(CHROMIUM).exists():
        absent = pytest.mark.skip(reason=f"{CHROMIUM} is absent (apt install chromium)")
        for item in items:
            if HERE in Path(item.fspath).parents:
                item.add_marker(absent)


@pytest.fixture(scope="module")
def browser():
    """Module-scoped, not session-scoped: Playwright's running event loop goes with it before the
    next module, whose tests may run their own (``asyncio.run``) in this process."""
    sync_api = pytest.importorskip("playwright.sync_api")
    with chromium(sync_api) as running:
        yield running


@pytest.fixture
def browser_context(browser):
    with phone_context(browser) as context:
        yield context
