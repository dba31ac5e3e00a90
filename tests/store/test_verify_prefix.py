"""``studpoker verify`` takes the short hand id the History panel shows: any unique prefix of 8 or
more digits; an ambiguous prefix lists the hands, a short or unknown one is refused clearly."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from studpoker.cards import Deck
from studpoker.cli import main
from studpoker.store import Store, TableConfig

from .conftest import FakeClock, deck_reveal, open_store, write_one

# uuid4().hex ids, as the server gives them; the first two share their first 8 digits
FIRST = "0123456789abcdef0123456789abcdef"
SECOND = "01234567ffffffff0123456789abcdef"
THIRD = "abcdef0123456789abcdef0123456789"


@pytest.fixture
async def three_hands(db_url: str, clock: FakeClock) -> AsyncIterator[Store]:
    store = await open_store(db_url, clock)
    alice = await store.register("alice", "secret-pass")
    bob = await store.register("bob", "secret-pass")
    table = await store.create_table(TableConfig.derive("T", "7S", 100, 200))
    await store.buy_in(alice.id, table.id, 1, 4_000)
    await store.buy_in(bob.id, table.id, 2, 4_000)
    for hand_id in (FIRST, SECOND, THIRD):
        deck = Deck()
        seats = {1: alice.id, 2: bob.id}
        await write_one(store, store.start_hand_op(hand_id, table.id, deck.commitment, seats=seats))
        finish = store.finish_hand_op(
            hand_id, contributions={1: 100, 2: 100}, awards={2: 200}, phh="p", text="t", **deck_reveal(deck)
        )
        await write_one(store, finish)
    try:
        yield store
    finally:
        await store.close()


def verify(db_url: str, hand_id: str) -> int:
    return main(["verify", hand_id, "--database-url", db_url])


async def test_a_unique_prefix_names_its_hand(
    three_hands: Store, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    for given, full in (("abcdef01", THIRD), ("012345678", FIRST), ("01234567F", SECOND), (FIRST, FIRST)):
        assert await asyncio.to_thread(verify, db_url, given) == 0, given
        out = capsys.readouterr().out
        assert f"hand        {full} (finished)" in out and "OK" in out


async def test_an_ambiguous_prefix_lists_the_candidates(
    three_hands: Store, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert await asyncio.to_thread(verify, db_url, "01234567") == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "'01234567' is ambiguous: 2 hands' ids start with it" in captured.err
    assert FIRST in captured.err and SECOND in captured.err and THIRD not in captured.err


async def test_a_short_or_unknown_id_is_refused_clearly(
    three_hands: Store, db_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert await asyncio.to_thread(verify, db_url, "abcdef0") == 2
    assert "'abcdef0' is too short: give at least 8 digits" in capsys.readouterr().err
    assert await asyncio.to_thread(verify, db_url, "fedcba98") == 2
    assert "no hand 'fedcba98': no hand id starts with fedcba98" in capsys.readouterr().err
    # LIKE's wildcards are no hex digits: they match nothing
    assert await asyncio.to_thread(verify, db_url, "0123456%") == 2
    assert "no hand '0123456%'" in capsys.readouterr().err
