"""The wait list of a full table (issue 12): first come, first offered (R-WAIT-LIST-ORDER); a
freed seat is held for the player offered it for ``seat_offer_seconds`` (R-WAIT-LIST-OFFER); a
decline or a lapse takes him off the list and offers the seat to the next (R-WAIT-LIST-DECLINE).
The lists behind a fake table and a clock moved by hand; the room over its socket in
test_wait_list_room.py."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from studpoker.server.protocol import ErrorCode, WaitListMsg
from studpoker.server.table import TableError
from studpoker.server.wait_list import WaitLists
from studpoker.store.models import TableConfig
from tests.server.table_fakes import FakeRoom, FakeViewer, ManualClock

TABLE = 7


@dataclass
class FakeTable:
    """A table as the wait list reads it: two seats, both taken to begin with."""

    config: TableConfig = field(
        default_factory=lambda: TableConfig.derive("7S test", "7S", 100, 200, max_seats=2)
    )
    seats: dict[int, int] = field(default_factory=lambda: {1: 101, 2: 102})
    watchers: dict[int, FakeViewer] = field(default_factory=dict)
    stopped: bool = False

    def seat_of(self, account_id: int) -> int | None:
        return next((seat for seat, account in self.seats.items() if account == account_id), None)


@dataclass
class Lists:
    lists: WaitLists
    table: FakeTable
    clock: ManualClock
    lobby: FakeRoom
    players: dict[int, FakeViewer]

    def last(self, account_id: int) -> WaitListMsg:
        return self.players[account_id].of_type(WaitListMsg)[-1]

    def free(self, seat: int) -> None:
        """A seat frees (its player stood up): the table tells its lobby port."""
        del self.table.seats[seat]
        self.lists.lobby_changed(TABLE)

    def sit(self, account_id: int, seat: int) -> None:
        self.lists.check_sit(account_id, TABLE)
        self.table.seats[seat] = account_id
        self.lists.lobby_changed(TABLE)


def make_lists(max_waiting: int = 10) -> Lists:
    table, clock, lobby = FakeTable(), ManualClock(), FakeRoom()
    players = {account: FakeViewer(account, f"player{account}") for account in range(1, 6)}
    lists = WaitLists(
        {TABLE: table},
        {account: {viewer.id: viewer} for account, viewer in players.items()},
        lobby,
        offer_seconds=30.0,
        max_waiting=max_waiting,
        clock=clock,
    )
    return Lists(lists, table, clock, lobby, players)


def test_a_freed_seat_is_offered_to_the_first_player_who_joined() -> None:
    w = make_lists()
    for account in (1, 2, 3):
        w.lists.join(account, TABLE)
    assert [w.last(a).position for a in (1, 2, 3)] == [1, 2, 3]
    assert w.lists.count(TABLE) == 3 and w.lobby.lobby_changes[-1] == TABLE
    w.free(2)
    offer = w.last(1).offer
    assert offer is not None and offer.seat == 2 and offer.expires_at == w.clock.now() + 30.0
    assert w.last(1).note == "seat 2 is yours if you take it within 30 s"
    assert w.last(2).offer is None and w.last(3).offer is None
    # He takes it: off the list, the others move up.
    w.sit(1, 2)
    assert (w.last(1).position, w.last(1).note) == (None, "you have your seat: off the wait list")
    assert [w.last(a).position for a in (2, 3)] == [1, 2]
    assert w.lists.count(TABLE) == 2


def test_joining_is_refused_changing_nothing_with_a_seat_free_when_seated_or_past_the_limit() -> None:
    w = make_lists(max_waiting=2)
    with pytest.raises(TableError) as seated:
        w.lists.join(101, TABLE)
    assert seated.value.code == ErrorCode.ALREADY_SEATED
    w.lists.join(1, TABLE)
    w.lists.join(1, TABLE)  # twice: still one place
    w.lists.join(2, TABLE)
    with pytest.raises(TableError) as full:
        w.lists.join(3, TABLE)
    assert full.value.code == ErrorCode.WAIT_LIST_FULL
    assert w.lists.count(TABLE) == 2
    w.free(1)  # offered to player 1, held for him: the table is still full for the others
    with pytest.raises(TableError) as refused:
        w.lists.leave(3, TABLE)
    assert refused.value.code == ErrorCode.NOT_WAITING
    w.lists.leave(2, TABLE)
    w.table.seats.pop(2)  # a second seat frees, nobody is left to offer it to
    w.lists.lobby_changed(TABLE)
    with pytest.raises(TableError) as free:
        w.lists.join(3, TABLE)
    assert free.value.code == ErrorCode.SEAT_FREE and "seat 2 is free" in free.value.message


def test_an_offered_seat_is_held_for_the_player_offered_it() -> None:
    w = make_lists()
    w.lists.join(1, TABLE)
    w.lists.join(2, TABLE)
    w.free(1)
    # Neither the next player waiting nor someone off the list may take it.
    for account in (2, 4):
        with pytest.raises(TableError) as held:
            w.lists.check_sit(account, TABLE)
        assert held.value.code == ErrorCode.SEAT_OFFERED
    w.lists.check_sit(1, TABLE)
    # A second seat frees: it goes to the next player waiting, not to anyone.
    w.free(2)
    offer = w.last(2).offer
    assert offer is not None and offer.seat == 2
    with pytest.raises(TableError):
        w.lists.check_sit(4, TABLE)


def test_a_decline_or_a_lapse_takes_the_player_off_and_offers_the_seat_to_the_next() -> None:
    w = make_lists()
    for account in (1, 2, 3):
        w.lists.join(account, TABLE)
    w.free(1)
    w.lists.leave(1, TABLE)  # declines
    assert w.last(1).position is None
    assert w.last(1).note == "you declined the seat and left the wait list"
    offer = w.last(2).offer
    assert offer is not None and offer.seat == 1
    w.clock.advance(29.0)
    assert w.last(2).offer is not None
    w.clock.advance(1.0)  # lapses
    assert w.last(2).position is None
    assert w.last(2).note == "the seat offered to you was not taken in time: off the wait list"
    assert (w.last(3).position, w.last(3).offer is not None) == (1, True)
    # The last one declines: nobody waits, the seat is anyone's.
    w.lists.leave(3, TABLE)
    assert w.lists.count(TABLE) == 0
    w.lists.check_sit(4, TABLE)


def test_an_offer_whose_seat_is_taken_meanwhile_is_withdrawn_and_the_place_kept() -> None:
    w = make_lists()
    w.lists.join(1, TABLE)
    w.free(2)
    # A sit that was on its way before the seat was held takes it (the table's queue).
    w.table.seats[2] = 104
    w.lists.lobby_changed(TABLE)
    assert (w.last(1).position, w.last(1).offer) == (1, None)
    assert w.last(1).note == "the seat offered to you was taken: you keep your place"
    w.clock.advance(60.0)  # the withdrawn offer's timer does not take him off
    assert w.lists.count(TABLE) == 1


def test_logging_out_leaves_every_list() -> None:
    w = make_lists()
    w.lists.join(1, TABLE)
    w.lists.join(2, TABLE)
    w.free(1)
    w.lists.leave_all(1)
    assert w.last(1).note == "you logged out: off the wait list"
    offer = w.last(2).offer
    assert offer is not None and offer.seat == 1


def test_the_tables_watchers_hear_the_count() -> None:
    w = make_lists()
    walt = FakeViewer(9, "walt")
    w.table.watchers[walt.id] = walt
    w.lists.join(1, TABLE)
    told = walt.of_type(WaitListMsg)[-1]
    assert (told.waiting, told.position, told.offer) == (1, None, None)
