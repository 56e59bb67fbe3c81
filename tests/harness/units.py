"""systemd unit files, read the way the tests compare them."""

from __future__ import annotations

import shutil
from pathlib import Path

VENV_BIN = Path(__file__).resolve().parent.parent.parent / ".venv" / "bin"

def parse_unit(text: str) -> dict[str, dict[str, list[str]]]:
    """Sections of a unit file, each key with every value it was given, in order."""
    sections: dict[str, dict[str, list[str]]] = {}
    current = None
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            current = sections.setdefault(line.strip("[]"), {})
            continue
        key, _, value = line.partition("=")
        current.setdefault(key, []).append(value)
    return sections


def checkable_copy(unit: Path, installed: str, directory: Path) -> Path:
    """A copy of ``unit`` in ``directory`` whose ExecStart= names an executable that exists here
    (``systemd-analyze verify`` checks it): the venv's of the same name, else ``true``."""
    executable = VENV_BIN / Path(installed).name
    if not executable.exists():
        executable = Path(shutil.which("true"))
    path = directory / unit.name
    path.write_text(unit.read_text().replace(installed, str(executable)))
    return path
