"""Many tables writing at once (as the server's table actors do) keep the books balanced."""

from __future__ import annotations

import asyncio

from studpoker.cards import Deck
from studpoker.store import Store, TableConfig

from .conftest import deck_reveal, write_one

TABLES = 4
HANDS = 6


async def play_table(store: Store, number: int, ids: list[int]) -> None:
    table = await store.create_table(TableConfig.derive(f"busy {number}", "7S8", 100, 200))
    seats = {}
    for s, account_id in enumerate(ids, start=1):
        await store.buy_in(account_id, table.id, s, 2_000)
        seats[s] = account_id
    for h in range(HANDS):
        deck = Deck()
        hand_id = f"t{number}-{h}"
        await write_one(store, store.start_hand_op(hand_id, table.id, deck.commitment, seats=seats))
        put = {s: 100 * (1 + (s + h) % 3) for s in seats}
        winner = 1 + (h + number) % len(seats)
        await write_one(
            store,
            store.finish_hand_op(
                hand_id,
                contributions=put,
                awards={winner: sum(put.values())},
                phh="",
                text="",
                **deck_reveal(deck),
            ),
        )
    for s, account_id in seats.items():
        await store.cash_out(account_id, table.id, s)


async def test_tables_in_parallel(store: Store) -> None:
    ids = [(await store.register(f"player{i}", "secret-pass")).id for i in range(3)]
    # every player sits at every table at once: their bankrolls are shared by all the actors
    await asyncio.gather(
        *(play_table(store, n, ids) for n in range(TABLES)), *(store.audit() for _ in range(3))
    )
    report = await store.audit()
    assert report.balanced and report.seats == 0 and report.bankrolls == 30_000
    counts = [len(await store.hands_for_account(i, limit=1000)) for i in ids]
    assert counts == [TABLES * HANDS] * 3
