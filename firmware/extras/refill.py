"""The refill gesture's answer, on the motor's loop (loaded through :func:`setup`).

When the core asks for a refill (``refill_wanted``: the button held in ``empty``, or the lid
closed), the count comes from the game layer if it registered ``game/refill-count``
(``{"cards": n}`` or ``{"cards": null}``), else from the last reload; the core then confirms it on
the chime and the LED (``Refill``).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from firmware.daemon.device import DaemonHost
from firmware.errors import ApiError
from firmware.events import Refill
from firmware.launcher.methods import refilled

log = logging.getLogger(__name__)

# The game layer's hook: how many cards a refill puts back (deck size minus the cards in hands).
REFILL_COUNT_METHOD = "game/refill-count"


class RefillAnswer:
    """Answers each ``refill_wanted`` with a ``Refill`` of the count the game (or the last reload) gives."""

    def __init__(self, host: DaemonHost):
        self.host = host
        self._tasks: set[asyncio.Task] = set()  # kept until done: the loop holds tasks weakly
        host.subscribe(self._heard)

    def _heard(self, name: str, params: dict[str, Any]) -> None:
        if name == "refill_wanted":
            task = asyncio.ensure_future(self._refill(params))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _refill(self, params: dict[str, Any]) -> None:
        cards = params.get("last_reload")
        try:
            answer = await self.host.call(REFILL_COUNT_METHOD, {})
        except ApiError as exc:
            if exc.code != ApiError.METHOD_NOT_FOUND:
                log.warning("%s failed (%s); refilling with the last reload", REFILL_COUNT_METHOD, exc.message)
        else:
            given = answer.get("cards") if isinstance(answer, dict) else answer
            if isinstance(given, int) and not isinstance(given, bool) and given >= 0:
                cards = given
            elif given is not None:
                log.warning("%s answered %r, not {\"cards\": N}; refilling with the last reload",
                            REFILL_COUNT_METHOD, answer)
        log.info("refill by %s: %s cards", params.get("source"), "unknown" if cards is None else cards)
        self.host.feed(refilled(self.host, Refill(cards, str(params.get("source", "button")))))


def setup(host: DaemonHost) -> RefillAnswer:
    return RefillAnswer(host)


__all__ = ["REFILL_COUNT_METHOD", "RefillAnswer", "setup"]
