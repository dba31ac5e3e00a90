"""The tournament table's ``TableStore`` port: hands written to ``tournament_hands`` and the
entries' stacks, never a bankroll or a cash seat (tournament chips are not money).

A buy-in, chips added or a stand-up with chips are refused: a tournament player is seated by
the tournament and keeps his seat until he busts (away, he is dealt in and folded by the clock).
"""

from __future__ import annotations

from ..deals import DealInPlay
from ..protocol import ErrorCode
from ..table import SeatState, TableError
from ..table.ports import HandEnd, HandStatus
from .host import TournamentHands


class TournamentTableStore:
    """The store port of one table (``table_no``) of a sit-and-go; the hands go to the tournament."""

    def __init__(self, sng: TournamentHands, table_no: int = 1) -> None:
        self.sng = sng
        self.table_no = table_no

    async def buy_in(self, account_id: int, seat: int, amount: int) -> None:
        raise TableError(ErrorCode.BAD_BUY_IN, "a tournament table seats its entrants: register in the lobby")

    async def add_chips(self, account_id: int, seat: int, amount: int) -> None:
        raise TableError(ErrorCode.BAD_BUY_IN, "no chips can be added at a tournament table")

    async def cash_out(self, seat: SeatState) -> None:
        if seat.stack > 0:
            raise TableError(
                ErrorCode.IN_HAND, "a tournament seat is kept until it busts: sit out, and you are folded"
            )

    async def start_hand(self, hand_id: str, deal: DealInPlay, players: list[SeatState]) -> None:
        await self.sng.hand_started(self.table_no, hand_id)

    async def finish_hand(self, end: HandEnd) -> None:
        await self.sng.hand_finished(self.table_no, end)

    async def void_hand(self, hand_id: str, reason: str) -> None:
        await self.sng.hand_voided(self.table_no, hand_id, reason)

    async def hand_status(self, hand_id: str) -> HandStatus:
        status, reason = await self.sng.store.tournaments.hand_status(hand_id)
        return HandStatus(status, reason)

    async def use_protected_all_in(self, account_id: int) -> bool:
        return False  # no all-in protection in a tournament: the clock folds

    async def protected_all_ins_today(self, account_id: int) -> tuple[int, int]:
        return 0, 0


class NoLobby:
    """Tournament tables are not lines of the cash lobby (the tournament lobby is REST)."""

    def lobby_changed(self, table_id: int) -> None:
        return None
