"""The rulesets the game-flow controller plays, as data (rules.md §1, §3, §4, §5).

An UNO Attack edition is one frozen :class:`Ruleset` in :data:`RULESETS`; a new edition is a new entry,
not a new class (the other families' rulesets are in ``classic.py`` and ``blast.py``; every ruleset a
game may be started with is in ``game.FLOWS``). What a card *does* is the same in every edition that
has it (``attack.py`` reads the card name);
what an edition changes is here: which cards it has (the keys of its point table in
``controller.rules.points``), how many presses its Hit cards cost, whether Hit cards stack (Mega Hit), its
penalties, its two-player rule and the options a table may set.

Options are strings (they come from a command line and are logged as JSON): ``resolve_options``
checks them against the ruleset and fills in the defaults.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from types import MappingProxyType
from typing import Mapping

from firmware.errors import InvalidParams
from firmware.i18n import message

from controller.rules.points import COLORS, POINTS

# Properties of a card wherever it appears (rules.md §3).
WILD_CARDS = frozenset({"wild", "wild-attack", "wild-all-hit", "wild-hit-fire"})  # need a color
TARGETED_CARDS = frozenset({"wild-attack", "trade-hands"})  # need another player named
CANNOT_END = frozenset({"trade-hands"})  # 001: a round cannot end on Trade Hands

BOOLEAN = ("true", "false")
RESUME_CHOICES = ("after_first_attacker", "first_attacker")


@dataclass(frozen=True)
class Option:
    """A setting a table may choose when it starts a game."""

    default: str
    choices: tuple[str, ...]
    doc: str


@dataclass(frozen=True)
class Ruleset:
    """One edition's rules, as far as the game flow needs them."""

    id: str
    source: str
    # Count of each card in the box; None where the sources do not say (the old boxes).
    deck: Mapping[str, int | None]
    deck_note: str
    mega_hit: bool  # Hit cards stack (rules.md §4)
    hits: Mapping[str, int]  # the Hit cards (those a Mega Hit accepts) and the presses of each
    uno_penalty: int  # presses for an Uno not called
    hint_penalty: int | None  # presses for giving advice; None where the box has no such rule
    two_players_replay: frozenset[str]  # with two players, whoever plays one of these plays again
    options: Mapping[str, Option]
    # The table deals and presses the launcher in every Attack edition: the same fields as the
    # other families' rulesets (controller/rules/uno.py FlowRuleset) say so.
    dealer: bool = False
    blaster: bool = False

    @property
    def cards(self) -> tuple[str, ...]:
        """The cards of this edition, in point-table order."""
        return tuple(POINTS[self.id])

    @property
    def colors(self) -> tuple[str, ...]:
        return COLORS


def _deck(ruleset_id: str, known: dict[str, int]) -> Mapping[str, int | None]:
    """Every card of the ruleset with its count, None where unknown; fails on a card not in it."""
    unknown = set(known) - set(POINTS[ruleset_id])
    if unknown:
        raise ValueError(f"{ruleset_id}: deck names cards it does not have: {sorted(unknown)}")
    return MappingProxyType({card: known.get(card) for card in POINTS[ruleset_id]})


def _per_color(cards: dict[str, int]) -> dict[str, int]:
    """Counts given per color, as counts in the box."""
    return {card: 4 * n for card, n in cards.items()}


def _early_stop(default: str) -> Option:
    return Option(
        default,
        BOOLEAN,
        "true: an obligation ends at the first press that gives cards (001); false: press them all",
    )


# Every card the old boxes announce as a Hit-like attack plays again with two players (000: "a Hit
# or Attack card of any sort"), as do Skip and Reverse.
_REPLAY = frozenset(
    {"reverse", "skip", "hit-1", "hit-2", "wild-attack", "wild-all-hit", "wild-hit-fire"}
)

RULESETS: Mapping[str, Ruleset] = MappingProxyType(
    {
        rs.id: rs
        for rs in (
            Ruleset(
                id="attack-mega-hit",
                source="000 (2023 Mega Hit) + 001 §1-4 (the current 112-card box)",
                deck=_deck(
                    "attack-mega-hit",
                    {
                        **_per_color({str(n): 2 for n in range(1, 10)}),
                        **_per_color(
                            {"reverse": 1, "skip": 2, "discard-all": 2, "hit-1": 1, "hit-2": 2}
                        ),
                        "wild": 4,
                        "wild-attack": 4,
                    },
                ),
                deck_note="112 cards, every count from 001 §1",
                mega_hit=True,
                hits=MappingProxyType({"hit-1": 1, "hit-2": 2, "wild-attack": 2}),
                uno_penalty=2,
                hint_penalty=None,
                two_players_replay=_REPLAY & set(POINTS["attack-mega-hit"]),
                options=MappingProxyType(
                    {
                        "early_stop": _early_stop("true"),
                        "resume": Option(
                            "after_first_attacker",
                            RESUME_CHOICES,
                            "after a Mega Hit chain, play resumes with the player after the first"
                            " attacker (001) or with the first attacker (000)",
                        ),
                    }
                ),
            ),
            Ruleset(
                id="attack-2005",
                source='001 "Boîte de 2005"',
                deck=_deck(
                    "attack-2005",
                    {
                        **_per_color({"hit-2": 2, "discard-all": 1, "trade-hands": 1}),
                        "wild": 4,
                        "wild-all-hit": 2,
                        "wild-hit-fire": 2,
                    },
                ),
                deck_note="counts of the numbers, Reverse and Skip are not given by the sources",
                mega_hit=False,
                hits=MappingProxyType({"hit-2": 2}),
                uno_penalty=2,
                hint_penalty=4,
                two_players_replay=_REPLAY & set(POINTS["attack-2005"]),
                # 001 gives early stop in its current-box section only: old boxes press them all.
                options=MappingProxyType({"early_stop": _early_stop("false")}),
            ),
            Ruleset(
                id="attack-2010",
                source='001 "Boîte de 2010"',
                deck=_deck("attack-2010", _per_color({"discard-all": 2})),
                deck_note="only the two Discard All per colour are counted by the sources",
                mega_hit=False,
                hits=MappingProxyType({"hit-2": 2, "wild-attack": 2}),
                uno_penalty=2,
                hint_penalty=4,
                two_players_replay=_REPLAY & set(POINTS["attack-2010"]),
                options=MappingProxyType({"early_stop": _early_stop("false")}),
            ),
        )
    }
)

DEFAULT_RULESET = "attack-mega-hit"
MIN_PLAYERS, MAX_PLAYERS = 2, 10  # rules.md §1
# A name is said by the voice and shown on a phone in large type: a few words at most (issue 22).
MAX_NAME = 24
# Joiners that emoji names are made of; every other control or format character is refused.
_NAME_JOINERS = frozenset("\u200c\u200d")


def _fit_name(name: object) -> bool:
    """A text of 1 to MAX_NAME characters, no control characters (NUL, escapes, bidi overrides,
    line separators), no "=" (it would make the "Bob=37" form of a hand ambiguous), no outer spaces."""
    if not isinstance(name, str) or not name.strip() or name != name.strip() or "=" in name:
        return False
    return len(name) <= MAX_NAME and not any(
        unicodedata.category(char)[0] == "C" and char not in _NAME_JOINERS
        or unicodedata.category(char) in ("Zl", "Zp") for char in name)


def seating(players: object) -> tuple[str, ...]:
    """The players' names in seat order, checked once for the game and the score counter alike.

    Refused: not a list of texts, fewer than 2 or more than 10, a name that is not fit
    (:func:`_fit_name`) or two names equal but for case (players type names in any case).
    """
    if isinstance(players, str) or not isinstance(players, (list, tuple)):
        raise InvalidParams(message("players_not_list"))
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise InvalidParams(message("players_count", minimum=MIN_PLAYERS, maximum=MAX_PLAYERS, count=len(players)))
    for name in players:
        if not _fit_name(name):
            shown = repr(name)  # escapes shown as escapes; a long one cut short
            shown = shown if len(shown) <= MAX_NAME + 2 else shown[:MAX_NAME + 1] + "…"
            raise InvalidParams(message("player_name_bad", maximum=MAX_NAME, name=shown))
    folded = [name.casefold() for name in players]
    duplicate = next((n for n, f in zip(players, folded) if folded.count(f) > 1), None)
    if duplicate is not None:
        raise InvalidParams(message("players_same_name", name=repr(duplicate)))
    return tuple(players)


def get(ruleset_id: str) -> Ruleset:
    """The ruleset of that id; InvalidParams lists the known ids."""
    try:
        return RULESETS[ruleset_id]
    except (KeyError, TypeError):
        raise InvalidParams(message("unknown_ruleset", ruleset=repr(ruleset_id), rulesets=list(RULESETS))) from None


def deck_size(ruleset: Ruleset) -> int | None:
    """Cards in the box, or None when a count is unknown."""
    counts = ruleset.deck.values()
    return None if None in counts else sum(counts)


def resolve_options(ruleset: Ruleset, options: Mapping[str, object] | None) -> dict[str, str]:
    """The ruleset's options with the table's choices applied, in the ruleset's order.

    A JSON boolean is accepted for a true/false option (it is spelled "true"/"false" afterwards);
    anything unknown or outside the choices is refused with what is allowed.
    """
    given = dict(options or {})
    unknown = sorted(set(given) - set(ruleset.options))
    if unknown:
        if not ruleset.options:
            raise InvalidParams(message("unknown_option_none", option=repr(unknown[0]), ruleset=ruleset.id))
        raise InvalidParams(message("unknown_option", option=repr(unknown[0]), ruleset=ruleset.id,
                                    options=list(ruleset.options)))
    chosen = {}
    for name, option in ruleset.options.items():
        value = given.get(name, option.default)
        if isinstance(value, bool):
            value = "true" if value else "false"
        if not isinstance(value, str) or value.lower() not in option.choices:
            raise InvalidParams(message("option_not_allowed", option=name, value=repr(value),
                                        choices=list(option.choices)))
        chosen[name] = value.lower()
    return chosen

