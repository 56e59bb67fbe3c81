"""Message effects and texts of the game layer: a message object, and its text in a language.

What the game says is a message object (``controller.text.messages``): the effects carry it with its
text in the language of the request being served (``firmware.i18n.current()``), and the
``game/message`` event with its text in the daemon's own language, for subscribers that show
texts as they come.
"""

from __future__ import annotations

from typing import Any, Mapping

from firmware import i18n

from controller.text.messages import render


def text(message: Mapping[str, Any]) -> str:
    """The text of a message object in the language of the request being served."""
    return render(message, i18n.current())


def daemon_text(message: Mapping[str, Any]) -> str:
    """The text of a message object in the daemon's language, whatever the request's."""
    return render(message, i18n.daemon_language())


def effect(message: Mapping[str, Any]) -> dict[str, Any]:
    """The ``message`` effect of a message object: a line the table should hear, object and text."""
    return {"type": "message", "message": dict(message), "text": text(message)}


def said(message_id: str, /, **params: Any) -> dict[str, Any]:
    """The ``message`` effect of a message built here: ``said("calls_uno", player="Ann")``."""
    return effect(i18n.message(message_id, **params))


def reply_messages(said: list[dict[str, Any]]) -> dict[str, Any]:
    """The ``messages`` of a reply (texts in the request's language) and their ``message_objects``."""
    return {"messages": [text(message) for message in said], "message_objects": said}
