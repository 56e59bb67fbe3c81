"""Firmware owns its catalogue (firmware/text/): every message firmware's code says is there, in English
and French with the source's placeholders, and renders without the game installed; with the game,
a message of either side renders through the one door, firmware's catalogue looked up first."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from controller.text.messages import GAME
from firmware import i18n
from firmware.text.catalogue import Catalogue, MessageError, placeholders
from firmware.text.messages import FIRMWARE

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted(path for path in (ROOT / "firmware").rglob("*.py") if path.parent != ROOT / "firmware" / "text")
EVERY_ID = set(FIRMWARE) | set(GAME)
# Literals of firmware that are also a game's id but name no message: a self-test step's result.
NOT_MESSAGES = frozenset({"skipped"})
# The kinds whose values are words of the catalogue ("state" -> "state:ready").
WORD_KINDS = ("state", "ended", "outcome", "motor_direction", "card", "color", "direction", "awaiting", "profile",
              "value_type")

# A value of each kind firmware's messages take, every one firmware's own.
SAMPLES = {
    "int": 3, "raw": "GPIO 17", "text": "a reason", "number": 0.2, "percent": 0.5, "seconds": 1.9,
    "state": "lid_open", "ended": "motor_limit", "outcome": "burst", "motor_direction": "reverse", "profile": "fixed",
    "value_type": "float",
    "parts": [{"id": "status_slot_full", "slot": 1}, {"id": "status_slot_empty", "slot": 2}],
}


def firmware_ids() -> set[str]:
    """The ids firmware's code names: as literals, built from a literal prefix (``f"selftest_act_{name}"``)
    or suffix (``said["id"] + "_ended"``), and the words its messages' kinds read."""
    used = set()
    for path in SOURCES:
        text = path.read_text()
        used |= {found for found in re.findall(r"[\"']([a-z0-9_:\-]+)[\"']", text) if found in EVERY_ID}
        for prefix in re.findall(r"\bf[\"']([a-z_:]+)\{", text):
            used |= {message_id for message_id in EVERY_ID if message_id.startswith(prefix)}
        for suffix in re.findall(r"\+ [\"'](_[a-z_]+)[\"']", text):
            used |= {message_id for message_id in EVERY_ID
                     if message_id.endswith(suffix) and message_id.removesuffix(suffix) in EVERY_ID}
    kinds = {kind for message_id in used if message_id in FIRMWARE for kind in FIRMWARE[message_id].params.values()}
    used |= {message_id for message_id in EVERY_ID for kind in kinds & set(WORD_KINDS)
             if message_id.startswith(f"{kind}:")}
    return used - NOT_MESSAGES


def test_firmware_s_catalogue_holds_exactly_the_ids_firmware_says():
    used = firmware_ids()
    assert len(used) > 250  # the walk found the launcher's, the dealer's and bring-up's texts
    assert sorted(used - set(FIRMWARE)) == [], "firmware says these, its catalogue lacks them"
    assert sorted(set(FIRMWARE) - used) == [], "firmware's catalogue holds these, firmware never says them"


def test_the_walk_sees_built_ids_and_kind_words():
    used = firmware_ids()
    for message_id in ("press_out_asked_ended", "selftest_act_lid", "selftest_mark_skipped", "input_level:blocked",
                       "state:decision_pending", "outcome:blast", "motor_direction:reverse", "ended:cancelled"):
        assert message_id in used


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_every_id_firmware_says_is_translated_with_the_source_placeholders(lang):
    with FIRMWARE.po_path(lang).open("rb") as file:
        translated = {message.context: message for message in read_po(file, locale=lang) if message.id}
    for message_id in sorted(firmware_ids()):
        entry, message = FIRMWARE[message_id], translated[message_id]
        forms = message.string if isinstance(message.string, tuple) else (message.string,)
        # Form 0 is the singular in English and French (French's 0 is singular too); the others plural.
        sources = [entry.singular] + [entry.plural] * (len(forms) - 1)
        assert all(forms) and not message.fuzzy, (lang, message_id)
        assert [placeholders(form) for form in forms] == [placeholders(source) for source in sources], (lang, message_id)


# ---- without the game, and with it ----------------------------------------------------------------------


@pytest.fixture
def without_the_game(monkeypatch):
    """launcherd where only firmware is installed: the entry points find firmware's catalogue alone."""
    monkeypatch.setattr(i18n, "catalogues", lambda: (FIRMWARE,))


def _sample(message_id: str) -> dict:
    return {"id": message_id, **{name: SAMPLES[kind] for name, kind in FIRMWARE[message_id].params.items()}}


@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_without_the_game_every_firmware_message_renders(without_the_game, lang):
    for message_id in FIRMWARE:
        text = i18n.render(_sample(message_id), lang)
        assert text.strip() and "%(" not in text and not text.startswith(f"{message_id}("), message_id


def test_without_the_game_the_launcher_still_speaks_its_texts(without_the_game):
    rest = i18n.message("motor_needs_rest", seconds=1.9)
    assert i18n.render(rest, "en") == "the motor needs 1.9 s of rest"
    assert i18n.render(rest, "fr") == "le moteur doit se reposer 1,9 s"
    halted = i18n.message("dispense_halted", reason=i18n.message("stalled", seconds=2.5))
    assert i18n.render(halted, "en") == "the launcher halted: the daemon was stalled for 2.5 s; motor stopped"
    with pytest.raises(MessageError):  # a game's message has no text here, and says so
        i18n.render(i18n.message("calls_uno", player="Ann"), "en")


def test_with_no_catalogue_at_all_a_message_shows_as_its_id_and_parameters(monkeypatch):
    monkeypatch.setattr(i18n, "catalogues", lambda: ())
    assert i18n.render(i18n.message("motor_needs_rest", seconds=1.9), "en") == "motor_needs_rest(seconds=1.9)"


def test_the_entry_points_find_firmware_s_catalogue_first_then_the_game_s():
    assert i18n.catalogues() == (FIRMWARE, GAME)
    assert i18n.catalogue_of("motor_needs_rest") is FIRMWARE and i18n.catalogue_of("calls_uno") is GAME
    assert i18n.catalogue_of("no_such_message") is None


def test_a_message_of_one_side_carries_the_other_s():
    game_reason = i18n.message("press_not_counted", press_id=7, cards=1, reason=i18n.message("refused_not_sleeping"))
    assert i18n.render(game_reason, "fr") == ("l'appui 7 (1 carte) ne compte pas dans la partie : le lanceur n'est"
                                              " pas en veille")
    waiting = i18n.message("status_pending", what=i18n.message("calls_uno", player="Ann"))
    assert i18n.render(waiting, "en") == "waiting    Ann calls Uno"


def test_prepare_compiles_every_catalogue_in_every_language_before_any_is_used(tmp_path, monkeypatch):
    locale = tmp_path / "locale"
    shutil.copytree(FIRMWARE.locale_dir, locale)
    fresh = Catalogue(FIRMWARE.domain, locale, FIRMWARE)
    monkeypatch.setattr(i18n, "catalogues", lambda: (fresh,))
    i18n.prepare()
    shutil.rmtree(locale)  # what was not compiled by now cannot be any more
    rest = i18n.message("motor_needs_rest", seconds=1.9)
    assert [i18n.render(rest, lang) for lang in i18n.LANGUAGES] == ["the motor needs 1.9 s of rest",
                                                                    "le moteur doit se reposer 1,9 s"]
