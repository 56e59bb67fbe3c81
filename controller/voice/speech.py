"""Phrases to sound: espeak-ng renders a WAV file, cached, and ALSA's ``aplay`` plays it.

espeak-ng (Debian's ``espeak-ng``) is the voice: it has English and French, needs no network and
renders a short phrase in well under a second on a Pi 4. Rendering is still the slow part on a
Pi Zero, so every rendered phrase is kept in a cache directory, keyed by text, voice, volume and
rate: a phrase said before ("Bob, press twice") starts at once. The phrases a round surely needs
(each player's turn and attacks) are rendered when the players are known, before they are said.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from firmware.errors import HardwareError, InvalidParams

VOICES = {"en": "en", "fr": "fr"}  # espeak-ng voice of each language
RATE_WPM = 165  # a little slower than espeak's 175: heard across a table
MAX_VOLUME = 200  # espeak-ng's amplitude scale; 100 is its default loudness
CACHE_LIMIT = 500  # phrases kept; player names make the set open-ended
# Bytes kept: the cache shares the SD card with the game log. A phrase is 50-200 KB.
CACHE_BYTES = 32 * 1024 * 1024
RENDER_TIMEOUT_S = 20.0
# A ``.part`` file older than this is no render in progress (those end within RENDER_TIMEOUT_S) but
# what a render left when launcher-voice was killed in its middle, or the disk filled up.
PART_LEFT_OVER_S = 3 * RENDER_TIMEOUT_S


class SpeechError(HardwareError):
    """espeak-ng or the audio player is missing or failed."""


def default_cache_dir() -> Path:
    """systemd's CacheDirectory= ($CACHE_DIRECTORY), else the user's cache."""
    if os.environ.get("CACHE_DIRECTORY"):
        return Path(os.environ["CACHE_DIRECTORY"].split(":")[0])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "launcher-voice"


class Speech:
    """Renders phrases to cached WAV files in one language's voice and plays them."""

    def __init__(self, lang: str, cache_dir: Path, volume: int = 100, rate: int = RATE_WPM,
                 device: str | None = None, espeak: str = "espeak-ng", player: str = "aplay"):
        if lang not in VOICES:
            raise InvalidParams(f"no voice for language {lang!r}; languages: " + ", ".join(VOICES))
        if not 0 <= volume <= MAX_VOLUME:
            raise InvalidParams(f"volume must be 0 to {MAX_VOLUME} (100: espeak-ng's normal), not {volume}")
        self.voice = VOICES[lang]
        self.cache_dir = Path(cache_dir)
        self.volume = volume
        self.rate = rate
        self.device = device
        self.espeak = espeak
        self.player = player

    def wav(self, text: str) -> Path:
        """The WAV file of a phrase, rendered now unless the cache has it."""
        key = hashlib.sha256(f"{self.voice}\0{self.volume}\0{self.rate}\0{text}".encode()).hexdigest()
        path = self.cache_dir / f"{key[:32]}.wav"
        if path.exists():
            os.utime(path)  # recently said: kept longest when the cache is pruned
            return path
        if shutil.which(self.espeak) is None:
            raise SpeechError(f"{self.espeak} is not installed (Debian: apt install espeak-ng)")
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        # A name of its own: the speaking loop and the warm-up may render the same phrase at once.
        handle, name = tempfile.mkstemp(suffix=".part", dir=self.cache_dir)
        os.close(handle)
        partial = Path(name)
        command = [self.espeak, "-v", self.voice, "-a", str(self.volume), "-s", str(self.rate),
                   "-w", str(partial), "--", text]
        try:
            subprocess.run(command, check=True, capture_output=True, timeout=RENDER_TIMEOUT_S)
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
            partial.unlink(missing_ok=True)
            raise SpeechError(f"{self.espeak} failed on {text!r}: {exc}") from None
        os.replace(partial, path)  # a reader never sees half a file
        self._prune()
        return path

    def _prune(self) -> None:
        """Keep the most recently said phrases, at most CACHE_LIMIT of them and CACHE_BYTES in all,
        and remove the ``.part`` files that renders left behind."""
        now = time.time()
        for path in self.cache_dir.glob("*.part"):
            try:
                if now - path.stat().st_mtime > PART_LEFT_OVER_S:
                    path.unlink()
            except FileNotFoundError:
                continue  # finished or pruned meanwhile by the warm-up's thread
        phrases = []
        for path in self.cache_dir.glob("*.wav"):
            try:
                info = path.stat()
            except FileNotFoundError:
                continue  # pruned meanwhile by the warm-up's thread
            phrases.append((info.st_mtime, info.st_size, path))
        phrases.sort(reverse=True)
        kept = 0
        for number, (_, size, path) in enumerate(phrases):
            kept += size
            if number >= CACHE_LIMIT or kept > CACHE_BYTES:
                path.unlink(missing_ok=True)

    async def warm(self, texts: list[str]) -> None:
        """Render phrases ahead of time, one after the other, so that they start at once later."""
        for text in texts:
            await asyncio.to_thread(self.wav, text)

    async def say(self, text: str) -> None:
        """Speak a phrase and return when it has been said."""
        path = await asyncio.to_thread(self.wav, text)
        command = [self.player, "-q"] + (["-D", self.device] if self.device else []) + [str(path)]
        try:
            process = await asyncio.create_subprocess_exec(
                *command, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
        except FileNotFoundError:
            raise SpeechError(f"{self.player} is not installed (Debian: apt install alsa-utils)") from None
        try:
            _, error = await process.communicate()
        except asyncio.CancelledError:  # cut short (an alert): the speaker falls silent at once
            process.kill()
            await process.wait()
            raise
        if process.returncode:
            raise SpeechError(f"{self.player} failed: {error.decode(errors='replace').strip()}")
