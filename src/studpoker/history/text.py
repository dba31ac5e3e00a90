"""The readable hand history, in the style players know from online rooms.

Built from the engine's event log only. The reader decides which cards are printed: a seat sees
its own down cards and everyone's up cards, a spectator (``viewer=None``) only the up cards,
and ``reveal=True`` prints every card (a replayed PHH file, an audit); cards shown at the
showdown (or turned up for an all-in run-out) are printed for everyone. Amounts are the room's
units written with two decimals (``studpoker.money.format_money``), as the table shows them;
``chips=True`` writes them as whole chips instead (a tournament's history read from a file).
A decision that used the player's time bank says so after it: ``bob: calls 1.00 (time bank:
12.4 s)``; a timeout the table counted the day's protected all-ins at says them as the table did
(R-PROTECTED-ALL-INS-PER-DAY): ``bob: has timed out and is all-in (disconnect protection, 1 of 2
today)``.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from studpoker.cards import Card
from studpoker.engine.actions import ActionKind
from studpoker.engine.events import Event, EventKind
from studpoker.money import format_money

if TYPE_CHECKING:
    from studpoker.engine import Hand

STREET_TITLES = {
    "third": "3rd STREET",
    "fourth": "4th STREET",
    "fifth": "5th STREET",
    "sixth": "6th STREET",
    "seventh": "7th STREET",
    "preflop": "HOLE CARDS",
    "flop": "FLOP",
    "turn": "TURN",
    "river": "RIVER",
}
STREET_NAMES = {
    "third": "3rd street",
    "fourth": "4th street",
    "fifth": "5th street",
    "sixth": "6th street",
    "seventh": "7th street",
    "preflop": "pre-flop",
    "flop": "the flop",
    "turn": "the turn",
    "river": "the river",
}


def _cards(cards: Sequence[Card | None]) -> str:
    return "[" + " ".join(str(c) for c in cards if c is not None) + "]"


def _money_text(units: int | None) -> str:
    """An amount in the room's units with two decimals, as the table and the lobby write it."""
    return format_money(units or 0)


def _chips(units: int | None) -> str:
    """An amount of tournament chips: a whole number."""
    return str(units or 0)


def _unprotected(counts: tuple[int, int] | None) -> str:
    """Why a timeout the clock rule wanted protected was not, in the table's words
    (server/table/timeout_notes.py): none left today, or the store could not count one."""
    if counts is None:
        return ""
    used, allowed = counts
    if used >= allowed:
        return f" (no protected all-in left: {used} of {allowed} used today)"
    return " (the protected all-in could not be counted)"


def _pot_name(index: int | None) -> str:
    return "main pot" if not index else f"side pot-{index}"


def text_history(
    hand: Hand,
    *,
    viewer: int | None = None,
    reveal: bool = False,
    players: Mapping[int, str] | None = None,
    hand_id: str | int | None = None,
    table: str | None = None,
    time: datetime.datetime | None = None,
    room: str = "studpoker",
    chips: bool = False,
    time_banks: Mapping[int, float] | None = None,
    protected_counts: Mapping[int, tuple[int, int]] | None = None,
) -> str:
    """The hand's history as text lines (a finished hand, or one in progress up to now).

    ``players`` maps seat numbers to names (default ``Player N``); ``viewer`` is the seat whose
    down cards may be printed; ``reveal`` prints every card; ``chips`` writes amounts as whole
    chips rather than money with two decimals. ``time_banks`` maps an engine event version to
    the seconds of his time bank the player used on the decision that event ended (the room's
    ``HandEnd.time_banks``). ``protected_counts`` maps a timeout's engine event version to the
    day's protected all-ins (used, allowed) the table counted then (``HandEnd.protected_counts``,
    or a PHH's ``HandWithTimeBanks.protected_counts``).
    """
    names = {seat: (players or {}).get(seat) or f"Player {seat}" for seat in hand.seat_numbers}
    writer = _TextWriter(
        hand,
        names,
        viewer=viewer,
        reveal=reveal,
        money=_chips if chips else _money_text,
        time_banks=time_banks,
        protected_counts=protected_counts,
    )
    writer.header(hand_id=hand_id, table=table, time=time, room=room)
    writer.seats()
    writer.events()
    if hand.is_over:
        writer.summary()
    return "\n".join(writer.lines) + "\n"


class _TextWriter:
    """One pass over the hand's events, section by section, collecting the history's lines."""

    def __init__(
        self,
        hand: Hand,
        names: Mapping[int, str],
        *,
        viewer: int | None,
        reveal: bool,
        money: Callable[[int | None], str],
        time_banks: Mapping[int, float] | None = None,
        protected_counts: Mapping[int, tuple[int, int]] | None = None,
    ) -> None:
        self.hand = hand
        self.game = hand.game
        self.names = names
        self.viewer = viewer
        self.reveal = reveal
        self.money = money
        self.time_banks = time_banks or {}
        self.protected_counts = protected_counts or {}
        self.lines: list[str] = []
        seats = hand.seat_numbers
        self.shown: dict[int, list[Card | None]] = {seat: [] for seat in seats}  # what the reader saw
        self.board: list[Card] = []
        self.pending: dict[int, list[Card | None]] = {}
        self.held: dict[int, list[Card | None]] = {seat: [] for seat in seats}  # the true cards
        self.round_bet: dict[int, int] = dict.fromkeys(seats, 0)
        self.current = 0
        self.street = ""
        self.folded_on: dict[int, str] = {}
        self.showed: dict[int, tuple[list[Card | None], str | None]] = {}
        self.mucked: set[int] = set()
        self.won: dict[int, int] = {}
        self.pots: dict[int, int] = {}
        self.showdown_started = False

    # ------------------------------------------------------------------ header and seats
    def header(
        self, *, hand_id: str | int | None, table: str | None, time: datetime.datetime | None, room: str
    ) -> None:
        money, game, stakes = self.money, self.game, self.hand.stakes
        stake_text = f"{money(stakes.small_bet)}/{money(stakes.big_bet)}"
        if game.is_stud:
            extras = []
            if stakes.ante:
                extras.append(f"ante {money(stakes.ante)}")
            if stakes.bring_in:
                extras.append(f"bring-in {money(stakes.bring_in)}")
            if extras:
                stake_text += ", " + ", ".join(extras)
        else:
            stake_text += f", blinds {money(stakes.small_blind)}/{money(stakes.big_blind)}"
        head = f"{room} Hand"
        if hand_id is not None:
            head += f" #{hand_id}"
        head += f": {game.name} ({stake_text})"
        if time is not None:
            head += f" - {time.strftime('%Y/%m/%d %H:%M:%S')}" + (f" {time.tzname()}" if time.tzinfo else "")
        self.lines.append(head)
        table_line = f"Table '{table}'" if table is not None else "Table"
        table_line += f" {game.max_players}-max"
        if self.hand.button is not None:
            table_line += f" Seat #{self.hand.button} is the button"
        self.lines.append(table_line)

    def seats(self) -> None:
        for number in self.hand.seat_numbers:
            stack = self.money(self.hand.initial_stacks[number])
            self.lines.append(f"Seat {number}: {self.names[number]} ({stack} in chips)")

    # ------------------------------------------------------------------ the events
    def events(self) -> None:
        for event in self.hand.events:
            if event.kind is not EventKind.DEAL and self.pending:
                self.flush_deals()
            writer = _EVENT_WRITERS.get(event.kind)
            if writer is not None:
                written = len(self.lines)
                writer(self, event)
                used = self.time_banks.get(event.version)
                if used is not None and len(self.lines) > written:
                    self.lines[-1] += f" (time bank: {used:.1f} s)"
        if self.pending:
            self.flush_deals()

    def visible(self, event: Event) -> bool:
        viewer = self.viewer
        return self.reveal or event.visibility is None or (viewer is not None and event.visibility == viewer)

    def flush_deals(self) -> None:
        for who in self.hand.seat_numbers:
            new = self.pending.get(who)
            if not new:
                continue
            old = self.shown[who]
            seen_new = [c for c in new if c is not None]
            if self.game.is_stud and old and seen_new:
                self.lines.append(f"Dealt to {self.names[who]} {_cards(old)} {_cards(seen_new)}")
            elif seen_new:
                self.lines.append(f"Dealt to {self.names[who]} {_cards(seen_new)}")
            old.extend(seen_new)
        self.pending.clear()

    def post_ante(self, event: Event) -> None:
        assert event.seat is not None
        tail = " and is all-in" if event.all_in else ""
        what = "a dead small blind" if event.detail == "dead_blind" else "the ante"  # R-O8-MISSED-BLINDS
        self.lines.append(f"{self.names[event.seat]}: posts {what} {self.money(event.amount)}{tail}")

    def post_blind(self, event: Event) -> None:
        assert event.seat is not None and event.amount is not None
        self.round_bet[event.seat] = event.amount
        self.current = max(self.current, event.amount)
        # Printed before the hole cards, as rooms do (the engine posts them after the deal).

    def street_starts(self, event: Event) -> None:
        self.street = street = event.street or ""
        self.round_bet = dict.fromkeys(self.hand.seat_numbers, 0)
        self.current = 0
        if street in ("flop", "turn", "river"):
            return  # the title comes with the board cards
        if street == "preflop":
            for e in self.hand.events:
                if e.kind is EventKind.POST_BLIND and e.seat is not None:
                    tail = " and is all-in" if e.all_in else ""
                    self.lines.append(
                        f"{self.names[e.seat]}: posts {e.detail} blind {self.money(e.amount)}{tail}"
                    )
        self.lines.append(f"*** {STREET_TITLES.get(street, street.upper())} ***")

    def deal(self, event: Event) -> None:
        assert event.seat is not None and event.cards
        self.held[event.seat].append(event.cards[0])
        card = event.cards[0] if self.visible(event) else None
        self.pending.setdefault(event.seat, []).append(card)

    def deal_board(self, event: Event) -> None:
        cards = [c for c in event.cards or () if c is not None]
        if self.game.is_stud:
            self.lines.append(f"Community card {_cards(cards)} (every player's 7th card)")
        else:
            title = STREET_TITLES.get(self.street, self.street.upper())
            if self.board:
                self.lines.append(f"*** {title} *** {_cards(self.board)} {_cards(cards)}")
            else:
                self.lines.append(f"*** {title} *** {_cards(cards)}")
        self.board.extend(cards)

    def action(self, event: Event) -> None:
        seat, action = event.seat, event.action
        assert seat is not None and action is not None
        amount = event.amount or 0
        money = self.money
        tail = " and is all-in" if event.all_in else ""
        who = self.names[seat]
        if action is ActionKind.FOLD:
            self.folded_on[seat] = self.street
            self.lines.append(f"{who}: folds")
        elif action is ActionKind.CHECK:
            self.lines.append(f"{who}: checks")
        elif action is ActionKind.CALL:
            self.lines.append(f"{who}: calls {money(amount - self.round_bet[seat])}{tail}")
        elif action is ActionKind.BRING_IN:
            self.lines.append(f"{who}: brings in for {money(amount)}{tail}")
        elif action is ActionKind.COMPLETE:
            self.lines.append(f"{who}: completes to {money(amount)}{tail}")
        elif action is ActionKind.BET:
            self.lines.append(f"{who}: bets {money(amount - self.round_bet[seat])}{tail}")
        else:
            self.lines.append(f"{who}: raises {money(amount - self.current)} to {money(amount)}{tail}")
        if action is not ActionKind.FOLD:
            self.round_bet[seat] = amount
            self.current = max(self.current, amount)

    def timeout(self, event: Event) -> None:
        assert event.seat is not None
        counts = self.protected_counts.get(event.version)
        if event.detail == "protected_all_in":
            today = "" if counts is None else f", {counts[0]} of {counts[1]} today"
            self.lines.append(
                f"{self.names[event.seat]}: has timed out and is all-in (disconnect protection{today})"
            )
        else:
            self.lines.append(f"{self.names[event.seat]}: has timed out{_unprotected(counts)}")

    def expose(self, event: Event) -> None:
        assert event.seat is not None
        turned = self.held[event.seat] if self.game.is_stud else list(event.cards or ())
        self.lines.append(f"{self.names[event.seat]}: shows {_cards(turned)} (all-in)")

    def return_bet(self, event: Event) -> None:
        assert event.seat is not None
        self.lines.append(f"Uncalled bet ({self.money(event.amount)}) returned to {self.names[event.seat]}")

    # ------------------------------------------------------------------ showdown
    def show(self, event: Event) -> None:
        seat = event.seat
        assert seat is not None
        if not self.showdown_started:
            self.lines.append("*** SHOW DOWN ***")
            self.showdown_started = True
        if event.kind is EventKind.SHOW:
            shown_cards = list(event.cards or ())
            self.showed[seat] = (shown_cards, event.detail)
            tail = f" ({event.detail})" if event.detail else ""
            self.lines.append(f"{self.names[seat]}: shows {_cards(shown_cards)}{tail}")
        else:
            self.mucked.add(seat)
            self.lines.append(f"{self.names[seat]}: mucks hand")

    def award(self, event: Event) -> None:
        assert event.seat is not None and event.amount is not None
        pot = event.pot or 0
        self.pots[pot] = self.pots.get(pot, 0) + event.amount
        self.won[event.seat] = self.won.get(event.seat, 0) + event.amount
        how = f" ({event.detail})" if event.detail in ("high", "low") else ""
        self.lines.append(
            f"{self.names[event.seat]} collected {self.money(event.amount)} from {_pot_name(pot)}{how}"
        )

    # ------------------------------------------------------------------ summary
    def summary(self) -> None:
        money, pots = self.money, self.pots
        self.lines.append("*** SUMMARY ***")
        pot_line = f"Total pot {money(sum(pots.values()))}"
        if len(pots) > 1:
            parts = [f"Main pot {money(pots.get(0, 0))}."]
            parts += [f"Side pot-{i} {money(pots[i])}." for i in sorted(pots) if i]
            pot_line += " | " + " ".join(parts)
        self.lines.append(pot_line)
        if self.board:
            self.lines.append(f"Board {_cards(self.board)}")
        for seat in self.hand.seat_numbers:
            self.lines.append(f"Seat {seat}: {self.names[seat]} {self.seat_result(seat)}")

    def seat_result(self, seat: int) -> str:
        """How the seat's summary line ends: folded, showed and won or lost, mucked, collected."""
        if seat in self.folded_on:
            return f"folded on {STREET_NAMES.get(self.folded_on[seat], self.folded_on[seat])}"
        if seat in self.showed:
            hole, detail = self.showed[seat]
            with_text = f" with {detail}" if detail else ""
            if seat in self.won:
                return f"showed {_cards(hole)} and won ({self.money(self.won[seat])}){with_text}"
            return f"showed {_cards(hole)} and lost{with_text}"
        if seat in self.mucked:
            return "mucked"
        if seat in self.won:
            return f"collected ({self.money(self.won[seat])})"
        return "lost"


# What each kind of event writes; the others write nothing.
_EVENT_WRITERS: dict[EventKind, Callable[[_TextWriter, Event], None]] = {
    EventKind.POST_ANTE: _TextWriter.post_ante,
    EventKind.POST_BLIND: _TextWriter.post_blind,
    EventKind.STREET: _TextWriter.street_starts,
    EventKind.DEAL: _TextWriter.deal,
    EventKind.DEAL_BOARD: _TextWriter.deal_board,
    EventKind.ACTION: _TextWriter.action,
    EventKind.TIMEOUT: _TextWriter.timeout,
    EventKind.EXPOSE: _TextWriter.expose,
    EventKind.RETURN: _TextWriter.return_bet,
    EventKind.SHOW: _TextWriter.show,
    EventKind.MUCK: _TextWriter.show,
    EventKind.AWARD: _TextWriter.award,
}
