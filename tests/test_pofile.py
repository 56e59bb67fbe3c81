"""The catalogues' .po files compile, with the standard library alone, to what Babel compiles."""

import gettext
import io

import pytest
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from firmware import i18n
from firmware.text import pofile

CATALOGUES = [(catalogue, lang) for catalogue in i18n.catalogues() for lang in i18n.LANGUAGES]


def _babel(path, lang, domain):
    with path.open("rb") as po:
        catalog = read_po(po, locale=lang, domain=domain)
    mo = io.BytesIO()
    write_mo(mo, catalog)
    mo.seek(0)
    return gettext.GNUTranslations(mo)


@pytest.mark.parametrize(("catalogue", "lang"), CATALOGUES, ids=lambda x: getattr(x, "domain", x))
def test_every_entry_in_every_plural_form_is_what_babel_compiles(catalogue, lang):
    path = catalogue.po_path(lang)
    ours, babels = pofile.compiled(path), _babel(path, lang, catalogue.domain)
    assert ours.info() == babels.info()
    for message_id, entry in catalogue.items():
        if entry.plural is None:
            assert ours.pgettext(message_id, entry.singular) == babels.pgettext(message_id, entry.singular)
        else:
            for n in (0, 1, 2, 5, 1_000_000, 2_000_001):
                assert (ours.npgettext(message_id, entry.singular, entry.plural, n)
                        == babels.npgettext(message_id, entry.singular, entry.plural, n)), (message_id, n)


def _written(tmp_path, text):
    path = tmp_path / "x.po"
    path.write_text(text, encoding="utf-8")
    return path


HEADER = 'msgid ""\nmsgstr ""\n"Language: fr\\n"\n"Plural-Forms: nplurals=2; plural=(n > 1);\\n"\n\n'


def test_fuzzy_and_untranslated_entries_show_the_english_and_a_missing_plural_form_too(tmp_path):
    path = _written(tmp_path, HEADER + (
        '#, fuzzy\nmsgctxt "a"\nmsgid "one"\nmsgstr "un"\n\n'
        'msgctxt "b"\nmsgid "two"\nmsgstr ""\n\n'
        'msgctxt "c"\nmsgid "%(n)d card"\nmsgid_plural "%(n)d cards"\nmsgstr[0] "%(n)d carte"\nmsgstr[1] ""\n\n'
        'msgctxt "d"\nmsgid "say \\"hi\\""\nmsgstr "dites "\n"\\"salut\\"\\n"\n'))
    ours, babels = pofile.compiled(path), _babel(path, "fr", "x")
    for compiled in (ours, babels):
        assert compiled.pgettext("a", "one") == "one"
        assert compiled.pgettext("b", "two") == "two"
        assert compiled.npgettext("c", "%(n)d card", "%(n)d cards", 1) == "%(n)d carte"
        assert compiled.npgettext("c", "%(n)d card", "%(n)d cards", 3) == "%(n)d cards"
        assert compiled.pgettext("d", 'say "hi"') == 'dites "salut"\n'


def test_a_damaged_file_is_refused_with_its_line(tmp_path):
    path = _written(tmp_path, HEADER + 'msgctxt "a"\nmsgid "one"\nmsgstr un\n')
    with pytest.raises(pofile.PoFileError, match=r"x\.po:8: not a line of a \.po file"):
        pofile.compiled(path)
    with pytest.raises(ValueError, match=r"x\.po:1: a string with no keyword"):
        pofile.compiled(_written(tmp_path, '"orphan"\n'))
