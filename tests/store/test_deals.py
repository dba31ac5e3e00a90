"""A verifiable deal's record (migration 0003, docs/fairness.md): the seeds stored with the hand,
checked against the commitment at the start and the deck order at the end; bad input changes
nothing."""

from __future__ import annotations

from typing import Any

import pytest

from studpoker.fairness import deck_from_seeds, seed_commitment
from studpoker.store import (
    Account,
    DealSeeds,
    InvalidInputError,
    NotFoundError,
    Store,
    StoreError,
    TableRecord,
)

from .conftest import write_one
from .test_hands import seated

SERVER_SEED = bytes(range(32))
CLIENT_SEEDS = ((1, b"alice"), (3, bytes(64)))


async def test_the_seeds_are_stored_and_checked(
    store: Store, table: TableRecord, players: list[Account]
) -> None:
    seats = await seated(store, table, players)
    seeds = DealSeeds(server_seed=SERVER_SEED, client_seeds=CLIENT_SEEDS)
    deal = deck_from_seeds(SERVER_SEED, CLIENT_SEEDS)
    root = deal.tree().root.hex()
    # A commitment the seeds do not give, unusable seeds: refused, nothing written.
    other = deck_from_seeds(SERVER_SEED).tree().root.hex()
    for bad in (
        DealSeeds(server_seed=SERVER_SEED, client_seeds=CLIENT_SEEDS[:1]),
        DealSeeds(server_seed=SERVER_SEED[:31], client_seeds=CLIENT_SEEDS),
        DealSeeds(server_seed=SERVER_SEED, client_seeds=((3, b"x"), (1, b"y"))),
    ):
        with pytest.raises(InvalidInputError):
            await write_one(store, store.start_hand_op("d1", table.id, root, seats=seats, deal=bad))
    with pytest.raises(InvalidInputError, match="deck root"):
        await write_one(store, store.start_hand_op("d1", table.id, other, seats=seats, deal=seeds))
    with pytest.raises(NotFoundError):
        await store.hand("d1")
    await write_one(store, store.start_hand_op("d1", table.id, root, seats=seats, deal=seeds))
    hand = await store.hand("d1")
    assert (
        hand.verifiable
        and hand.server_seed == SERVER_SEED.hex()
        and hand.deck_root == root == hand.commitment
    )
    assert hand.seed_commitment == seed_commitment(SERVER_SEED)
    assert hand.client_seeds == ((1, b"alice".hex()), (3, bytes(64).hex()))
    order = [str(c) for c in deal.order]
    swapped = [order[1], order[0], *order[2:]]
    end: dict[str, Any] = {"contributions": {1: 100, 2: 100}, "awards": {1: 200}, "phh": "p", "text": "t"}
    with pytest.raises(StoreError, match="not the one its seeds give"):
        await write_one(store, store.finish_hand_op("d1", **end, deck_order=" ".join(swapped)))
    assert (await store.hand("d1")).status == "in_progress"
    await write_one(store, store.finish_hand_op("d1", **end, deck_order=" ".join(order)))
    hand = await store.hand("d1")
    assert hand.status == "finished" and hand.deck_order == " ".join(order) and hand.salt is None
