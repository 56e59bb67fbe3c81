"""Headless Chromium the size of a phone, through Playwright."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"  # Debian's chromium package; .ci/run installs it
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ARTIFACTS = Path(os.environ.get("BROWSER_ARTIFACTS", Path(__file__).resolve().parent.parent / "browser" / "artifacts"))
PHONE = {"width": 360, "height": 740}
TIMEOUT_MS = 15_000


@contextlib.contextmanager
def chromium(sync_api):
    """A headless Chromium context the size of a phone, on a throwaway profile (Playwright's
    ``sync_api``, which the caller imports or skips on)."""
    profile = tempfile.mkdtemp(prefix="chromium-profile-")
    try:
        with sync_api.sync_playwright() as playwright:
            context = playwright.chromium.launch_persistent_context(
                profile, executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True, viewport=PHONE)
            context.set_default_timeout(TIMEOUT_MS)
            try:
                yield context
            finally:
                context.close()
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def shot(page, name: str) -> None:
    """A screenshot of every step, to tests/browser/artifacts/ (ignored by git) or $BROWSER_ARTIFACTS."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def expect_text(page, selector: str, pattern: str) -> None:
    import re

    from playwright.sync_api import expect

    expect(page.locator(selector)).to_have_text(re.compile(pattern), timeout=TIMEOUT_MS)
