"""The hand being played: the engine's :class:`Hand` and everything that lives exactly as long
as it (its id, who was dealt in, its deck, what the watchers have had of it, the time banks its
decisions used, the table's words for its timeouts)."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from studpoker.cards import Deck

# The engine (and numpy under it) is imported with the server, not by the first hand: a lazy
# import there blocked the event loop, and every table with it, for about 1.8 s.
from studpoker.engine import Event, Hand
from studpoker.engine.forced import ForcedBets
from studpoker.games import HouseRules, Stakes, get_game
from studpoker.store.models import TableConfig

from ..clock import Decision
from ..deals import DealInPlay, PendingDeal
from ..protocol import LegalOptionInfo
from .ports import HandEnd
from .seats import SeatState
from .time_bank import TimeBankPolicy


@dataclass
class HandInPlay:
    hand: Hand
    hand_id: str
    accounts: dict[int, int]  # seat -> account id of each seat dealt in
    deal: DealInPlay
    engine_seen: int = 0  # the engine version the watchers have had the events up to
    decision_version: int = 0  # the table version the current decision was published at
    # Engine event version -> the seconds of his time bank the seat used for the decision that
    # event ended (its action, or the clock rule's timeout): ``time_bank`` in its event data.
    time_banks: dict[int, float] = field(default_factory=dict)
    # The ``timed_out`` table events of its timeouts (timeout_notes.py), oldest first, and how
    # many of them the watchers have had: the snapshot's ``timeout_notes`` (a reload says them).
    timeout_notes: list[dict[str, Any]] = field(default_factory=list)
    notes_told: int = 0
    # The day's protected all-ins those words counted, by their timeout's engine event version.
    protected_counts: dict[int, tuple[int, int]] = field(default_factory=dict)

    def untold_notes(self) -> list[dict[str, Any]]:
        """The timeout notes the watchers have not had, now counted as told (each follows its
        timeout's engine events, so that the words come after what the clock did)."""
        untold = self.timeout_notes[self.notes_told :]
        self.notes_told = len(self.timeout_notes)
        return untold

    def viewer(self, seat: int | None) -> int | None:
        """The engine's viewer for a table seat: only a seat dealt in sees its cards."""
        return seat if seat is not None and seat in self.accounts else None

    def options(self) -> list[LegalOptionInfo]:
        legal = self.hand.legal_actions()
        if legal is None:
            return []
        options = []
        for option in legal.options:
            kind = option.kind
            kind_text = kind.value if isinstance(kind, enum.Enum) else str(kind)
            options.append(LegalOptionInfo(kind=kind_text, amount=option.amount, all_in=bool(option.all_in)))
        return options

    def spend_time_bank(
        self, state: SeatState | None, decision: Decision | None, now: float, *, ran_out: bool = False
    ) -> bool:
        """The decision in play ends now (his action, or the clock rule when it ``ran_out``): what
        it used of the seat's bank is taken from it and noted on the event that ends it, the
        first one the watchers have not had. Whether the bank was used."""
        if state is None or decision is None or decision.seat != state.seat:
            return False
        used = state.bank.spend(decision.bank_used(decision.bank_ends if ran_out else now))
        if round(used, 1) <= 0:
            return False
        self.time_banks[self.engine_seen + 1] = round(used, 1)
        return True

    def grow_time_banks(self, seats: Mapping[int, SeatState], policy: TimeBankPolicy) -> bool:
        """The hand was played to its end: each seat dealt in (and still his) counts it towards
        his bank's growth. Whether a bank grew."""
        grew = False
        for seat, account_id in self.accounts.items():
            state = seats.get(seat)
            if state is not None and state.account_id == account_id:
                grew = policy.hand_played(state.bank) or grew
        return grew

    def event_data(self, event: Event) -> dict[str, object]:
        """An engine event as the watchers get it, with the table's note: ``time_bank``, the
        seconds of his bank the seat used before this action or timeout (R-TIME-BANK)."""
        data = event.to_dict()
        used = self.time_banks.get(event.version)
        if used is not None:
            data["time_bank"] = used
        return data

    def needs_protection(self, seat: int) -> bool:
        """Whether the clock rule would use the protected all-in (checking is not free and the
        player has chips in the pot); only then is one of the day's protections spent."""
        for option in self.options():
            if option.kind in ("check", "bring_in"):
                return False
        return bool(self.hand.contributions.get(seat, 0))

    def end(self, table_name: str) -> HandEnd:
        """The finished hand's record: contributions and awards from the engine's result, and the
        time banks its decisions used."""
        result = self.hand.result
        put = self.hand.contributions
        return HandEnd(
            hand=self.hand,
            hand_id=self.hand_id,
            contributions={seat: int(put.get(seat, 0)) for seat in self.accounts},
            awards={seat: result.won(seat) for seat in self.accounts},
            deck_order=self.deal.order,
            accounts=dict(self.accounts),
            table_name=table_name,
            time_banks=dict(self.time_banks),
            protected_counts=dict(self.protected_counts),
        )


def bank_of(state: SeatState | None) -> float:
    """The time bank a decision of ``state`` gets after its countdown: none for a seat leaving
    (his decisions are timed out at once) or one nobody holds."""
    return 0.0 if state is None or state.leaving else state.bank.seconds


def stakes_of(config: TableConfig) -> Stakes:
    return Stakes(
        ante=config.ante,
        bring_in=config.bring_in,
        small_bet=config.small_bet,
        big_bet=config.big_bet,
        small_blind=config.small_blind,
        big_blind=config.big_blind,
    )


def house_of(config: TableConfig) -> HouseRules:
    house = get_game(config.game).default_house
    if config.house.strip():
        house = house.with_overrides(config.house.split())
    return house


def deal_hand(
    config: TableConfig,
    players: list[SeatState],
    pending: PendingDeal,
    last_button: int | None,
    forced: ForcedBets | None = None,
) -> HandInPlay:
    """A new hand for ``players`` (seat order) from the announced deal: the seeds sent by the
    accounts dealt in go into its deck. In a game with a button it moves on from ``last_button``
    (the hand's ``button``)."""
    game = get_game(config.game)
    accounts = {s.seat: s.account_id for s in players}
    deal = DealInPlay(pending, pending.seeds_for(accounts))
    seats = [s.seat for s in players]
    hand = Hand(
        game,
        stakes_of(config),
        seats=[(s.seat, s.stack) for s in players],
        deck=Deck(deal.order, salt=""),
        house=house_of(config),
        button=next_button(last_button, seats) if game.has_button else None,
        forced=forced,  # blinds owed posted (blinds_owed.py)
    )
    return HandInPlay(hand=hand, hand_id=deal.hand_id, accounts=accounts, deal=deal)


def next_button(previous: int | None, seats: list[int]) -> int:
    """The button moves to the next seat dealt in after the last one (the first seat at first)."""
    if previous is None:
        return seats[0]
    later = [s for s in seats if s > previous]
    return later[0] if later else seats[0]
