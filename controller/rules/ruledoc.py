"""The rules a table needs to type the game in, generated from the ruleset data (#10).

``launcherctl game rules [RULESET]`` (through ``game/rules``) and the page ``docs/rules.md`` both come
from here, so the card names, the points and the scoring variants they show are the ones the game
and the counter accept. Regenerate the page after changing a ruleset:
``python -m controller.rules.ruledoc > docs/rules.md`` (a test checks that it is up to date).
"""

from __future__ import annotations

from typing import Any

from firmware.errors import InvalidParams
from firmware.i18n import message

from controller.match.scores import DEFAULT_TARGET, SCORING_RULES
from controller.rules import game
from controller.rules.game import RULESET_IDS
from controller.rules.points import COLORS, POINTS
from controller.rules.rulesets import (CANNOT_END, DEFAULT_RULESET, MAX_PLAYERS, MIN_PLAYERS, TARGETED_CARDS,
                                       WILD_CARDS, Ruleset, deck_size)
from controller.rules.uno import FlowRuleset


# What the cards without a count of presses do (rules.md §3); the game reads them by name.
_EFFECTS = {
    "reverse": "play changes direction (with 2 players: as Skip)",
    "skip": "the next player loses the turn",
    "discard-all": "its player discards every card of that colour",
    "trade-hands": "its player swaps hands with the player named",
    "wild-all-hit": "every other player presses once",
    "wild-hit-fire": "the next player presses until cards come out",
    # blast (controller/rules/blast.py)
    "draw-one": "the next player inserts 1 card in the blaster: that is their turn",
    "discard-color": "its player discards every card of that colour",
    "wild-blast": "the next player inserts until the blast and takes every card that comes out",
    # classic, despicable-me-4 (controller/rules/classic.py)
    "draw-two": "the next player is dealt 2 and loses the turn (no stacking)",
    "wild-draw-four": "the next player accepts (dealt 4, turn lost) or challenges (game challenge)",
    "wild-mega-minions": "every other player discards Draw Two, Reverse and Skip cards and is dealt"
                         " as many (game minions NAME=N ...)",
}
# What a penalty is counted in, by the machine the ruleset plays with.
_UNIT = {"launcher": "presses", "dealer": "cards", "blaster": "insertions"}


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
        "penalty_unit": _UNIT["launcher"],
        "device": "launcher",
        "colors": list(COLORS),
        "cards": [_card(rs, card) for card in rs.cards],
        "options": _options(rs.options),
    }


def _options(options: Any) -> dict[str, Any]:
    return {name: {"default": o.default, "choices": list(o.choices), "doc": o.doc} for name, o in options.items()}


def _flow_card(rs: FlowRuleset, card: str) -> dict[str, Any]:
    notes = [_EFFECTS[card]] if card in _EFFECTS else []
    if card in rs.wild:
        notes.append("names a colour (--color)")
    return {"card": card, "points": rs.points[card], "in_box": rs.deck[card], "notes": notes}


def _flow_ruleset(rs: FlowRuleset) -> dict[str, Any]:
    """A ruleset of controller/rules/blast.py or controller/rules/classic.py, in the shape of the others."""
    device = "blaster" if rs.blaster else "dealer"
    return {
        "id": rs.id,
        "default": False,
        "source": rs.source,
        "deck_size": rs.deck_size,
        "deck_note": f"{rs.deck_size} cards, every count from {rs.source.split(' ', 1)[0]}"
                     if rs.source[0].isdigit() else f"{rs.deck_size} cards, the standard deck",
        "mega_hit": False,
        "uno_penalty": rs.uno_penalty,
        "hint_penalty": None,
        "penalty_unit": _UNIT[device],
        "device": device,
        "colors": list(rs.colors),
        "cards": [_flow_card(rs, card) for card in rs.cards],
        "options": _options(rs.options),
    }


def _shown(ruleset_id: str) -> dict[str, Any]:
    rs = game.ruleset(ruleset_id)
    return _flow_ruleset(rs) if isinstance(rs, FlowRuleset) else _ruleset(rs)


def rules_data(ruleset: str | None = None) -> dict[str, Any]:
    """One ruleset (or every one) with its cards and points, and the scoring variants."""
    if ruleset is None:
        chosen = list(RULESET_IDS)
    elif ruleset in RULESET_IDS:
        chosen = [ruleset]
    else:
        raise InvalidParams(message("unknown_ruleset", ruleset=repr(ruleset), rulesets=list(RULESET_IDS)))
    return {
        "rulesets": [_shown(name) for name in chosen],
        "scorings": dict(SCORING_RULES),
        "target": DEFAULT_TARGET,
        "colors": list(COLORS),
        "players": [MIN_PLAYERS, MAX_PLAYERS],
    }


def _count(n: int | None) -> str:
    return "?" if n is None else str(n)


_PLAYED_WITH = {"launcher": "the launcher", "dealer": "the launcher as dealer (it deals every card)",
                "blaster": "the card blaster"}


def _penalties(rs: dict[str, Any]) -> str:
    unit = rs["penalty_unit"]
    text = f"Played with {_PLAYED_WITH[rs['device']]}. Uno forgotten: {rs['uno_penalty']} {unit}"
    if rs["hint_penalty"] is not None:
        text += f"; advice given: {rs['hint_penalty']} {unit}"
    if rs["device"] == "launcher":
        text += f"; Mega Hit stacking: {'yes' if rs['mega_hit'] else 'no'}"
    return text


def _choices(choices: list[str]) -> str:
    """Choices for the page: a run of whole numbers as its ends (`0` to `30`), else each one."""
    if len(choices) > 2 and all(c.isdigit() for c in choices) and \
            [int(c) for c in choices] == list(range(int(choices[0]), int(choices[-1]) + 1)):
        return f"`{choices[0]}` to `{choices[-1]}`"
    return " or ".join(f"`{c}`" for c in choices)


def format_rules(data: dict[str, Any]) -> str:
    """The terminal text of ``launcherctl game rules``."""
    lines = []
    for rs in data["rulesets"]:
        lines.append(f"{rs['id']}{' (default)' if rs['default'] else ''} - deck: {rs['deck_note']}")
        lines.append(f"  {'card':<17} {'points':>6} {'in box':>6}")
        for card in rs["cards"]:
            note = f"  {'; '.join(card['notes'])}" if card["notes"] else ""
            lines.append(f"  {card['card']:<17} {card['points']:>6} {_count(card['in_box']):>6}{note}")
        lines.append(f"  {_penalties(rs)}")
        if rs["colors"] != data["colors"]:
            lines.append(f"  colours: {', '.join(rs['colors'])}")
        for name, option in rs["options"].items():
            shown = _choices(option["choices"]).replace("`", "").replace(" or ", "|")
            lines.append(f"  --option {name}={shown} (default {option['default']}):"
                         f" {option['doc']}")
        lines.append("")
    lines.append(f"colours: {', '.join(data['colors'])}")
    lines.append(f"scoring (--scoring, --target N, default {data['target']}):")
    for name, rule in data["scorings"].items():
        lines.append(f"  {name}: {rule}")
    return "\n".join(lines)


# Where the seeds are silent or disagree, what the controller decided (rules.md says the rest).
DECISIONS = (
    "**The catch window, one for every ruleset.** A player who did not call Uno can be caught"
    " \"before the next player has taken their turn\" (000, 002, 004). A turn is taken by playing a"
    " card, by pressing, drawing or inserting because one cannot or will not play, or by naming a"
    " turned-up Wild Attack-Attack's colour and target. A press owed for someone else's card is no"
    " turn: a Hit, a Wild Attack-Attack, a Mega Hit, a Wild All Hit, a Wild Hit-Fire, a turned-up Hit,"
    " a Draw Two's deal, a Wild Draw Four accepted or challenged and its deal, the Minions' deals (the"
    " seeds say that player \"misses\" or \"loses\" the turn); nor are a catch and its penalty's presses,"
    " insertions or deal, and a player is caught once for a card. Blast's Draw One and Wild Blast"
    " insertions are the exception their seed words: \"this counts as their turn\" (002).",
    "**Every hand is counted, in every ruleset.** Where the table deals, a hand is the 7 dealt, plus"
    " what came out for that player, less what they played; a Discard All or Discard Color lays an"
    " unknown number of cards (the hand is then known as a range), Trade Hands swaps the two counts."
    " Where the launcher deals, the count is exact. A catch needs a hand that may be one card; a last"
    " card needs a hand of one (a Discard All or Discard Color: any hand, all of one colour); a card"
    " played from a hand of one is the last, said or not; a round ended at the table needs a winner who"
    " holds one card at most (the last one, not recorded); the hands entered at its end, or in a"
    " correction of it, must be possible: no more copies of a card than the box holds, no 0 points where the deck has no 0 card,"
    " as many cards as the count allows. A refusal says what was counted and how to correct it (undo,"
    " or record what was missed).",
    "**A turned-up Discard All** (000): the first player discards that colour (the card said is the"
    " last one laid, on top; the cards laid have no effect, as under a Discard All) or presses; no other"
    " card is accepted.",
    "**The launcher deals the first card too** (`classic`, `despicable-me-4`): after the deal nothing is"
    " played, drawn or pressed for until the first card is turned up and said.",
    "**Blast without a blaster**: the controller counts the cards in the 4 slots from the insertions"
    " told; a safe insertion into the last empty slot is refused, since it always fires (rules.md §6).",
)


def markdown() -> str:
    """The page ``docs/rules.md``."""
    data = rules_data()
    low, high = data["players"]
    out = [
        "# Rules the controller knows: cards, points, scoring",
        "",
        "Generated from the ruleset data by `python -m controller.rules.ruledoc`; `launcherctl game rules"
        " [RULESET]` prints the same. Card names are typed as shown (`launcherctl game play hit-2"
        " --color red`); every card has its colour (`--color`: a wild names one, any other shows its"
        " own; launcherctl fills it in when only one is legal);"
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
        out += [_penalties(rs) + ".", ""]
        if rs["colors"] != data["colors"]:
            out += ["Colours: " + ", ".join(f"`{c}`" for c in rs["colors"]) + ".", ""]
        if rs["options"]:
            out.append("Options (`--option NAME=VALUE`):")
            out.append("")
            for name, option in rs["options"].items():
                out.append(f"- `{name}`: {_choices(option['choices'])}, default"
                           f" `{option['default']}`. {option['doc']}")
            out.append("")
    out += [f"## Scoring (`--scoring`, `--target N`, default {data['target']})", ""]
    out += [f"- `{name}`: {rule}." for name, rule in data["scorings"].items()]
    out += ["", "## Decisions where the sources are silent", ""]
    out += [f"- {decision}" for decision in DECISIONS]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    print(markdown(), end="")
