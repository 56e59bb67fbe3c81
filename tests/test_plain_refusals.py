"""Every refusal the game can give, in plain words (#40): no card id, ruleset id, action type or key
of an action reaches a person, and a French reader reads no English word of the game.

Two walks. Over launcherd's socket (the game process on a thread, as the page and launcherctl
reach it), for every ruleset: every move of every ruleset, every card of every box played without
its colour, with a colour the box lacks, with a target, out of turn, unknown cards, colours,
rulesets, options and players, each asked in English and in French. And through the rules'
entry points (``controller.rules.game``), the malformed actions the method table never sends: a
key missing, a key of the wrong type, a key the move does not take, a move no ruleset has.

Every refusal speaks from the catalogue (it carries its message object); what is checked is its
text, with the values the walk typed (echoed as typed: "'zzz' is not a card of UNO") left out.
The English words a French reader must not meet are the catalogue's own: the words of its English
texts that none of its French texts uses.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from controller.rules import attack, blast, classic, game
from controller.text.messages import CATALOGUE, GAME, render
from firmware import i18n
from firmware.errors import ApiError
from harness.launcherd import ThreadDaemon
from test_messages import sample

P3 = ["Ann", "Bob", "Cy"]
FAMILIES = (attack, blast, classic)
RULESETS = list(game.FLOWS)
CARDS = sorted({card for rules in RULESETS for card in game.ruleset(rules).cards})
COLORS = sorted({color for rules in RULESETS for color in game.ruleset(rules).colors})
ACTION_TYPES = sorted(game.ACTION_TYPES)
KEYS = sorted({key for family in FAMILIES for shape in family.ACTIONS.values() for key in shape})

# What a person must never read, in either language: an id of a card, a ruleset or a move with a
# hyphen or an underscore, a key=value pair, an action's key spelled as the API spells it ("give
# color"; English writes "colour"), a command's form of a move ("first-attack").
_IDS = sorted({*(c for c in CARDS if "-" in c), *(r for r in RULESETS if "-" in r),
               *(t for t in ACTION_TYPES if re.search(r"[-_]", t)),
               *(t.replace("_", "-") for t in ACTION_TYPES if "_" in t),
               *(k for k in KEYS if "_" in k)}, key=len, reverse=True)
ID_LEAK = re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, _IDS)) + r")(?![\w-])"
                     r"|\b[a-z_]+=[\w\"']|\bcolor\b|\bgive (card|color|target|player|cards|blast|by)\b")
# In French, also the moves and keys themselves ("play", "pass", "target"): all are English.
FR_IDS = re.compile(r"\b(" + "|".join(map(re.escape, sorted({*ACTION_TYPES, *KEYS}, key=len, reverse=True)))
                    + r")\b")


# A ruleset's options are named only by whoever types them (launcherctl game new --option
# early_stop=false; the page offers them by its own labels): the refusal of an unknown one, or of a
# value outside its choices, lists the names and values to type.
TYPED_NAMES = frozenset({"unknown_option", "unknown_option_none", "option_not_allowed"})


def _words(text: str) -> set[str]:
    return {word.casefold() for word in re.findall(r"[^\W\d_]{3,}", text)}


def english_only_words() -> set[str]:
    """The words of the catalogues' English texts that none of their French texts uses."""
    english, french = set(), set()
    for message_id in CATALOGUE:
        english |= _words(render(sample(message_id), "en"))
        french |= _words(render(sample(message_id), "fr"))
    return english - french


ENGLISH = english_only_words()


def leaks(text: str, lang: str) -> list[str]:
    found = [m.group(0) for m in ID_LEAK.finditer(text)]
    if lang == "fr":
        found += [m.group(0) for m in FR_IDS.finditer(text)]
        found += sorted(_words(text) & ENGLISH)
    return found


def test_the_check_catches_ids_and_english_and_spares_plain_words():
    for text in ("Hit 2 has a colour: give color, one of red", "its moves: play, first-attack, turn-up",
                 "rulesets: attack-mega-hit, classic", "first_attack", "blast=True cards=0"):
        assert leaks(text, "en"), text
    for text in ("Carte blanche nomme une couleur : donnez color, parmi rouge", "ses coups : play, uno, catch",
                 "insert : a safe insertion gives 0 cards", "cartes : Appuyer 2 fois, Wild"):
        assert leaks(text, "fr"), text
    assert not leaks("Hit 2 has a colour: say which, one of red, yellow", "en")
    for text in ("UNO Attack Mega Hit n'a pas ce coup (une carte dans le blaster) ; ses coups : poser une carte, dire Uno",
                 "Double attaque désigne un autre joueur", "règles : UNO Attack (2005), UNO Moi, moche et méchant 4"):
        assert not leaks(text, "fr"), text
    assert {"colour", "player", "the", "wild", "skip"} <= ENGLISH
    assert not {"uno", "attack", "blast", "blaster", "minions"} & ENGLISH  # the boxes' names are French too


# ---- the walk over the socket ------------------------------------------------------------------

def _calls(rules: str) -> list[tuple[str, dict]]:
    """Requests a person's page or launcherctl can send that the table refuses at the start of a round."""
    rs = game.ruleset(rules)
    calls = [("game/play", {"card": card}) for card in CARDS]
    calls += [("game/play", {"card": card, "color": "purple" if "purple" not in rs.colors else "red"})
              for card in CARDS]
    calls += [("game/play", {"card": card, "color": rs.colors[0], "target": "Bob"}) for card in CARDS]
    calls += [("game/play", {"card": "3", "color": rs.colors[0], "by": "Cy"}),
              ("game/play", {"card": "zzz", "color": rs.colors[0]}), ("game/play", {"card": "3", "color": "pink"}),
              ("game/first-attack", {"color": rs.colors[0], "target": "Bob"}),
              ("game/first-attack", {"color": rs.colors[0], "target": "Zed"}),
              ("game/uno", {"player": "Zed"}), ("game/catch", {"player": "Bob"}), ("game/catch", {"player": "Zed"}),
              ("game/hint", {"player": "Bob"}), ("game/turn-up", {"card": "5", "color": rs.colors[0]}),
              ("game/turn-up", {"card": "zzz", "color": rs.colors[0]}),
              ("game/insert", {}), ("game/insert", {"blast": True}), ("game/insert", {"cards": 2}),
              ("game/insert", {"by": "Cy"}), ("game/draw", {}), ("game/draw", {"by": "Cy"}), ("game/pass", {}),
              ("game/challenge", {}), ("game/accept", {}), ("game/challenge-result", {"result": "legal"}),
              ("game/minions", {"counts": {"Bob": 1}}), ("game/end-round", {"winner": "Bob", "hands": {}}),
              ("game/end-round", {"winner": "Zed", "hands": {}}), ("game/edit-round", {"round": 3, "hands": {}}),
              ("game/resume", {"match": 999}), ("game/rules", {"rules": "attack"}),
              ("game/new", {"rules": "attack", "players": P3, "force": True}),
              ("game/new", {"rules": rules, "players": P3, "options": {"zz": "1"}, "force": True}),
              ("game/new", {"rules": rules, "players": ["Ann"], "force": True}),
              ("game/new", {"rules": rules, "players": ["Ann", "ann"], "force": True}),
              ("game/new", {"rules": rules, "players": P3, "first_card": "zzz", "force": True}),
              ("game/undo", {}), ("game/undo", {})]
    calls += [("game/new", {"rules": rules, "players": P3, "options": {name: "maybe"}, "force": True})
              for name in rs.options]
    return calls


def _typed(params: dict) -> list[str]:
    """What the walk typed, as a refusal echoes it ('zzz', 'attack')."""
    values = [v for v in params.values() if isinstance(v, str)]
    values += [k for v in params.values() if isinstance(v, dict) for k in v]
    values += [v for v in params.values() if isinstance(v, dict) for v in v.values() if isinstance(v, str)]
    return sorted({*map(repr, values), *values}, key=len, reverse=True)


def _without(text: str, typed: list[str]) -> str:
    for value in typed:
        text = text.replace(value, " ")
    return text


@pytest.fixture(scope="module")
def refusals(tmp_path_factory) -> list[tuple[str, str, str, dict]]:
    """(rules, request, language, {text, object}) of every refusal of the walk."""
    found = []
    with ThreadDaemon(tmp_path_factory.mktemp("refusals")) as running:
        for rules in RULESETS:
            running.call("game/new", {"rules": rules, "players": P3, "force": True})
            for method, params in _calls(rules):
                for lang in ("en", "fr"):
                    try:
                        running.call(method, params, lang=lang)
                    except ApiError as error:
                        found.append((rules, f"{method} {params}", lang,
                                      {"text": _without(error.message, _typed(params)),
                                       "object": getattr(error, "message_object", None)}))
                    else:
                        break  # accepted (a game/new with first_card, say): the table moved on
                if method == "game/new" and found[-1][1] != f"{method} {params}":
                    running.call("game/new", {"rules": rules, "players": P3, "force": True})
    return found


def test_the_walk_meets_the_refusals_of_every_kind(refusals):
    ids = {r[3]["object"]["id"] for r in refusals if r[3]["object"]}
    for message_id in ("not_a_move_of", "not_a_move_of_or_press", "needs_its_color", "names_a_color",
                       "names_a_target", "takes_no_target", "no_targets_in", "not_a_card", "unknown_colour_of",
                       "unknown_ruleset", "unknown_option", "option_not_allowed", "not_your_move", "no_player",
                       "no_draw_blast", "insert_cards_bad", "players_count", "nothing_to_undo"):
        assert message_id in ids, message_id
    assert {rules for rules, *_ in refusals} == set(RULESETS)


def test_every_refusal_speaks_from_the_catalogue(refusals):
    assert [(rules, request) for rules, request, _, said in refusals if said["object"] is None] == []


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_no_refusal_shows_an_id_or_in_french_an_english_word(refusals, lang):
    leaking = {(rules, request): (said["text"], leaks(said["text"], lang))
               for rules, request, said_lang, said in refusals if said_lang == lang
               if said["object"]["id"] not in TYPED_NAMES and leaks(said["text"], lang)}
    assert leaking == {}


def test_a_refusal_reads_in_the_language_asked(refusals):
    """The same refusal in English and in French: never the English text for a French reader."""
    texts = {(rules, request, lang): said["text"] for rules, request, lang, said in refusals}
    same = [(rules, request, text) for (rules, request, lang), text in texts.items()
            if lang == "en" and texts.get((rules, request, "fr")) == text]
    assert same == []


# ---- the rules' own checks of an action --------------------------------------------------------

def _malformed(rules: str) -> list[dict]:
    """Actions the method table never sends: a key missing, of the wrong type, one not taken."""
    shapes = game.flow(rules).ACTIONS
    actions = [{"type": kind} for kind in ACTION_TYPES if kind not in shapes]
    for kind, shape in shapes.items():
        full = {key: ({str: "x", int: 1, bool: True, dict: {}}[kind_of]) for key, (kind_of, _) in shape.items()}
        for key, (kind_of, required) in shape.items():
            if required:
                actions.append({"type": kind, **{k: v for k, v in full.items() if k != key}})
            actions.append({"type": kind, **full, key: [1] if kind_of is not list else "x"})
        actions.append({"type": kind, **full, "speed": 3})
    return actions + [{"type": "launch"}, ["play"]]


@pytest.mark.parametrize("rules", RULESETS)
def test_the_rules_refuse_a_malformed_action_in_words(rules):
    state, _ = game.new_game(rules, P3, first_card="5", color=game.ruleset(rules).colors[0])
    leaking = []
    for action in _malformed(rules):
        for lang in ("en", "fr"):
            with i18n.speaking(lang), pytest.raises(ApiError) as refused:
                game.apply(state, action)
            assert refused.value.message_object is not None, action
            text = _without(refused.value.message, ["'launch'", "'speed'", "[1]", "'x'"])
            if leaks(text, lang):
                leaking.append((lang, action, text, leaks(text, lang)))
    assert leaking == []
