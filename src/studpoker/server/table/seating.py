"""The seat commands of a table (sit, sit out, sit in, stand up, leave after the hand; chips added
are ``top_up.py``'s) and what becomes of the seats when a hand ends or a seat lies idle.

Every seat change goes through :meth:`Seating.changed`: the lobby is told, the watchers get the
seat list (coalesced by the fan-out), and the seat's idle timer is reviewed (``idle_seats.py``).
The hands are the dealer's: the seating asks it whether a seat is in the hand being played, to
time out a leaver's decision, and to schedule the next hand.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from studpoker.store.models import TableConfig

from ..protocol import AckMsg, ErrorCode
from .commands import (
    Command,
    FreeIdleSeat,
    LeaveAfterHand,
    PostBlind,
    Sit,
    SitIn,
    SitOut,
    StandUp,
    TableError,
)
from .dealer import Dealer
from .fanout import Fanout
from .idle_seats import IdleSeats
from .ports import LobbyNotifier, TableStore
from .seats import Seats, SeatState

log = logging.getLogger(__name__)


class Seating:
    """The seats of one table and the commands that change them (see the module docstring)."""

    def __init__(
        self,
        table_id: int,
        config: TableConfig,
        *,
        seats: Seats,
        store: TableStore,
        lobby: LobbyNotifier,
        fanout: Fanout,
        dealer: Dealer,
        idle: IdleSeats,
        connected: Callable[[int], bool],
    ) -> None:
        self.table_id = table_id
        self.config = config
        self.seats = seats
        self.store = store
        self.lobby = lobby
        self.fanout = fanout
        self.dealer = dealer
        self.idle = idle
        self.connected = connected

    # -- what every change goes through -------------------------------------------------------------

    def changed(self, reason: str, seat: int | None = None) -> None:
        """A seat changed (``None``: several): the lobby is told, the seat list goes to the
        watchers (coalesced), and the idle timers follow the seats."""
        self.lobby.lobby_changed(self.table_id)
        self.fanout.seat_changed(reason, seat)
        if seat is None:
            reviewed = list(self.seats.values())
        elif seat in self.seats:
            reviewed = [self.seats[seat]]
        else:
            reviewed = []
            self.idle.forget(seat)
        for state in reviewed:
            self.idle.review(state, self._idle(state))

    def _idle(self, state: SeatState) -> bool:
        """Disconnected and sitting out (a bot is always there)."""
        return state.sitting_out and not state.is_bot and not self.connected(state.account_id)

    def ack(self, command: Command, request: str) -> None:
        if command.conn is not None:
            command.conn.send(AckMsg(ref=command.ref, request=request, table_id=self.table_id))

    def require(self, command: Command) -> SeatState:
        """The sender's seat; ``not_seated`` if he has none."""
        assert command.conn is not None
        state = self.seats.of_account(command.conn.account_id)
        if state is None:
            raise TableError(ErrorCode.NOT_SEATED, f"you have no seat at table {self.table_id}")
        return state

    # -- the commands -------------------------------------------------------------------------------

    async def sit(self, cmd: Sit) -> None:
        conn = cmd.conn
        assert conn is not None
        cfg = self.config
        if not 1 <= cmd.seat <= cfg.max_seats:
            raise TableError(ErrorCode.BAD_MESSAGE, f"table {self.table_id} has seats 1 to {cfg.max_seats}")
        if self.seats.of_account(conn.account_id) is not None:
            raise TableError(ErrorCode.ALREADY_SEATED, f"you already have a seat at table {self.table_id}")
        if cmd.seat in self.seats:
            raise TableError(ErrorCode.SEAT_TAKEN, f"seat {cmd.seat} is taken")
        if not cfg.min_buy_in <= cmd.buy_in <= cfg.max_buy_in:
            raise TableError(
                ErrorCode.BAD_BUY_IN,
                f"the buy-in must be from {cfg.min_buy_in} to {cfg.max_buy_in}, not {cmd.buy_in}",
            )
        await self.store.buy_in(conn.account_id, cmd.seat, cmd.buy_in)
        self.seats[cmd.seat] = SeatState(
            seat=cmd.seat, account_id=conn.account_id, name=conn.name, stack=cmd.buy_in, is_bot=conn.is_bot
        )
        self.seats[cmd.seat].owes_big_blind = self.dealer.blinds.has_button  # R-O8-NEW-PLAYER-WAITS
        if conn.id not in self.fanout.watchers:
            self.fanout.add(conn)
        self.ack(cmd, "sit")
        self.changed("sat", cmd.seat)
        self.dealer.schedule()

    async def sit_out(self, cmd: SitOut) -> None:
        """Out of the next hand (R-SIT-OUT-NEXT-HAND): at once between hands; during a hand he
        is dealt in, he plays it out and sits out from its end."""
        state = self.require(cmd)
        if self.dealer.in_hand(state.seat) and not state.sitting_out:
            state.sit_out_next_hand = True
            reason = "sit_out_next_hand"
        else:
            state.sitting_out = True
            # Back, he chooses again: a choice to post made before must not post for him then.
            state.post_blind_now = False
            reason = "sat_out"
        self.ack(cmd, "sit_out")
        self.changed(reason, state.seat)

    async def sit_in(self, cmd: SitIn) -> None:
        """Back: dealt in again, and no longer leaving (a stand-up or leave after the hand that
        has not happened yet is called off)."""
        state = self.require(cmd)
        state.back_in()
        self.ack(cmd, "sit_in")
        self.changed("sat_in", state.seat)
        self.dealer.schedule()

    async def post_blind(self, cmd: PostBlind) -> None:
        """Post the blinds owed at the next hand, or wait for the big blind (R-O8-POST-TO-COME-IN)."""
        state = self.require(cmd)
        if not state.owes_big_blind:
            raise TableError(ErrorCode.INVALID, "you owe no blind: you are dealt in without posting")
        state.post_blind_now = cmd.now
        self.ack(cmd, "post_blind")
        self.changed("post_blind", state.seat)
        self.dealer.schedule()

    async def stand_up(self, cmd: StandUp) -> None:
        await self._leave(self.require(cmd), cmd, "stood_up")

    async def leave_after_hand(self, cmd: LeaveAfterHand) -> None:
        """Cash out when the hand he is in ends (R-LEAVE-AFTER-HAND), playing it out; at once
        when he is in none. ``leave`` False calls a leave (this one or a stand-up's) off."""
        state = self.require(cmd)
        if not cmd.leave:
            staying = state.stays()
            self.ack(cmd, "leave_after_hand")
            if staying:
                self.changed("staying", state.seat)
                self.dealer.schedule()
            return
        if not self.dealer.in_hand(state.seat):
            await self._leave(state, cmd, "stood_up")
            return
        state.leave_after_hand = True
        self.ack(cmd, "leave_after_hand")
        self.changed("leaving", state.seat)

    async def _leave(self, state: SeatState, cmd: Command | None, reason: str) -> None:
        """Stand ``state`` up: cashed out now, or, if he is in the hand, after it (his decisions
        until then timed out at once). The stand-up's path, for a player's command or an idle
        seat (``cmd`` None)."""
        request = "stand_up" if cmd is None or isinstance(cmd, StandUp) else "leave_after_hand"
        if self.dealer.in_hand(state.seat):
            # Cashed out after the hand (also one that is over but not yet written); his
            # decisions until then are folded / checked at once.
            if cmd is not None:
                self.ack(cmd, request)
            state.leaving = True
            self.changed("leaving", state.seat)
            await self.dealer.leaving(state.seat)
            return
        # Acknowledged once the cash-out is committed: a refused write answers an error only.
        await self.store.cash_out(state)
        del self.seats[state.seat]
        if cmd is not None:
            self.ack(cmd, request)
        self.changed(reason, state.seat)

    async def free_idle_seat(self, cmd: FreeIdleSeat) -> None:
        """An idle seat's time ran out (R-IDLE-SEAT-FREED): if its player is still disconnected
        and sitting out, he is stood up as by his own stand_up (cashed out, or after his hand)."""
        state = self.seats.get(cmd.seat)
        if state is None or not self.idle.due(cmd) or not self._idle(state) or state.cashes_out_after_hand:
            return
        self.idle.forget(cmd.seat)
        log.info("table %s: seat %s (account %s) idle, freed", self.table_id, cmd.seat, cmd.account_id)
        await self._leave(state, None, "freed")

    # -- the end of a hand --------------------------------------------------------------------------

    async def after_hand(self) -> None:
        """The hand is settled: those who asked to sit out during it sit out now; leavers and
        busted players are cashed out."""
        for seat in self.seats.sit_out_after_hand():
            self.changed("sat_out", seat)
        gone = False
        for seat, state in sorted(self.seats.items()):
            if state.cashes_out_after_hand or state.stack <= 0:
                try:
                    await self.store.cash_out(state)
                except Exception:
                    log.exception("table %s: could not cash out seat %s", self.table_id, seat)
                    continue
                del self.seats[seat]
                self.idle.forget(seat)
                gone = True
        if gone:
            self.changed("stood_up", None)
