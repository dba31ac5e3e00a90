"""Accounts and logins under attack (issue 10, points 1, 5 and 6), through the real server:
simultaneous guesses, registration floods, a full hashing queue, bot names claimed by people."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import insert, select, text, update

from studpoker.server.bots import start_bots
from studpoker.store import TableConfig, names
from studpoker.store.schema import accounts, sessions
from tests.server.conftest import Harness, make_settings, running_server
from tests.store.test_account_limits import GatedHasher
from tests.store.test_accounts import _lose


async def _wait_for(predicate: Any, what: str) -> None:
    for _ in range(1000):
        if predicate():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"timed out waiting for {what}")


def _post(harness: Harness, path: str, **body: str) -> asyncio.Task[httpx.Response]:
    return asyncio.create_task(harness.http.post(path, json=body))


# ----------------------------------------------------------------------------- point 1


async def test_simultaneous_guesses_check_no_more_than_the_budget(harness: Harness) -> None:
    """200 wrong guesses for one name at the same moment: 5 (the budget per name) are checked,
    195 refused before any check; the right password sent while they are checked does not get
    in. The checks are held until the refusals are all back, so every guess is in flight."""
    await harness.register("victim", "the-right-password")
    hasher = GatedHasher()
    harness.store.hasher = hasher
    guesses = [_post(harness, "/api/login", name="victim", password=f"guess-{i}") for i in range(200)]
    try:
        await _wait_for(lambda: sum(t.done() for t in guesses) >= 195, "the refused guesses")
        right = await harness.http.post(
            "/api/login", json={"name": "victim", "password": "the-right-password"}
        )
        assert right.status_code == 429 and int(right.headers["Retry-After"]) > 0
        # Case and full-width forms are the same name, so the same budget.
        other_form = await harness.http.post("/api/login", json={"name": "ＶＩＣＴＩＭ", "password": "x" * 8})
        assert other_form.status_code == 429
    finally:
        hasher.gate.set()
    codes = sorted(r.status_code for r in await asyncio.gather(*guesses))
    assert codes == [401] * 5 + [429] * 195
    assert hasher.calls["verify"] == 5


async def test_simultaneous_spray_checks_no_more_than_the_address_budget(harness: Harness) -> None:
    """One guess for each of 200 names at once from one address: 50 checked (the budget per
    address), whether the names exist or not."""
    await harness.register("victim", "the-right-password")
    hasher = GatedHasher()
    harness.store.hasher = hasher
    guesses = [_post(harness, "/api/login", name=f"name{i}", password="password1") for i in range(200)]
    try:
        await _wait_for(lambda: sum(t.done() for t in guesses) >= 150, "the refused guesses")
        right = await harness.http.post(
            "/api/login", json={"name": "victim", "password": "the-right-password"}
        )
        assert right.status_code == 429
    finally:
        hasher.gate.set()
    codes = sorted(r.status_code for r in await asyncio.gather(*guesses))
    assert codes == [401] * 50 + [429] * 150
    assert hasher.calls == {"verify": 50, "hash": 1}  # one dummy hash for all the unknown names


async def test_a_success_does_not_spend_the_address_budget(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, login_max_failures_per_address=3)
    async with running_server(settings) as harness:
        await harness.register("alice", "the-right-password")
        for _ in range(6):
            answer = await harness.http.post(
                "/api/login", json={"name": "alice", "password": "the-right-password"}
            )
            assert answer.status_code == 200


# ----------------------------------------------------------------------------- point 6


async def test_registrations_per_address_per_hour_are_counted_before_hashing(tmp_path: Path) -> None:
    """20 registrations at once from one address with 3 an hour: 3 accounts, 3 hashes (the
    rest refused before hashing), 429 with Retry-After for the others; a refused name (taken,
    invalid) gives its count back."""
    async with running_server(make_settings(tmp_path, registrations_per_address_per_hour=3)) as harness:
        hasher = GatedHasher()
        hasher.gate.set()
        harness.store.hasher = hasher
        assert (
            await harness.http.post("/api/register", json={"name": "a b", "password": "x" * 8})
        ).status_code == 422
        answers = await asyncio.gather(
            *(
                harness.http.post("/api/register", json={"name": f"farm{i}", "password": "x" * 8})
                for i in range(20)
            )
        )
        codes = sorted(a.status_code for a in answers)
        assert codes == [201] * 3 + [429] * 17
        refused = next(a for a in answers if a.status_code == 429)
        assert refused.json()["error"]["code"] == "rate_limited" and int(refused.headers["Retry-After"]) > 0
        assert hasher.calls == {"hash": 3}  # and no password check: the new session needs none
        async with harness.store.engine.connect() as conn:
            assert await conn.scalar(text("select count(*) from accounts")) == 3


async def test_the_daily_registration_budget_is_kept_across_restarts(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, registrations_per_address_per_day=2)
    async with running_server(settings) as harness:
        await harness.register("farm1")
        await harness.register("farm2")
        refused = await harness.http.post("/api/register", json={"name": "farm3", "password": "x" * 8})
        assert refused.status_code == 429
    async with running_server(
        settings
    ) as harness:  # the in-memory limits start afresh: the store's count holds
        refused = await harness.http.post("/api/register", json={"name": "farm3", "password": "x" * 8})
        assert refused.status_code == 429 and int(refused.headers["Retry-After"]) > 0
        assert "had its 2 new accounts for today" in refused.json()["error"]["message"]
        report = await harness.store.audit()
        assert report.balanced and report.grants == 2 * harness.store.starting_grant


async def test_topups_per_address_per_day(tmp_path: Path) -> None:
    async with running_server(make_settings(tmp_path, topups_per_address_per_day=1)) as harness:
        store = harness.store
        table = await store.create_table(TableConfig.derive("no actor", "7S", 100, 200, min_buy_in=2000))
        tokens = []
        for seat, name in enumerate(("farm1", "farm2"), start=1):
            token = await harness.register(name)
            account = await store.authenticate(token)
            await store.buy_in(account.id, table.id, seat, 9_500)
            await _lose(store, table.id, account.id, 9_500)
            tokens.append(token)
        first = await harness.http.post("/api/topup", headers={"Authorization": f"Bearer {tokens[0]}"})
        assert first.status_code == 200 and first.json()["granted"] == 9_500
        second = await harness.http.post("/api/topup", headers={"Authorization": f"Bearer {tokens[1]}"})
        assert second.status_code == 429 and "daily top-ups" in second.json()["error"]["message"]
        assert (await harness.http.get("/api/me", headers={"Authorization": f"Bearer {tokens[1]}"})).json()[
            "bankroll"
        ] == 500


async def test_a_full_hashing_queue_answers_busy_and_costs_nothing(harness: Harness) -> None:
    hasher = GatedHasher()
    harness.store.hasher = hasher
    harness.store.hashing.max_waiting = 0  # one worker, no queue
    first = _post(harness, "/api/register", name="first", password="x" * 8)
    try:
        await _wait_for(lambda: hasher.running == 1, "the first hash")
        busy = await harness.http.post("/api/register", json={"name": "second", "password": "x" * 8})
        assert busy.status_code == 503 and busy.json()["error"]["code"] == "busy"
        assert busy.headers["Retry-After"] == "1"
        login = await harness.http.post("/api/login", json={"name": "first", "password": "x" * 8})
        assert login.status_code == 503
    finally:
        hasher.gate.set()
    assert (await first).status_code == 201
    async with harness.store.engine.connect() as conn:
        assert await conn.scalar(text("select count(*) from accounts")) == 1
    assert (
        await harness.http.post("/api/register", json={"name": "second", "password": "x" * 8})
    ).status_code == 201


# ----------------------------------------------------------------------------- point 5


async def test_bot_names_cannot_be_registered(harness: Harness) -> None:
    for name in ("bot_t1_1", "BOT_t1_1", "b0t_t1_1", "bot-x", "ｂｏｔ＿t1_1"):
        answer = await harness.http.post("/api/register", json={"name": name, "password": "password123"})
        assert answer.status_code == 422 and "bots" in answer.json()["error"]["message"], (name, answer.text)


async def test_bots_cannot_log_in(harness: Harness) -> None:
    actor = await harness.add_table()
    bots = await start_bots(harness.room, 1, table_ids=[actor.table_id])
    try:
        name = bots[0].name
        answer = await harness.http.post("/api/login", json={"name": name, "password": "password123"})
        assert answer.status_code == 401
        async with harness.store.engine.begin() as conn:  # even with a password it is refused
            await conn.execute(
                update(accounts)
                .where(accounts.c.id == bots[0].account_id)
                .values(password_hash=harness.store.hasher.hash("password123"))
            )
        answer = await harness.http.post("/api/login", json={"name": name, "password": "password123"})
        assert answer.status_code == 401
    finally:
        for bot in bots:
            bot.stop()


async def test_the_server_never_takes_a_persons_account_for_a_bot(harness: Harness) -> None:
    """A person who registered ``bot_t1_1`` before the name was reserved (an older database)
    keeps the account; started with bots, the server seats ``bot_t1_2`` instead."""
    actor = await harness.add_table()
    name = f"bot_t{actor.table_id}_1"
    store = harness.store
    async with store.engine.begin() as conn:
        created = (
            await conn.execute(
                insert(accounts).values(
                    name=name,
                    name_key=name,
                    name_skeleton=names.skeleton(name),
                    password_hash=store.hasher.hash("the-owners-password"),
                    bankroll=0,
                    created_at=store.now(),
                    protected_count=0,
                    is_bot=False,
                )
            )
        ).inserted_primary_key
        assert created is not None
        person = created[0]
    bots = await start_bots(harness.room, 1, table_ids=[actor.table_id])
    try:
        assert [b.name for b in bots] == [f"bot_t{actor.table_id}_2"]
        assert bots[0].account_id != person
        answer = await harness.http.post("/api/login", json={"name": name, "password": "the-owners-password"})
        assert answer.status_code == 200 and answer.json()["account"]["id"] == person
        async with store.engine.connect() as conn:
            assert not await conn.scalar(select(accounts.c.is_bot).where(accounts.c.id == person))
            assert await conn.scalar(select(accounts.c.is_bot).where(accounts.c.id == bots[0].account_id))
            assert not (
                await conn.scalars(
                    select(sessions.c.token_hash).where(sessions.c.account_id == bots[0].account_id)
                )
            ).all()
    finally:
        for bot in bots:
            bot.stop()
