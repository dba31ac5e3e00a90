"""The summary of a PokerStars hand: the total pot and the rake, the board, and each seat's line
(what it says the player won, the cards it shows).

The figures are kept on the :class:`ParsedHand` for the conversion to hold against the lines
above (:mod:`studpoker.history.pokerstars.phh_record`); a line not understood is a
:class:`PokerStarsError` naming it.
"""

from __future__ import annotations

import re

from studpoker.history.pokerstars.format import AMOUNT_PATTERN
from studpoker.history.pokerstars.lines import LineReader
from studpoker.history.pokerstars.parsed import SummarySeat

_AMOUNT = AMOUNT_PATTERN
_TOTAL = re.compile(
    rf"^Total pot (?P<total>{_AMOUNT})(?P<pots>(?: (?:Main pot|Side pot(?:-\d+)?) {_AMOUNT}\.)*)"
    rf"(?: \| Rake (?P<rake>{_AMOUNT}))?(?: \|.*)?$"
)
_BOARD = re.compile(r"^Board \[(?P<cards>[^\]]*)\]$")
_SEAT_SUMMARY = re.compile(r"^Seat (?P<seat>\d+): (?P<rest>.+)$")
_TAGS = re.compile(r"^(?:\((?:button|small blind|big blind|button blind)\) )*")
_RESULT = re.compile(
    r"^(?:folded (?:before Flop|on the (?:Flop|Turn|River|3rd Street|4th Street|5th Street|6th Street"
    r"|7th Street))(?: \(didn't bet\))?"
    r"|collected \((?P<collected>[^)]*)\)"
    r"|showed \[(?P<showed>[^\]]*)\] and"
    r" (?:won \((?P<won>[^)]*)\)|collected \((?P<got>[^)]*)\)|lost)(?P<tail>.*)"
    r"|mucked(?: \[(?P<mucked>[^\]]*)\])?(?: and (?:won|collected) \((?P<mucked_won>[^)]*)\).*)?"
    r"|lost|didn't show and won \((?P<silent>[^)]*)\)|sat out|is sitting out)$"
)


def read_summary_line(reader: LineReader, line: int, text: str) -> None:
    """One line after ``*** SUMMARY ***``, kept on the reader's hand."""
    hand = reader.hand
    total = _TOTAL.match(text)
    if total is not None:
        hand.total_pot = reader.amount(line, total["total"])
        hand.rake = reader.amount(line, total["rake"]) if total["rake"] else 0
        hand.summary_line = line
        return
    board = _BOARD.match(text)
    if board is not None:
        hand.board = reader.cards(line, board["cards"])
        return
    seat = _SEAT_SUMMARY.match(text)
    if seat is None:
        if text.startswith("Hand was run"):
            raise reader.fail(line, "a hand run twice is not played here")
        raise reader.fail(line, f"not understood in the summary: {text!r}")
    number = int(seat["seat"])
    seated = next((s for s in hand.seats if s.seat == number), None)
    if seated is None or not seat["rest"].startswith(seated.name + " "):
        raise reader.fail(line, f"seat {number} is not {seat['rest'].split(' ')[0]!r}'s")
    rest = seat["rest"][len(seated.name) + 1 :]
    rest = rest[_TAGS.match(rest).end() :]  # type: ignore[union-attr]  # the pattern always matches
    result = _RESULT.match(rest)
    if result is None:
        raise reader.fail(line, f"not understood in the summary: {text!r}")
    groups = result.groupdict()
    won = [groups[k] for k in ("collected", "won", "got", "mucked_won", "silent") if groups[k]]
    tail = groups.get("tail") or ""
    won += re.findall(r", and won \(([^)]*)\)", tail)  # hi/lo: the low half on the same line
    shown = groups["showed"] if groups["showed"] is not None else groups["mucked"]
    hand.summary_seats[seated.name] = SummarySeat(
        line=line,
        name=seated.name,
        won=tuple(reader.amount(line, w) for w in won),
        cards=reader.cards(line, shown) if shown else None,
        mucked=groups["showed"] is None,
    )
