"""Account farming (issue 10, point 6), in the store: per-address budgets of new accounts and
top-ups kept in the database, and password hashing on a bounded pool off the event loop."""

from __future__ import annotations

import asyncio
import threading
from collections import Counter
from typing import Any

import pytest
from argon2 import PasswordHasher
from sqlalchemy import select, text

from studpoker.store import Store, TableConfig
from studpoker.store.budgets import AddressBudget
from studpoker.store.errors import BusyError, LimitError
from studpoker.store.hashing import THREAD_PREFIX
from studpoker.store.schema import ledger_transactions

from .conftest import FAST_HASHER, FakeClock, open_store
from .test_accounts import _lose


async def _counts(store: Store) -> tuple[int, int]:
    async with store.engine.connect() as conn:
        accounts = await conn.scalar(text("select count(*) from accounts"))
        grants = await conn.scalar(text("select count(*) from ledger_transactions"))
    return int(accounts or 0), int(grants or 0)


async def test_new_accounts_per_address_per_day(store: Store, clock: FakeClock) -> None:
    here = AddressBudget("203.0.113.7", per_day=2)
    await store.register("farm1", "secret-pass", budget=here)
    await store.register("farm2", "secret-pass", budget=here)
    before = await _counts(store)
    with pytest.raises(LimitError, match="2 new accounts") as refused:
        await store.register("farm3", "secret-pass", budget=here)
    assert refused.value.retry_after is not None
    assert 0 < refused.value.retry_after <= 24 * 3600
    assert await _counts(store) == before  # nothing written: no account, no grant
    # Another address has its own budget; a new UTC day refills this one.
    await store.register("elsewhere", "secret-pass", budget=AddressBudget("198.51.100.1", per_day=2))
    clock.advance(days=1)
    await store.register("farm3", "secret-pass", budget=here)
    report = await store.audit()
    assert report.balanced and report.grants == 4 * store.starting_grant


async def test_the_budget_holds_across_a_restart(db_url: str, clock: FakeClock) -> None:
    here = AddressBudget("203.0.113.7", per_day=1)
    store = await open_store(db_url, clock)
    try:
        await store.register("farm1", "secret-pass", budget=here)
    finally:
        await store.close()
    store = await open_store(db_url, clock)
    try:
        with pytest.raises(LimitError):
            await store.register("farm2", "secret-pass", budget=here)
    finally:
        await store.close()


async def test_concurrent_registrations_never_pass_the_budget(store: Store) -> None:
    """Many at once from one address (each hashed before it claims): exactly the budget opens."""
    here = AddressBudget("203.0.113.7", per_day=3)
    results = await asyncio.gather(
        *(store.register(f"farm{i}", "secret-pass", budget=here) for i in range(12)), return_exceptions=True
    )
    opened = [r for r in results if not isinstance(r, BaseException)]
    assert len(opened) == 3
    assert all(isinstance(r, LimitError) for r in results if isinstance(r, BaseException))
    assert (await store.audit()).grants == 3 * store.starting_grant


async def test_topups_per_address_per_day(store: Store, clock: FakeClock) -> None:
    """Each broke account may claim its daily top-up, but one address claims at most the
    budget over all its accounts: farmed accounts cannot each be refilled and dumped."""
    table = await store.create_table(TableConfig.derive("Stud 1/2", "7S", 100, 200, min_buy_in=2000))
    broke = []
    for seat, name in enumerate(("farm1", "farm2", "farm3"), start=1):
        account = await store.register(name, "secret-pass")
        await store.buy_in(account.id, table.id, seat, 9_500)
        await _lose(store, table.id, account.id, 9_500)
        broke.append(account)
    here = AddressBudget("203.0.113.7", per_day=2)
    assert await store.daily_topup(broke[0].id, budget=here) == 9_500
    assert await store.daily_topup(broke[1].id, budget=here) == 9_500
    before = await _counts(store)
    with pytest.raises(LimitError, match="2 daily top-ups"):
        await store.daily_topup(broke[2].id, budget=here)
    assert await _counts(store) == before
    assert (await store.account(broke[2].id)).bankroll == 500
    # Not eligible (already topped up today): 0, and no budget used.
    assert await store.daily_topup(broke[0].id, budget=AddressBudget("198.51.100.1", per_day=1)) == 0
    assert await store.daily_topup(broke[2].id, budget=AddressBudget("198.51.100.1", per_day=1)) == 9_500
    clock.advance(days=1)
    async with store.engine.connect() as conn:
        topups = (
            await conn.scalars(
                select(ledger_transactions.c.kind).where(ledger_transactions.c.kind == "topup")
            )
        ).all()
    assert len(topups) == 3


async def test_a_zero_budget_opens_nothing(store: Store) -> None:
    with pytest.raises(LimitError):
        await store.register("farm1", "secret-pass", budget=AddressBudget("203.0.113.7", per_day=0))
    assert await _counts(store) == (0, 0)


# ----------------------------------------------------------------------------- the hashing pool


class GatedHasher(PasswordHasher):
    """Fast argon2 that counts its hashes and checks (``calls``), records the thread of each,
    counts those running at once, and holds each one until ``gate`` opens."""

    def __init__(self) -> None:
        super().__init__(time_cost=1, memory_cost=1024, parallelism=1)
        self.gate = threading.Event()
        self.threads: set[str] = set()
        self.running = 0
        self.most_at_once = 0
        self.calls: Counter[str] = Counter()
        self._lock = threading.Lock()

    def _enter(self, kind: str) -> None:
        with self._lock:
            self.calls[kind] += 1
            self.threads.add(threading.current_thread().name)
            self.running += 1
            self.most_at_once = max(self.most_at_once, self.running)
        self.gate.wait(30)
        with self._lock:
            self.running -= 1

    def hash(self, password: str | bytes, *, salt: bytes | None = None) -> str:
        self._enter("hash")
        return super().hash(password, salt=salt)

    def verify(self, hash: str | bytes, password: str | bytes) -> Any:
        self._enter("verify")
        return super().verify(hash, password)


async def test_hashing_runs_off_the_event_loop_on_the_pool(db_url: str, clock: FakeClock) -> None:
    hasher = GatedHasher()
    hasher.gate.set()
    store = await Store.open(db_url, password_hasher=hasher, clock=clock)
    try:
        await store.register("alice", "secret-pass")
        await store.login("alice", "secret-pass")
        with pytest.raises(Exception, match="wrong name"):
            await store.login("nobody", "secret-pass")  # the dummy check too
    finally:
        await store.close()
    loop_thread = threading.current_thread().name
    assert hasher.threads and loop_thread not in hasher.threads
    assert all(name.startswith(THREAD_PREFIX) for name in hasher.threads), hasher.threads


async def test_the_pool_bound_holds_and_a_full_queue_is_busy(db_url: str, clock: FakeClock) -> None:
    """2 workers and 3 waiting: of 8 registrations at once, 2 hash at a time (never more, while
    the rest wait), 3 wait, 3 are refused at once with BusyError, and nothing is written for them."""
    hasher = GatedHasher()
    store = await Store.open(db_url, password_hasher=hasher, clock=clock, hash_workers=2, hash_max_waiting=3)
    try:
        tasks = [asyncio.create_task(store.register(f"user{i}", "secret-pass")) for i in range(8)]
        for _ in range(500):
            if hasher.running == 2 and sum(t.done() for t in tasks) == 3:
                break
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.2)  # room for a third thread to start, were there one
        assert hasher.running == 2 and store.hashing.pending == 5
        refused = [t for t in tasks if t.done()]
        assert len(refused) == 3 and all(isinstance(t.exception(), BusyError) for t in refused)
        hasher.gate.set()
        opened = await asyncio.gather(*(t for t in tasks if t not in refused))
        assert len(opened) == 5 and hasher.most_at_once == 2
        assert await _counts(store) == (5, 5)
        assert (await store.audit()).balanced
    finally:
        hasher.gate.set()
        await store.close()


async def test_the_pool_size_is_checked(db_url: str) -> None:
    with pytest.raises(ValueError, match="at least 1 worker"):
        await Store.open(db_url, password_hasher=FAST_HASHER, hash_workers=0)
