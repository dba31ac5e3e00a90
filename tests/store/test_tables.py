"""Tables, seats, buy-ins, top-ups and cash-outs."""

from __future__ import annotations

import pytest

from studpoker.store import (
    Account,
    AlreadySeatedError,
    BadBuyInError,
    InsufficientFundsError,
    InvalidInputError,
    NameTakenError,
    NotFoundError,
    NotYourSeatError,
    SeatTakenError,
    Store,
    TableConfig,
    TableRecord,
)


async def test_create_and_list_tables(store: Store) -> None:
    stud = await store.create_table(TableConfig.derive("Stud 5/10", "7S", 500, 1000))
    omaha = await store.create_table(TableConfig.derive("Omaha 1/2", "O8", 100, 200, max_seats=6))
    assert stud.config.ante == 100 and stud.config.bring_in == 250
    assert omaha.config.small_blind == 50 and omaha.config.big_blind == 100 and omaha.config.ante == 0
    assert await store.list_tables() == [stud, omaha]
    assert await store.table(stud.id) == stud
    assert await store.table_by_name("Omaha 1/2") == omaha
    assert await store.table_by_name("nope") is None
    assert await store.seats(stud.id) == {}
    with pytest.raises(NameTakenError):
        await store.create_table(TableConfig.derive("Stud 5/10", "RZ", 500, 1000))
    with pytest.raises(NotFoundError):
        await store.table(999)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"game": "NLHE"}, "unknown game"),
        ({"small_bet": 0}, "bets"),
        ({"big_bet": 50}, "bets"),
        ({"max_seats": 9}, "2 to 8"),
        ({"max_seats": 1}, "2 to 8"),
        ({"min_buy_in": 0}, "buy-in"),
        ({"min_buy_in": 30_000}, "buy-in"),
        ({"ante": -1}, "ante"),
        ({"ante": 1.5}, "ante"),
        ({"name": ""}, "name"),
        ({"think_seconds": 0}, "clock"),
    ],
)
async def test_bad_table_configs(store: Store, changes: dict[str, object], message: str) -> None:
    base = TableConfig.derive("T", "7S", 100, 200)
    fields = {k: getattr(base, k) for k in base.__dataclass_fields__}
    with pytest.raises(InvalidInputError, match=message):
        await store.create_table(TableConfig(**{**fields, **changes}))


async def test_omaha_seats_ten(store: Store) -> None:
    table = await store.create_table(TableConfig.derive("O8", "O8", 100, 200))
    assert table.config.max_seats == 10


async def test_buy_in_moves_bankroll_to_seat(
    store: Store, table: TableRecord, players: list[Account]
) -> None:
    alice = players[0]
    seat = await store.buy_in(alice.id, table.id, 3, 4_000)
    assert (seat.seat, seat.account_id, seat.name, seat.stack) == (3, alice.id, "alice", 4_000)
    assert (await store.account(alice.id)).bankroll == 6_000
    assert await store.seats(table.id) == {3: seat}
    assert await store.seats_of_account(alice.id) == [seat]
    report = await store.audit()
    assert report.seats == 4_000 and report.bankrolls == 26_000


async def test_buy_in_limits(store: Store, table: TableRecord, players: list[Account]) -> None:
    alice = players[0]
    config = table.config
    with pytest.raises(BadBuyInError, match="buy-in"):
        await store.buy_in(alice.id, table.id, 1, config.min_buy_in - 1)
    with pytest.raises(BadBuyInError, match="buy-in"):
        await store.buy_in(alice.id, table.id, 1, config.max_buy_in + 1)
    with pytest.raises(BadBuyInError):
        await store.buy_in(alice.id, table.id, 1, 0)
    # a seat the table does not have is a bad value, not a bad buy-in
    for seat in (9, 0):
        with pytest.raises(InvalidInputError, match="seats 1 to 8") as refused:
            await store.buy_in(alice.id, table.id, seat, config.min_buy_in)
        assert not isinstance(refused.value, BadBuyInError) and refused.value.code == "invalid"
    with pytest.raises(NotFoundError):
        await store.buy_in(alice.id, 999, 1, config.min_buy_in)
    with pytest.raises(NotFoundError):
        await store.buy_in(999, table.id, 1, config.min_buy_in)
    assert (await store.account(alice.id)).bankroll == 10_000
    assert await store.seats(table.id) == {}


async def test_insufficient_funds(store: Store, players: list[Account]) -> None:
    table = await store.create_table(TableConfig.derive("Big", "7S", 1000, 2000))  # buy-in 20_000..100_000
    with pytest.raises(InsufficientFundsError, match="10000"):
        await store.buy_in(players[0].id, table.id, 1, 20_000)
    assert (await store.account(players[0].id)).bankroll == 10_000
    assert await store.seats(table.id) == {}


async def test_a_taken_seat_is_refused_as_seat_taken(
    store: Store, table: TableRecord, players: list[Account]
) -> None:
    alice, bob, _ = players
    await store.buy_in(alice.id, table.id, 1, 2_000)
    with pytest.raises(SeatTakenError, match="seat 1 at 'Stud 1/2' is taken") as refused:
        await store.buy_in(bob.id, table.id, 1, 2_000)
    assert (refused.value.code, refused.value.status) == ("seat_taken", 409)
    assert (await store.account(bob.id)).bankroll == 10_000
    assert await store.seats_of_account(bob.id) == []


async def test_a_second_seat_at_a_table_is_refused_as_already_seated(
    store: Store, table: TableRecord, players: list[Account]
) -> None:
    """Not "seat taken": the seat asked for is free, the player already sits elsewhere here."""
    alice = players[0]
    await store.buy_in(alice.id, table.id, 1, 2_000)
    with pytest.raises(AlreadySeatedError, match="already sit in seat 1") as refused:
        await store.buy_in(alice.id, table.id, 2, 2_000)
    assert not isinstance(refused.value, SeatTakenError)
    assert (refused.value.code, refused.value.status) == ("already_seated", 409)
    assert (await store.account(alice.id)).bankroll == 8_000
    assert list(await store.seats(table.id)) == [1]


async def test_add_chips_within_max(store: Store, table: TableRecord, players: list[Account]) -> None:
    alice, bob, _ = players
    other = await store.create_table(TableConfig.derive("Small", "RZ", 100, 200, max_buy_in=6_000))
    await store.buy_in(alice.id, other.id, 1, 3_000)
    seat = await store.add_chips(alice.id, other.id, 1, 2_500)
    assert seat.stack == 5_500
    with pytest.raises(BadBuyInError, match="up to 500"):
        await store.add_chips(alice.id, other.id, 1, 501)
    with pytest.raises(NotYourSeatError, match="not yours"):
        await store.add_chips(bob.id, other.id, 1, 100)
    with pytest.raises(InsufficientFundsError):
        await _drain_and_add(store, alice.id, other.id)
    assert (await store.seats(other.id))[1].stack == 5_500


async def _drain_and_add(store: Store, account_id: int, table_id: int) -> None:
    table = await store.create_table(TableConfig.derive("Drain", "7S", 100, 200))
    await store.buy_in(account_id, table.id, 1, (await store.account(account_id)).bankroll)
    await store.add_chips(account_id, table_id, 1, 100)


async def test_cash_out(store: Store, table: TableRecord, players: list[Account]) -> None:
    alice, bob, _ = players
    await store.buy_in(alice.id, table.id, 4, 5_000)
    with pytest.raises(NotYourSeatError, match="not yours"):
        await store.cash_out(bob.id, table.id, 4)
    assert await store.cash_out(alice.id, table.id, 4) == 5_000
    assert (await store.account(alice.id)).bankroll == 10_000
    assert await store.seats(table.id) == {}
    with pytest.raises(NotYourSeatError, match="not yours"):
        await store.cash_out(alice.id, table.id, 4)
    # the seat is free again, for anyone
    await store.buy_in(bob.id, table.id, 4, 2_000)
    with pytest.raises(NotFoundError):
        await store.cash_out(bob.id, table.id, 42)
