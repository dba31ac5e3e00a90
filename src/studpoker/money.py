"""Money as text: integer units (cents) written with two decimals, and read back exactly.

The engine and the store count in integer units, one unit being a cent of the room's money.
People read money with two decimals; these two functions are the only place that converts,
so that no float ever touches an amount.

>>> format_money(123450), format_money(5), format_money(-250), format_money(1000, trim=True)
('1234.50', '0.05', '-2.50', '10')
>>> parse_money("1,234.50"), parse_money("0.5"), parse_money("10")
(123450, 50, 1000)
"""

from __future__ import annotations

import re

CENTS_PER_UNIT = 100  # two decimals: the unit is a cent

# Digits with optional thousands commas (all or nothing), then at most two decimals.
_MONEY = re.compile(r"^(?P<whole>\d+|\d{1,3}(?:,\d{3})+)?(?:\.(?P<cents>\d{1,2}))?$")


class MoneyError(ValueError):
    """Text that is not an amount of money with at most two decimals."""


def format_money(units: int, *, trim: bool = False) -> str:
    """``units`` (cents) as money with two decimals; ``trim`` drops ``.00`` from whole amounts."""
    if isinstance(units, bool) or not isinstance(units, int):
        raise TypeError(f"money is a whole number of units, not {units!r}")
    sign = "-" if units < 0 else ""
    whole, cents = divmod(abs(units), CENTS_PER_UNIT)
    if trim and not cents:
        return f"{sign}{whole}"
    return f"{sign}{whole}.{cents:02d}"


def parse_money(text: str) -> int:
    """The units (cents) of a money text such as ``1234.50``, ``1,234.5`` or ``12``.

    Raises :class:`MoneyError` for anything else, including a third decimal (an amount that is
    not a whole number of cents) and a sign (amounts written in histories are never negative).
    """
    if not isinstance(text, str):
        raise MoneyError(f"an amount of money is text, not {text!r}")
    match = _MONEY.match(text.strip())
    if match is None or (match["whole"] is None and match["cents"] is None):
        raise MoneyError(f"{text!r} is not an amount of money (digits, at most two decimals)")
    whole = int((match["whole"] or "0").replace(",", ""))
    cents = int((match["cents"] or "0").ljust(2, "0"))
    return whole * CENTS_PER_UNIT + cents
