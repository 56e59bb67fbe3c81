"""The rules a table needs to type the game in, generated from the ruleset data (#10).

``launcherctl game rules [RULESET]`` (through ``game/rules``) and the page ``docs/rules.md`` both come
from here, so the card names, the points and the scoring variants they show are the ones the game
and the counter accept. Regenerate the page after changing a ruleset:
``python -m controller.ruledoc > docs/rules.md`` (a test checks that it is up to date).
"""

from __future__ import annotations

from typing import Any

from .points import COLORS, POINTS
from .rulesets import (CANNOT_END, DEFAULT_RULESET, MAX_PLAYERS, MIN_PLAYERS, RULESETS, TARGETED_CARDS,
                       WILD_CARDS, Ruleset, deck_size, get)
from .scores import DEFAULT_TARGET, SCORING_RULES


# What the cards without a count of presses do (rules.md §3); the game reads them by name.
_EFFECTS = {
    "reverse": "play changes direction (with 2 players: as Skip)",
    "skip": "the next player loses the turn",
    "discard-all": "its player discards every card of that colour",
    "trade-hands": "its player swaps hands with the player named",
    "wild-all-hit": "every other player presses once",
    "wild-hit-fire": "the next player presses until cards come out",
}


def _card(rs: Ruleset, card: str) -> dict[str, Any]:
    notes = [_EFFECTS[card]] if card in _EFFECTS else []
    if card in rs.hits:
        notes.append(f"next player presses {rs.hits[card]}" if card != "wild-attack"
                     else f"the player named presses {rs.hits[card]}")
    if card in WILD_CARDS:
        notes.append("names a colour (--color)")
    if card in TARGETED_CARDS:
        notes.append("names a player (--target)")
    if card in CANNOT_END:
        notes.append("a round cannot end on it")
    return {"card": card, "points": POINTS[rs.id][card], "in_box": rs.deck[card], "notes": notes}


def _ruleset(rs: Ruleset) -> dict[str, Any]:
    return {
        "id": rs.id,
        "default": rs.id == DEFAULT_RULESET,
        "source": rs.source,
        "deck_size": deck_size(rs),
        "deck_note": rs.deck_note,
        "mega_hit": rs.mega_hit,
        "uno_penalty": rs.uno_penalty,
        "hint_penalty": rs.hint_penalty,
        "cards": [_card(rs, card) for card in rs.cards],
        "options": {name: {"default": o.default, "choices": list(o.choices), "doc": o.doc}
                    for name, o in rs.options.items()},
    }


def rules_data(ruleset: str | None = None) -> dict[str, Any]:
    """One ruleset (or every one) with its cards and points, and the scoring variants."""
    chosen = list(RULESETS) if ruleset is None else [get(ruleset).id]
    return {
        "rulesets": [_ruleset(RULESETS[name]) for name in chosen],
        "scorings": dict(SCORING_RULES),
        "target": DEFAULT_TARGET,
        "colors": list(COLORS),
        "players": [MIN_PLAYERS, MAX_PLAYERS],
    }


def _count(n: int | None) -> str:
    return "?" if n is None else str(n)


def format_rules(data: dict[str, Any]) -> str:
    """The terminal text of ``launcherctl game rules``."""
    lines = []
    for rs in data["rulesets"]:
        lines.append(f"{rs['id']}{' (default)' if rs['default'] else ''} - deck: {rs['deck_note']}")
        lines.append(f"  {'card':<15} {'points':>6} {'in box':>6}")
        for card in rs["cards"]:
            note = f"  {'; '.join(card['notes'])}" if card["notes"] else ""
            lines.append(f"  {card['card']:<15} {card['points']:>6} {_count(card['in_box']):>6}{note}")
        penalties = f"Uno forgotten: {rs['uno_penalty']} presses"
        if rs["hint_penalty"] is not None:
            penalties += f"; advice given: {rs['hint_penalty']} presses"
        lines.append(f"  {penalties}; Mega Hit stacking: {'yes' if rs['mega_hit'] else 'no'}")
        for name, option in rs["options"].items():
            lines.append(f"  --option {name}={'|'.join(option['choices'])} (default {option['default']}):"
                         f" {option['doc']}")
        lines.append("")
    lines.append(f"colours: {', '.join(data['colors'])}")
    lines.append(f"scoring (--scoring, --target N, default {data['target']}):")
    for name, rule in data["scorings"].items():
        lines.append(f"  {name}: {rule}")
    return "\n".join(lines)


def markdown() -> str:
    """The page ``docs/rules.md``."""
    data = rules_data()
    low, high = data["players"]
    out = [
        "# Rules the controller knows: cards, points, scoring",
        "",
        "Generated from the ruleset data by `python -m controller.ruledoc`; `launcherctl game rules"
        " [RULESET]` prints the same. Card names are typed as shown (`launcherctl game play hit-2`);"
        f" colours are {', '.join(f'`{c}`' for c in data['colors'])}. {low} to {high} players.",
        "",
    ]
    for rs in data["rulesets"]:
        out += [f"## `{rs['id']}`{' (default)' if rs['default'] else ''}", "",
                f"Source: {rs['source']}. Deck: {rs['deck_note']}.", "",
                "| card | points | in the box | notes |", "|---|---|---|---|"]
        for card in rs["cards"]:
            out.append(f"| `{card['card']}` | {card['points']} | {_count(card['in_box'])} |"
                       f" {'; '.join(card['notes'])} |")
        out.append("")
        penalties = f"Uno forgotten: {rs['uno_penalty']} presses."
        if rs["hint_penalty"] is not None:
            penalties += f" Advice given: {rs['hint_penalty']} presses."
        penalties += f" Mega Hit stacking: {'yes' if rs['mega_hit'] else 'no'}."
        out += [penalties, ""]
        if rs["options"]:
            out.append("Options (`--option NAME=VALUE`):")
            out.append("")
            for name, option in rs["options"].items():
                out.append(f"- `{name}`: {' or '.join(f'`{c}`' for c in option['choices'])}, default"
                           f" `{option['default']}`. {option['doc']}")
            out.append("")
    out += [f"## Scoring (`--scoring`, `--target N`, default {data['target']})", ""]
    out += [f"- `{name}`: {rule}." for name, rule in data["scorings"].items()]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    print(markdown(), end="")
