"""Hands: start, finish (one transaction), void, crash recovery, records."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import func, select

from studpoker.cards import Deck
from studpoker.store import (
    Account,
    HandStateError,
    InvalidInputError,
    NotFoundError,
    SeatInHandError,
    SettlementError,
    Store,
    TableRecord,
)
from studpoker.store.schema import ledger_entries, ledger_transactions

from .conftest import FakeClock, deck_reveal, open_store, put_in_pot, write_one


async def seated(
    store: Store, table: TableRecord, players: list[Account], stack: int = 5_000
) -> dict[int, int]:
    """Seat the players in seats 1, 2, 3... with ``stack`` each; returns seat -> account id."""
    seats = {}
    for i, player in enumerate(players, start=1):
        await store.buy_in(player.id, table.id, i, stack)
        seats[i] = player.id
    return seats


async def ledger_counts(store: Store) -> tuple[int, int]:
    async with store.engine.connect() as conn:
        txns = await conn.scalar(select(func.count()).select_from(ledger_transactions))
        entries = await conn.scalar(select(func.count()).select_from(ledger_entries))
    return int(txns or 0), int(entries or 0)


async def test_full_hand(store: Store, table: TableRecord, players: list[Account]) -> None:
    seats = await seated(store, table, players)
    deck = Deck()
    starting = await write_one(store, store.start_hand_op("h1", table.id, deck.commitment, seats=seats))
    assert starting == {1: 5_000, 2: 5_000, 3: 5_000}
    hand = await store.hand("h1")
    assert hand.status == "in_progress" and hand.deck_order is None and hand.commitment == deck.commitment
    assert {s: h.starting_stack for s, h in hand.seats.items()} == starting
    report = await store.audit()
    assert report.balanced and report.in_hands == 0  # batched: chips stay on the seats until the end
    stacks = await write_one(
        store,
        store.finish_hand_op(
            "h1",
            contributions={1: 700, 2: 700, 3: 100},
            awards={2: 1_500},
            phh="variant = 'FB'\n",
            text="alice folds\n",
            **deck_reveal(deck),
        ),
    )
    assert stacks == {1: 4_300, 2: 5_800, 3: 4_900}
    assert {s: r.stack for s, r in (await store.seats(table.id)).items()} == stacks
    hand = await store.hand("h1")
    assert hand.status == "finished"
    assert hand.phh == "variant = 'FB'\n" and hand.text == "alice folds\n"
    assert hand.salt == deck.salt and hand.deck_order is not None and len(hand.deck_order.split()) == 52
    assert hand.finished_at is not None and hand.finished_at >= hand.started_at
    assert {s: (h.contribution, h.award, h.net) for s, h in hand.seats.items()} == {
        1: (700, 0, -700),
        2: (700, 1_500, 800),
        3: (100, 0, -100),
    }
    assert hand.seats[2].name == "bob"


async def test_split_pot_and_zero_contribution(
    store: Store, table: TableRecord, players: list[Account]
) -> None:
    seats = await seated(store, table, players)
    deck = Deck()
    await write_one(store, store.start_hand_op("split", table.id, deck.commitment, seats=seats))
    stacks = await write_one(
        store,
        store.finish_hand_op(
            "split",
            contributions={1: 401, 2: 401},
            awards={1: 401, 2: 401},
            phh="",
            text="",
            **deck_reveal(deck),
        ),
    )
    assert stacks == {1: 5_000, 2: 5_000, 3: 5_000}


async def test_deck_order_forms(store: Store, table: TableRecord, players: list[Account]) -> None:
    seats = await seated(store, table, players)
    deck = Deck()
    await write_one(store, store.start_hand_op("forms", table.id, deck.commitment, seats=seats))
    await write_one(
        store,
        store.finish_hand_op(
            "forms",
            contributions={},
            awards={},
            phh="",
            text="",
            deck_order=[int(c) for c in deck.order],
            salt=deck.salt,
        ),
    )
    assert (await store.hand("forms")).deck_order == " ".join(str(c) for c in deck.order)


async def test_awards_must_match_contributions(
    store: Store, table: TableRecord, players: list[Account]
) -> None:
    seats = await seated(store, table, players)
    deck = Deck()
    await write_one(store, store.start_hand_op("bad", table.id, deck.commitment, seats=seats))
    before = await ledger_counts(store)
    for awards in ({1: 1_399}, {1: 1_401}, {}):
        with pytest.raises(SettlementError, match="must equal"):
            await write_one(
                store,
                store.finish_hand_op(
                    "bad", contributions={1: 700, 2: 700}, awards=awards, phh="", text="", **deck_reveal(deck)
                ),
            )
    assert await ledger_counts(store) == before
    assert (await store.hand("bad")).status == "in_progress"
    assert {s: r.stack for s, r in (await store.seats(table.id)).items()} == {1: 5_000, 2: 5_000, 3: 5_000}


async def test_finish_rejections_write_nothing(
    store: Store, table: TableRecord, players: list[Account]
) -> None:
    seats = await seated(store, table, players[:2])
    deck = Deck()
    await write_one(store, store.start_hand_op("h", table.id, deck.commitment, seats=seats))
    before = await ledger_counts(store)
    reveal = deck_reveal(deck)
    cases: list[tuple[dict[str, object], type[Exception], str]] = [
        ({"contributions": {1: 6_000, 2: 0}, "awards": {2: 6_000}}, SettlementError, "cannot put"),
        ({"contributions": {1: 10, 3: 10}, "awards": {1: 20}}, SettlementError, "not in hand"),
        ({"contributions": {1: 10}, "awards": {3: 10}}, SettlementError, "not in hand"),
        ({"contributions": {1: -10}, "awards": {2: -10}}, InvalidInputError, ">= 0"),
        ({"contributions": {1: 10}, "awards": {2: 10}, "salt": "other"}, SettlementError, "commitment"),
        (
            {
                "contributions": {1: 10},
                "awards": {2: 10},
                "deck_order": " ".join(reversed(reveal["deck_order"].split())),
            },
            SettlementError,
            "commitment",
        ),
        ({"contributions": {1: 10}, "awards": {2: 10}, "deck_order": "As Kd"}, InvalidInputError, "52"),
        ({"contributions": {1: 10}, "awards": {2: 10}, "deck_order": "As As"}, InvalidInputError, "twice"),
    ]
    for changes, error, message in cases:
        kwargs: dict[str, object] = {"phh": "", "text": "", **reveal, **changes}
        with pytest.raises(error, match=message):
            await write_one(store, store.finish_hand_op("h", **kwargs))  # type: ignore[arg-type]
    assert await ledger_counts(store) == before
    assert (await store.hand("h")).status == "in_progress"
    with pytest.raises(NotFoundError):
        await write_one(
            store, store.finish_hand_op("nope", contributions={}, awards={}, phh="", text="", **reveal)
        )


async def test_finished_hand_cannot_be_finished_or_voided_again(
    store: Store, table: TableRecord, players: list[Account]
) -> None:
    seats = await seated(store, table, players[:2])
    deck = Deck()
    await write_one(store, store.start_hand_op("once", table.id, deck.commitment, seats=seats))
    kwargs = {
        "contributions": {1: 100, 2: 100},
        "awards": {1: 200},
        "phh": "",
        "text": "",
        **deck_reveal(deck),
    }
    await write_one(store, store.finish_hand_op("once", **kwargs))  # type: ignore[arg-type]
    with pytest.raises(HandStateError, match="already finished"):
        await write_one(store, store.finish_hand_op("once", **kwargs))  # type: ignore[arg-type]
    with pytest.raises(HandStateError, match="already finished"):
        await write_one(store, store.void_hand_op("once", "test"))
    with pytest.raises(HandStateError, match="already exists"):
        await write_one(store, store.start_hand_op("once", table.id, deck.commitment, seats=seats))


async def test_start_hand_checks(store: Store, table: TableRecord, players: list[Account]) -> None:
    seats = await seated(store, table, players[:2])
    commitment = Deck().commitment
    with pytest.raises(InvalidInputError, match="two players"):
        await write_one(store, store.start_hand_op("h", table.id, commitment, seats={1: seats[1]}))
    with pytest.raises(InvalidInputError, match="SHA-256"):
        await write_one(store, store.start_hand_op("h", table.id, "abc", seats=seats))
    with pytest.raises(InvalidInputError, match="hand id"):
        await write_one(store, store.start_hand_op("", table.id, commitment, seats=seats))
    with pytest.raises(HandStateError, match="not held"):
        await write_one(
            store, store.start_hand_op("h", table.id, commitment, seats={1: seats[1], 3: players[2].id})
        )
    with pytest.raises(HandStateError, match="not held"):
        await write_one(
            store, store.start_hand_op("h", table.id, commitment, seats={1: seats[2], 2: seats[1]})
        )
    with pytest.raises(NotFoundError):
        await write_one(store, store.start_hand_op("h", 999, commitment, seats=seats))
    await write_one(store, store.start_hand_op("h", table.id, commitment, seats=seats))
    with pytest.raises(HandStateError, match="in progress"):
        await write_one(store, store.start_hand_op("h2", table.id, commitment, seats=seats))
    await write_one(store, store.void_hand_op("h", "test over"))


async def test_no_cash_out_or_add_chips_during_a_hand(
    store: Store, table: TableRecord, players: list[Account]
) -> None:
    seats = await seated(store, table, players)
    deck = Deck()
    await write_one(
        store, store.start_hand_op("busy", table.id, deck.commitment, seats={1: seats[1], 2: seats[2]})
    )
    with pytest.raises(SeatInHandError, match="during hand busy"):
        await store.cash_out(players[0].id, table.id, 1)
    with pytest.raises(SeatInHandError, match="during hand busy"):
        await store.add_chips(players[0].id, table.id, 1, 100)
    # a player not in the hand may leave
    assert await store.cash_out(players[2].id, table.id, 3) == 5_000
    await write_one(
        store, store.finish_hand_op("busy", contributions={}, awards={}, phh="", text="", **deck_reveal(deck))
    )
    assert await store.cash_out(players[0].id, table.id, 1) == 5_000


async def test_void_hand_without_contributions(
    store: Store, table: TableRecord, players: list[Account]
) -> None:
    seats = await seated(store, table, players)
    await write_one(store, store.start_hand_op("v", table.id, Deck().commitment, seats=seats))
    before = await ledger_counts(store)
    assert await write_one(store, store.void_hand_op("v", "table closed")) == {}
    # nothing was in the pot: the void is recorded as a ledger transaction without entries
    assert await ledger_counts(store) == (before[0] + 1, before[1])
    hand = await store.hand("v")
    assert hand.status == "void" and hand.void_reason == "table closed" and hand.deck_order is None
    assert {s: r.stack for s, r in (await store.seats(table.id)).items()} == {1: 5_000, 2: 5_000, 3: 5_000}


async def test_chips_already_in_the_pot_are_counted_by_finish_and_void(
    store: Store, table: TableRecord, players: list[Account]
) -> None:
    """Chips a writer moved into the pot during the hand: finishing moves only what is left,
    and no contribution may be less than what is already in; voiding gives them back."""
    seats = await seated(store, table, players)
    deck = Deck()
    await write_one(store, store.start_hand_op("c", table.id, deck.commitment, seats=seats))
    await put_in_pot(store, "c", {1: 100, 2: 100, 3: 100})
    report = await store.audit()
    assert report.balanced and report.in_hands == 300 and report.seats == 14_700
    with pytest.raises(SettlementError, match="already put"):
        await write_one(
            store,
            store.finish_hand_op(
                "c",
                contributions={1: 50, 2: 100, 3: 100},
                awards={1: 250},
                phh="",
                text="",
                **deck_reveal(deck),
            ),
        )
    stacks = await write_one(
        store,
        store.finish_hand_op(
            "c",
            contributions={1: 100, 2: 600, 3: 600},
            awards={3: 1_300},
            phh="",
            text="",
            **deck_reveal(deck),
        ),
    )
    assert stacks == {1: 4_900, 2: 4_400, 3: 5_700}
    assert (await store.audit()).in_hands == 0

    await write_one(store, store.start_hand_op("v", table.id, Deck().commitment, seats=seats))
    await put_in_pot(store, "v", {1: 300, 3: 200})
    assert await write_one(store, store.void_hand_op("v", "test")) == {1: 300, 3: 200}
    assert {s: r.stack for s, r in (await store.seats(table.id)).items()} == stacks
    assert (await store.audit()).in_hands == 0


async def test_crash_recovery_voids_and_refunds(
    db_url: str, clock: FakeClock, players: object = None
) -> None:
    """A process that dies mid-hand: at restart every unfinished hand is voided and refunded."""
    first = await open_store(db_url, clock)
    alice = await first.register("alice", "secret-pass")
    bob = await first.register("bob", "secret-pass")
    from studpoker.store import TableConfig

    t1 = await first.create_table(TableConfig.derive("A", "7S", 100, 200))
    t2 = await first.create_table(TableConfig.derive("B", "RZ", 100, 200))
    for t in (t1, t2):
        await first.buy_in(alice.id, t.id, 1, 4_000)
        await first.buy_in(bob.id, t.id, 2, 4_000)
    await write_one(
        first, first.start_hand_op("t1-1", t1.id, Deck().commitment, seats={1: alice.id, 2: bob.id})
    )
    await put_in_pot(first, "t1-1", {1: 300, 2: 500})
    await write_one(
        first, first.start_hand_op("t2-1", t2.id, Deck().commitment, seats={1: alice.id, 2: bob.id})
    )
    report = await first.audit()
    assert report.balanced and report.in_hands == 800
    # "crash": the engine goes away without finishing anything
    await first.engine.dispose()

    second = await open_store(db_url, clock)
    try:
        assert sorted(await second.void_unfinished_hands()) == ["t1-1", "t2-1"]
        assert await second.void_unfinished_hands() == []
        for hand_id in ("t1-1", "t2-1"):
            hand = await second.hand(hand_id)
            assert hand.status == "void" and hand.void_reason is not None and "restart" in hand.void_reason
        for t in (t1, t2):
            assert {s: r.stack for s, r in (await second.seats(t.id)).items()} == {1: 4_000, 2: 4_000}
        report = await second.audit()
        assert report.balanced and report.in_hands == 0 and report.grants == 20_000
        assert report.bankrolls + report.seats == 20_000
        async with second.engine.connect() as conn:
            kinds = (
                await conn.scalars(select(ledger_transactions.c.kind).order_by(ledger_transactions.c.id))
            ).all()
        assert kinds[-1] == "void"
    finally:
        await second.close()


async def test_hands_for_account_lists_only_his_hands(
    store: Store, table: TableRecord, players: list[Account], clock: FakeClock
) -> None:
    alice, bob, carol = players
    await seated(store, table, players)
    for i, seats in enumerate(
        ({1: alice.id, 2: bob.id}, {2: bob.id, 3: carol.id}, {1: alice.id, 3: carol.id})
    ):
        deck = Deck()
        clock.advance(minutes=1)
        await write_one(store, store.start_hand_op(f"h{i}", table.id, deck.commitment, seats=seats))
        first, second = sorted(seats)
        await write_one(
            store,
            store.finish_hand_op(
                f"h{i}",
                contributions={first: 100, second: 100},
                awards={second: 200},
                phh=f"hand {i}",
                text="",
                **deck_reveal(deck),
            ),
        )
    assert [h.id for h in await store.hands_for_account(alice.id)] == ["h2", "h0"]
    assert [h.id for h in await store.hands_for_account(bob.id)] == ["h1", "h0"]
    assert [h.id for h in await store.hands_for_account(carol.id, limit=1)] == ["h2"]
    assert [h.id for h in await store.hands_for_account(carol.id, limit=1, offset=1)] == ["h1"]
    assert [h.id for h in await store.hands_for_table(table.id)] == ["h2", "h1", "h0"]
    with pytest.raises(NotFoundError):
        await store.hand("nope")


async def test_in_memory_sqlite() -> None:
    """``sqlite+aiosqlite://`` (no file) keeps one shared in-memory database for the whole store."""
    store = await open_store("sqlite+aiosqlite://")
    try:
        alice = await store.register("alice", "secret-pass")
        assert (await store.account(alice.id)).bankroll == 10_000
        assert (await store.audit()).balanced
    finally:
        await store.close()


async def test_recent_hand_pots(
    store: Store, table: TableRecord, players: list[Account], clock: FakeClock
) -> None:
    """Finished hands only (not voided, not in progress), pot = the sum of contributions."""
    seats = await seated(store, table, players)
    start = clock.now
    for name, pot in (("old", None), ("a", (100, 200)), ("v", None), ("b", (300, 300)), ("open", None)):
        deck = Deck()
        await write_one(store, store.start_hand_op(name, table.id, deck.commitment, seats=seats))
        if name == "v":
            await write_one(store, store.void_hand_op("v", "test"))
        elif pot is not None:
            await write_one(
                store,
                store.finish_hand_op(
                    name,
                    contributions={1: pot[0], 2: pot[1], 3: 0},
                    awards={1: sum(pot)},
                    phh="",
                    text="",
                    **deck_reveal(deck),
                ),
            )
        elif name == "old":
            await write_one(
                store,
                store.finish_hand_op(
                    name,
                    contributions={1: 50, 2: 50, 3: 0},
                    awards={2: 100},
                    phh="",
                    text="",
                    **deck_reveal(deck),
                ),
            )
            clock.advance(hours=2)
        clock.advance(seconds=30)
    await write_one(store, store.void_hand_op("open", "test"))
    recent = await store.recent_hand_pots(start + timedelta(hours=1))
    assert list(recent) == [table.id]
    assert [pot for _, pot in recent[table.id]] == [300, 600]
    assert recent[table.id][0][0] <= recent[table.id][1][0]
    everything = await store.recent_hand_pots(start)
    assert [pot for _, pot in everything[table.id]] == [100, 300, 600]
