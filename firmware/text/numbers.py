"""Numbers as English and French write them: the three shapes the catalogues use, and percentages.

Babel's ``format_decimal`` gives the same figures, but its first call in a language loads that
language's whole CLDR data (6 MiB of resident memory for English and French, measured), in
launcherd as much as anywhere, for a decimal separator, a group separator and a percent sign. The
results are Babel's (tests/test_numbers.py holds them to it): the value rounded half to even, as
Babel rounds, after it is read as the decimal it prints as (``repr`` of a float).
"""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal

# Each language's decimal separator, group separator and percent sign (CLDR's, as Babel has them):
# French groups with a narrow no-break space and puts a no-break space before the percent sign.
_SYMBOLS = {"en": (".", ",", "%"), "fr": (",", "\u202f", "\u00a0%")}


def decimal(value: int | float, lang: str) -> str:
    """Up to three decimals, grouped: "1,234.568", "1 234,568"."""
    return _shown(Decimal(str(value)), lang, 0, 3, grouped=True)


def seconds(value: int | float, lang: str) -> str:
    """One decimal under 100 s, none from 100 s, never grouped: "2.5", "2,5", "120"."""
    return _shown(Decimal(str(value)), lang, *((1, 1) if value < 100 else (0, 0)), grouped=False)


def percent(value: int | float, lang: str) -> str:
    """A fraction as a whole percentage, grouped: 0.5 is "50%", "50 %"."""
    return _shown(Decimal(str(value)) * 100, lang, 0, 0, grouped=True) + _SYMBOLS[_lang(lang)][2]


def _lang(lang: str) -> str:
    return "fr" if lang == "fr" else "en"


def _shown(number: Decimal, lang: str, least: int, most: int, grouped: bool) -> str:
    point, group, _ = _SYMBOLS[_lang(lang)]
    rounded = number.quantize(Decimal(1).scaleb(-most), rounding=ROUND_HALF_EVEN)
    sign = "-" if rounded.is_signed() else ""  # "-0" for a negative that rounds to 0, as Babel
    whole, _, fraction = f"{abs(rounded):f}".partition(".")
    fraction = fraction.rstrip("0").ljust(least, "0")
    if grouped:
        head = len(whole) % 3 or 3
        whole = group.join([whole[:head]] + [whole[i:i + 3] for i in range(head, len(whole), 3)])
    return sign + whole + (point + fraction if fraction else "")


__all__ = ["decimal", "percent", "seconds"]
