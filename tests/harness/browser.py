"""Headless Chromium the size of a phone, through Playwright."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"  # Debian's chromium package; .ci/run installs it
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ARTIFACTS = Path(os.environ.get("BROWSER_ARTIFACTS", Path(__file__).resolve().parent.parent / "browser" / "artifacts"))
PHONE = {"width": 360, "height": 740}
TIMEOUT_MS = 15_000


@contextlib.contextmanager
def chromium(sync_api):
    """A headless Chromium (Playwright's ``sync_api``, which the caller imports or skips on), for
    many :func:`phone_context` contexts. Playwright's sync API keeps an event loop running in this
    thread while it is open: nothing else in the thread may call ``asyncio.run`` meanwhile."""
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


@contextlib.contextmanager
def phone_context(browser):
    """A fresh context of ``browser`` the size of a phone: its own cookies, storage and cache, as on
    a phone of its own."""
    context = browser.new_context(viewport=PHONE)
    context.set_default_timeout(TIMEOUT_MS)
    try:
        yield context
    finally:
        context.close()


def shot(page, name: str) -> None:
    """A screenshot of every step, to tests/browser/artifacts/ (ignored by git) or $BROWSER_ARTIFACTS."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def expect_text(page, selector: str, pattern: str) -> None:
    import re

    from playwright.sync_api import expect

    expect(page.locator(selector)).to_have_text(re.compile(pattern), timeout=TIMEOUT_MS)
