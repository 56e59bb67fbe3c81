"""The whole deck in the hopper before a dealer game's opening deal (#40: it waits for it)."""

from __future__ import annotations

from typing import Any, Callable

# The dealer rulesets and their decks (controller/rules/classic.py).
DECKS = {"classic": 108, "despicable-me-4": 112}


def new_with_deck(call: Callable[..., Any], params: dict[str, Any]) -> Any:
    """``game/new`` with the ruleset's whole deck reloaded first (``call`` is a client's call)."""
    deck = DECKS.get(params.get("rules", ""))
    if deck is not None:
        call("launcher/reload", {"cards": deck})
    return call("game/new", params)
