"""The rules a table needs to type the game in, generated from the ruleset data (#10).

``launcherctl game rules [RULESET]`` (through ``game/rules``) and the page ``docs/rules.md`` both come
from here, so the card names, the points and the scoring variants they show are the ones the game
and the counter accept. Regenerate the page after changing a ruleset:
``python -m controller.rules.ruledoc > docs/rules.md`` (a test checks that it is up to date).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from firmware.errors import InvalidParams
from firmware.i18n import catalogue_of, current, message

from controller.match.scores import DEFAULT_TARGET, SCORING_RULES
from controller.rules import game
from controller.rules.game import RULESET_IDS
from controller.rules.points import COLORS, POINTS
from controller.rules.rulesets import (CANNOT_END, DEFAULT_RULESET, MAX_PLAYERS, MIN_PLAYERS, TARGETED_CARDS,
                                       WILD_CARDS, Ruleset, deck_size)
from controller.rules.uno import FlowRuleset
from controller.text.messages import render


# What the cards without a count of presses do (rules.md §3); the game reads them by name. Each is a
# message of the catalogue (controller/text/table_texts.py, rules_*): rules_data and docs/rules.md
# say it in English, launcherctl game rules in the language asked.
_EFFECTS = {
    "reverse": "rules_effect_reverse",
    "skip": "rules_effect_skip",
    "discard-all": "rules_effect_discard",
    "trade-hands": "rules_effect_trade_hands",
    "wild-all-hit": "rules_effect_wild_all_hit",
    "wild-hit-fire": "rules_effect_wild_hit_fire",
    # blast (controller/rules/blast.py)
    "draw-one": "rules_effect_draw_one",
    "discard-color": "rules_effect_discard",
    "wild-blast": "rules_effect_wild_blast",
    # classic, despicable-me-4 (controller/rules/classic.py)
    "draw-two": "rules_effect_draw_two",
    "wild-draw-four": "rules_effect_wild_draw_four",
    "wild-mega-minions": "rules_effect_wild_mega_minions",
}
# What a penalty is counted in, by the machine the ruleset plays with.
_UNIT = {"launcher": "presses", "dealer": "cards", "blaster": "insertions"}
_UNIT_MESSAGE = {"presses": "n_presses", "cards": "n_cards", "insertions": "n_insertions"}

# The English prose the rulesets carry themselves (controller/rules/rulesets.py, classic.py,
# controller/match/scores.py), by its message: the catalogue's English text is the same
# (tests/test_cli_plain_words.py checks it), and launcherctl game rules says it in the language asked.
_DECK_NOTES = {
    "attack-mega-hit": message("rules_deck_counted", cards=112, source="001 §1"),
    "attack-2005": message("rules_deck_attack_2005"),
    "attack-2010": message("rules_deck_attack_2010"),
}
_OPTION_DOCS = {name: f"rules_option_{name}" for name in
                ("early_stop", "resume", "deal_pause_s", "deal_pause", "last_card_draws")}
_SCORING_RULES = {name: f"rules_scoring_{name}" for name in SCORING_RULES}


def _english(said: dict[str, Any]) -> str:
    return render(said, "en")


def _notes(rs: Ruleset | FlowRuleset, card: str) -> list[dict[str, Any]]:
    """What a card does, as message objects."""
    notes = [message(_EFFECTS[card])] if card in _EFFECTS else []
    if isinstance(rs, FlowRuleset):
        if card in rs.wild:
            notes.append(message("rules_note_color"))
        return notes
    if card in rs.hits:
        notes.append(message("rules_note_presses" if card != "wild-attack" else "rules_note_named_presses",
                             presses=rs.hits[card]))
    if card in WILD_CARDS:
        notes.append(message("rules_note_color"))
    if card in TARGETED_CARDS:
        notes.append(message("rules_note_target"))
    if card in CANNOT_END:
        notes.append(message("rules_note_cannot_end"))
    return notes


def _deck_note(rs: Ruleset | FlowRuleset) -> dict[str, Any]:
    """The deck's note as a message object."""
    if isinstance(rs, FlowRuleset):
        if rs.source[0].isdigit():
            return message("rules_deck_counted", cards=rs.deck_size, source=rs.source.split(" ", 1)[0])
        return message("rules_deck_standard", cards=rs.deck_size)
    return _DECK_NOTES[rs.id]


def _card(rs: Ruleset, card: str) -> dict[str, Any]:
    notes = [_english(note) for note in _notes(rs, card)]
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
    notes = [_english(note) for note in _notes(rs, card)]
    return {"card": card, "points": rs.points[card], "in_box": rs.deck[card], "notes": notes}


def _flow_ruleset(rs: FlowRuleset) -> dict[str, Any]:
    """A ruleset of controller/rules/blast.py or controller/rules/classic.py, in the shape of the others."""
    device = "blaster" if rs.blaster else "dealer"
    return {
        "id": rs.id,
        "default": False,
        "source": rs.source,
        "deck_size": rs.deck_size,
        "deck_note": _english(_deck_note(rs)),
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


def _penalties(rs: dict[str, Any], lang: str = "en") -> str:
    """What the ruleset is played with and its penalties, in a language (docs/rules.md: English)."""
    def counted(n: int) -> dict[str, Any] | str:
        unit = _UNIT_MESSAGE.get(rs["penalty_unit"])
        return message(unit, count=n) if unit else f"{n} {rs['penalty_unit']}"

    penalties = [message("rules_uno_forgotten", penalty=counted(rs["uno_penalty"]))]
    if rs["hint_penalty"] is not None:
        penalties.append(message("rules_advice_given", penalty=counted(rs["hint_penalty"])))
    if rs["device"] == "launcher":
        penalties.append(message("rules_mega_hit_yes" if rs["mega_hit"] else "rules_mega_hit_no"))
    return render(message("rules_penalties", played=message(f"rules_played_with_{rs['device']}"),
                          penalties=penalties), lang)


def _choices(choices: list[str]) -> str:
    """Choices for the page: a run of whole numbers as its ends (`0` to `30`), else each one."""
    if len(choices) > 2 and all(c.isdigit() for c in choices) and \
            [int(c) for c in choices] == list(range(int(choices[0]), int(choices[-1]) + 1)):
        return f"`{choices[0]}` to `{choices[-1]}`"
    return " or ".join(f"`{c}`" for c in choices)


@cache
def _prose() -> dict[str, dict[str, Any]]:
    """The English prose rules_data gives (card notes, deck notes, option docs, scorings), by its message."""
    said: list[dict[str, Any]] = [message(rule) for rule in _SCORING_RULES.values()]
    said += [message(doc) for doc in _OPTION_DOCS.values()]
    for ruleset_id in RULESET_IDS:
        rs = game.ruleset(ruleset_id)
        said.append(_deck_note(rs))
        for card in rs.cards:
            said += _notes(rs, card)
    return {_english(one): one for one in said}


def _said(english: str, lang: str) -> str:
    """Prose of rules_data in a language: its message's text, or as it came if it has none (a
    daemon of another version)."""
    known = _prose().get(english)
    return english if known is None else render(known, lang)


def _card_name(card: str, lang: str) -> str:
    """A card by the box's name with the id a person types beside it ("Appuyer 2 fois (hit-2)"); a
    number, or a card the catalogue does not know, as it is."""
    if catalogue_of(f"card:{card}") is None:
        return card
    return render(message("rules_card_typed", card=card, typed=card), lang)


def format_rules(data: dict[str, Any], lang: str | None = None) -> str:
    """The terminal text of ``launcherctl game rules``, in the language asked (#40: the request's,
    ``--lang``); the names and values a person types (ruleset and card ids, options, scorings)
    beside the words or as they are typed."""
    lang = current() if lang is None else lang
    heads = [render({"id": key}, lang) for key in ("label_card", "label_points", "label_in_box")]
    lines = []
    for rs in data["rulesets"]:
        head = "rules_head_default" if rs["default"] else "rules_head"
        lines.append(render(message(head, ruleset=rs["id"], typed=rs["id"], deck=_said(rs["deck_note"], lang)),
                            lang))
        names = [_card_name(card["card"], lang) for card in rs["cards"]]
        width = max([17, len(heads[0]), *map(len, names)])
        points, in_box = (max(6, len(h)) for h in heads[1:])
        lines.append(f"  {heads[0]:<{width}} {heads[1]:>{points}} {heads[2]:>{in_box}}")
        for name, card in zip(names, rs["cards"]):
            notes = "; ".join(_said(note, lang) for note in card["notes"])
            note = f"  {notes}" if notes else ""
            lines.append(f"  {name:<{width}} {card['points']:>{points}} {_count(card['in_box']):>{in_box}}{note}")
        lines.append(f"  {_penalties(rs, lang)}")
        if rs["colors"] != data["colors"]:
            lines.append("  " + render(message("rules_colors", colors=rs["colors"]), lang))
        for name, option in rs["options"].items():
            shown = _choices(option["choices"]).replace("`", "").replace(" or ", "|").replace(" to ", "..")
            lines.append("  " + render(message("rules_option", name=name, choices=shown, default=str(option["default"]),
                                               doc=_said(option["doc"], lang)), lang))
        lines.append("")
    lines.append(render(message("rules_colors", colors=data["colors"]), lang))
    lines.append(render(message("rules_scoring_head", target=data["target"]), lang))
    for name, rule in data["scorings"].items():
        lines.append("  " + render(message("rules_scoring", name=name, rule=_said(rule, lang)), lang))
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
