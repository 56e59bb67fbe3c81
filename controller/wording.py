"""Small pieces of the table's language, shared by the game, the table and the CLI.

Each user-facing phrase is built in one function, so that switching to message ids (and other
languages) later changes one place per phrase.
"""

from __future__ import annotations

from typing import Any


def presses(n: int | None) -> str:
    """"1 press", "3 presses", or the open-ended obligation of a Wild Hit-Fire (None)."""
    if n is None:
        return "presses until cards come out"
    return "1 press" if n == 1 else f"{n} presses"


def cards(n: int) -> str:
    return "1 card" if n == 1 else f"{n} cards"


def message(text: str) -> dict[str, Any]:
    """A ``message`` effect: a line the table should hear."""
    return {"type": "message", "text": text}
