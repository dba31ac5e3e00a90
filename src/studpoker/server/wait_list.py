"""The wait lists of full tables (issue 12; docs/rules.md ``R-WAIT-LIST-ORDER``,
``R-WAIT-LIST-OFFER``, ``R-WAIT-LIST-DECLINE``, ``R-WAIT-LIST-STAYS``).

A player joins the list of a table with no seat free for him (a seat held for a player it was
offered to counts as taken), and the lists keep the order they were joined in. When a seat
frees, the first player waiting without an offer is offered it: the seat is held for him for
``seat_offer_seconds`` (nobody else may take it), and he takes it with a ``sit`` (that seat or
any other free one, with a buy-in). ``leave_wait_list`` declines; at the end of the time the
offer lapses. Declined or lapsed, he is off the list and the seat is offered to the next. A
player who sits at the table is off its list. Leaving the table page keeps a player on the
lists; logging out takes him off all of them. The lists live in memory: a restart empties them,
as it empties the seats.

The room hears of every seat change because this is the tables' lobby port: each
``lobby_changed`` goes on to the lobby push and reviews the table's list. Every change of a list
is told in a ``wait_list`` message to each player on it (to all his connections: he may be in
the lobby or at another table) and to the table's watchers, and the lobby line counts the
players waiting (``waiting``).

In the cluster (docs/cluster.md "Shared state") the lists live with each table's owner, a
worker: the gateways send it :class:`JoinWaitList` and :class:`LeaveWaitList` as table commands
(the ``*_for`` methods answer them), and the worker's ``connections`` reach an account's sockets
on every gateway.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from studpoker.store.models import TableConfig

from .protocol import AckMsg, ErrorCode, SeatOfferInfo, WaitListMsg
from .table import Command, TableError
from .table.adapters import LoopClock
from .table.ports import Clock, LobbyNotifier, Sender, Timer, Viewer


class WaitedTable(Protocol):
    """A table as its wait list reads it (a ``TableActor``)."""

    @property
    def stopped(self) -> bool: ...

    @property
    def config(self) -> TableConfig: ...

    @property
    def seats(self) -> Mapping[int, object]: ...

    @property
    def watchers(self) -> Mapping[int, Viewer]: ...

    def seat_of(self, account_id: int) -> object | None: ...


@dataclass(kw_only=True)
class JoinWaitList(Command):
    """A player's ``join_wait_list``, as a command for the table's owner (the cluster's wire)."""


@dataclass(kw_only=True)
class LeaveWaitList(Command):
    """A player's ``leave_wait_list`` (declining an offer too); ``quiet``: a logout's, with no
    answer and nothing done if he is not waiting (``why`` is his note)."""

    quiet: bool = False
    why: str = ""


@dataclass(eq=False)
class _Offer:
    seat: int
    expires_at: float
    timer: Timer | None = None


@dataclass(eq=False)
class _Waiter:
    account_id: int
    offer: _Offer | None = None


# What changed for whom: account id -> the note his next ``wait_list`` message carries.
Notes = dict[int, str]


class WaitLists:
    """Every table's wait list. ``connections`` are the room's, by account and connection id."""

    def __init__(
        self,
        tables: Mapping[int, WaitedTable],
        connections: Mapping[int, Mapping[int, Sender]],
        lobby: LobbyNotifier,
        *,
        offer_seconds: float,
        max_waiting: int,
        clock: Clock | None = None,
    ) -> None:
        self.tables = tables
        self.connections = connections
        self.lobby = lobby
        self.offer_seconds = offer_seconds
        self.max_waiting = max_waiting
        self.clock: Clock = clock or LoopClock()
        self._lists: dict[int, list[_Waiter]] = {}

    # -- what the tables and the lobby read -------------------------------------------------------

    def lobby_changed(self, table_id: int) -> None:
        """The tables' lobby port: the lobby push is told, and the table's list reviewed (a seat
        that freed is offered, a player who sat down is off the list)."""
        self.lobby.lobby_changed(table_id)
        if self._lists.get(table_id):
            notes: Notes = {}
            if self._review(table_id, notes):
                self._publish(table_id, notes)

    def count(self, table_id: int) -> int:
        """How many players wait for a seat at the table."""
        return len(self._lists.get(table_id, ()))

    def status(self, account_id: int, table_id: int, note: str | None = None) -> WaitListMsg:
        """The table's list as ``account_id`` sees it: the count, his place, his offer."""
        waiters = self._lists.get(table_id, [])
        position = offer = None
        for place, waiter in enumerate(waiters, start=1):
            if waiter.account_id == account_id:
                position = place
                if waiter.offer is not None:
                    offer = SeatOfferInfo(seat=waiter.offer.seat, expires_at=waiter.offer.expires_at)
        return WaitListMsg(table_id=table_id, waiting=len(waiters), position=position, offer=offer, note=note)

    def statuses_of(self, account_id: int) -> list[WaitListMsg]:
        """The lists the account is on, as it sees them (a client back in the lobby)."""
        return [self.status(account_id, t) for t in sorted(self._lists) if self._find(t, account_id)]

    # -- the players' requests ----------------------------------------------------------------------

    def join(self, account_id: int, table_id: int) -> None:
        """On the list, last (R-WAIT-LIST-ORDER); joining twice changes nothing. Refused, changing
        nothing, to a player seated there, at a table with a seat free for him, or a full list."""
        table = self._table(table_id)
        if table.seat_of(account_id) is not None:
            raise TableError(ErrorCode.ALREADY_SEATED, f"you have a seat at table {table_id} already")
        waiters = self._lists.get(table_id, [])
        if any(w.account_id == account_id for w in waiters):
            self._send(account_id, self.status(account_id, table_id))
            return
        open_seats = self._open_seats(table, waiters)
        if open_seats:
            raise TableError(
                ErrorCode.SEAT_FREE,
                f"seat {open_seats[0]} is free: take it (the wait list is for a full table)",
            )
        if len(waiters) >= self.max_waiting:
            raise TableError(
                ErrorCode.WAIT_LIST_FULL, f"{len(waiters)} players wait for table {table_id}: try another"
            )
        waiters.append(_Waiter(account_id))
        self._lists[table_id] = waiters
        self._publish(table_id, {account_id: f"you are number {len(waiters)} on the wait list"})

    def leave(self, account_id: int, table_id: int) -> None:
        """Off the list; with a seat offered, the offer is declined and goes to the next player
        (R-WAIT-LIST-DECLINE). ``not_waiting`` if he is not on it."""
        waiter = self._find(table_id, account_id)
        if waiter is None:
            raise TableError(ErrorCode.NOT_WAITING, f"you are not on the wait list of table {table_id}")
        declined = waiter.offer is not None
        self._remove(table_id, waiter)
        left = "you declined the seat and left the wait list" if declined else "you left the wait list"
        notes = {account_id: left}
        self._review(table_id, notes)
        self._publish(table_id, notes)

    def leave_all(self, account_id: int, why: str = "you logged out") -> None:
        """Off every list (a logout, R-WAIT-LIST-STAYS)."""
        for table_id in sorted(self._lists):
            self.leave_quietly(account_id, table_id, why)

    def leave_quietly(self, account_id: int, table_id: int, why: str) -> None:
        """Off one list if he is on it, with no answer (a logout's, on a table's owner)."""
        waiter = self._find(table_id, account_id)
        if waiter is None:
            return
        self._remove(table_id, waiter)
        notes = {account_id: f"{why}: off the wait list"}
        self._review(table_id, notes)
        self._publish(table_id, notes)

    # A client's requests as the dispatcher (one process) or a table's owner (the cluster) gets
    # them: refused with a TableError (answered ``error`` by the caller), else acked.

    def join_for(self, conn: Viewer, table_id: int, ref: str | None) -> None:
        self.join(conn.account_id, table_id)
        conn.send(AckMsg(ref=ref, request="join_wait_list", table_id=table_id))

    def leave_for(self, conn: Viewer, table_id: int, ref: str | None) -> None:
        self.leave(conn.account_id, table_id)
        conn.send(AckMsg(ref=ref, request="leave_wait_list", table_id=table_id))

    def on_watch(self, conn: Viewer, table_id: int) -> None:
        """A connection joins the table: it is told the list (its place, or the count)."""
        if self.count(table_id):
            conn.send(self.status(conn.account_id, table_id))

    def drop_table(self, table_id: int, note: str) -> None:
        """The table is no longer played here (its owner let it go): its list is emptied and
        each player on it told ``note``."""
        waiters = self._lists.pop(table_id, [])
        for waiter in waiters:
            self._withdraw(waiter)
        if waiters:
            self._publish(table_id, {w.account_id: note for w in waiters})

    def check_sit(self, account_id: int, table_id: int) -> None:
        """Before a ``sit``: refused (``seat_offered``) when every free seat is held for players
        offered one and ``account_id`` is not one of them (R-WAIT-LIST-OFFER)."""
        waiters = self._lists.get(table_id)
        table = self.tables.get(table_id)
        if not waiters or table is None:
            return
        offered = [w for w in waiters if w.offer is not None]
        if not offered or any(w.account_id == account_id for w in offered):
            return
        if not self._open_seats(table, waiters):
            raise TableError(
                ErrorCode.SEAT_OFFERED,
                "the free seat is held for the first player on the wait list: join the wait list"
                " to be offered the next one",
            )

    def close(self) -> None:
        """The room stops: every offer's timer cancelled, the lists emptied."""
        for waiters in self._lists.values():
            for waiter in waiters:
                self._withdraw(waiter)
        self._lists.clear()

    # -- offers -------------------------------------------------------------------------------------

    def _review(self, table_id: int, notes: Notes) -> bool:
        """Bring the list in line with the table's seats; whether anything changed. Players seated
        there leave it; more offers than free seats (a seat was taken meanwhile): the last ones are
        withdrawn, their players keeping their places; each free seat not held is offered to the
        next player waiting without an offer (R-WAIT-LIST-OFFER)."""
        waiters = self._lists.get(table_id)
        if not waiters:
            return False
        table = self.tables.get(table_id)
        if table is None or table.stopped:
            for waiter in list(waiters):
                self._remove(table_id, waiter)
                notes[waiter.account_id] = "the table closed: off the wait list"
            return True
        changed = False
        for waiter in list(waiters):
            if table.seat_of(waiter.account_id) is not None:
                self._remove(table_id, waiter)
                notes[waiter.account_id] = "you have your seat: off the wait list"
                changed = True
        free = self._free_seats(table)
        offered = [w for w in waiters if w.offer is not None]
        while len(offered) > len(free):
            withdrawn = offered.pop()
            self._withdraw(withdrawn)
            notes[withdrawn.account_id] = "the seat offered to you was taken: you keep your place"
            changed = True
        held = {w.offer.seat for w in offered if w.offer is not None and w.offer.seat in free}
        for waiter in offered:
            offer = waiter.offer
            if offer is not None and offer.seat not in free:
                # Its seat was taken and another is free: that one is held for him instead.
                offer.seat = min(set(free) - held)
                held.add(offer.seat)
                notes[waiter.account_id] = f"seat {offer.seat} is offered to you instead"
                changed = True
        open_seats = [seat for seat in free if seat not in held]
        for waiter in waiters:
            if not open_seats:
                break
            if waiter.offer is None:
                seat = open_seats.pop(0)
                self._offer(table_id, waiter, seat)
                notes[waiter.account_id] = (
                    f"seat {seat} is yours if you take it within {self.offer_seconds:g} s"
                )
                changed = True
        return changed

    def _offer(self, table_id: int, waiter: _Waiter, seat: int) -> None:
        account_id = waiter.account_id
        offer = _Offer(seat=seat, expires_at=self.clock.now() + self.offer_seconds)
        offer.timer = self.clock.call_later(
            self.offer_seconds, lambda: self._lapse(table_id, account_id, offer)
        )
        waiter.offer = offer

    def _lapse(self, table_id: int, account_id: int, offer: _Offer) -> None:
        """An offer's time ran out: its player is off the list, the seat goes to the next."""
        waiter = self._find(table_id, account_id)
        if waiter is None or waiter.offer is not offer:
            return
        self._remove(table_id, waiter)
        notes = {account_id: "the seat offered to you was not taken in time: off the wait list"}
        self._review(table_id, notes)
        self._publish(table_id, notes)

    def _withdraw(self, waiter: _Waiter) -> None:
        if waiter.offer is not None and waiter.offer.timer is not None:
            waiter.offer.timer.cancel()
        waiter.offer = None

    # -- helpers ------------------------------------------------------------------------------------

    def _table(self, table_id: int) -> WaitedTable:
        table = self.tables.get(table_id)
        if table is None or table.stopped:
            raise TableError(ErrorCode.NOT_FOUND, f"no table {table_id}")
        return table

    def _find(self, table_id: int, account_id: int) -> _Waiter | None:
        return next((w for w in self._lists.get(table_id, ()) if w.account_id == account_id), None)

    def _remove(self, table_id: int, waiter: _Waiter) -> None:
        self._withdraw(waiter)
        waiters = self._lists.get(table_id, [])
        if waiter in waiters:
            waiters.remove(waiter)
        if not waiters:
            self._lists.pop(table_id, None)

    @staticmethod
    def _free_seats(table: WaitedTable) -> list[int]:
        return [seat for seat in range(1, table.config.max_seats + 1) if seat not in table.seats]

    def _open_seats(self, table: WaitedTable, waiters: list[_Waiter]) -> list[int]:
        """The free seats beyond those held for the players offered one."""
        held = sum(1 for w in waiters if w.offer is not None)
        free = self._free_seats(table)
        offered = {w.offer.seat for w in waiters if w.offer is not None}
        return [seat for seat in free if seat not in offered][: max(0, len(free) - held)]

    def _send(self, account_id: int, message: WaitListMsg) -> None:
        for conn in list(self.connections.get(account_id, {}).values()):
            conn.send(message)

    def _publish(self, table_id: int, notes: Notes) -> None:
        """The list as each player on it sees it (all his connections), to those whose place
        changed for a reason (``notes``, the players who left it too), and the count to the
        table's other watchers; the lobby line follows."""
        members = {w.account_id for w in self._lists.get(table_id, ())}
        told: set[int] = set()
        for account_id in sorted(members | set(notes)):
            self._send(account_id, self.status(account_id, table_id, notes.get(account_id)))
            told.add(account_id)
        table = self.tables.get(table_id)
        if table is not None:
            for conn in list(table.watchers.values()):
                if conn.account_id not in told:
                    conn.send(self.status(conn.account_id, table_id))
        self.lobby.lobby_changed(table_id)
