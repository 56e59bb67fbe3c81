"""The page's symbols are glyphs the default fonts have (issue #40): Raspberry Pi OS's DejaVu Sans,
and the phones' system fonts. A pause sign, a no-entry sign or an emoji showed as an empty box on
the Pi's screen."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

WEB = Path(__file__).resolve().parent.parent / "controller" / "web"
FILES = [*sorted((WEB / "static").iterdir()), WEB / "page_texts.py"]
# Every symbol the page uses, each in DejaVu Sans (fc-list ':charset=HEX' family).
IN_DEJAVU_SANS = set("–…↓↺↻▶●◐☾⚠⚡✔✕✖➜⟳★")


def symbols() -> dict[str, list[str]]:
    used: dict[str, list[str]] = {}
    for path in FILES:
        for char in path.read_text(encoding="utf-8"):
            if ord(char) >= 0x2000 and char not in "\u2019\u2018\u201c\u201d\u00a0\u202f":
                used.setdefault(char, []).append(path.name)
    return used


def test_every_symbol_of_the_page_is_in_the_default_fonts():
    outside = {char: sorted(set(files)) for char, files in symbols().items() if char not in IN_DEJAVU_SANS}
    assert outside == {}


@pytest.mark.skipif(shutil.which("fc-list") is None, reason="no fontconfig here")
def test_the_list_is_dejavu_sans_s_where_fontconfig_can_tell():
    families = subprocess.run(["fc-list", ":family=DejaVu Sans", "family"], capture_output=True, text=True).stdout
    if "DejaVu Sans" not in families:
        pytest.skip("DejaVu Sans is not installed here")
    for char in sorted(set(symbols()) & IN_DEJAVU_SANS):
        found = subprocess.run(["fc-list", f":family=DejaVu Sans:charset={ord(char):x}", "family"],
                               capture_output=True, text=True).stdout
        assert "DejaVu Sans" in found, f"{char} U+{ord(char):04X}"
