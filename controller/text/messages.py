"""What the game says, as data: a message id and its parameters, rendered at the edge.

A message is a JSON object ``{"id": "mega_hit_passes", "hits": 5, "player": "Cy"}``: the game, the
daemon and the event stream carry it as it is, and whoever shows or speaks it calls :func:`render`
in the language its reader asked for. Each side owns its catalogue: :data:`GAME` holds the game's
texts (what a round says: controller/text/round_texts.py; what the table is told:
controller/text/table_texts.py), firmware/text/messages.py the launcher's; :func:`render` renders a
message of either, and :data:`CATALOGUE` is both. The machinery (parameter kinds, plurals, the .po
files compiled in memory) is firmware/text/catalogue.py.

Maintenance (docs/voice.md): after changing the game's texts, regenerate the template with
``python -m controller.text.messages > controller/text/locale/launcher.pot``, merge it into the
languages with ``pybabel update``, and translate what is new; ``tests/test_messages.py`` fails until
every id is translated in every language.
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Mapping

from controller.text.round_texts import ROUND, WORDS
from controller.text.table_texts import TABLE, VOICE
from firmware import i18n
from firmware.errors import InvalidParams
from firmware.i18n import LANGUAGES, locale_language as default_language
from firmware.text.catalogue import Catalogue, MessageError, Text

if TYPE_CHECKING:
    from babel.messages.catalog import Catalog
from firmware.text.messages import FIRMWARE

# LANGUAGES, MessageError and default_language are part of this module's interface (launcher-web,
# launcher-voice, make demo): the game's texts are used from here.
__all__ = ["CATALOGUE", "GAME", "LANGUAGES", "MessageError", "card_id", "color_id", "default_language", "language",
           "po_path", "render", "template"]

GAME = Catalogue("launcher", Path(__file__).resolve().parent / "locale", {**WORDS, **ROUND, **TABLE, **VOICE})
# Every message that renders here: the launcher's and the game's.
CATALOGUE: Mapping[str, Text] = MappingProxyType({**FIRMWARE, **GAME})


def language(lang: str | None) -> str:
    """A language asked for (None: the locale's), checked."""
    if lang is None:
        return default_language()
    if lang not in LANGUAGES:
        raise InvalidParams(f"unknown language {lang!r}; languages: " + ", ".join(LANGUAGES))
    return lang


def po_path(lang: str) -> Path:
    """The game's translations into ``lang``."""
    return GAME.po_path(lang)


def render(message: Mapping[str, Any], lang: str | None = None) -> str:
    """The text of a message object of either side in a language ("en" or "fr"; None: the locale's)."""
    return i18n.render(message, language(lang))


# ---- card and colour names as input --------------------------------------------------------------------


def _folded(name: str) -> str:
    """A card name as compared: no case, no accents, one kind of apostrophe and spacing."""
    # Here, not at the top: launcherd loads this catalogue for the game's press reasons and never
    # reads a card's name, and unicodedata is 0.25 MiB of its memory.
    import unicodedata

    decomposed = unicodedata.normalize("NFKD", name.replace("\u2019", "'"))
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(plain.casefold().replace("-", " ").split())


def card_id(name: str) -> str:
    """The internal card id of a card named by its id or by its name in any language.

    "Appuyer 2 fois", "appuyer 2 fois" and "hit-2" all give "hit-2"; a number is itself. Whether
    the ruleset has the card is the game's business.
    """
    if not isinstance(name, str) or not name.strip():
        raise InvalidParams(f"a card name is a non-empty text, not {name!r}")
    wanted = _folded(name)
    if wanted.isdigit():
        return wanted
    for key in GAME:
        if not key.startswith("card:"):
            continue
        card = key.removeprefix("card:")
        if wanted in {_folded(GAME.text(key, lang)) for lang in LANGUAGES} | {_folded(card)}:
            return card
    known = [GAME.text(key, "fr") for key in GAME if key.startswith("card:")]
    raise InvalidParams(f"unknown card {name!r}; cards: " + ", ".join(known))


def color_id(name: str) -> str:
    """The internal colour ("red") of a colour named in any language ("rouge", "Rouge", "red")."""
    wanted = _folded(name) if isinstance(name, str) else None
    for key in GAME:
        if key.startswith("color:"):
            color = key.removeprefix("color:")
            if wanted in {_folded(GAME.text(key, lang)) for lang in LANGUAGES} | {color}:
                return color
    known = [f"{GAME.text(key, 'en')} / {GAME.text(key, 'fr')}" for key in GAME if key.startswith("color:")]
    raise InvalidParams(f"unknown colour {name!r}; colours: " + ", ".join(known))


# ---- the template ---------------------------------------------------------------------------


def template() -> Catalog:
    """The .pot catalogue of the game's texts: what ``locale/launcher.pot`` must hold."""
    return GAME.template()


def main() -> None:
    """Print the template (``python -m controller.text.messages > controller/text/locale/launcher.pot``)."""
    GAME.write_template(sys.stdout.buffer)


if __name__ == "__main__":
    main()
