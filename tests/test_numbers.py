"""Numbers in the catalogues' texts are written as Babel writes them, without Babel's locale data."""

from babel.numbers import format_decimal, format_percent
from hypothesis import given, strategies as st

from firmware.text import numbers

LANGS = st.sampled_from(["en", "fr"])
VALUES = st.one_of(
    st.integers(min_value=-10**12, max_value=10**12),
    st.floats(min_value=-1e9, max_value=1e9, allow_nan=False, allow_infinity=False),
    # the figures the product says: seconds, ratios, on the halves where rounding is decided
    st.integers(min_value=-20000, max_value=20000).map(lambda n: n / 200),
)


@given(VALUES, LANGS)
def test_a_decimal_is_written_as_babel_writes_it(value, lang):
    assert numbers.decimal(value, lang) == format_decimal(value, locale=lang)


@given(VALUES, LANGS)
def test_seconds_are_written_as_babel_writes_them(value, lang):
    shape = "0.0" if value < 100 else "0"
    assert numbers.seconds(value, lang) == format_decimal(value, format=shape, locale=lang)


@given(VALUES, LANGS)
def test_a_percentage_is_written_as_babel_writes_it(value, lang):
    assert numbers.percent(value, lang) == format_percent(value, locale=lang)


def test_the_examples_a_reader_sees():
    assert numbers.decimal(1234.5678, "en") == "1,234.568"
    assert numbers.decimal(1234.5678, "fr") == "1\u202f234,568"
    assert numbers.seconds(2.25, "en") == "2.2"  # half to even, as Babel
    assert numbers.seconds(2.5, "fr") == "2,5"
    assert numbers.seconds(120.4, "en") == "120"
    assert numbers.percent(0.5, "fr") == "50\u00a0%"
