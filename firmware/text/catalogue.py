"""The catalogue machinery both sides use: entries, parameter kinds, gettext files compiled in memory, rendering.

A message is a JSON object ``{"id": "motor_needs_rest", "seconds": 1.9}``; a :class:`Catalogue` holds
one side's entries by message id (the English source and the kind of each parameter) and its gettext
files ``<locale>/<lang>/LC_MESSAGES/<domain>.po``, whose ``msgctxt`` is the message id and ``msgid``
the English source, so a translator sees both. The .po files are compiled in memory (pofile.py), once
per process and language: nothing compiled is kept in the repository or needs a build step, and a
read-only install works.

Parameters have kinds, which say how a value is shown (:data:`KINDS`): counts of presses and cards
become "1 press" / "2 presses" through ngettext; states, card ids, colours and directions become the
language's words; a list of names becomes "Ann, Bob and Cy". A message with a plural has a ``count``
parameter that picks the form. Words and nested messages are looked up in every side's catalogue
(:func:`firmware.i18n.catalogue_of`): a game's message may name a launcher state, a launcher's
message may carry the game's reason.
"""

from __future__ import annotations

import gettext
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, BinaryIO


from firmware import i18n
from firmware.errors import LauncherError
from firmware.text import numbers, pofile

if TYPE_CHECKING:
    from babel.messages.catalog import Catalog


class MessageError(LauncherError, ValueError):
    """A message that cannot be rendered: unknown id, a parameter missing or of the wrong kind."""


@dataclass(frozen=True)
class Text:
    """One entry of a catalogue: the English source, its plural, and its parameters' kinds."""

    singular: str
    params: Mapping[str, str] = field(default_factory=dict)
    plural: str | None = None
    count: str | None = None  # the parameter whose number picks the plural form


def entry(singular: str, plural: str | None = None, count: str | None = None, /, **params: str) -> Text:
    """An entry: ``entry("%(player)s owes %(presses)s", player="name", presses="presses")``."""
    return Text(singular, MappingProxyType(params), plural, count)


# How a parameter's value is checked and shown.
KINDS = MappingProxyType({
    "int": "a whole number",
    "name": "a player's (or ruleset's) name, shown as it is",
    "raw": "text already in the language, shown as it is",
    "text": "free text or a message object (rendered in the same language)",
    "list": "a list of names, shown 'A, B, C'",
    "names": "a list of names, shown 'A, B and C' (a single name is allowed)",
    "items": "a list of message objects, shown 'x, y'",
    "messages": "a list of message objects, shown 'x; y'",
    "parts": "a list of message objects, shown one after the other",
    "lines": "a list of message objects, one per line",
    "card_list": "a list of card ids, shown by their names 'x, y'",
    "color_list": "a list of colours, shown by their names 'x, y'",
    "ruleset_list": "a list of ruleset ids, shown by the names of their boxes 'x, y'",
    "move_list": "a list of action types, shown as moves in words 'x, y'",
    "inserts": "a count of insertions ('2 insertions'), or null: until the blast",
    "awaiting": "what a classic round waits for: play_or_pass, challenge_or_accept, ...",
    "presses": "a count of presses ('2 presses'), or null: until cards come out",
    "cards": "a count of cards ('2 cards')",
    "card": "a card id ('hit-2'), shown by its name in the language",
    "ruleset": "a ruleset id ('attack-mega-hit'), shown by the name of its box in the language",
    "move": "an action type ('first_attack'), shown as the move in words in the language",
    "param": "a key of an action ('color'), shown as what it says in words in the language",
    "color": "red, yellow, green or blue",
    "direction": "clockwise or counterclockwise",
    "ended": "how a launch ended: timeout, jam, lid, empty (a dispense: done, halt, refused)",
    "state": "a launcher state (ready, jammed, ...) or why a press was ignored (bench, ...)",
    "outcome": "how a press or an insertion came out: dry, burst, dispense, empty, safe, blast",
    "motor_direction": "which way the motor turns: forward or reverse",
    "profile": "an ejection or blast profile ('fixed'), shown by its word in the language",
    "seconds": "a duration in seconds, shown with one decimal below 100",
    "percent": "a share from 0 to 1, shown as a percentage",
    "number": "a number, shown in the language's way",
    "value_type": "what an API parameter must be: int, float, str, bool, list or dict",
})
_PLACEHOLDER = re.compile(r"%\((\w+)\)([sd])")


def placeholders(text: str) -> set[tuple[str, str]]:
    """The ``%(name)s`` / ``%(name)d`` placeholders of a template."""
    return set(_PLACEHOLDER.findall(text))


class Catalogue(Mapping[str, Text]):
    """One side's texts: its entries by message id, and its gettext files under ``locale_dir``."""

    def __init__(self, domain: str, locale_dir: Path, texts: Mapping[str, Text]):
        self.domain = domain
        self.locale_dir = locale_dir
        self._texts = MappingProxyType(dict(texts))
        self._compiled: dict[str, gettext.GNUTranslations] = {}
        # Each language's template of every entry without a plural, looked up once at compiling.
        self._singulars: dict[str, dict[str, str]] = {}

    # A catalogue is itself (its domain and files), not the entries it holds: two are never equal.
    __eq__ = object.__eq__
    __hash__ = object.__hash__

    def __getitem__(self, message_id: str) -> Text:
        return self._texts[message_id]

    def __contains__(self, message_id: object) -> bool:
        return message_id in self._texts

    def __iter__(self) -> Iterator[str]:
        return iter(self._texts)

    def __len__(self) -> int:
        return len(self._texts)

    def __repr__(self) -> str:
        return f"Catalogue({self.domain!r}, {len(self)} entries)"

    def po_path(self, lang: str) -> Path:
        return self.locale_dir / lang / "LC_MESSAGES" / f"{self.domain}.po"

    def compile(self) -> None:
        """Compile every language now (launcherd does, before it says READY)."""
        for lang in i18n.LANGUAGES:
            self._translations(lang)

    def _translations(self, lang: str) -> gettext.GNUTranslations:
        compiled = self._compiled.get(lang)
        if compiled is None:
            compiled = pofile.compiled(self.po_path(lang))
            # The templates first: another thread that finds the language compiled finds them too.
            self._singulars[lang] = {message_id: compiled.pgettext(message_id, entry.singular)
                                     for message_id, entry in self._texts.items() if entry.plural is None}
            self._compiled[lang] = compiled
        return compiled

    def text(self, message_id: str, lang: str, n: int | None = None) -> str:
        """The template of an entry in ``lang``, in the plural form for ``n`` where it has one."""
        entry = self._texts[message_id]
        translations = self._translations(lang)
        if entry.plural is None:
            return self._singulars[lang][message_id]
        return translations.npgettext(message_id, entry.singular, entry.plural, 1 if n is None else n)

    def render(self, message: Mapping[str, Any], lang: str) -> str:
        """The text of a message object of this catalogue in ``lang``."""
        try:
            message_id = message["id"]
            entry = self._texts[message_id]
        except (TypeError, KeyError):
            raise MessageError(f"not a known message: {message!r}") from None
        values = {}
        for name, kind in entry.params.items():
            if name not in message:
                raise MessageError(f"{message_id}: parameter {name} is missing")
            values[name] = _shown(message_id, name, kind, message[name], lang)
        if entry.plural is None:
            return self.text(message_id, lang) % values
        count = message[entry.count]
        return self.text(message_id, lang, count if _is_int(count) else len(count)) % values

    def template(self) -> Catalog:
        """The .pot catalogue of the entries: what ``locale/<domain>.pot`` must hold."""
        from babel.messages.catalog import Catalog  # the translators' tools only: Babel weighs 1.5 MiB

        catalog = Catalog(domain=self.domain, project="card-launcher", fuzzy=False)
        for message_id, entry in self.items():
            text = entry.singular if entry.plural is None else (entry.singular, entry.plural)
            comment = ", ".join(f"{name}: {KINDS[kind]}" for name, kind in entry.params.items())
            catalog.add(text, context=message_id, auto_comments=[comment] if comment else [],
                        flags=["python-format"] if entry.params else [])
        return catalog

    def write_template(self, out: BinaryIO) -> None:
        """Write the template as ``locale/<domain>.pot`` is kept."""
        from babel.messages.pofile import write_po

        write_po(out, self.template(), omit_header=False, sort_output=False, include_previous=False, width=100)


# ---- parameters as shown ----------------------------------------------------------------------------


def word(key: str, lang: str, n: int | None = None) -> str:
    """A word of whichever catalogue holds it ("state:ready", "n_cards"), in ``lang``."""
    owner = i18n.catalogue_of(key)
    if owner is None:
        raise MessageError(f"no catalogue holds the word {key!r}")
    return owner.text(key, lang, n)


def _count(key: str, n: int, lang: str) -> str:
    return word(key, lang, n) % {"count": n}


def _names(names: list[str], lang: str) -> str:
    if len(names) == 1:
        return names[0]
    return word("names_and", lang) % {"names": ", ".join(names[:-1]), "last": names[-1]}


def _bad(message_id: str, name: str, kind: str, value: Any) -> MessageError:
    return MessageError(f"{message_id}: {name} must be {KINDS[kind]}, not {value!r}")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _shown(message_id: str, name: str, kind: str, value: Any, lang: str) -> Any:
    """A parameter's value as the text (or number) the template takes."""
    if kind == "int":
        if not _is_int(value):
            raise _bad(message_id, name, kind, value)
        return value
    if kind in ("name", "raw"):
        if not isinstance(value, str):
            raise _bad(message_id, name, kind, value)
        return value
    if kind == "text":
        if isinstance(value, dict):
            return i18n.render(value, lang)
        if not isinstance(value, str):
            raise _bad(message_id, name, kind, value)
        return value
    if kind in ("list", "names"):
        if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
            raise _bad(message_id, name, kind, value)
        return ", ".join(value) if kind == "list" else _names(value, lang)
    if kind in ("items", "messages", "parts", "lines"):
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            raise _bad(message_id, name, kind, value)
        separator = {"items": ", ", "messages": "; ", "parts": "", "lines": "\n"}[kind]
        return separator.join(i18n.render(v, lang) for v in value)
    if kind in ("card_list", "color_list", "ruleset_list", "move_list"):
        if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
            raise _bad(message_id, name, kind, value)
        one = kind.removesuffix("_list")
        return ", ".join(_shown(message_id, name, one, item, lang) for item in value)
    if kind == "presses":
        if value is None:
            return word("presses_until_cards", lang)
        if not _is_int(value):
            raise _bad(message_id, name, kind, value)
        return _count("n_presses", value, lang)
    if kind == "cards":
        if not _is_int(value):
            raise _bad(message_id, name, kind, value)
        return _count("n_cards", value, lang)
    if kind == "inserts":
        if value is None:
            return word("insertions_until_blast", lang)
        if not _is_int(value):
            raise _bad(message_id, name, kind, value)
        return _count("n_insertions", value, lang)
    if kind in ("seconds", "percent", "number"):
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise _bad(message_id, name, kind, value)
        if kind == "percent":
            return numbers.percent(value, lang)
        if kind == "seconds":
            return numbers.seconds(value, lang)
        return numbers.decimal(value, lang)
    if kind in ("ruleset", "card", "move", "param", "profile"):
        if not isinstance(value, str):
            raise _bad(message_id, name, kind, value)
        # Numbers are the same in every language; an unknown ruleset, card, move, key (a refusal
        # of one) or profile is shown as it was given.
        return word(f"{kind}:{value}", lang) if i18n.catalogue_of(f"{kind}:{value}") is not None else value
    key = f"{kind}:{value}"
    if i18n.catalogue_of(key) is None:
        raise _bad(message_id, name, kind, value)
    return word(key, lang)
