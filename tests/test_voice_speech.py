"""launcher-voice's speech: phrases rendered to WAV files by espeak-ng, in each language's voice, cached."""

from __future__ import annotations

import array
import asyncio
import shutil
import subprocess
import wave
from pathlib import Path

import pytest

from controller.text.messages import render
from controller.voice.speech import CACHE_LIMIT, Speech, SpeechError
from firmware.errors import HardwareError, InvalidParams

ESPEAK = shutil.which("espeak-ng")
needs_espeak = pytest.mark.skipif(ESPEAK is None, reason="espeak-ng is not installed (apt install espeak-ng)")


def samples(path: Path) -> tuple[wave._wave_params, array.array]:
    with wave.open(str(path)) as wav:
        params = wav.getparams()
        frames = array.array("h", wav.readframes(params.nframes))
    return params, frames


def seconds(path: Path) -> float:
    params, _ = samples(path)
    return params.nframes / params.framerate


def peak(path: Path) -> int:
    return max(abs(s) for s in samples(path)[1])


def reference(tmp_path: Path, voice: str, text: str, volume: int = 100) -> array.array:
    """What espeak-ng says for a text in a voice, rendered directly (it is deterministic)."""
    path = tmp_path / f"reference-{voice}-{volume}.wav"
    subprocess.run([ESPEAK, "-v", voice, "-a", str(volume), "-s", "165", "-w", str(path), "--", text],
                   check=True, capture_output=True)
    return samples(path)[1]


@needs_espeak
@pytest.mark.parametrize(
    ("lang", "message"),
    [
        ("en", {"id": "voice_press_twice", "player": "Bob"}),
        ("fr", {"id": "voice_press_twice", "player": "Bob"}),
        ("en", {"id": "voice_mega_hit", "hits": 5, "player": "Cy"}),
        ("fr", {"id": "voice_takes", "player": "Bob", "cards": 4}),
        ("fr", {"id": "voice_jam"}),
    ],
)
def test_a_phrase_becomes_a_wav_of_plausible_length_in_its_languages_voice(tmp_path, lang, message):
    text = render(message, lang)
    path = Speech(lang, tmp_path / "cache").wav(text)
    params, frames = samples(path)
    assert (params.nchannels, params.sampwidth) == (1, 2) and params.framerate >= 16000
    # A short phrase: more than a blip, less than a speech; and not silence.
    assert 0.5 <= seconds(path) <= 0.25 * len(text.split()) + 1.5, seconds(path)
    assert peak(path) > 1000
    other = {"en": "fr", "fr": "en"}[lang]
    assert frames == reference(tmp_path, lang, text)
    assert frames != reference(tmp_path, other, text)


@needs_espeak
def test_a_repeated_phrase_comes_from_the_cache_without_espeak(tmp_path):
    cache = tmp_path / "cache"
    first = Speech("en", cache).wav("Bob, press twice")
    again = Speech("en", cache, espeak=str(tmp_path / "no-espeak-here")).wav("Bob, press twice")
    assert again == first
    with pytest.raises(SpeechError, match="not installed"):
        Speech("en", cache, espeak=str(tmp_path / "no-espeak-here")).wav("Cy, press twice")


@needs_espeak
def test_phrases_warmed_up_are_said_from_the_cache(tmp_path):
    cache = tmp_path / "cache"
    asyncio.run(Speech("fr", cache).warm(["À Bob de jouer", "Bob, appuie deux fois"]))
    without_espeak = Speech("fr", cache, espeak=str(tmp_path / "no-espeak-here"))
    assert seconds(without_espeak.wav("À Bob de jouer")) > 0.5
    assert seconds(without_espeak.wav("Bob, appuie deux fois")) > 0.5
    assert not list(cache.glob("*.part"))


@needs_espeak
def test_voice_and_volume_are_part_of_the_cache_key(tmp_path):
    cache = tmp_path / "cache"
    loud = Speech("en", cache, volume=150).wav("Bob takes 4")
    soft = Speech("en", cache, volume=30).wav("Bob takes 4")
    french = Speech("fr", cache, volume=150).wav("Bob takes 4")
    assert len({loud, soft, french}) == 3
    assert peak(soft) < peak(loud) / 2


@needs_espeak
def test_the_cache_keeps_the_most_recent_phrases(tmp_path, monkeypatch):
    monkeypatch.setattr("controller.voice.speech.CACHE_LIMIT", 2)
    speech = Speech("en", tmp_path / "cache")
    first = speech.wav("one")
    speech.wav("two")
    speech.wav("three")
    assert not first.exists() and len(list((tmp_path / "cache").glob("*.wav"))) == 2
    assert CACHE_LIMIT >= 100  # the real limit leaves room for every player's phrases


@needs_espeak
def test_say_plays_the_cached_file_with_the_player_and_device(tmp_path):
    log = tmp_path / "played"
    player = tmp_path / "fake-aplay"
    player.write_text(f'#!/bin/sh\necho "$@" > {log}\n')
    player.chmod(0o755)
    speech = Speech("fr", tmp_path / "cache", device="plughw:1", player=str(player))
    asyncio.run(speech.say("Une carte est coincée"))
    assert log.read_text().split() == ["-q", "-D", "plughw:1", str(speech.wav("Une carte est coincée"))]


@needs_espeak
def test_a_failing_or_missing_player_is_a_speech_error(tmp_path):
    player = tmp_path / "broken-aplay"
    player.write_text("#!/bin/sh\necho 'no such device' >&2\nexit 1\n")
    player.chmod(0o755)
    for name, why in ((str(player), "no such device"), (str(tmp_path / "none"), "not installed")):
        with pytest.raises(SpeechError, match=why) as caught:
            asyncio.run(Speech("en", tmp_path / "cache", player=name).say("Bob takes 4"))
        assert isinstance(caught.value, HardwareError) and isinstance(caught.value, RuntimeError)


@pytest.mark.parametrize(("lang", "volume"), [("de", 100), ("en", -1), ("en", 201)])
def test_bad_language_or_volume_is_refused(tmp_path, lang, volume):
    with pytest.raises(InvalidParams):
        Speech(lang, tmp_path, volume=volume)


def test_part_files_a_render_left_behind_are_pruned_and_one_in_progress_is_not(tmp_path):
    """launcher-voice killed in the middle of a render (or a full disk) leaves a ``.part`` file."""
    import os
    import sys
    import time

    from controller.voice.speech import PART_LEFT_OVER_S

    fake = tmp_path / "espeak-ng"
    fake.write_text(f"#!{sys.executable}\nimport sys\nargs = sys.argv[1:]\n"
                    "open(args[args.index('-w') + 1], 'wb').write(bytes(1000))\n")
    fake.chmod(0o755)
    cache = tmp_path / "cache"
    cache.mkdir()
    left_over, in_progress = cache / "tmpabandoned.part", cache / "tmprendering.part"
    for path in (left_over, in_progress):
        path.write_bytes(bytes(4096))
    long_ago = time.time() - PART_LEFT_OVER_S - 1
    os.utime(left_over, (long_ago, long_ago))
    Speech("en", cache, espeak=str(fake)).wav("Bob takes 4")
    assert not left_over.exists() and in_progress.exists()
