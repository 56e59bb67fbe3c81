"""A layer's replies, made on the layer's own thread: encoded there, and kept while what they
read stays the same (``register(..., version=)``, firmware/daemon/layer.py)."""

from __future__ import annotations

import inspect
import json
from typing import Any, Callable

from firmware import i18n
from firmware.daemon.registry import Encoded
from firmware.daemon.layer import Handler

# A container with more items than this is encoded item by item (see _json).
ENCODE_CHUNK = 64
# How many replies of one read method are kept for one version of what it reads (params differ).
KEPT_REPLIES = 32


def encoded(result: Any) -> Encoded:
    return result if isinstance(result, Encoded) else Encoded(_json(result))


def kept_replies(handler: Handler, version: Callable[[], Any]) -> Handler:
    """``handler``, a read whose reply depends only on its params, the language and ``version()``:
    while ``version()`` stays the same, a reply once encoded is sent again as it is. Four clients
    reading statistics and history in a loop over a 100,000-action log kept the game thread busy
    decoding the kept figures for every request, and the motor's thread waited for the GIL behind
    it (bench/loaded.py, "readers"); a guest on the table's network can do the same."""
    kept: dict[tuple[str | None, str], Encoded] = {}
    seen: list[Any] = [object()]  # the version the kept replies are of (none yet)

    async def reading(params: dict[str, Any]) -> Encoded:
        now = version()
        if now != seen[0]:
            kept.clear()
            seen[0] = now
        # repr, not json.dumps: as exact for checked params (1, 1.0 and True differ), and without
        # building an encoder for each reading.
        key = (i18n.requested(), repr(sorted(params.items())))
        reply = kept.get(key)
        if reply is None:
            result = handler(params)
            if inspect.isawaitable(result):
                result = await result
            reply = encoded(result)
            if version() == now:  # nothing was written meanwhile: the reply is of this version
                if len(kept) >= KEPT_REPLIES:
                    del kept[next(iter(kept))]
                kept[key] = reply
        return reply
    return reading


def _json(value: Any) -> str:
    """JSON text of ``value``. One ``json.dumps`` holds the GIL for its whole length (a 200,000-item
    list: 0.3 s, during which the motor's loop cannot run); a large list or dict is therefore
    encoded an item at a time, and the interpreter can switch to the motor's thread between two."""
    if isinstance(value, (list, tuple)) and len(value) > ENCODE_CHUNK:
        return "[" + ",".join(_json(item) for item in value) + "]"
    if isinstance(value, dict) and (len(value) > ENCODE_CHUNK or any(
            isinstance(item, (list, tuple, dict)) and len(item) > ENCODE_CHUNK for item in value.values())):
        return "{" + ",".join(json.dumps(str(key)) + ":" + _json(item) for key, item in value.items()) + "}"
    return json.dumps(value, separators=(",", ":"), default=str)


__all__ = ["ENCODE_CHUNK", "KEPT_REPLIES", "encoded", "kept_replies"]
