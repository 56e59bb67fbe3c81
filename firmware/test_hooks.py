"""Test hooks: environment variables, read when a service starts, that shorten one of its
constants so that a test sees it pass without waiting for it (``LAUNCHER_TEST_*_MS``). Unset, or
not a whole number of milliseconds, the product's own value stands: a hook never stops a service."""

from __future__ import annotations

import logging
import os

log = logging.getLogger(__name__)


def seconds(variable: str, default: float) -> float:
    """``default`` seconds, or the milliseconds the hook ``variable`` gives."""
    value = os.environ.get(variable, "").strip()
    if not value:
        return default
    if not value.isdigit():
        log.warning("%s=%r is not a whole number of milliseconds: %g s kept", variable, value, default)
        return default
    return int(value) / 1000
