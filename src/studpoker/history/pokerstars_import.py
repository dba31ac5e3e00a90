"""Reading PokerStars hand-history files: decoding, splitting into hands, one record per line.

:func:`read_pokerstars` turns a file's text into :class:`ParsedHand` records, one per hand, or a
:class:`PokerStarsError` (or :class:`SkippedHand`) in its place: a bad hand never stops the rest
of the file. Every line of a hand must be understood; the lines trackers skip (chat, players
joining, leaving or reconnecting, ``doesn't show hand``, ``No low hand qualified``) are skipped
here too, anything else is an error naming the hand and the line. The conversion into PHH is
:mod:`studpoker.history.pokerstars_phh`.

Hands are split on blank lines as trackers split them (so a hand has no blank line inside); a
file may be UTF-16 with a byte-order mark, UTF-8, or cp1252 (then latin-1).
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from zoneinfo import ZoneInfo

from studpoker.cards import Card, CardError, parse_cards
from studpoker.history.pokerstars_format import (
    CURRENCY_OF_SYMBOL,
    FIXED_LIMITS,
    GAME_OF_TITLE,
    ISO_CODES,
    PROTECTED_TIMEOUT,
    SYMBOL_PATTERN,
    TOURNAMENT_CHIPS,
    AmountError,
    Denomination,
    level_number,
)

# Trackers drop a last chunk this short (a stray footer), and so do we.
_SHORT_TAIL = 50
_ZONES = {"ET": "America/New_York", "EST": "America/New_York", "EDT": "America/New_York"}


class PokerStarsError(ValueError):
    """A hand that cannot be read or replayed: ``FILE: hand #N, line L: reason``."""

    def __init__(self, reason: str, *, file: str, hand: str | None = None, line: int | None = None) -> None:
        self.reason = reason
        self.file = file
        self.hand = hand
        self.line = line
        super().__init__(str(self))

    def __str__(self) -> str:
        where = []
        if self.hand is not None:
            where.append(f"hand #{self.hand}")
        if self.line is not None:
            where.append(f"line {self.line}")
        return f"{self.file}: {', '.join(where)}: {self.reason}" if where else f"{self.file}: {self.reason}"


@dataclass(frozen=True, slots=True)
class SkippedHand:
    """A hand that is not ours to read (another game, a cancelled hand): not an error."""

    file: str
    hand: str | None
    line: int
    reason: str

    def __str__(self) -> str:
        return f"{self.file}: hand #{self.hand or '?'}, line {self.line}: skipped: {self.reason}"


@dataclass(frozen=True, slots=True)
class SeatLine:
    seat: int
    name: str
    stack: int
    sitting_out: bool
    line: int


@dataclass(frozen=True, slots=True)
class Entry:
    """One understood line before the summary.

    ``kind``: ``street`` (``street`` set; ``cards`` the new board cards), ``dealt`` (``cards``
    the new cards, ``old`` the first bracket), ``ante``, ``blind`` (``verb`` small|big),
    ``bring_in``, ``action`` (``verb`` folds|checks|calls|bets|raises; ``amount`` the chips
    added, ``to`` the round total of a raise), ``timeout``, ``protected``, ``uncalled``,
    ``collected``, ``show`` (``cards``), ``muck``, ``showdown``.
    """

    line: int
    kind: str
    player: str | None = None
    verb: str | None = None
    amount: int | None = None
    to: int | None = None
    all_in: bool = False
    cards: tuple[Card, ...] = ()
    old: tuple[Card, ...] | None = None
    street: str | None = None


@dataclass(frozen=True, slots=True)
class SummarySeat:
    """A summary seat line: the amounts it says the player won, the cards it shows (``mucked``:
    the cards of a hand it says he mucked)."""

    line: int
    name: str
    won: tuple[int, ...]
    cards: tuple[Card, ...] | None
    mucked: bool = False


@dataclass(slots=True)
class ParsedHand:
    """One hand as the file writes it (amounts in units: cents, or chips in tournaments)."""

    source: str
    number: str
    first_line: int
    game: str
    money: Denomination
    small_bet: int
    big_bet: int
    table: str
    seat_count: int | None
    button: int | None
    time: datetime.datetime | None
    time_zone: str | None
    tournament: str | None = None  # "Tournament #N, <buy-in>"
    level: int | None = None
    seats: list[SeatLine] = field(default_factory=list)
    entries: list[Entry] = field(default_factory=list)
    total_pot: int | None = None
    rake: int = 0
    summary_line: int | None = None
    board: tuple[Card, ...] = ()
    summary_seats: dict[str, SummarySeat] = field(default_factory=dict)
    text: list[str] = field(default_factory=list)  # the hand's lines, from ``first_line``

    def line_text(self, line: int) -> str:
        index = line - self.first_line
        return self.text[index].strip() if 0 <= index < len(self.text) else ""

    def error(self, reason: str, line: int | None = None) -> PokerStarsError:
        return PokerStarsError(reason, file=self.source, hand=self.number, line=line)


# ----------------------------------------------------------------------------------------------
# Files


def decode(data: bytes) -> str:
    """The text of a hand-history file, as trackers decode it, with ``\\n`` line ends."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        text = data.decode("utf-16")
    else:
        for codec in ("utf-8", "cp1252", "latin-1"):
            try:
                text = data.decode(codec)
                break
            except UnicodeDecodeError:
                continue
    text = text.lstrip("\ufeff\x00")
    return text.replace("\r\n", "\n").replace("\r", "\n").replace("\xa0", " ")


_BLANK_RUN = re.compile(r"(?:[ \t]?\n){2,}")


def split_hands(text: str) -> list[tuple[int, str]]:
    """The hands of a file: (line number of the hand's first line, the hand's text)."""
    chunks: list[tuple[int, str]] = []
    position = 0
    line = 1
    for match in [*_BLANK_RUN.finditer(text), None]:
        end = len(text) if match is None else match.start()
        chunk = text[position:end]
        if chunk.strip():
            lead = len(chunk) - len(chunk.lstrip("\n \t"))
            first = line + chunk[:lead].count("\n")
            chunks.append((first, chunk.strip("\n")))
        if match is not None:
            line += text[position : match.end()].count("\n")
            position = match.end()
    if chunks and len(chunks[-1][1]) <= _SHORT_TAIL:
        chunks.pop()
    return chunks


# ----------------------------------------------------------------------------------------------
# The header and the table line


_TITLE = re.compile(
    r"^PokerStars (?:Hand|Game|Home Game|Home Game Hand|Zoom Hand|Rush Hand|GAME)"
    r" #(?P<number>\d+):\s+(?P<rest>.*)$"
)
_DATE = re.compile(r"(\d{4})/(\d{2})/(\d{2})[ -]+(\d{1,2}):(\d{2}):(\d{2})(?: \(?([A-Z]{2,5})\)?)?")
_GAME = re.compile(
    r"(?P<game>7 Card Stud Hi/Lo|7 CARD STUD HI/LO|7 Card Stud Hi / Lo|7 CARD STUD HI / LO|7 Card Stud"
    r"|7 CARD STUD|Razz|RAZZ|Omaha Hi/Lo|OMAHA HI/LO) (?P<limit>Fixed Limit|Limit|LIMIT|Pot Limit|POT LIMIT"
    r"|No Limit|NO LIMIT)\b"
)
_AMOUNT = rf"{SYMBOL_PATTERN}?[\d,.]+"
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


def _header(text: str, source: str, first_line: int) -> ParsedHand:
    match = _TITLE.match(text)
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
        raise _skip(number, first_line, f"not a game studpoker plays: {body.strip(' -')!r}")
    if game["limit"] not in FIXED_LIMITS:
        raise _skip(number, first_line, f"{game['game']} {game['limit']} is not fixed limit")
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
        game=GAME_OF_TITLE[game["game"]],
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


class _SkipError(Exception):
    def __init__(self, number: str | None, line: int, reason: str) -> None:
        super().__init__(reason)
        self.number = number
        self.line = line
        self.reason = reason


def _skip(number: str | None, line: int, reason: str) -> _SkipError:
    return _SkipError(number, line, reason)


# ----------------------------------------------------------------------------------------------
# Lines between the seats and the summary


_CARDS = r"\[(?P<cards>[^\]]*)\]"
_ALL_IN = r"(?P<all_in> and is all-in)?"
_CAP = rf"(?: and has reached the {_AMOUNT} cap)?"
# What comes after "NAME: ".
_VERBS: list[tuple[str, re.Pattern[str]]] = [
    ("ante", re.compile(rf"^posts the ante (?P<amount>{_AMOUNT}){_ALL_IN}$")),
    ("blind", re.compile(rf"^posts (?P<verb>small|big) blind (?P<amount>{_AMOUNT}){_ALL_IN}$")),
    ("both", re.compile(rf"^posts small & big blinds (?P<amount>{_AMOUNT}){_ALL_IN}$")),
    ("bring_in", re.compile(rf"^brings[- ]in(?: low)? for (?P<amount>{_AMOUNT}){_ALL_IN}$")),
    ("action", re.compile(rf"^(?P<verb>folds)(?: {_CARDS})?$")),
    ("action", re.compile(r"^(?P<verb>checks)$")),
    ("action", re.compile(rf"^(?P<verb>calls|bets) (?P<amount>{_AMOUNT}){_ALL_IN}{_CAP}$")),
    ("action", re.compile(rf"^(?P<verb>raises) (?P<amount>{_AMOUNT}) to (?P<to>{_AMOUNT}){_ALL_IN}{_CAP}$")),
    ("show", re.compile(rf"^shows {_CARDS}(?: \(.*\))?$")),
    ("muck", re.compile(r"^mucks hand$")),
    ("ignore", re.compile(r"^(?:doesn't show hand|sits out|is sitting out|is disconnected|is connected)$")),
]
# What comes after "NAME " (no colon).
_NOTICES: list[tuple[str, re.Pattern[str]]] = [
    (
        "collected",
        re.compile(rf"^collected (?P<amount>{_AMOUNT}) from (?:the )?(?:main |side )?pot(?:-\d+)?$"),
    ),
    ("protected", re.compile(rf"^{re.escape(PROTECTED_TIMEOUT)}$")),
    ("timeout", re.compile(r"^has timed out(?: while (?:being )?disconnected)?$")),
    (
        "ignore",
        re.compile(
            r'^(?:said, ".*"|joins the table at seat #\d+|leaves the table|is disconnected|is connected'
            r"|has returned|sits out|is sitting out|will be allowed to play after the button"
            r"|was removed from the table.*|finished the tournament.*|wins the tournament.*"
            r"|wins the .* bounty .*|re-buys and receives .*|takes the add-on and receives .*)$"
        ),
    ),
]
_UNCALLED = re.compile(rf"^Uncalled bet \((?P<amount>{_AMOUNT})\) returned to (?P<name>.+)$")
_STUD_MARKER = re.compile(
    r"^\*\*\* (3rd|4th|5th|6th|7th) STREET \*\*\*$|^\*\*\* (RIVER) \*\*\*(?: \[(.*)\])?$"
)
_STUD_STREETS = {"3rd": "third", "4th": "fourth", "5th": "fifth", "6th": "sixth", "7th": "seventh"}
_OMAHA_MARKER = re.compile(
    r"^\*\*\* (HOLE CARDS|FLOP|TURN|RIVER) \*\*\*(?: \[([^\]]*)\])?(?: \[([^\]]*)\])?$"
)
_OMAHA_STREETS = {"HOLE CARDS": "preflop", "FLOP": "flop", "TURN": "turn", "RIVER": "river"}
_NOBODY_LINES = re.compile(r"^(?:No low hand qualified|Betting is capped)$")
# Notices about anyone, seated in this hand or not (a player who left, an observer): skipped.
_ANYONE_LINES = re.compile(
    r'^.+ (?:said, ".*"|joins the table at seat #\d+|leaves the table|is disconnected|is connected'
    r"|has returned|sits out|is sitting out|will be allowed to play after the button"
    r"|was removed from the table.*|finished the tournament.*|wins the tournament.*)$"
)


class _Lines:
    """Reads the lines of one hand, knowing its players' names (which may hold spaces)."""

    def __init__(self, hand: ParsedHand) -> None:
        self.hand = hand
        # Longest names first, so that "Ann Lee" wins over "Ann" as the prefix of a line.
        self.names = sorted({s.name for s in hand.seats}, key=len, reverse=True)

    def fail(self, line: int, reason: str) -> PokerStarsError:
        return self.hand.error(reason, line)

    def amount(self, line: int, text: str) -> int:
        try:
            return self.hand.money.read(text)
        except AmountError as exc:
            raise self.fail(line, str(exc)) from None

    def cards(self, line: int, text: str) -> tuple[Card, ...]:
        try:
            return parse_cards(text, allow_empty=True)
        except CardError as exc:
            raise self.fail(line, f"bad cards [{text}]: {exc}") from None

    def player_prefix(self, text: str) -> tuple[str, str, str] | None:
        """(name, separator, rest) when the line starts with a player's name."""
        for name in self.names:
            if text.startswith(name + ": "):
                return name, ":", text[len(name) + 2 :]
            if text.startswith(name + " "):
                return name, " ", text[len(name) + 1 :]
        return None

    def marker(self, line: int, text: str) -> Entry:
        if text == "*** SHOW DOWN ***":
            return Entry(line, "showdown")
        if self.hand.game == "O8":
            match = _OMAHA_MARKER.match(text)
            if match is None:
                raise self.fail(line, f"not a street of Omaha: {text!r}")
            street = _OMAHA_STREETS[match[1]]
            board = match[3] if match[3] is not None else match[2]
            cards = self.cards(line, board) if street != "preflop" and board is not None else ()
            return Entry(line, "street", street=street, cards=cards)
        match = _STUD_MARKER.match(text)
        if match is None:
            raise self.fail(line, f"not a street of stud: {text!r}")
        if match[2]:
            community = self.cards(line, match[3]) if match[3] else ()
            return Entry(line, "street", street="seventh", cards=community)
        return Entry(line, "street", street=_STUD_STREETS[match[1]])

    def dealt(self, line: int, text: str) -> Entry:
        rest = text[len("Dealt to ") :]
        for name in self.names:
            if rest.startswith(name + " ["):
                brackets = re.fullmatch(r"\[([^\]]*)\](?: \[([^\]]*)\])?", rest[len(name) + 1 :])
                if brackets is None:
                    break
                if brackets[2] is None:
                    return Entry(line, "dealt", player=name, cards=self.cards(line, brackets[1]))
                old = self.cards(line, brackets[1])
                return Entry(line, "dealt", player=name, cards=self.cards(line, brackets[2]), old=old)
        raise self.fail(line, f"not a deal to a seated player: {text!r}")

    def player_line(self, line: int, name: str, separator: str, rest: str) -> Entry | None:
        table = _VERBS if separator == ":" else _NOTICES
        for kind, pattern in table:
            match = pattern.match(rest)
            if match is None:
                continue
            groups = match.groupdict()
            if kind == "ignore":
                return None
            if kind == "both":
                raise self.fail(line, "a dead small blind with the big blind is not played here")
            amount = self.amount(line, groups["amount"]) if groups.get("amount") else None
            to = self.amount(line, groups["to"]) if groups.get("to") else None
            cards = self.cards(line, groups["cards"]) if groups.get("cards") else ()
            return Entry(
                line,
                kind,
                player=name,
                verb=groups.get("verb"),
                amount=amount,
                to=to,
                all_in=bool(groups.get("all_in")),
                cards=cards,
            )
        raise self.fail(line, f"not understood: {name}{separator} {rest!r}")

    def entry(self, line: int, text: str) -> Entry | None:
        if text.startswith("*** "):
            return self.marker(line, text)
        if text.startswith("Dealt to "):
            return self.dealt(line, text)
        uncalled = _UNCALLED.match(text)
        if uncalled is not None:
            name = uncalled["name"]
            if name not in self.names:
                raise self.fail(line, f"the uncalled bet goes back to {name!r}, who is not seated")
            return Entry(line, "uncalled", player=name, amount=self.amount(line, uncalled["amount"]))
        prefix = self.player_prefix(text)
        if prefix is not None:
            return self.player_line(line, *prefix)
        if _NOBODY_LINES.match(text) or _ANYONE_LINES.match(text):
            return None
        raise self.fail(line, f"not understood: {text!r}")


# ----------------------------------------------------------------------------------------------
# The summary


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


def _summary_line(reader: _Lines, line: int, text: str) -> None:
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


# ----------------------------------------------------------------------------------------------
# A whole hand


def parse_hand(text: str, *, source: str, first_line: int) -> ParsedHand:
    """Read one hand (its lines without blank lines); raises :class:`PokerStarsError`."""
    lines = text.split("\n")
    hand = _header(lines[0].strip(), source, first_line)
    hand.text = lines
    if sum(1 for t in lines if _TITLE.match(t.strip())) != 1:
        raise hand.error("more than one header in this hand (is a blank line missing?)", first_line)
    if sum(1 for t in lines if t.strip() == "*** SUMMARY ***") != 1:
        raise hand.error("the hand must have exactly one '*** SUMMARY ***' (is it cut short?)", first_line)
    if any("Hand cancelled" in t for t in lines):
        raise _skip(hand.number, first_line, "the hand was cancelled")
    if len(lines) < 2:
        raise hand.error("the hand has no table line", first_line)
    table = _TABLE.match(lines[1].strip())
    if table is None:
        raise hand.error(f"not a table line: {lines[1]!r}", first_line + 1)
    hand.table = table["name"]
    hand.seat_count = int(table["max"]) if table["max"] else None
    hand.button = int(table["button"]) if table["button"] else None
    index = 2
    reader = _Lines(hand)
    while index < len(lines):
        seat = _SEAT.match(lines[index].strip())
        if seat is None:
            break
        number = first_line + index
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
        raise hand.error("two seat lines share a seat or a name", first_line + 2)
    reader = _Lines(hand)
    in_summary = False
    for offset, raw in enumerate(lines[index:], start=index):
        number = first_line + offset
        text = raw.strip()
        if not text:
            continue
        if text == "*** SUMMARY ***":
            in_summary = True
            continue
        if in_summary:
            _summary_line(reader, number, text)
            continue
        entry = reader.entry(number, text)
        if entry is not None:
            hand.entries.append(entry)
    if hand.total_pot is None:
        raise hand.error("the summary has no 'Total pot' line", first_line + len(lines) - 1)
    return hand


def read_pokerstars(
    text: str, *, source: str = "<pokerstars>"
) -> Iterator[ParsedHand | PokerStarsError | SkippedHand]:
    """Every hand of a file's text, in order: the hand, or the error or skip in its place."""
    for first_line, chunk in split_hands(text):
        try:
            yield parse_hand(chunk, source=source, first_line=first_line)
        except PokerStarsError as exc:
            yield exc
        except _SkipError as skip:
            yield SkippedHand(file=source, hand=skip.number, line=skip.line, reason=skip.reason)


def read_pokerstars_file(path: str | Path) -> Iterator[ParsedHand | PokerStarsError | SkippedHand]:
    """:func:`read_pokerstars` of a file on disk (decoded as trackers decode it)."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        yield PokerStarsError(f"cannot read the file: {exc}", file=str(path))
        return
    yield from read_pokerstars(decode(data), source=str(path))
