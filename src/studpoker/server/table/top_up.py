"""Chips a seated player adds to his stack, and his auto top-up (issue 12; docs/rules.md
``R-TABLE-STAKES``, ``R-ADD-CHIPS-PENDING``, ``R-AUTO-TOP-UP``).

Table stakes: only the chips on the table when a hand starts play in it, and nothing changes a
stack in play. So an ``add_chips`` from a seat that is not in the hand being played moves the
chips from the bankroll at once, while one from a seat dealt into it is kept pending (nothing
leaves the bankroll yet) until the hand is settled. Then, before the busted are cashed out and
the next hand is scheduled, :meth:`ChipDesk.land` moves it (as much as the maximum buy-in leaves
room for) and tops up each seat whose auto top-up is set and whose stack is below it. Every move
is the store's ``add_chips``, one ledger transaction: what the store refuses (a short bankroll)
stays in the bankroll, and the player is told.

Only the player hears of his own chips (``ChipsMsg``, and ``table_state.your_chips``); the table
sees his stack when they land (a ``seats`` event, reason ``added_chips``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Protocol

from studpoker.engine import Hand
from studpoker.money import format_money as money
from studpoker.store.models import TableConfig

from ..protocol import AckMsg, ChipsMsg, ErrorCode
from .commands import AddChips, AutoTopUp, Command, TableError
from .fanout import Fanout
from .ports import TableStore
from .seats import Seats, SeatState

log = logging.getLogger(__name__)


class HandsInPlay(Protocol):
    """What the desk asks of the dealer: whether a seat is dealt into the hand being played,
    that hand, and to schedule the next one (a stack that grew may let two play)."""

    @property
    def hand(self) -> Hand | None: ...

    def in_hand(self, seat: int) -> bool: ...

    def schedule(self, delay: float | None = None) -> None: ...


class ChipDesk:
    """The chips of one table's seats that come from the bankroll after the buy-in."""

    def __init__(
        self,
        table_id: int,
        config: TableConfig,
        *,
        seats: Seats,
        store: TableStore,
        fanout: Fanout,
        hands: HandsInPlay,
        changed: Callable[[str, int | None], None],
    ) -> None:
        self.table_id = table_id
        self.config = config
        self.seats = seats
        self.store = store
        self.fanout = fanout
        self.hands = hands
        self.changed = changed

    def info(self, state: SeatState | None) -> ChipsMsg | None:
        """The seat's chips as its player is told them (None for a viewer with no seat)."""
        if state is None:
            return None
        return ChipsMsg(table_id=self.table_id, pending=state.pending_chips, auto_top_up=state.auto_top_up)

    # -- the commands --------------------------------------------------------------------------------

    async def add(self, cmd: AddChips, state: SeatState) -> None:
        """``add_chips``: moved at once between hands, pending until the end of a hand the seat
        is dealt into; refused, changing nothing, past the maximum buy-in or from a leaver."""
        if state.cashes_out_after_hand:
            raise TableError(ErrorCode.NOT_SEATED, "you are leaving this table: no more chips can be added")
        if self.hands.in_hand(state.seat):
            hand = self.hands.hand
            behind = state.stack if hand is None else hand.stacks.get(state.seat, state.stack)
            self._check_room(behind, state.pending_chips, cmd.amount)
            state.pending_chips += cmd.amount
            self._ack(cmd, "add_chips")
            self._tell(state, note=f"{money(cmd.amount)} will be added to your stack when this hand ends")
            return
        self._check_room(state.stack, 0, cmd.amount)
        await self.store.add_chips(state.account_id, state.seat, cmd.amount)
        state.stack += cmd.amount
        self._ack(cmd, "add_chips")
        self.changed("added_chips", state.seat)
        self._tell(state, added=cmd.amount)
        self.hands.schedule()

    async def set_auto_top_up(self, cmd: AutoTopUp, state: SeatState) -> None:
        """``auto_top_up``: the stack the seat is topped up to before each hand (None: off). Set
        between hands on a stack below it, the top-up is made at once."""
        target = cmd.amount
        cfg = self.config
        if target is not None and not cfg.min_buy_in <= target <= cfg.max_buy_in:
            raise TableError(
                ErrorCode.BAD_BUY_IN,
                f"the auto top-up is to a buy-in from {money(cfg.min_buy_in)} to {money(cfg.max_buy_in)},"
                f" not {money(target)}",
            )
        if target is not None and state.cashes_out_after_hand:
            raise TableError(ErrorCode.NOT_SEATED, "you are leaving this table: no more chips can be added")
        state.auto_top_up = target
        self._ack(cmd, "auto_top_up")
        if target is None or self.hands.in_hand(state.seat) or state.stack >= target:
            self._tell(state)
            return
        added, note = await self._top_up(state, target)
        if added:
            self.changed("added_chips", state.seat)
            self.hands.schedule()
        self._tell(state, added=added, note=note)

    # -- the end of a hand ---------------------------------------------------------------------------

    async def land(self) -> None:
        """The hand is settled: each seat's pending chips land (up to the maximum buy-in), then
        each auto top-up below its stack is made. Never raises: a refused move is told."""
        cap = self.config.max_buy_in
        for seat, state in sorted(self.seats.items()):
            pending, state.pending_chips = state.pending_chips, 0
            if state.cashes_out_after_hand:
                if pending:
                    kept = f"the {money(pending)} you asked for stay in your bankroll: you leave"
                    self._tell(state, note=kept)
                continue
            added, notes = 0, []
            if pending:
                amount = min(pending, cap - state.stack)
                if amount < pending:
                    notes.append(
                        f"{money(pending - amount)} of the {money(pending)} you asked for stay in your"
                        f" bankroll: a stack may hold at most {money(cap)} (the table's maximum buy-in)"
                    )
                if amount > 0:
                    refused = await self._move(state, amount)
                    if refused is None:
                        added += amount
                    else:
                        notes.append(f"the {money(amount)} you asked for were not added: {refused[1]}")
            if state.auto_top_up is not None and state.stack < state.auto_top_up:
                topped, note = await self._top_up(state, state.auto_top_up)
                added += topped
                if note is not None:
                    notes.append(note)
            if added:
                self.changed("added_chips", seat)
            if pending or added or notes:
                self._tell(state, added=added, note="; ".join(notes) or None)

    # -- helpers ------------------------------------------------------------------------------------

    def _check_room(self, stack: int, pending: int, amount: int) -> None:
        """Refuse an amount that would take the stack past the maximum buy-in (R-ADD-CHIPS-PENDING:
        counted on the stack behind now, with the chips already on their way)."""
        cap = self.config.max_buy_in
        have = stack + pending
        if have + amount <= cap:
            return
        on_the_way = f" ({money(pending)} of them on the way)" if pending else ""
        if have >= cap:
            message = (
                f"you can add chips up to the table's maximum buy-in: you have"
                f" {money(have)}{on_the_way} of {money(cap)}"
            )
        else:
            message = (
                f"you can add at most {money(cap - have)}: a stack may hold {money(cap)} (the table's"
                f" maximum buy-in) and you have {money(have)}{on_the_way}"
            )
        raise TableError(ErrorCode.BAD_BUY_IN, message)

    async def _top_up(self, state: SeatState, target: int) -> tuple[int, str | None]:
        """Top the seat up to ``target``: the chips added, and what went wrong. A bankroll that
        cannot cover it turns the auto top-up off (it would fail before every hand)."""
        amount = target - state.stack
        refused = await self._move(state, amount)
        if refused is None:
            return amount, None
        code, why = refused
        if code == ErrorCode.INSUFFICIENT_FUNDS:
            state.auto_top_up = None
            return 0, f"auto top-up to {money(target)} turned off: {why}"
        return 0, f"auto top-up to {money(target)} not made this time: {why}"

    async def _move(self, state: SeatState, amount: int) -> tuple[str, str] | None:
        """``amount`` from the bankroll to the seat (one ledger transaction); if it was refused,
        the refusal's code and why."""
        try:
            await self.store.add_chips(state.account_id, state.seat, amount)
        except TableError as exc:
            if exc.code == ErrorCode.INSUFFICIENT_FUNDS:
                return exc.code, f"your bankroll holds less than {money(amount)}"
            return exc.code, exc.message
        except Exception:
            log.exception("table %s: could not add %s to seat %s", self.table_id, amount, state.seat)
            return ErrorCode.UNAVAILABLE, "the database is unavailable"
        state.stack += amount
        return None

    def _ack(self, command: Command, request: str) -> None:
        if command.conn is not None:
            command.conn.send(AckMsg(ref=command.ref, request=request, table_id=self.table_id))

    def _tell(self, state: SeatState, *, added: int = 0, note: str | None = None) -> None:
        """The seat's chips, to its player's connections at this table."""
        message = ChipsMsg(
            table_id=self.table_id,
            pending=state.pending_chips,
            auto_top_up=state.auto_top_up,
            added=added,
            note=note,
        )
        self.fanout.to_account(state.account_id, message)
