"""Message objects in the daemon's replies, events and status: each one shown as its text beside it.

What the cores and the extras say to people is a message object (``firmware/i18n.py``); the API
sends the text (in the request's language, or the daemon's for events) and the object both.
"""

from __future__ import annotations

import logging
from typing import Any, Mapping

from firmware import i18n

log = logging.getLogger("launcherd")

# Keys whose message object stays under the key, its text beside it as ``X_text``: the API names
# them as objects (status ``pending``: null, or what waits for a press and why).
OBJECT_KEYS = frozenset({"pending", "press_reason"})


def render_safely(message: i18n.Message, lang: str | None) -> str:
    """A message's text; one the renderer cannot show is logged and shown by its id, because an
    event or a status line must never fail (a failure while applying actions halts the launcher)."""
    try:
        return i18n.render(message, lang)
    except Exception:
        log.exception("cannot render %r", message)
        return str(message.get("id"))


def shown(reason: i18n.Message | str, lang: str | None) -> str:
    """A reason as words: a message object rendered safely, an e-stop's own words as they are."""
    return render_safely(reason, lang) if i18n.is_message(reason) else reason


def with_texts(params: Mapping[str, Any], lang: str | None) -> dict[str, Any]:
    """``params`` with each message object ``X`` shown as its text ``X`` (in ``lang``; None: the
    request's) and kept as it is in ``X_object``, beside it (``OBJECT_KEYS``: the object as ``X``
    and the text as ``X_text``)."""
    texts: dict[str, Any] = {}
    for key, value in params.items():
        if key in OBJECT_KEYS:
            texts[key] = value
            texts[f"{key}_text"] = render_safely(value, lang) if i18n.is_message(value) else None
        elif i18n.is_message(value):
            texts[key] = render_safely(value, lang)
            texts[f"{key}_object"] = value
        else:
            texts[key] = value
    return texts


__all__ = ["OBJECT_KEYS", "render_safely", "shown", "with_texts"]
