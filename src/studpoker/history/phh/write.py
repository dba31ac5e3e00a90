"""Writing a finished engine hand as PHH (:func:`hand_to_phh`, :func:`dump_hand`): the whole
record, or the hand as one seat (or a spectator) saw it."""

from __future__ import annotations

import datetime
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Literal

from studpoker.cards import Card, format_cards
from studpoker.engine.actions import ActionKind
from studpoker.engine.events import Event, EventKind

from .model import COUNTS_TEXT, PROTECTED_TEXT, TIMED_OUT_TEXT, PhhHand
from .stakes import BIG_BLIND_SEAT_FIELD

if TYPE_CHECKING:
    from studpoker.engine import Hand

EVERY_CARD: Literal["all"] = "all"  # hand_to_phh(seen_by=...): the complete record
# The seconds of his time bank a player used on a decision (R-TIME-BANK): PHH has no field for
# it, so it is a commentary on the action, which PHH readers skip.
TIME_BANK_TEXT = "time bank {seconds:.1f} s"

_ACTION_NOTATION = {
    ActionKind.FOLD: "f",
    ActionKind.CHECK: "cc",
    ActionKind.CALL: "cc",
    ActionKind.BRING_IN: "pb",
}


def player_order(hand: Hand) -> list[int]:
    """The table seats in PHH player order (p1 first): seat order in stud; in Omaha from the
    seat left of the button round to the button (heads-up: the big blind, then the button)."""
    seats = list(hand.seat_numbers)
    if hand.game.is_stud or hand.button is None:
        return seats
    b = seats.index(hand.button)
    return seats[b + 1 :] + seats[: b + 1]


def hand_to_phh(
    hand: Hand,
    *,
    players: Mapping[int, str] | None = None,
    hand_id: str | int | None = None,
    table: str | int | None = None,
    time: datetime.datetime | None = None,
    event: str | None = None,
    currency: str | None = None,
    seen_by: int | Literal["all"] | None = EVERY_CARD,
    time_banks: Mapping[int, float] | None = None,
    protected_counts: Mapping[int, tuple[int, int]] | None = None,
) -> PhhHand:
    """The PHH record of a finished engine hand (``players`` maps seat numbers to names).

    ``seen_by`` chooses whose history it is: ``"all"`` (:data:`EVERY_CARD`, the default) writes
    every card; a seat number writes the hand as that player saw it and ``None`` as a spectator
    did: the down cards the reader never saw (other players' cards unless shown at the
    showdown or turned up for an all-in run-out) are written ``??``. Such a file still replays
    to the same stacks: every hand the showdown needs is shown in it.

    Deals are written one ``d dh`` per player and street (cards in dealing order), the showdown
    as ``sm`` (shown cards) or a bare ``sm`` (mucked); hands turned up for an all-in run-out are
    written as ``sm`` before the run-out and, when the run-out gave them more cards (stud), again
    at the showdown, as PokerKit does. A timeout that makes a player all-in (disconnect
    protection) has no PHH notation: it is written as the commentary
    ``# pN timed out: all-in under disconnect protection``, which
    :func:`~studpoker.history.phh.replay` understands (other PHH readers do not).

    ``time_banks`` maps an engine event version to the seconds of his time bank the player
    used on the decision that event ended (the room's ``HandEnd.time_banks``): written as the
    action's commentary, ``p2 cc # time bank 12.4 s`` (a timeout's on the check or fold it
    leads to; before a protected all-in, as the bare ``# p2 time bank 30.0 s``).

    A check, bring-in or fold the clock made is the bare ``# pN timed out`` before it.
    ``protected_counts`` maps a timeout's engine event version to the day's protected all-ins
    (used, allowed) the table counted then (R-PROTECTED-ALL-INS-PER-DAY): written after its
    timeout's commentary, ``# p2 timed out: ... (1 of 2 protected all-ins today)``.
    """
    if not hand.is_over:
        raise ValueError("only a finished hand can be written as PHH")
    order = player_order(hand)
    events = hand.events if seen_by == EVERY_CARD else hand.events_for(seen_by)
    writer = _ActionWriter(hand, order, time_banks or {}, protected_counts or {})
    for ev in events:
        writer.write(ev)
    writer.flush()
    phh = PhhHand(
        variant=hand.game.phh_variant,
        antes=[],
        starting_stacks=[hand.initial_stacks[seat] for seat in order],
        actions=writer.actions,
        ante_trimming_status=True,
        finishing_stacks=[hand.result.final_stacks[seat] for seat in order],
        seats=order,
    )
    _write_stakes(phh, hand, order)
    if players:
        phh.players = [players.get(seat, "") for seat in order]
    phh.extra = {
        **phh.extra,
        **_metadata(hand, hand_id=hand_id, table=table, time=time, event=event, currency=currency),
    }
    return phh


def dump_hand(hand: Hand, **metadata: Any) -> str:
    """The PHH text of a finished engine hand; ``metadata`` as for :func:`hand_to_phh`."""
    return hand_to_phh(hand, **metadata).dumps()


def _cards_text(cards: Iterable[Card | None]) -> str:
    """Cards written together, ``??`` for one the reader does not know."""
    return "".join("??" if card is None else str(card) for card in cards)


class _ActionWriter:
    """The ``actions`` entries of a hand, one event at a time (:data:`_WRITERS` by kind)."""

    def __init__(
        self,
        hand: Hand,
        order: list[int],
        time_banks: Mapping[int, float],
        protected_counts: Mapping[int, tuple[int, int]],
    ) -> None:
        self.hand = hand
        self.order = order
        self.time_banks = time_banks
        self.protected_counts = protected_counts
        self.timed_out: dict[int, float] = {}  # seat -> bank used before a timeout's action
        self.label = {seat: f"p{i + 1}" for i, seat in enumerate(order)}
        self.actions: list[str] = []
        self.dealt: dict[int, list[Card | None]] = {seat: [] for seat in order}  # None: not seen (??)
        self.run: dict[int, list[Card | None]] = {}  # cards dealt since the last other event
        self.exposed: dict[int, int] = {}  # seat -> how many cards he had when turned up
        self.down_at: dict[int, list[int]] = {seat: [] for seat in order}  # positions of his down cards

    def write(self, ev: Event) -> None:
        if ev.kind is EventKind.DEAL:
            self.deal(ev)
            return
        if self.run:
            self.flush()
        writer = _WRITERS.get(ev.kind)
        if writer is not None:
            writer(self, ev)

    def flush(self) -> None:
        """One ``d dh`` per player for the cards dealt in a row (a street)."""
        for seat in self.order:
            cards = self.run.get(seat)
            if cards:
                self.actions.append(f"d dh {self.label[seat]} {_cards_text(cards)}")
        self.run.clear()

    def deal(self, ev: Event) -> None:
        assert ev.seat is not None and ev.cards
        self.run.setdefault(ev.seat, []).append(ev.cards[0])
        if ev.detail == "down":
            self.down_at[ev.seat].append(len(self.dealt[ev.seat]))
        self.dealt[ev.seat].append(ev.cards[0])

    def deal_board(self, ev: Event) -> None:
        cards = [c for c in ev.cards or () if c is not None]
        self.actions.append(f"d db {format_cards(cards)}")

    def action(self, ev: Event) -> None:
        assert ev.seat is not None and ev.action is not None
        notation = _ACTION_NOTATION.get(ev.action)
        if notation is None:
            notation = f"cbr {ev.amount}"
        used = self.time_banks.get(ev.version, self.timed_out.pop(ev.seat, None))
        note = "" if used is None else " # " + TIME_BANK_TEXT.format(seconds=used)
        self.actions.append(f"{self.label[ev.seat]} {notation}{note}")

    def timeout(self, ev: Event) -> None:
        assert ev.seat is not None
        used = self.time_banks.get(ev.version)
        counts = self.protected_counts.get(ev.version)
        said = "" if counts is None else COUNTS_TEXT.format(used=counts[0], allowed=counts[1])
        if ev.detail != "protected_all_in":
            self.actions.append(f"# {self.label[ev.seat]} {TIMED_OUT_TEXT}{said}")
            if used is not None:  # noted on the check or fold the clock makes next
                self.timed_out[ev.seat] = used
            return
        if used is not None:
            self.actions.append(f"# {self.label[ev.seat]} " + TIME_BANK_TEXT.format(seconds=used))
        self.actions.append(f"# {self.label[ev.seat]} {PROTECTED_TEXT}{said}")

    def expose(self, ev: Event) -> None:
        assert ev.seat is not None
        held = self.dealt[ev.seat]
        # His down cards, turned up in dealing order, are public now (also in a reader's history).
        for position, card in zip(self.down_at[ev.seat], ev.cards or (), strict=False):
            held[position] = card
        self.exposed[ev.seat] = len(held)
        self.actions.append(f"{self.label[ev.seat]} sm {_cards_text(held)}")

    def show(self, ev: Event) -> None:
        assert ev.seat is not None
        shown = [c for c in ev.cards or () if c not in self.hand.board]
        if self.exposed.get(ev.seat) != len(self.dealt[ev.seat]):  # not already shown as they are
            self.actions.append(f"{self.label[ev.seat]} sm {_cards_text(shown)}")

    def muck(self, ev: Event) -> None:
        assert ev.seat is not None
        self.actions.append(f"{self.label[ev.seat]} sm")


_WRITERS: Mapping[EventKind, Callable[[_ActionWriter, Event], None]] = {
    EventKind.DEAL_BOARD: _ActionWriter.deal_board,
    EventKind.ACTION: _ActionWriter.action,
    EventKind.TIMEOUT: _ActionWriter.timeout,
    EventKind.EXPOSE: _ActionWriter.expose,
    EventKind.SHOW: _ActionWriter.show,
    EventKind.MUCK: _ActionWriter.muck,
}


def _write_stakes(phh: PhhHand, hand: Hand, order: list[int]) -> None:
    """The antes, the bring-in or blinds, and the bets of the hand."""
    stakes, forced, n = hand.stakes, hand.forced, len(order)

    def per_player(amounts: Mapping[int, int]) -> list[int]:
        values = [amounts.get(seat, 0) for seat in order]
        return values[::-1] if n == 2 else values  # PHH assigns forced bets in reverse heads-up

    phh.antes = [stakes.ante] * n if forced is None or forced.antes is None else per_player(forced.antes)
    if hand.game.is_stud:
        phh.bring_in = stakes.bring_in
    elif forced is None or forced.blinds is None:
        phh.blinds_or_straddles = [stakes.small_blind, stakes.big_blind] + [0] * (n - 2)
    else:
        phh.blinds_or_straddles = per_player(forced.blinds)
        if forced.big_blind is not None:  # others posted a big blind too: whom the action follows
            phh.extra[BIG_BLIND_SEAT_FIELD] = forced.big_blind
    phh.small_bet, phh.big_bet = stakes.small_bet, stakes.big_bet


def _metadata(
    hand: Hand,
    *,
    hand_id: str | int | None,
    table: str | int | None,
    time: datetime.datetime | None,
    event: str | None,
    currency: str | None,
) -> dict[str, Any]:
    """The optional PHH fields the hand and its caller know (:meth:`PhhHand.fields` orders them)."""
    extra: dict[str, Any] = {}
    if event is not None:
        extra["event"] = event
    if time is not None:
        extra["time"] = time.time().replace(microsecond=0, tzinfo=None)
        extra["day"], extra["month"], extra["year"] = time.day, time.month, time.year
        if time.tzinfo is not None:
            extra["time_zone_abbreviation"] = time.tzname()
    if hand_id is not None:
        extra["hand"] = hand_id
    if table is not None:
        extra["table"] = table
    extra["seat_count"] = hand.game.max_players
    if currency is not None:
        extra["currency"] = currency
    return extra
