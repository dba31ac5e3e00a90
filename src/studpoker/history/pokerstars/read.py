"""Reading PokerStars hand-history files: decoding, splitting into hands, one record per line.

:func:`read_pokerstars` turns a file's text into :class:`ParsedHand` records, one per hand, or a
:class:`PokerStarsError` (or :class:`SkippedHand`) in its place: a bad hand never stops the rest
of the file. Every line of a hand must be understood (the title, table and seat lines:
:mod:`~studpoker.history.pokerstars.header`; the lines up to the summary:
:mod:`~studpoker.history.pokerstars.lines`; the summary: :mod:`~studpoker.history.pokerstars.summary`),
anything else is an error naming the hand and the line. The conversion into PHH is
:mod:`studpoker.history.pokerstars.phh_record`.

Hands are split on blank lines as trackers split them (so a hand has no blank line inside); a
file may be UTF-16 with a byte-order mark, UTF-8, or cp1252 (then latin-1).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from studpoker.history.pokerstars.header import TITLE, read_seat_lines, read_table_line, read_title
from studpoker.history.pokerstars.lines import LineReader
from studpoker.history.pokerstars.parsed import HandSkippedError, ParsedHand, PokerStarsError, SkippedHand
from studpoker.history.pokerstars.summary import read_summary_line

# Trackers drop a last chunk this short (a stray footer), and so do we.
_SHORT_TAIL = 50


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


def _check_outline(hand: ParsedHand, lines: list[str]) -> None:
    """One title, one summary, not cancelled, a table line: before any line is read."""
    first_line = hand.first_line
    if sum(1 for t in lines if TITLE.match(t.strip())) != 1:
        raise hand.error("more than one header in this hand (is a blank line missing?)", first_line)
    if sum(1 for t in lines if t.strip() == "*** SUMMARY ***") != 1:
        raise hand.error("the hand must have exactly one '*** SUMMARY ***' (is it cut short?)", first_line)
    if any("Hand cancelled" in t for t in lines):
        raise HandSkippedError(hand.number, first_line, "the hand was cancelled")
    if len(lines) < 2:
        raise hand.error("the hand has no table line", first_line)


def _read_body(hand: ParsedHand, lines: list[str], start: int) -> None:
    """The lines after the seats: entries up to ``*** SUMMARY ***``, then the summary's lines."""
    reader = LineReader(hand)
    in_summary = False
    for offset, raw in enumerate(lines[start:], start=start):
        number = hand.first_line + offset
        text = raw.strip()
        if not text:
            continue
        if text == "*** SUMMARY ***":
            in_summary = True
            continue
        if in_summary:
            read_summary_line(reader, number, text)
            continue
        entry = reader.entry(number, text)
        if entry is not None:
            hand.entries.append(entry)


def parse_hand(text: str, *, source: str, first_line: int) -> ParsedHand:
    """Read one hand (its lines without blank lines); raises :class:`PokerStarsError`."""
    lines = text.split("\n")
    hand = read_title(lines[0].strip(), source, first_line)
    hand.text = lines
    _check_outline(hand, lines)
    read_table_line(hand, lines[1])
    _read_body(hand, lines, read_seat_lines(hand, lines))
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
        except HandSkippedError as skip:
            yield SkippedHand(file=source, hand=skip.number, line=skip.line, reason=skip.reason)


def read_pokerstars_file(path: str | Path) -> Iterator[ParsedHand | PokerStarsError | SkippedHand]:
    """:func:`read_pokerstars` of a file on disk (decoded as trackers decode it)."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        yield PokerStarsError(f"cannot read the file: {exc}", file=str(path))
        return
    yield from read_pokerstars(decode(data), source=str(path))
