"""The first lines of a PokerStars hand: the title (hand number, game, stakes, date), the table
line and the seat lines.

A title of a game studpoker does not play, or not at fixed limit, raises
:class:`HandSkippedError` (the hand is skipped, not refused); anything else not understood is a
:class:`PokerStarsError` on its line.
"""

from __future__ import annotations

import datetime
import re
from zoneinfo import ZoneInfo

from studpoker.games import game_of_pokerstars_title, pokerstars_titles
from studpoker.history.pokerstars.format import (
    AMOUNT_PATTERN,
    CURRENCY_OF_SYMBOL,
    FIXED_LIMITS,
    ISO_CODES,
    SYMBOL_PATTERN,
    TOURNAMENT_CHIPS,
    AmountError,
    Denomination,
    level_number,
)
from studpoker.history.pokerstars.lines import LineReader
from studpoker.history.pokerstars.parsed import HandSkippedError, ParsedHand, PokerStarsError, SeatLine

_AMOUNT = AMOUNT_PATTERN
_ZONES = {"ET": "America/New_York", "EST": "America/New_York", "EDT": "America/New_York"}

TITLE = re.compile(
    r"^PokerStars (?:Hand|Game|Home Game|Home Game Hand|Zoom Hand|Rush Hand|GAME)"
    r" #(?P<number>\d+):\s+(?P<rest>.*)$"
)
_DATE = re.compile(r"(\d{4})/(\d{2})/(\d{2})[ -]+(\d{1,2}):(\d{2}):(\d{2})(?: \(?([A-Z]{2,5})\)?)?")
_GAME = re.compile(
    rf"(?P<game>{'|'.join(map(re.escape, pokerstars_titles()))})"
    r" (?P<limit>Fixed Limit|Limit|LIMIT|Pot Limit|POT LIMIT|No Limit|NO LIMIT)\b"
)
_STAKES = re.compile(
    rf"[(,] ?(?P<symbol>{SYMBOL_PATTERN})?(?P<small>[\d.]+)/{SYMBOL_PATTERN}?(?P<big>[\d.]+)"
    rf"(?: (?P<iso>{'|'.join(ISO_CODES)}))?\)"
)
_TOURNAMENT = re.compile(r"^(?:Zoom )?(?:Tournament|TOURNAMENT) #(?P<id>\d+), ")
_MIX = re.compile(r"\s*(?:HORSE|8-Game|8-GAME|HOSE|Mixed [^()]+|Triple Stud)\s*\(\s*$")
_LEVEL = re.compile(r" - (?:Level|LEVEL) (?P<level>[IVXLCDM]+|\d+) ")
_TABLE = re.compile(
    r"^Table '(?P<name>.*)'(?: (?P<max>\d+)-[Mm]ax)?(?: \((?:Play|Real) Money\))?"
    r"(?: Seat #(?P<button>\d+) is the button)?\s*$"
)
_SEAT = re.compile(
    rf"^Seat (?P<seat>\d+): (?P<name>.+) \((?P<stack>{_AMOUNT}) in chips(?:, {_AMOUNT} bounty)?\)"
    r"(?P<out> is sitting out)?\s*$"
)


def read_title(text: str, source: str, first_line: int) -> ParsedHand:
    """The hand a title line opens, with its number, game, stakes, date and tournament."""
    match = TITLE.match(text)
    if match is None:
        raise PokerStarsError(
            f"the hand does not start with a PokerStars header: {text[:60]!r}", file=source, line=first_line
        )
    number, rest = match["number"], match["rest"]

    def fail(reason: str) -> PokerStarsError:
        return PokerStarsError(reason, file=source, hand=number, line=first_line)

    dates = list(_DATE.finditer(rest))
    body = rest[: dates[0].start()] if dates else rest
    if " - " not in rest or not dates:
        raise fail("the header has no date (' - YYYY/MM/DD H:MM:SS')")
    game = _GAME.search(body)
    if game is None:
        raise HandSkippedError(number, first_line, f"not a game studpoker plays: {body.strip(' -')!r}")
    if game["limit"] not in FIXED_LIMITS:
        raise HandSkippedError(number, first_line, f"{game['game']} {game['limit']} is not fixed limit")
    stakes = list(_STAKES.finditer(body))
    if not stakes:
        raise fail("the header has no stakes ('(small bet/big bet)')")
    stake = stakes[-1]
    tournament = _TOURNAMENT.match(body)
    symbol = stake["symbol"] or ""
    if tournament is not None:
        money = TOURNAMENT_CHIPS
    elif symbol:
        iso = stake["iso"] or CURRENCY_OF_SYMBOL[symbol]
        money = Denomination(symbol=symbol, iso=iso)
    else:  # no currency symbol at a cash table: play money
        money = Denomination()
    try:
        small, big = money.read(stake["small"]), money.read(stake["big"])
    except AmountError as exc:
        raise fail(f"stakes: {exc}") from None
    if not 0 < small <= big:
        raise fail(f"stakes {stake['small']}/{stake['big']} are not a small bet and a big bet")
    year, month, day, hour, minute, second, zone = dates[-1].groups()  # the last date is ET
    try:
        naive = datetime.datetime(int(year), int(month), int(day), int(hour), int(minute), int(second))
    except ValueError:
        raise fail(f"the date {dates[-1].group(0)!r} is not a date") from None
    when = naive.replace(tzinfo=ZoneInfo(_ZONES[zone])) if zone in _ZONES else naive
    parsed = ParsedHand(
        source=source,
        number=number,
        first_line=first_line,
        game=game_of_pokerstars_title(game["game"]).code,
        money=money,
        small_bet=small,
        big_bet=big,
        table="",
        seat_count=None,
        button=None,
        time=when,
        time_zone=zone,
    )
    if tournament is not None:
        # The buy-in runs up to the game, or to a mixed game's name and its parenthesis.
        buy_in = _MIX.sub("", body[tournament.end() : game.start()]).strip()
        parsed.tournament = f"Tournament #{tournament['id']}, {buy_in}"
        level = _LEVEL.search(body)
        if level is not None:
            parsed.level = level_number(level["level"])
    return parsed


def read_table_line(hand: ParsedHand, text: str) -> None:
    """The table's name, size and button from the hand's second line."""
    table = _TABLE.match(text.strip())
    if table is None:
        raise hand.error(f"not a table line: {text!r}", hand.first_line + 1)
    hand.table = table["name"]
    hand.seat_count = int(table["max"]) if table["max"] else None
    hand.button = int(table["button"]) if table["button"] else None


def read_seat_lines(hand: ParsedHand, lines: list[str]) -> int:
    """The seat lines from the hand's third line on; returns the index of the first line after."""
    index = 2
    reader = LineReader(hand)
    while index < len(lines):
        seat = _SEAT.match(lines[index].strip())
        if seat is None:
            break
        number = hand.first_line + index
        hand.seats.append(
            SeatLine(
                seat=int(seat["seat"]),
                name=seat["name"],
                stack=reader.amount(number, seat["stack"]),
                sitting_out=bool(seat["out"]),
                line=number,
            )
        )
        index += 1
    if len({s.seat for s in hand.seats}) != len(hand.seats) or len({s.name for s in hand.seats}) != len(
        hand.seats
    ):
        raise hand.error("two seat lines share a seat or a name", hand.first_line + 2)
    return index
