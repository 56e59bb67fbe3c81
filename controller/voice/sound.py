"""Whether `make demo` can speak, and the one line that says so (``python -m controller.voice.sound``).

The demo starts launcher-voice beside the table page only when it can be heard: ``aplay -l`` lists
a sound card and espeak-ng and aplay are installed. Otherwise it stays silent and says why, with the
command that fixes it. The decision is :func:`decide`, a pure function of what was found; ``main``
looks at the machine, prints the line and answers with its exit status (0: start the voice).
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass

from typing import Any

from controller.text.messages import LANGUAGES, default_language, render

INSTALL = "sudo apt install espeak-ng alsa-utils"
# `aplay -l` lists each playback device as "card 0: PCH [HDA Intel PCH], device 0: ...".
_CARD_LINE = re.compile(r"^card \d+:", re.MULTILINE)


@dataclass(frozen=True)
class Decision:
    speaks: bool
    message: dict[str, Any]  # what the demo prints about its voice, as a message object
    lang: str

    @property
    def line(self) -> str:
        """The line the demo prints, in its language."""
        return render(self.message, self.lang)


def sound_cards(aplay_list: str) -> int:
    """How many playback devices an ``aplay -l`` listing names."""
    return len(_CARD_LINE.findall(aplay_list))


def decide(aplay_list: str | None, espeak: bool, mute: bool, lang: str) -> Decision:
    """Whether the demo speaks, from ``aplay -l``'s listing (None: aplay is missing), whether
    espeak-ng is installed, ``MUTE`` and the language."""
    if mute:
        return Decision(False, {"id": "demo_voice_muted"}, lang)
    if aplay_list is None:
        return Decision(False, {"id": "demo_voice_no_aplay", "install": INSTALL}, lang)
    if not espeak:
        return Decision(False, {"id": "demo_voice_no_espeak", "install": INSTALL}, lang)
    if not sound_cards(aplay_list):
        return Decision(False, {"id": "demo_voice_no_sound_card"}, lang)
    return Decision(True, {"id": "demo_voice_speaks", "language": {"id": f"language:{lang}"}}, lang)


def aplay_listing() -> str | None:
    """``aplay -l``'s output (an empty listing when it fails), None when aplay is not installed."""
    if shutil.which("aplay") is None:
        return None
    try:
        result = subprocess.run(["aplay", "-l"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return result.stdout


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m controller.voice.sound",
        description="Whether make demo can speak: exit 0 if launcher-voice should start, 1 if not.")
    parser.add_argument("--mute", action="store_true", help="the demo was asked to be silent (MUTE=1)")
    parser.add_argument("--lang", choices=LANGUAGES, help="the demo's language (default: the locale's)")
    args = parser.parse_args(argv)
    decision = decide(aplay_listing(), shutil.which("espeak-ng") is not None, args.mute,
                      args.lang or default_language())
    print(decision.line)
    return 0 if decision.speaks else 1


if __name__ == "__main__":
    sys.exit(main())
