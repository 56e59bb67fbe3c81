"""`make demo` speaks only where it can be heard, and says why when it does not."""

from __future__ import annotations

import subprocess
import sys

import pytest

from controller.text.messages import GAME, LANGUAGES, render
from controller.voice.sound import INSTALL, decide, sound_cards

ONE_CARD = """\
**** List of PLAYBACK Hardware Devices ****
card 0: PCH [HDA Intel PCH], device 0: ALC3246 Analog [ALC3246 Analog]
  Subdevices: 1/1
  Subdevice #0: subdevice #0
card 1: Headphones [bcm2835 Headphones], device 0: bcm2835 Headphones [bcm2835 Headphones]
"""
NO_CARD = ""  # aplay -l prints "no soundcards found..." on stderr and nothing on stdout


def test_the_cards_of_an_aplay_listing_are_counted():
    assert sound_cards(ONE_CARD) == 2
    assert sound_cards(NO_CARD) == 0
    assert sound_cards("aplay: device_list:274: no soundcards found...") == 0


@pytest.mark.parametrize("lang", LANGUAGES)
def test_with_a_sound_card_espeak_and_aplay_the_demo_speaks_and_says_how_to_stop_it(lang):
    decision = decide(ONE_CARD, espeak=True, mute=False, lang=lang)
    assert decision.speaks and decision.message["id"] == "demo_voice_speaks"
    # It names the language it speaks, in that language's words, and how to stop it.
    assert GAME.text(f"language:{lang}", lang) in decision.line
    assert "make demo MUTE=1" in decision.line and "launcher-voice --mute" in decision.line


@pytest.mark.parametrize("listing, espeak, why", [
    (None, True, "demo_voice_no_aplay"),
    (ONE_CARD, False, "demo_voice_no_espeak"),
    (NO_CARD, True, "demo_voice_no_sound_card"),
])
@pytest.mark.parametrize("lang", LANGUAGES)
def test_without_what_it_needs_the_demo_is_silent_and_says_why(listing, espeak, why, lang):
    decision = decide(listing, espeak=espeak, mute=False, lang=lang)
    assert not decision.speaks and decision.message["id"] == why
    assert decision.line == render(decision.message, lang)
    if why != "demo_voice_no_sound_card":
        assert INSTALL in decision.line  # the command that fixes it


def test_mute_keeps_it_silent_even_with_sound():
    decision = decide(ONE_CARD, espeak=True, mute=True, lang="fr")
    assert not decision.speaks and decision.message["id"] == "demo_voice_muted" and "MUTE=1" in decision.line


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_command_prints_one_line_in_the_demos_language_and_answers_with_its_status(lang):
    """``make demo DEMO_LANG=fr`` runs it with ``--lang fr``: the line the demo prints is French."""
    result = subprocess.run([sys.executable, "-m", "controller.voice.sound", "--mute", "--lang", lang],
                            capture_output=True, text=True, timeout=30)
    assert result.returncode == 1
    assert result.stdout == render({"id": "demo_voice_muted"}, lang) + "\n"
    other = next(other for other in LANGUAGES if other != lang)
    assert result.stdout != render({"id": "demo_voice_muted"}, other) + "\n"
