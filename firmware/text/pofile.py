"""A gettext .po file read and compiled in memory with the standard library alone.

Every process that speaks compiles the catalogues once (firmware/text/catalogue.py). Babel's reader
and writer did that, but importing them costs every process 1.5 MiB of resident memory (launcherd
too, measured) for a file of a simple shape; Babel stays for the tools that write the templates.
The compiled result is the one Babel's ``read_po`` then ``write_mo`` give (tests/test_pofile.py):
fuzzy and untranslated entries are left out, so that the English source shows; an untranslated
plural form is the English form.
"""

from __future__ import annotations

import gettext
import io
import re
import struct
from dataclasses import dataclass
from pathlib import Path

from firmware.errors import LauncherError

_KEYWORD = re.compile(r'^(msgctxt|msgid_plural|msgid|msgstr(?:\[(\d+)\])?)\s+(".*")\s*$')
_ESCAPE = re.compile(r"\\(.)")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r"}
_MO_MAGIC = 0x950412DE


class PoFileError(LauncherError, ValueError):
    """A .po file that is not one: the file, the line and what was found there."""


@dataclass
class Entry:
    """One message of a .po file: its context, source (and plural source), and translations."""

    context: str | None = None
    source: str = ""
    plural: str | None = None
    translations: dict[int, str] | None = None
    fuzzy: bool = False

    def key(self) -> bytes:
        source = self.source if self.plural is None else f"{self.source}\0{self.plural}"
        return (source if self.context is None else f"{self.context}\x04{source}").encode()

    def value(self) -> bytes:
        forms = self.translations or {}
        if self.plural is None:
            return forms.get(0, "").encode()
        english = (self.source, self.plural)
        return "\0".join(forms[i] or english[min(i, 1)] for i in sorted(forms)).encode()

    def translated(self) -> bool:
        return any(self.translations.values()) if self.plural is not None else bool(self.translations.get(0))


def _text(quoted: str, where: str) -> str:
    if len(quoted) < 2 or not (quoted.startswith('"') and quoted.endswith('"')):
        raise PoFileError(f"{where}: a string in double quotes was expected, found {quoted!r}")
    return _ESCAPE.sub(lambda m: _ESCAPES.get(m.group(1), m.group(1)), quoted[1:-1])


def read(path: Path) -> list[Entry]:
    """The entries of a .po file, the header (source "") first as it is written."""
    entries: list[Entry] = []
    entry = Entry()
    field: tuple[str, int] | None = None  # the keyword a continuation line adds to
    started = False

    def close() -> None:
        nonlocal entry, started, field
        if started:
            entries.append(entry)
        entry, started, field = Entry(), False, None

    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        where = f"{path}:{number}"
        if not line:
            close()
        elif line.startswith("#"):
            if started and field is not None and field[0] == "msgstr":
                close()  # comments start the next entry
            if line.startswith("#,") and "fuzzy" in (flag.strip() for flag in line[2:].split(",")):
                entry.fuzzy = True
        elif line.startswith('"'):
            if field is None:
                raise PoFileError(f"{where}: a string with no keyword before it")
            _add(entry, field, _text(line, where))
        else:
            found = _KEYWORD.match(line)
            if found is None:
                raise PoFileError(f"{where}: not a line of a .po file: {line[:60]!r}")
            keyword, index, quoted = found.groups()
            if keyword in ("msgctxt", "msgid") and field is not None and field[0] == "msgstr":
                close()  # an entry written right after the last, with no blank line between
            started = True
            field = ("msgstr", int(index or 0)) if keyword.startswith("msgstr") else (keyword, 0)
            if field[0] == "msgstr" and entry.translations is None:
                entry.translations = {}
            _set(entry, field, _text(quoted, where))
    close()
    return entries


def _set(entry: Entry, field: tuple[str, int], text: str) -> None:
    keyword, index = field
    if keyword == "msgctxt":
        entry.context = text
    elif keyword == "msgid":
        entry.source = text
    elif keyword == "msgid_plural":
        entry.plural = text
    else:
        entry.translations[index] = text


def _add(entry: Entry, field: tuple[str, int], text: str) -> None:
    keyword, index = field
    current = {"msgctxt": entry.context, "msgid": entry.source, "msgid_plural": entry.plural}.get(keyword)
    _set(entry, field, (current if keyword != "msgstr" else entry.translations[index]) + text)


def mo_bytes(entries: list[Entry]) -> bytes:
    """The .mo file of these entries (GNU's format, no hash table): the header, and every entry
    translated and not fuzzy."""
    kept = {}
    for entry in entries:
        if entry.source == "" and entry.context is None:
            kept[b""] = entry.value()
        elif entry.translated() and not entry.fuzzy:
            kept[entry.key()] = entry.value()
    keys = sorted(kept)
    count = len(keys)
    table_start = 7 * 4
    strings_start = table_start + 16 * count
    originals, translations, blob = [], [], bytearray()
    for key in keys:
        originals.append((len(key), strings_start + len(blob)))
        blob += key + b"\0"
    for key in keys:
        value = kept[key]
        translations.append((len(value), strings_start + len(blob)))
        blob += value + b"\0"
    head = struct.pack("<7I", _MO_MAGIC, 0, count, table_start, table_start + 8 * count, 0, 0)
    tables = b"".join(struct.pack("<2I", *pair) for pair in originals + translations)
    return head + tables + bytes(blob)


def compiled(path: Path) -> gettext.GNUTranslations:
    """The translations of a .po file, compiled in memory."""
    return gettext.GNUTranslations(io.BytesIO(mo_bytes(read(path))))


__all__ = ["Entry", "PoFileError", "compiled", "mo_bytes", "read"]
