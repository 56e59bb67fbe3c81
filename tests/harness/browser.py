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


# True once the first element ``selector`` finds has a text that ``source`` (a regular expression) matches.
TEXT_MATCHES = """([selector, source]) => {
    const element = document.querySelector(selector);
    return element !== null && new RegExp(source).test(element.textContent);
}"""


def expect_text(page, selector: str, pattern: str) -> None:
    """The text of ``selector`` matches ``pattern`` within TIMEOUT_MS. Looked at every frame first:
    Playwright's expect looks again only after 0.1, 0.25, 0.5 s, then every second, so that a text
    that comes in 0.4 s is seen at 0.85 s. Its expect then asserts, and says what it found."""
    import re
    import time

    from playwright.sync_api import TimeoutError, expect

    deadline = time.monotonic() + TIMEOUT_MS / 1000
    try:
        page.wait_for_function(TEXT_MATCHES, arg=[selector, pattern], polling="raf", timeout=TIMEOUT_MS)
    except TimeoutError:
        pass  # the expect below fails, and tells why
    left_ms = max(1_000, (deadline - time.monotonic()) * 1000)
    expect(page.locator(selector)).to_have_text(re.compile(pattern), timeout=left_ms)
