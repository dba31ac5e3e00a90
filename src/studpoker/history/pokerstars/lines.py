"""The lines of a PokerStars hand between the seat lines and the summary, one :class:`Entry` each.

:class:`LineReader` knows the hand's players (whose names may hold spaces) and reads a street
marker, a ``Dealt to`` line, a player's ``NAME: verb`` or ``NAME notice`` line and the uncalled
bet into an :class:`Entry`; the lines trackers skip (chat, players joining, leaving or
reconnecting, ``doesn't show hand``, ``No low hand qualified``) give none, anything else is a
:class:`PokerStarsError` naming the line.
"""

from __future__ import annotations

import re

from studpoker.cards import Card, CardError, parse_cards
from studpoker.games import get_game
from studpoker.history.pokerstars.format import AMOUNT_PATTERN, PROTECTED_TIMEOUT, AmountError
from studpoker.history.pokerstars.parsed import Entry, ParsedHand, PokerStarsError

_AMOUNT = AMOUNT_PATTERN
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


class LineReader:
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
        if get_game(self.hand.game).board:
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
