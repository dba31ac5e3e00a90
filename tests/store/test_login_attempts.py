"""Login attempts counted in the database (studpoker.store.login_attempts): the windows that the
gateways of a cluster share, so a brute force split over several of them meets one budget."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from studpoker.store import Store
from studpoker.store.errors import InvalidInputError
from studpoker.store.login_attempts import Window, attempt_key
from tests.store.conftest import open_store


async def test_two_stores_on_one_database_share_the_count(db_url: str, store: Store) -> None:
    other = await open_store(db_url)  # a second gateway's store
    try:
        window = Window(attempt_key("name@address"), 3, 300.0)
        answers = [await s.login_attempts.begin([window]) for s in (store, other, store)]
        assert all(a.allowed for a in answers)
        refused = await other.login_attempts.begin([window])
        assert not refused.allowed and 0 < refused.retry_after <= 300.0
        assert not (await store.login_attempts.begin([window])).allowed  # a refusal counts nothing
        await store.login_attempts.give_back(answers[0])
        assert (await other.login_attempts.begin([window])).allowed
        await other.login_attempts.clear(window.key)
        assert (await store.login_attempts.begin([window])).allowed
    finally:
        await other.close()


async def test_every_window_must_have_room_and_a_refusal_counts_in_none(store: Store) -> None:
    name, address = Window(attempt_key("n"), 5, 300.0), Window(attempt_key("a"), 1, 300.0)
    assert (await store.login_attempts.begin([name, address])).allowed
    assert not (await store.login_attempts.begin([name, address])).allowed
    # The name's window counted only the allowed attempt: four more fit in it alone.
    for _ in range(4):
        assert (await store.login_attempts.begin([name])).allowed
    assert not (await store.login_attempts.begin([name])).allowed


async def test_attempts_older_than_the_window_stop_counting(store: Store) -> None:
    window = Window(attempt_key("old"), 1, 0.5)
    assert (await store.login_attempts.begin([window])).allowed
    assert not (await store.login_attempts.begin([window])).allowed
    await asyncio.sleep(0.7)  # the database's clock moves on: the window is over
    assert (await store.login_attempts.begin([window])).allowed


async def test_parallel_attempts_never_exceed_the_limit(db_url: str, store: Store) -> None:
    other = await open_store(db_url)
    try:
        window = Window(attempt_key("race"), 4, 300.0)
        answers = await asyncio.gather(*(s.login_attempts.begin([window]) for s in (store, other) * 6))
        assert sum(a.allowed for a in answers) == 4
    finally:
        await other.close()


@pytest.mark.parametrize(
    ("key", "limit", "seconds"), [("", 1, 1.0), ("k", -1, 1.0), ("k", 1, 0.0), ("k", True, 1.0)]
)
def test_a_bad_window_is_refused(key: str, limit: int, seconds: float) -> None:
    with pytest.raises(InvalidInputError):
        Window(key, limit, seconds)


async def test_begin_needs_a_window(store: Store) -> None:
    with pytest.raises(InvalidInputError):
        await store.login_attempts.begin([])


async def test_migration_0008_downgrades_and_upgrades_again(fresh_db_url: str) -> None:
    from alembic import command
    from sqlalchemy import inspect

    from studpoker.store.migrate import alembic_config

    store = await open_store(fresh_db_url)
    try:
        assert (await store.login_attempts.begin([Window(attempt_key("k"), 1, 300.0)])).allowed
        async with store.engine.begin() as conn:

            def to_0007(sync_conn: Any) -> list[str]:
                config = alembic_config()
                config.attributes["connection"] = sync_conn
                command.downgrade(config, "0007")
                return list(inspect(sync_conn).get_table_names())

            left = await conn.run_sync(to_0007)
        assert "login_attempts" not in left and "tournaments" in left
    finally:
        await store.close()
    store = await open_store(fresh_db_url)  # to head again: the counts start empty
    try:
        assert (await store.login_attempts.begin([Window(attempt_key("k"), 1, 300.0)])).allowed
        if not store.database.is_sqlite:
            first = await store.login_attempts.reserve_guest_block()
            assert await store.login_attempts.reserve_guest_block() == first + 1
    finally:
        await store.close()


async def test_guest_blocks_are_for_postgresql_only(store: Store) -> None:
    if store.database.is_sqlite:
        with pytest.raises(InvalidInputError):
            await store.login_attempts.reserve_guest_block()
    else:
        first, second = [await store.login_attempts.reserve_guest_block() for _ in range(2)]
        assert second > first > 0
