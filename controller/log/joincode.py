"""The table's join code: eight digits that let a phone act on the game (issues #12, #22).

Anyone on the LAN may look at the table page; every action needs the code. The code belongs to the
table, so the game layer keeps it, in its own small file of the state directory rather than in the
game log: a damaged log (which the table repairs through the page too) must not lock the table out.
Rotating it (``new``) cuts off every phone that knew the old one.

A state directory that cannot be written (read-only, deleted under the daemon) keeps the code in
memory: the table still works until the daemon restarts, and the log says why it will change then.
"""

from __future__ import annotations

import hmac
import logging
import os
import secrets
from pathlib import Path
from typing import Callable

log = logging.getLogger("launcherd.game")

FILENAME = "join-code"
# 10^8 codes: with launcher-web's limit for the whole table, guessing takes years (docs/web.md).
DIGITS = 8


def _fresh(randbelow: Callable[[int], int]) -> str:
    return f"{randbelow(10 ** DIGITS):0{DIGITS}d}"


def well_formed(code: object) -> bool:
    """DIGITS ASCII digits, nothing else (no spaces, no signs, no other scripts' digits)."""
    return isinstance(code, str) and len(code) == DIGITS and code.isascii() and code.isdigit()


class JoinCode:
    """The code of one table, kept in ``state_dir/join-code``."""

    def __init__(self, state_dir: str | Path, randbelow: Callable[[int], int] = secrets.randbelow):
        self.path = Path(state_dir) / FILENAME
        self._randbelow = randbelow
        self._code = self._read()
        if self._code is None:
            self._code = self._store(_fresh(randbelow))

    @property
    def code(self) -> str:
        return self._code

    def rotate(self) -> str:
        """A new code; the old one stops working at once."""
        code = _fresh(self._randbelow)
        while code == self._code:  # a "new" code equal to the old one would cut nobody off
            code = _fresh(self._randbelow)
        self._code = self._store(code)
        return self._code

    def check(self, code: object) -> bool:
        """Whether ``code`` is the table's; compared in constant time (it guards the table's actions)."""
        return well_formed(code) and hmac.compare_digest(code.encode(), self._code.encode())

    def _read(self) -> str | None:
        try:
            text = self.path.read_text(encoding="ascii").strip()
        except FileNotFoundError:
            return None
        except (OSError, UnicodeError) as exc:
            log.warning("game: the join code in %s cannot be read (%s): a new one is made", self.path, exc)
            return None
        if not well_formed(text):
            log.warning("game: %s does not hold a %d-digit code: a new one is made", self.path, DIGITS)
            return None
        return text

    def _store(self, code: str) -> str:
        """Write the code atomically (a power cut leaves the old code or the new, never half of one)."""
        partial = self.path.with_name(FILENAME + ".tmp")
        try:
            with open(partial, "w", encoding="ascii") as out:
                out.write(code + "\n")
                out.flush()
                os.fsync(out.fileno())
            os.replace(partial, self.path)
        except OSError as exc:
            log.warning("game: the join code cannot be saved in %s (%s): it holds until the daemon"
                        " restarts", self.path.parent, exc)
        return code
