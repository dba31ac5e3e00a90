"""The seats of a table: who sits where with how many chips, and the seat's own flags."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from ..protocol import SeatInfo
from .time_bank import TimeBank, TimeBankPolicy


@dataclass
class SeatState:
    seat: int
    account_id: int
    name: str
    stack: int
    is_bot: bool = False
    # Not dealt in: by his own choice (sit_out), or after a timeout (``timed_out`` too: he is back
    # in by acting on his next decision, or by sit_in).
    sitting_out: bool = False
    timed_out: bool = False
    # Asked to sit out during a hand he is dealt in (R-SIT-OUT-NEXT-HAND): he plays it out and
    # sits out from its end.
    sit_out_next_hand: bool = False
    # Standing up during the hand he is in: his decisions until then are timed out at once.
    leaving: bool = False
    # Leaving when the hand he is in ends (R-LEAVE-AFTER-HAND): he plays it out as usual.
    leave_after_hand: bool = False
    # His time bank (R-TIME-BANK): kept while he holds the seat.
    bank: TimeBank = field(default_factory=TimeBank)
    # Chips he asked for during a hand he is in (not taken from his bankroll yet), and the stack
    # his seat is topped up to before each hand (None: off): ``top_up.py`` (R-ADD-CHIPS-PENDING).
    pending_chips: int = 0
    auto_top_up: int | None = None
    # Board games (blinds_owed.py): he owes the big blind (new, or it passed him sitting out) and
    # the small blind (it passed him), and chose to post them now rather than wait for the big
    # blind (R-O8-NEW-PLAYER-WAITS, R-O8-MISSED-BLINDS).
    owes_big_blind: bool = False
    owes_small_blind: bool = False
    post_blind_now: bool = False
    dealt_before: bool = False

    def info(self, connected: bool) -> SeatInfo:
        return SeatInfo(
            seat=self.seat,
            account_id=self.account_id,
            name=self.name,
            stack=self.stack,
            sitting_out=self.sitting_out,
            connected=connected,
            is_bot=self.is_bot,
            bot=self.is_bot,
            timed_out=self.timed_out,
            sit_out_next_hand=self.sit_out_next_hand,
            leaving=self.cashes_out_after_hand,
            time_bank=round(self.bank.seconds, 1),
            owes_big_blind=self.owes_big_blind,
            owes_small_blind=self.owes_big_blind and self.owes_small_blind,
            post_blind_now=self.post_blind_now,
        )

    def timed_out_now(self) -> bool:
        """His clock ran out: he sits out until he acts or sits in again. Whether that changed
        his seat (a second timeout in one hand changes nothing)."""
        changed = not (self.timed_out and self.sitting_out)
        self.timed_out = True
        self.sitting_out = True
        return changed

    def acted(self) -> bool:
        """He acted on his own: back from a timeout (R-SIT-OUT-AFTER-TIMEOUT). Whether he had
        timed out."""
        if not self.timed_out:
            return False
        self.timed_out = False
        self.sitting_out = False
        return True

    def back_in(self) -> bool:
        """Dealt in again, staying: every sit-out and leave flag cleared. Whether any was set."""
        changed = self.sitting_out or self.timed_out or self.sit_out_next_hand or self.cashes_out_after_hand
        self.sitting_out = False
        self.timed_out = False
        self.sit_out_next_hand = False
        self.leaving = False
        self.leave_after_hand = False
        return changed

    def stays(self) -> bool:
        """He no longer leaves after the hand (either kind). Whether he was leaving."""
        changed = self.cashes_out_after_hand
        self.leaving = False
        self.leave_after_hand = False
        return changed

    @property
    def cashes_out_after_hand(self) -> bool:
        return self.leaving or self.leave_after_hand

    @property
    def can_be_dealt_in(self) -> bool:
        out = self.sitting_out or self.sit_out_next_hand or self.cashes_out_after_hand
        return not out and self.stack > 0


class Seats(dict[int, SeatState]):
    """The table's seats by number. A seat taken (a new state put in) gets its player's time bank
    at this table from ``banks``, whoever seated him: the one he gave up here lately, else a full
    one; a seat given up (deleted) hands its bank back (R-TIME-BANK, R-TIME-BANK-KEPT)."""

    def __init__(self, banks: TimeBankPolicy | None = None) -> None:
        super().__init__()
        self.banks = banks or TimeBankPolicy()

    def __setitem__(self, seat: int, state: SeatState) -> None:
        if self.get(seat) is not state:
            state.bank = self.banks.bank_for(state.account_id)
        super().__setitem__(seat, state)

    def __delitem__(self, seat: int) -> None:
        state = self[seat]
        super().__delitem__(seat)
        self.banks.give_up(state.account_id, state.bank)

    def of_account(self, account_id: int) -> SeatState | None:
        for state in self.values():
            if state.account_id == account_id:
                return state
        return None

    def eligible(self) -> list[SeatState]:
        """The seats dealt into the next hand, in seat order."""
        return [s for _, s in sorted(self.items()) if s.can_be_dealt_in]

    def set_stacks(self, stacks: Mapping[int, int], accounts: Mapping[int, int]) -> None:
        """Stacks of a hand (its end, or its start when it was voided) for each seat still held
        by the account that was dealt in."""
        for seat, stack in stacks.items():
            state = self.get(seat)
            if state is not None and state.account_id == accounts.get(seat):
                state.stack = stack

    def sit_out_after_hand(self) -> list[int]:
        """The hand is over: those who asked to sit out during it sit out now; their seats."""
        moved = []
        for seat, state in sorted(self.items()):
            if state.sit_out_next_hand:
                state.sit_out_next_hand = False
                state.sitting_out = True
                moved.append(seat)
        return moved

    def infos(self, connected: Callable[[int], bool]) -> list[SeatInfo]:
        return [s.info(connected(s.account_id)) for _, s in sorted(self.items())]
