"""A finished hand written as a PokerStars hand history, the text trackers import.

:func:`pokerstars_history` writes 7S, 7S8, RZ and O8 hands the way FPDB's PokerStars parser reads
them (``docs/histories.md``, "PokerStars hand histories"): the game string and stakes in the
header, ``*** 3rd STREET ***`` .. ``*** RIVER ***`` (Omaha: ``HOLE CARDS``, ``FLOP``, ``TURN``,
``RIVER``), a completion of the bring-in written as a raise, ``raises X to Y`` with Y the
player's round total, the uncalled bet returned on the street where it was made, one
``collected`` line per pot share (side pots first), and one summary line per seat with the
player's whole collection.

The reader decides which cards are printed, as for the text history: ``viewer`` is the seat
whose down cards are dealt face up to him (the tracker's hero), ``reveal=True`` prints every
card (an operator's complete record: every player's three cards on 3rd street), and cards
shown at the showdown are printed for everyone.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

from studpoker.cards import Card
from studpoker.engine.actions import ActionKind
from studpoker.engine.events import Event, EventKind
from studpoker.engine.result import ShownHand
from studpoker.games import get_game
from studpoker.history.pokerstars.format import (
    FOLDED_ON,
    LIMIT,
    OMAHA_MARKERS,
    PLAY_MONEY,
    PROTECTED_TIMEOUT,
    ROOM,
    STUD_MARKERS,
    TOURNAMENT_CHIPS,
    AmountError,
    Denomination,
    hand_number,
    roman,
)

if TYPE_CHECKING:
    from studpoker.engine import Hand

# PokerStars dates every hand in Eastern Time, and trackers read the date as ET whatever the
# text says; when no time is known we write FPDB's own default date.
EASTERN = ZoneInfo("America/New_York")
NO_TIME = "2000/01/01 0:00:00 ET"


@dataclass(frozen=True, slots=True)
class Tournament:
    """The tournament a hand belongs to: its number, the buy-in as written, the level."""

    number: int
    buy_in: str = "Freeroll"  # as PokerStars writes it: "$2.00+$0.20 USD", "100+9", "Freeroll"
    level: int = 1

    @classmethod
    def of_play_money(cls, number: int, buy_in: int, fee: int, level: int) -> Tournament:
        """A room's tournament: its buy-in and fee in play-money units, written as PokerStars
        writes play money (no currency: ``10+1``, ``2.50+0.25``)."""
        return cls(number, f"{PLAY_MONEY.write(buy_in)}+{PLAY_MONEY.write(fee)}", level)


def eastern_time(time: datetime.datetime | None) -> str:
    """A header date in Eastern Time (``2026/11/29 7:30:05 ET``); a naive time is taken as UTC."""
    if time is None:
        return NO_TIME
    aware = time if time.tzinfo is not None else time.replace(tzinfo=datetime.UTC)
    local = aware.astimezone(EASTERN)
    return f"{local:%Y/%m/%d} {local.hour}:{local:%M:%S} ET"


def _cards(cards: Sequence[Card]) -> str:
    return "[" + " ".join(str(c) for c in cards) + "]"


def _low_digits(shown: ShownHand) -> str:
    return ",".join(c.rank_char for c in shown.low_cards)


def describe(code: str, shown: ShownHand) -> str:
    """The hand as the showdown line names it: ``HI: <high>; LO: 8,7,5,4,2`` in hi/lo."""
    game = get_game(code)
    if game.low_kind == "ace_to_five":  # razz: the low is the only hand
        return f"Lo: {_low_digits(shown)}"
    if game.hi_lo:
        text = f"HI: {shown.high}"
        return f"{text}; LO: {_low_digits(shown)}" if shown.low_cards else text
    return shown.high or ""


def _pot_source(index: int, pot_count: int) -> str:
    if pot_count == 1:
        return "pot"
    if index == 0:
        return "main pot"
    return "side pot" if pot_count == 2 else f"side pot-{index}"


class _Writer:
    """One pass over the hand's events, collecting the lines of the history."""

    def __init__(
        self,
        hand: Hand,
        names: Mapping[int, str],
        money: Denomination,
        *,
        viewer: int | None,
        reveal: bool,
    ) -> None:
        self.hand = hand
        self.names = names
        self.money = money
        self.viewer = viewer
        self.reveal = reveal
        self.stud = hand.game.is_stud
        self.lines: list[str] = []
        seats = hand.seat_numbers
        self.held: dict[int, list[Card]] = {s: [] for s in seats}  # every card, in deal order
        self.known: dict[int, set[int]] = {s: set() for s in seats}  # indices the reader saw
        self.pending: dict[int, list[int]] = {}  # this street's new card indices
        self.round_bet: dict[int, int] = dict.fromkeys(seats, 0)
        self.current = 0
        self.street = ""
        self.folded_on: dict[int, str] = {}
        self.invested: dict[int, int] = dict.fromkeys(seats, 0)  # chips beyond the ante
        self.showed: dict[int, list[Card]] = {}
        self.mucked: set[int] = set()
        self.board: list[Card] = []
        self.after_last_action: int | None = None  # where the uncalled-bet line goes
        self.second_street_at: int | None = None  # where the first round's lines end
        self.returned: tuple[int, int] | None = None
        self.awards: list[Event] = []
        self.positions: dict[int, str] = {}
        self.showdown = False
        self.blinds = [e for e in hand.events if e.kind is EventKind.POST_BLIND]

    def amount(self, units: int) -> str:
        return self.money.write(units)

    # ------------------------------------------------------------------ deals
    def flush_deals(self) -> None:
        for seat in self.hand.seat_numbers:
            new = self.pending.get(seat)
            if not new:
                continue
            seen_new = [i for i in new if i in self.known[seat]]
            if not seen_new:
                continue
            held = self.held[seat]
            old = [held[i] for i in sorted(self.known[seat]) if i not in new]
            new_text = _cards([held[i] for i in seen_new])
            if self.stud and old:
                self.lines.append(f"Dealt to {self.names[seat]} {_cards(old)} {new_text}")
            else:
                self.lines.append(f"Dealt to {self.names[seat]} {new_text}")
        self.pending.clear()

    def deal(self, event: Event) -> None:
        assert event.seat is not None and event.cards and event.cards[0] is not None
        seat = event.seat
        index = len(self.held[seat])
        self.held[seat].append(event.cards[0])
        self.pending.setdefault(seat, []).append(index)
        if self.reveal or event.visibility is None or event.visibility == self.viewer:
            self.known[seat].add(index)

    def deal_board(self, event: Event) -> None:
        cards = [c for c in event.cards or () if c is not None]
        if self.stud:  # the community card: every remaining player's seventh card
            self.lines[-1] += f" {_cards(cards)}"
        else:
            title = OMAHA_MARKERS[self.street]
            if self.board:
                self.lines.append(f"*** {title} *** {_cards(self.board)} {_cards(cards)}")
            else:
                self.lines.append(f"*** {title} *** {_cards(cards)}")
        self.board.extend(cards)

    # ------------------------------------------------------------------ betting
    def street_starts(self, street: str) -> None:
        if self.street and self.second_street_at is None:
            self.second_street_at = len(self.lines)
        self.street = street
        self.round_bet = dict.fromkeys(self.hand.seat_numbers, 0)
        self.current = 0
        if self.stud:
            self.lines.append(f"*** {STUD_MARKERS[street]} ***")
        elif street == "preflop":
            self.lines.append(f"*** {OMAHA_MARKERS[street]} ***")
        # Omaha's flop, turn and river markers come with their board cards.

    def action(self, event: Event) -> None:
        assert event.seat is not None and event.action is not None
        seat = event.seat
        who = self.names[seat]
        kind = event.action
        total = event.amount or 0
        added = total - self.round_bet[seat]
        tail = " and is all-in" if event.all_in else ""
        if kind is ActionKind.FOLD:
            self.folded_on[seat] = self.street
            line = f"{who}: folds"
        elif kind is ActionKind.CHECK:
            line = f"{who}: checks"
        elif kind is ActionKind.CALL:
            line = f"{who}: calls {self.amount(added)}{tail}"
        elif kind is ActionKind.BRING_IN:
            line = f"{who}: brings in for {self.amount(total)}{tail}"
        elif self.current == 0:  # the first bet of the round (a completion with no bring-in too)
            line = f"{who}: bets {self.amount(added)}{tail}"
        else:  # a raise, or the completion of a bring-in (trackers know no "completes")
            line = f"{who}: raises {self.amount(total - self.current)} to {self.amount(total)}{tail}"
        if kind is not ActionKind.FOLD:
            self.invested[seat] += added
            self.round_bet[seat] = total
            self.current = max(self.current, total)
        self.lines.append(line)
        self.after_last_action = len(self.lines)

    def timeout(self, event: Event) -> None:
        assert event.seat is not None
        if event.detail == "protected_all_in":
            self.lines.append(f"{self.names[event.seat]} {PROTECTED_TIMEOUT}")
            self.after_last_action = len(self.lines)
        else:  # the check, bring-in or fold it leads to follows as an action line
            self.lines.append(f"{self.names[event.seat]} has timed out")

    def post_blind(self, event: Event) -> None:
        assert event.seat is not None and event.amount is not None
        seat = event.seat
        self.round_bet[seat] = event.amount
        self.current = max(self.current, event.amount)
        self.invested[seat] += event.amount
        self.positions[seat] = f"({event.detail} blind) "

    # ------------------------------------------------------------------ showdown
    def show(self, event: Event) -> None:
        assert event.seat is not None
        if not self.showdown:
            self.lines.append("*** SHOW DOWN ***")
            self.showdown = True
        seat = event.seat
        if event.kind is EventKind.MUCK:
            self.mucked.add(seat)
            self.lines.append(f"{self.names[seat]}: mucks hand")
            return
        cards = [c for c in event.cards or () if c is not None]
        self.showed[seat] = cards
        self.known[seat] = set(range(len(self.held[seat])))
        shown = next(h for h in self.hand.result.shown if h.seat == seat)
        self.lines.append(
            f"{self.names[seat]}: shows {_cards(cards)} ({describe(self.hand.game.code, shown)})"
        )

    def collections(self) -> None:
        pot_count = len(self.hand.result.pots)
        hi_lo = self.hand.game.hi_lo
        for index in sorted({e.pot or 0 for e in self.awards}, reverse=True):  # side pots first
            shares = [e for e in self.awards if (e.pot or 0) == index]
            if hi_lo and self.showdown and all(e.detail == "whole" for e in shares):
                self.lines.append("No low hand qualified")
            source = _pot_source(index, pot_count)
            for e in shares:
                assert e.seat is not None and e.amount is not None
                self.lines.append(f"{self.names[e.seat]} collected {self.amount(e.amount)} from {source}")

    def summary(self) -> None:
        result = self.hand.result
        total = sum(p.amount for p in result.pots)
        pot_line = f"Total pot {self.amount(total)}"
        if len(result.pots) > 1:
            parts = [f"Main pot {self.amount(result.pots[0].amount)}."]
            for pot in result.pots[1:]:
                label = "Side pot" if len(result.pots) == 2 else f"Side pot-{pot.index}"
                parts.append(f"{label} {self.amount(pot.amount)}.")
            pot_line += " " + " ".join(parts)
        self.lines.append("*** SUMMARY ***")
        self.lines.append(f"{pot_line} | Rake {self.amount(0)}")
        if self.board and not self.stud:
            self.lines.append(f"Board {_cards(self.board)}")
        won = {seat: result.won(seat) for seat in self.hand.seat_numbers}
        shown_by_seat = {h.seat: h for h in result.shown}
        button = self.hand.button
        for seat in self.hand.seat_numbers:
            tag = ("(button) " if seat == button else "") + self.positions.get(seat, "")
            who = f"Seat {seat}: {self.names[seat]} {tag}"
            if seat in self.folded_on:
                quiet = " (didn't bet)" if not self.invested[seat] else ""
                self.lines.append(f"{who}folded {FOLDED_ON[self.folded_on[seat]]}{quiet}")
            elif seat in self.showed:
                description = describe(self.hand.game.code, shown_by_seat[seat])
                cards = _cards(self.showed[seat])
                if won[seat]:
                    self.lines.append(
                        f"{who}showed {cards} and won ({self.amount(won[seat])}) with {description}"
                    )
                else:
                    self.lines.append(f"{who}showed {cards} and lost with {description}")
            elif won[seat] or not self.showdown:  # the last player left (a pot of 0 without antes)
                self.lines.append(f"{who}collected ({self.amount(won[seat])})")
            else:  # mucked at the showdown; his cards only when the reader saw them all
                held = self.held[seat]
                every = len(self.known[seat]) == len(held)
                self.lines.append(f"{who}mucked {_cards(held)}" if every else f"{who}mucked")

    def _forced_round_end(self) -> int:
        """Where an unmatched forced bet is returned when nobody acted at all: after the antes
        (stud), or at the end of the pre-flop round that the blinds belong to (Omaha)."""
        if self.stud:
            return next(i for i, line in enumerate(self.lines) if line.startswith("*** 3rd STREET"))
        return len(self.lines) if self.second_street_at is None else self.second_street_at

    # ------------------------------------------------------------------ the pass
    def write(self) -> None:
        for event in self.hand.events:
            if event.kind is not EventKind.DEAL and self.pending:
                self.flush_deals()
            writer = _EVENT_WRITERS.get(event.kind)
            if writer is not None:
                writer(self, event)
        if self.pending:
            self.flush_deals()
        if self.returned is not None:  # on the street where the bet was made
            seat, amount = self.returned
            line = f"Uncalled bet ({self.amount(amount)}) returned to {self.names[seat]}"
            self.lines.insert(
                self._forced_round_end() if self.after_last_action is None else self.after_last_action, line
            )
        self.collections()
        self.summary()

    def post_ante(self, event: Event) -> None:
        assert event.seat is not None
        tail = " and is all-in" if event.all_in else ""
        self.lines.append(f"{self.names[event.seat]}: posts the ante {self.amount(event.amount or 0)}{tail}")

    def street_event(self, event: Event) -> None:
        if event.street == "preflop":  # rooms print the blinds before the hole cards
            for blind in self.blinds:
                assert blind.seat is not None
                tail = " and is all-in" if blind.all_in else ""
                amount = self.amount(blind.amount or 0)
                self.lines.append(f"{self.names[blind.seat]}: posts {blind.detail} blind {amount}{tail}")
        self.street_starts(event.street or "")

    def expose(self, event: Event) -> None:
        assert event.seat is not None  # turned up: the reader now sees every card
        self.known[event.seat] = set(range(len(self.held[event.seat])))

    def return_bet(self, event: Event) -> None:
        assert event.seat is not None and event.amount is not None
        self.returned = (event.seat, event.amount)

    def award(self, event: Event) -> None:
        self.awards.append(event)


# What each kind of event writes (or keeps for later); the others write nothing.
_EVENT_WRITERS: dict[EventKind, Callable[[_Writer, Event], None]] = {
    EventKind.POST_ANTE: _Writer.post_ante,
    EventKind.STREET: _Writer.street_event,
    EventKind.POST_BLIND: _Writer.post_blind,
    EventKind.DEAL: _Writer.deal,
    EventKind.DEAL_BOARD: _Writer.deal_board,
    EventKind.ACTION: _Writer.action,
    EventKind.TIMEOUT: _Writer.timeout,
    EventKind.EXPOSE: _Writer.expose,
    EventKind.RETURN: _Writer.return_bet,
    EventKind.SHOW: _Writer.show,
    EventKind.MUCK: _Writer.show,
    EventKind.AWARD: _Writer.award,
}


def pokerstars_history(
    hand: Hand,
    *,
    players: Mapping[int, str] | None = None,
    hand_id: str | int | None = None,
    table: str | None = None,
    time: datetime.datetime | None = None,
    viewer: int | None = None,
    reveal: bool = False,
    money: Denomination | None = None,
    tournament: Tournament | None = None,
    seat_count: int | None = None,
) -> str:
    """The finished ``hand`` as a PokerStars hand history (lines ending in ``\\n``).

    ``players`` maps seats to names (default ``Player N``); ``hand_id`` becomes the header's
    hand number (:func:`~studpoker.history.pokerstars.format.hand_number`); ``time`` is written
    in Eastern Time; ``money`` is how amounts are written (default: play money, or chips in a
    ``tournament``); ``seat_count`` the table's size (default: the game's most players).
    """
    if not hand.is_over:
        raise ValueError("only a finished hand can be written as a hand history")
    game = hand.game
    if viewer is not None and viewer not in hand.seat_numbers:
        raise ValueError(f"viewer seat {viewer} is not in this hand; seats: {list(hand.seat_numbers)}")
    if tournament is not None:
        if money is not None and not money.chips:
            raise AmountError("tournament hands are written in chips, without a currency")
        money = TOURNAMENT_CHIPS
    money = money or PLAY_MONEY
    names = {seat: (players or {}).get(seat) or f"Player {seat}" for seat in hand.seat_numbers}
    if len(set(names.values())) != len(names):
        raise ValueError(f"every player needs his own name, not {sorted(names.values())}")
    for name in names.values():
        if name != name.strip() or "\n" in name or ":" in name:
            raise ValueError(f"player name {name!r} cannot be written (no colon, no edge spaces)")
    stakes = hand.stakes
    title = f"{game.pokerstars_title} {LIMIT}"
    small, big = money.write(stakes.small_bet), money.write(stakes.big_bet)
    number = hand_number(hand_id)
    if tournament is None:
        iso = f" {money.iso}" if money.iso else ""
        head = f"{ROOM} Hand #{number}:  {title} ({small}/{big}{iso}) - {eastern_time(time)}"
    else:
        head = (
            f"{ROOM} Hand #{number}: Tournament #{tournament.number}, {tournament.buy_in} {title}"
            f" - Level {roman(tournament.level)} ({small}/{big}) - {eastern_time(time)}"
        )
    table_line = f"Table '{table or 'studpoker'}' {seat_count or game.max_players}-max"
    if money.play_money:
        table_line += " (Play Money)"
    if hand.button is not None:
        table_line += f" Seat #{hand.button} is the button"
    writer = _Writer(hand, names, money, viewer=viewer, reveal=reveal)
    writer.lines.extend([head, table_line])
    for seat in hand.seat_numbers:
        writer.lines.append(f"Seat {seat}: {names[seat]} ({money.write(hand.initial_stacks[seat])} in chips)")
    writer.write()
    return "\n".join(writer.lines) + "\n"


def join_histories(histories: Sequence[str]) -> str:
    """Several hands as one file: PokerStars separates hands with blank lines (three)."""
    return "\n\n\n".join(h.rstrip("\n") for h in histories) + "\n"
