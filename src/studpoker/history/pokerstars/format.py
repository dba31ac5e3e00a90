"""The vocabulary of PokerStars hand histories that the writer and the reader share.

Game strings, street markers, how amounts are written (money with a currency symbol, play money
without one, tournament chips), hand numbers and tournament levels. The format is described in
``docs/histories.md`` (from FPDB's PokerStars parser, the reference a tracker applies).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from studpoker.money import MoneyError, format_money, parse_money

ROOM = "PokerStars"

# The game strings are on the games' records (studpoker.games: Game.pokerstars_titles, always
# followed by " Limit"; game_of_pokerstars_title reads any spelling).
LIMIT = "Limit"
FIXED_LIMITS = frozenset({"Limit", "LIMIT", "Fixed Limit"})

# Street markers: the stud seventh street is written RIVER.
STUD_MARKERS: dict[str, str] = {
    "third": "3rd STREET",
    "fourth": "4th STREET",
    "fifth": "5th STREET",
    "sixth": "6th STREET",
    "seventh": "RIVER",
}
OMAHA_MARKERS: dict[str, str] = {"preflop": "HOLE CARDS", "flop": "FLOP", "turn": "TURN", "river": "RIVER"}
# Where a player folded, as the summary says it.
FOLDED_ON: dict[str, str] = {
    "third": "on the 3rd Street",
    "fourth": "on the 4th Street",
    "fifth": "on the 5th Street",
    "sixth": "on the 6th Street",
    "seventh": "on the 7th Street",
    "preflop": "before Flop",
    "flop": "on the Flop",
    "turn": "on the Turn",
    "river": "on the River",
}

# Currency symbols as PokerStars writes them; no symbol at a cash table means play money.
CURRENCY_OF_SYMBOL: dict[str, str] = {
    "$": "USD",
    "€": "EUR",
    "£": "GBP",
    "¥": "CNY",
    "₹": "INR",
    "Rs. ": "INR",
}
SYMBOL_PATTERN = r"(?:\$|€|£|¥|₹|Rs\. )"
# An amount as the reader takes it: a symbol, digits, thousands commas, a decimal point.
AMOUNT_PATTERN = rf"{SYMBOL_PATTERN}?[\d,.]+"
ISO_CODES = ("USD", "EUR", "GBP", "CAD", "FPP", "SC", "INR", "CNY")

# Our notation for a timeout that leaves the player all-in under disconnect protection (no
# PokerStars verb: trackers skip the line, as they skip every line without "name: verb").
PROTECTED_TIMEOUT = "has timed out: all-in under disconnect protection"


class AmountError(ValueError):
    """An amount that cannot be written or read in the hand's denomination."""


@dataclass(frozen=True, slots=True)
class Denomination:
    """How a hand's amounts are written.

    Cash games count in cents: ``symbol`` and ``iso`` name a real currency (``$``, ``USD``); no
    symbol is play money (trackers recognise play money by the missing symbol). Tournament
    ``chips`` are whole chips, one unit each, always written without a symbol.
    """

    symbol: str = ""
    iso: str | None = None
    chips: bool = False

    def __post_init__(self) -> None:
        if self.symbol and self.symbol not in CURRENCY_OF_SYMBOL:
            known = ", ".join(repr(s) for s in CURRENCY_OF_SYMBOL)
            raise AmountError(f"unknown currency symbol {self.symbol!r} (PokerStars writes {known})")
        if self.chips and self.symbol:
            raise AmountError("tournament chips are written without a currency symbol")

    @property
    def play_money(self) -> bool:
        return not self.chips and not self.symbol

    def write(self, units: int, *, symbol: bool = True) -> str:
        """``units`` as the file writes them: ``$2.50``, ``$1`` (whole amounts trimmed), ``1500``."""
        if units < 0:
            raise AmountError(f"amounts in a hand history are never negative, not {units}")
        if self.chips:
            return str(units)
        return (self.symbol if symbol else "") + format_money(units, trim=True)

    def read(self, text: str) -> int:
        """The units of an amount as written (a currency symbol and thousands commas allowed)."""
        body = text.strip()
        for mark in CURRENCY_OF_SYMBOL:
            if body.startswith(mark):
                body = body[len(mark) :]
                break
        if self.chips:
            digits = body.replace(",", "")
            if not digits.isdigit():
                raise AmountError(f"{text!r} is not a whole number of chips")
            return int(digits)
        try:
            return parse_money(body)
        except MoneyError as exc:
            raise AmountError(str(exc)) from None


PLAY_MONEY = Denomination()
TOURNAMENT_CHIPS = Denomination(chips=True)


def hand_number(hand_id: str | int | None) -> str:
    """The digits-only hand number of the header (``PokerStars Hand #<digits>:``).

    A numeric id is kept; any other id (the room's are hexadecimal UUIDs) becomes the first 60
    bits of its SHA-256 as a decimal number: stable, distinct in practice, and small enough for
    the 64-bit hand numbers trackers store.
    """
    if hand_id is None:
        return "0"
    text = str(hand_id)
    if text.isdigit() and text.isascii():
        return text
    return str(int(hashlib.sha256(text.encode()).hexdigest()[:15], 16))


_ROMAN = (
    (1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
    (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I"),
)  # fmt: skip
_ROMAN_RE = re.compile(r"^M{0,3}(CM|CD|D?C{0,3})(XC|XL|L?X{0,3})(IX|IV|V?I{0,3})$")


def roman(number: int) -> str:
    """A tournament level as PokerStars writes it (``Level IV``)."""
    if not 1 <= number < 4000:
        raise ValueError(f"a level is a number from 1 to 3999, not {number}")
    out = []
    for value, letters in _ROMAN:
        count, number = divmod(number, value)
        out.append(letters * count)
    return "".join(out)


def level_number(text: str) -> int:
    """The number of a level written in Roman numerals (or digits)."""
    if text.isdigit():
        return int(text)
    if not text or _ROMAN_RE.match(text) is None:
        raise ValueError(f"{text!r} is not a level (Roman numerals such as IV, or digits)")
    total = 0
    rest = text
    for value, letters in _ROMAN:
        while rest.startswith(letters):
            total += value
            rest = rest[len(letters) :]
    return total
