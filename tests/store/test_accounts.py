"""Accounts, passwords, sessions, grants, daily top-ups, protected all-ins."""

from __future__ import annotations

from datetime import timedelta

import pytest
from argon2 import PasswordHasher
from sqlalchemy import insert, select, update

from studpoker.store import (
    AuthError,
    InvalidInputError,
    NameTakenError,
    NotFoundError,
    Store,
    TableConfig,
)
from studpoker.store.schema import accounts, ledger_entries, ledger_transactions, sessions
from studpoker.store.sessions import hash_token

from .conftest import FakeClock, open_store, write_one


async def test_register_grants_starting_bankroll(store: Store) -> None:
    alice = await store.register("alice", "secret-pass")
    assert alice.name == "alice"
    assert alice.bankroll == 10_000
    assert await store.account(alice.id) == alice
    async with store.engine.connect() as conn:
        kinds = (await conn.scalars(select(ledger_transactions.c.kind))).all()
        amounts = sorted((await conn.scalars(select(ledger_entries.c.amount))).all())
    assert kinds == ["grant"]
    assert amounts == [-10_000, 10_000]
    report = await store.audit()
    assert report.balanced and report.grants == 10_000 and report.bankrolls == 10_000


async def test_password_is_never_stored_in_clear(store: Store) -> None:
    await store.register("alice", "secret-pass")
    async with store.engine.connect() as conn:
        stored = str(await conn.scalar(select(accounts.c.password_hash)))
    assert "secret-pass" not in stored
    assert stored.startswith("$argon2id$")


@pytest.mark.parametrize(
    "name",
    ["ab", "a" * 21, "has space", "semi;colon", "", "x/y", "<script>", "alice\n", "\nalice", "a\u200bbc"],
)
async def test_bad_names_rejected(store: Store, name: str) -> None:
    with pytest.raises(InvalidInputError, match="3 to 20"):
        await store.register(name, "secret-pass")


async def test_names_allowed(store: Store) -> None:
    for name in ("abc", "A_b-9", "x" * 20, "naïve", "Алиса", "東京タワー"):
        assert (await store.register(name, "secret-pass")).name == name


async def test_bad_password_rejected(store: Store) -> None:
    with pytest.raises(InvalidInputError, match="password"):
        await store.register("alice", "short")


async def test_duplicate_names_rejected_without_regard_to_case(store: Store) -> None:
    await store.register("alice", "secret-pass")
    with pytest.raises(NameTakenError, match="taken"):
        await store.register("alice", "other-pass")
    with pytest.raises(NameTakenError):
        await store.register("ALICE", "other-pass")
    assert (await store.audit()).grants == 10_000  # the refused registrations granted nothing


async def test_login_and_authenticate(store: Store) -> None:
    alice = await store.register("alice", "secret-pass")
    session = await store.login("alice", "secret-pass")
    assert session.account_id == alice.id
    assert len(session.token) >= 40
    assert await store.authenticate(session.token) == alice
    # name lookup ignores case
    other = await store.login("Alice", "secret-pass")
    assert other.token != session.token


async def test_session_token_stored_hashed(store: Store) -> None:
    await store.register("alice", "secret-pass")
    session = await store.login("alice", "secret-pass")
    async with store.engine.connect() as conn:
        stored = (await conn.scalars(select(sessions.c.token_hash))).all()
    assert session.token not in stored
    assert len(stored) == 1 and len(stored[0]) == 64


async def test_wrong_password_and_unknown_name_same_error(store: Store) -> None:
    await store.register("alice", "secret-pass")
    with pytest.raises(AuthError) as wrong_password:
        await store.login("alice", "wrong-pass")
    with pytest.raises(AuthError) as unknown_name:
        await store.login("nobody", "secret-pass")
    assert str(wrong_password.value) == str(unknown_name.value) == "wrong name or password"


async def test_expired_token(store: Store, clock: FakeClock) -> None:
    await store.register("alice", "secret-pass")
    session = await store.login("alice", "secret-pass")
    clock.advance(hours=23)
    await store.authenticate(session.token)
    clock.advance(hours=1, seconds=1)
    with pytest.raises(AuthError, match="expired"):
        await store.authenticate(session.token)


async def test_revoked_and_unknown_tokens(store: Store) -> None:
    await store.register("alice", "secret-pass")
    one = await store.login("alice", "secret-pass")
    two = await store.login("alice", "secret-pass")
    await store.revoke(one.token)
    with pytest.raises(AuthError, match="logged out"):
        await store.authenticate(one.token)
    assert (await store.authenticate(two.token)).name == "alice"
    assert await store.revoke_all(two.account_id) == 1
    with pytest.raises(AuthError):
        await store.authenticate(two.token)
    with pytest.raises(AuthError, match="unknown"):
        await store.authenticate("not-a-token")
    with pytest.raises(AuthError):
        await store.authenticate("")
    await store.revoke("not-a-token")  # no error


async def test_outdated_hash_upgraded_at_login(db_url: str, clock: FakeClock) -> None:
    old = await open_store(db_url, clock)
    await old.register("alice", "secret-pass")
    await old.close()
    stronger = PasswordHasher(time_cost=2, memory_cost=2048, parallelism=1)
    new = await Store.open(db_url, password_hasher=stronger, clock=clock)
    try:
        await new.login("alice", "secret-pass")
        async with new.engine.connect() as conn:
            stored = str(await conn.scalar(select(accounts.c.password_hash)))
        assert not stronger.check_needs_rehash(stored)
        await new.login("alice", "secret-pass")
    finally:
        await new.close()


async def test_unknown_account(store: Store) -> None:
    with pytest.raises(NotFoundError):
        await store.account(999)
    with pytest.raises(NotFoundError):
        await store.account_by_name("nobody")
    with pytest.raises(NotFoundError):
        await store.daily_topup(999)
    with pytest.raises(NotFoundError):
        await store.use_protected_all_in(999)


async def test_daily_topup_only_when_broke_and_once_a_day(store: Store, clock: FakeClock) -> None:
    alice = await store.register("alice", "secret-pass")
    assert await store.daily_topup(alice.id) == 0  # not broke
    table = await store.create_table(TableConfig.derive("Stud 1/2", "7S", 100, 200, min_buy_in=2000))
    await store.buy_in(alice.id, table.id, 1, 9_500)
    # 500 in the bankroll but 9_500 on the table: not broke
    assert await store.daily_topup(alice.id) == 0
    await _lose(store, table.id, alice.id, 9_500)
    # 500 left in all, below the threshold (1_000): topped up to the grant
    assert await store.daily_topup(alice.id) == 9_500
    assert (await store.account(alice.id)).bankroll == 10_000
    assert await store.daily_topup(alice.id) == 0
    # broke again the same day: nothing until the next UTC day
    await store.buy_in(alice.id, table.id, 1, 9_600)
    await _lose(store, table.id, alice.id, 9_600)
    assert await store.daily_topup(alice.id) == 0
    clock.advance(days=1)
    assert await store.daily_topup(alice.id) == 9_600
    report = await store.audit()
    assert report.balanced and report.grants == 3 * 10_000 + 9_500 + 9_600  # two rivals joined


async def _lose(store: Store, table_id: int, account_id: int, amount: int) -> None:
    """Play one hand in which ``account_id`` loses ``amount`` to a fresh opponent."""
    from studpoker.cards import Deck

    from .conftest import deck_reveal

    n = len(await store.hands_for_table(table_id, limit=1000))
    rival = await store.register(f"rival{n}", "secret-pass")
    await store.buy_in(rival.id, table_id, 8, 10_000)
    mine = next(s for s in (await store.seats(table_id)).values() if s.account_id == account_id)
    deck = Deck()
    hand_id = f"lose-{n}"
    await write_one(
        store,
        store.start_hand_op(hand_id, table_id, deck.commitment, seats={mine.seat: account_id, 8: rival.id}),
    )
    await write_one(
        store,
        store.finish_hand_op(
            hand_id,
            contributions={mine.seat: amount, 8: amount},
            awards={8: 2 * amount},
            phh="",
            text="",
            **deck_reveal(deck),
        ),
    )
    await store.cash_out(rival.id, table_id, 8)
    assert await store.cash_out(account_id, table_id, mine.seat) == 0


async def test_protected_all_in_limit_per_day(store: Store, clock: FakeClock) -> None:
    alice = await store.register("alice", "secret-pass")
    assert await store.protected_all_ins_left(alice.id) == 2
    assert await store.use_protected_all_in(alice.id)
    assert await store.use_protected_all_in(alice.id)
    assert not await store.use_protected_all_in(alice.id)
    assert await store.protected_all_ins_left(alice.id) == 0
    assert await store.use_protected_all_in(alice.id, limit_per_day=3)
    assert not await store.use_protected_all_in(alice.id, limit_per_day=0)
    clock.advance(days=1)
    assert await store.protected_all_ins_left(alice.id) == 2
    assert await store.use_protected_all_in(alice.id, limit_per_day=1)
    assert not await store.use_protected_all_in(alice.id, limit_per_day=1)


# ----------------------------------------------------------------------------- bot accounts (point 5)


async def test_bot_accounts_are_marked_have_no_password_and_get_the_grant(store: Store) -> None:
    bot = await store.create_bot_account("bot_t1_1")
    assert bot.bankroll == store.starting_grant
    assert await store.create_bot_account("bot_t1_1") == bot  # found again: no second grant
    async with store.engine.connect() as conn:
        row = (
            await conn.execute(
                select(accounts.c.is_bot, accounts.c.password_hash).where(accounts.c.id == bot.id)
            )
        ).one()
        kinds = (await conn.scalars(select(ledger_transactions.c.kind))).all()
    assert row.is_bot and not row.password_hash.startswith("$argon2")
    assert kinds == ["grant"]
    assert (await store.audit()).grants == store.starting_grant


async def test_a_bot_cannot_log_in_even_with_its_password(store: Store) -> None:
    """Whatever hash a bot account holds (an older database kept real ones), login refuses it
    with the same answer as a wrong password, and a session of a bot is never believed."""
    bot = await store.create_bot_account("bot_t1_1")
    async with store.engine.begin() as conn:
        await conn.execute(
            update(accounts)
            .where(accounts.c.id == bot.id)
            .values(password_hash=store.hasher.hash("known-pass"))
        )
    with pytest.raises(AuthError, match="wrong name or password"):
        await store.login("bot_t1_1", "known-pass")
    with pytest.raises(AuthError):
        await store.open_session(bot.id)
    async with store.engine.begin() as conn:
        await conn.execute(
            insert(sessions).values(
                token_hash=hash_token("forged"),
                account_id=bot.id,
                created_at=store.now(),
                expires_at=store.now() + timedelta(days=1),
                revoked=False,
            )
        )
    with pytest.raises(AuthError):
        await store.authenticate("forged")


async def test_bot_accounts_only_in_the_namespace_and_never_a_persons(store: Store) -> None:
    with pytest.raises(InvalidInputError, match="bot's name"):
        await store.create_bot_account("alice")
    alice = await store.register("alice", "secret-pass")
    async with store.engine.begin() as conn:  # a person's account named like a bot (older database)
        await conn.execute(
            update(accounts)
            .where(accounts.c.id == alice.id)
            .values(name="bot_t1_1", name_key="bot_t1_1", name_skeleton=None)
        )
    with pytest.raises(NameTakenError, match="belongs to a person"):
        await store.create_bot_account("bot_t1_1")
    assert (await store.login("bot_t1_1", "secret-pass")).account_id == alice.id
