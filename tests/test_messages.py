"""The message catalogues, firmware's (firmware/text/) and the game's (controller/text/): every message in
English and French, checked; rendered through controller/text/messages.py."""

from __future__ import annotations

import fnmatch
import io
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from controller.text import messages
from controller.text.messages import CATALOGUE, GAME, LANGUAGES, MessageError, card_id, color_id, render
from controller.rules.points import POINTS
from firmware.errors import InvalidParams, LauncherError
from firmware.text.catalogue import placeholders
from firmware.text.messages import FIRMWARE

ROOT = Path(__file__).resolve().parent.parent

# A value of each kind, to render every message.
SAMPLES = {
    "int": 3,
    "name": "Bob",
    "raw": "Ann, Bob",
    "text": "a reason",
    "list": ["Ann", "Cy"],
    "names": ["Ann", "Cy"],
    "items": [{"id": "player_points", "player": "Ann", "points": 10, "total": 30}],
    "messages": [{"id": "tie_stay", "players": ["Ann", "Cy"], "points": 40}],
    "parts": [{"id": "status_or_stacks"}, {"id": "status_uno_penalty"}],
    "card_list": ["hit-1", "wild-attack"],
    "color_list": ["red", "purple"],
    "ruleset_list": ["attack-mega-hit", "despicable-me-4"],
    "move": "first_attack",
    "move_list": ["play", "turn_up"],
    "param": "color",
    "lines": [{"id": "calls_uno", "player": "Ann"}, {"id": "skipped", "player": "Bob"}],
    "inserts": 2,
    "awaiting": "challenge_or_accept",
    "state": "lid_open",
    "seconds": 2.5,
    "percent": 0.5,
    "number": 0.2,
    "presses": 2,
    "cards": 4,
    "card": "wild-attack",
    "ruleset": "attack-mega-hit",
    "color": "red",
    "direction": "clockwise",
    "ended": "jam",
    "outcome": "burst",
    "motor_direction": "forward",
    "profile": "fixed",
    "value_type": "int",
}


def sample(message_id: str, **given) -> dict:
    params = {name: SAMPLES[kind] for name, kind in CATALOGUE[message_id].params.items()}
    return {"id": message_id, **params, **given}


# Each side's catalogue, its template (as `python -m` prints it) and its source file.
SIDES = {
    "firmware": (FIRMWARE, ROOT / "firmware" / "text" / "locale" / "firmware.pot", "firmware.text.messages"),
    "game": (GAME, ROOT / "controller" / "text" / "locale" / "launcher.pot", "controller.text.messages"),
}


def po(side, lang: str):
    with side.po_path(lang).open("rb") as file:
        return read_po(file, locale=lang)


@pytest.fixture(scope="module", params=[(side, lang) for side in SIDES for lang in LANGUAGES], ids=str)
def catalog(request):
    """(side's catalogue, language, its .po file as read)."""
    side, lang = request.param
    return SIDES[side][0], lang, po(SIDES[side][0], lang)


def entries(catalog):
    return {message.context: message for message in catalog if message.id}


# ---- the catalogues are complete and agree with the source ---------------------------------------


def test_every_message_id_has_a_translation_in_every_language(catalog):
    side, lang, po_catalog = catalog
    found = entries(po_catalog)
    missing = sorted(set(side) - set(found))
    assert not missing, f"{lang}: no entry for {missing}"
    for message_id, message in found.items():
        forms = message.string if isinstance(message.string, tuple) else (message.string,)
        assert all(forms) and not message.fuzzy, f"{lang}: {message_id} is not translated"


def test_no_translation_of_an_id_the_source_no_longer_has(catalog):
    side, lang, po_catalog = catalog
    assert not set(entries(po_catalog)) - set(side), lang


def test_each_translation_is_of_the_current_english_text(catalog):
    """A source text changed without `pybabel update` would leave the translation of the old one."""
    side, lang, po_catalog = catalog
    for message_id, message in entries(po_catalog).items():
        entry = side[message_id]
        source = entry.singular if entry.plural is None else (entry.singular, entry.plural)
        assert message.id == source, f"{lang}: {message_id} translates an older text"


def test_each_translation_has_the_placeholders_of_its_source(catalog):
    side, lang, po_catalog = catalog
    for message_id, message in entries(po_catalog).items():
        entry = side[message_id]
        if entry.plural is None:
            assert placeholders(message.string) == placeholders(entry.singular), (lang, message_id)
            continue
        # Form 0 is the singular in English and French (French's 0 is singular too); the others plural.
        for index, form in enumerate(message.string):
            source = entry.singular if index == 0 else entry.plural
            assert placeholders(form) == placeholders(source), (lang, message_id, index)


def test_a_translation_with_other_placeholders_is_caught():
    assert placeholders("%(player)s doit %(presses)s") != placeholders("%(player)s owes %(presses)d")
    assert placeholders("%(joueur)s doit") != placeholders("%(player)s owes")


def test_babel_finds_no_format_error_in_the_catalogues(catalog):
    side, lang, po_catalog = catalog
    problems = [(message.context, errors) for message, errors in po_catalog.check()]
    assert not problems, f"{lang}: {problems}"


@pytest.mark.parametrize("side", SIDES)
def test_the_template_holds_the_catalogue(side):
    catalogue, pot, module = SIDES[side]
    with pot.open("rb") as file:
        committed = {m.context: (m.id, m.flags) for m in read_po(file) if m.id}
    built = {m.context: (m.id, m.flags) for m in catalogue.template() if m.id}
    assert committed == built, f"regenerate it: python -m {module} > {pot.relative_to(ROOT)}"


@pytest.mark.parametrize("side", SIDES)
def test_python_m_prints_the_template(side):
    catalogue, pot, module = SIDES[side]
    printed = subprocess.run([sys.executable, "-m", module], capture_output=True, cwd=ROOT, timeout=60,
                             check=True).stdout
    built = {m.context: m.id for m in read_po(io.BytesIO(printed)) if m.id}
    assert built == {m.context: m.id for m in catalogue.template() if m.id}


def test_each_message_is_one_sides():
    assert not set(FIRMWARE) & set(GAME)
    assert set(CATALOGUE) == set(FIRMWARE) | set(GAME)
    assert messages.template().domain == "launcher" and messages.po_path("fr") == GAME.po_path("fr")


# ---- rendering --------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("message_id", sorted(CATALOGUE))
def test_every_message_id_renders_in_both_languages(message_id, lang):
    text = render(sample(message_id), lang)
    assert text.strip() and "%(" not in text


@pytest.mark.parametrize(
    ("message", "english", "french"),
    [
        ({"id": "n_presses", "count": 1}, "1 press", "1 appui"),
        ({"id": "n_presses", "count": 2}, "2 presses", "2 appuis"),
        ({"id": "n_cards", "count": 1}, "1 card", "1 carte"),
        ({"id": "n_cards", "count": 0}, "0 cards", "0 carte"),
        ({"id": "mega_hit_passes", "hits": 5, "player": "Cy"},
         "Mega Hit: 5 hits pass to Cy, who presses or stacks a Hit card",
         "Méga appuyer : 5 appuis passent à Cy, qui appuie ou pose une carte Appuyer"),
        ({"id": "pressed_still_owes", "player": "Bob", "cards": 2, "presses": 1},
         "Bob pressed: 2 cards, still owes 1 press",
         "Bob a appuyé : 2 cartes, doit encore 1 appui"),
        ({"id": "owes_or_stack", "player": "Bob", "presses": 2},
         "Bob owes 2 presses or answers with a Hit card",
         "Bob doit 2 appuis ou répond avec une carte Appuyer"),
        ({"id": "hit_fire", "player": "Bob"}, "Bob presses until cards come out",
         "Bob appuie jusqu'à ce que des cartes sortent"),
        ({"id": "owes", "player": "Bob", "presses": None}, "Bob owes presses until cards come out",
         "Bob doit des appuis jusqu'à ce que des cartes sortent"),
        ({"id": "plays_color_at", "player": "Ann", "card": "wild-attack", "color": "red",
          "target": "Bob"}, "Ann plays Wild Attack-Attack (red) at Bob",
         "Ann joue Double attaque (rouge) contre Bob"),
        ({"id": "plays", "player": "Ann", "card": "7"}, "Ann plays 7", "Ann joue 7"),
        ({"id": "first_wild_all_hit", "players": ["Bob", "Cy"]},
         "Wild All Hit turned up: Bob, Cy press once each",
         "Tous appuient retournée : Bob, Cy appuient une fois chacun"),
        ({"id": "match_winner", "winners": ["Ann"]}, "Ann wins the match", "Ann gagne la partie"),
        ({"id": "match_winner", "winners": ["Ann", "Bob", "Cy"]}, "Ann, Bob and Cy win the match",
         "Ann, Bob et Cy gagnent la partie"),
        ({"id": "status_owes", "player": "Bob", "presses": 2,
          "details": [{"id": "status_or_stacks"}, {"id": "status_stops_early"}]},
         "Bob's move - owes 2 presses or stacks a Hit card (stops when cards come out)",
         "À Bob - doit 2 appuis ou pose une carte Appuyer (s'arrête dès que des cartes sortent)"),
        ({"id": "only_hit_answers", "cards": ["hit-1", "wild-attack"], "player": "Bob"},
         "only a Hit card (Hit 1, Wild Attack-Attack) answers a Mega Hit; or Bob presses",
         "seule une carte Appuyer (Appuyer 1 fois, Double attaque) répond à un Méga appuyer ;"
         " sinon Bob appuie"),
        ({"id": "motor_duty_window", "share": 0.5, "window": 60, "seconds": 2.5},
         "the motor may run 50% of any 60.0 s; wait 2.5 s",
         "le moteur peut tourner 50\u00a0% de chaque période de 60,0 s ; attendez 2,5 s"),
        ({"id": "stalled", "seconds": 130.4}, "the daemon was stalled for 130 s; motor stopped",
         "le démon a été bloqué pendant 130 s ; moteur arrêté"),
        ({"id": "press_ignored", "reason": "sleeping"}, "press ignored: sleeping",
         "appui ignoré : en veille"),
        ({"id": "voice_press_twice", "player": "Bob"}, "Bob, press twice", "Bob, appuie deux fois"),
        ({"id": "voice_takes", "player": "Bob", "cards": 1}, "Bob takes one", "Bob prend une carte"),
        ({"id": "voice_takes", "player": "Bob", "cards": 4}, "Bob takes 4", "Bob prend 4 cartes"),
        ({"id": "press_not_counted", "press_id": 7, "cards": 1,
          "reason": {"id": "calls_uno", "player": "Ann"}},
         "press 7 (1 card) is not counted in the game: Ann calls Uno",
         "l'appui 7 (1 carte) ne compte pas dans la partie : Ann dit Uno"),
    ],
)
def test_texts_in_english_as_today_and_in_french(message, english, french):
    assert render(message, "en") == english
    assert render(message, "fr") == french


def test_the_french_card_names_are_the_rule_books():
    names = {card: render({"id": "plays", "player": "A", "card": card}, "fr").removeprefix("A joue ")
             for card in ("hit-1", "hit-2", "wild-attack", "discard-all", "reverse", "skip",
                          "trade-hands", "wild-all-hit", "wild-hit-fire")}
    assert names == {
        "hit-1": "Appuyer 1 fois", "hit-2": "Appuyer 2 fois", "wild-attack": "Double attaque",
        "discard-all": "Poser tout", "reverse": "Inversion", "skip": "Passer",
        "trade-hands": "Échange de mains", "wild-all-hit": "Tous appuient",
        "wild-hit-fire": "Appuyer jusqu'au tir",
    }
    assert render(sample("voice_mega_hit"), "fr").startswith("Méga appuyer !")


@pytest.mark.parametrize(
    "message",
    [
        {"id": "no_such_message"},
        {"id": "owes", "player": "Bob"},  # presses missing
        {"id": "owes", "player": "Bob", "presses": "2"},
        {"id": "owes", "player": "Bob", "presses": True},
        {"id": "plays_color", "player": "Bob", "card": "skip", "color": "pink"},
        {"id": "all_hit", "players": []},
        {"id": "stalled", "seconds": "2.5"},
        {"id": "press_ignored", "reason": "bored"},
        {"text": "a message of the old kind"},
    ],
)
def test_a_malformed_message_is_a_value_error_of_the_project(message):
    with pytest.raises(MessageError) as caught:
        render(message, "en")
    assert isinstance(caught.value, ValueError) and isinstance(caught.value, LauncherError)


def test_an_unknown_language_is_refused():
    with pytest.raises(InvalidParams, match="languages: en, fr"):
        render(sample("calls_uno"), "de")


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({"LANG": "fr_FR.UTF-8"}, "fr"),
        ({"LANG": "fr_CA.UTF-8"}, "fr"),
        ({"LANG": "en_GB.UTF-8"}, "en"),
        ({"LANG": "C.UTF-8"}, "en"),
        ({}, "en"),
        ({"LANG": "en_US.UTF-8", "LC_ALL": "fr_FR.UTF-8"}, "fr"),
        ({"LANG": "fr_FR.UTF-8", "LC_MESSAGES": "en_US.UTF-8"}, "en"),
    ],
)
def test_the_default_language_comes_from_the_locale(environ, expected):
    assert messages.default_language(environ) == expected


def test_a_fresh_process_renders_in_the_locales_language_without_a_compiled_catalogue():
    code = ("from controller.text.messages import render; "
            "print(render({'id': 'voice_press', 'player': 'Bob', 'presses': 2}))")
    env = {"LANG": "fr_FR.UTF-8", "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         cwd=ROOT, timeout=60, check=True).stdout
    assert out == "Bob, appuie 2 fois\n"


@pytest.mark.parametrize("side", SIDES)
def test_no_compiled_catalogue_is_committed_and_the_po_files_are_package_data(side):
    catalogue, pot, _ = SIDES[side]
    package_dir = catalogue.locale_dir.parent
    tracked = subprocess.run(["git", "ls-files", str(catalogue.locale_dir.relative_to(ROOT))], capture_output=True,
                             text=True, cwd=ROOT, check=True).stdout.split()
    assert tracked and not [path for path in tracked if path.endswith(".mo")]
    package = ".".join(package_dir.relative_to(ROOT).parts)
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"][package]
    for path in [pot] + [catalogue.po_path(lang) for lang in LANGUAGES]:
        relative = path.relative_to(package_dir).as_posix()
        assert any(fnmatch.fnmatch(relative, p) for p in patterns), relative


# ---- card names as input ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "card"),
    [
        ("Appuyer 1 fois", "hit-1"), ("appuyer 2 fois", "hit-2"), ("Double attaque", "wild-attack"),
        ("Poser tout", "discard-all"), ("Inversion", "reverse"), ("Passer", "skip"),
        ("Échange de mains", "trade-hands"), ("echange de mains", "trade-hands"),
        ("Tous appuient", "wild-all-hit"), ("Appuyer jusqu'au tir", "wild-hit-fire"),
        ("Appuyer jusqu\u2019au tir", "wild-hit-fire"), ("  DOUBLE   ATTAQUE ", "wild-attack"),
        ("hit-2", "hit-2"), ("wild-attack", "wild-attack"), ("Carte blanche", "wild"), ("7", "7"),
    ],
)
def test_french_card_names_are_accepted_as_input(name, card):
    assert card_id(name) == card


@pytest.mark.parametrize("name", ["Méga appuyer", "joker rose", "", "hit 3"])
def test_an_unknown_card_name_is_invalid(name):
    with pytest.raises(InvalidParams):
        card_id(name)


def test_every_card_of_every_ruleset_has_a_name_in_both_languages_and_reads_back():
    for ruleset, table in POINTS.items():
        for card in table:
            for lang in LANGUAGES:
                shown = render({"id": "plays", "player": "A", "card": card}, lang)
                name = shown.split(" ", 2)[2]
                assert card_id(name) == card, (ruleset, card, lang, name)


@pytest.mark.parametrize(("name", "color"), [("rouge", "red"), ("Jaune", "yellow"), ("VERT", "green"),
                                             ("bleu", "blue"), ("red", "red"), ("Blue", "blue")])
def test_colours_are_accepted_in_either_language(name, color):
    assert color_id(name) == color


@pytest.mark.parametrize("name", ["rose", "", None, "verte "])
def test_an_unknown_colour_is_invalid(name):
    with pytest.raises(InvalidParams, match="red / rouge"):
        color_id(name)
