"""The audit, tampering, and the ``studpoker audit`` / ``studpoker verify`` commands."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from sqlalchemy import delete, insert, select, text, update

from studpoker.cards import Deck
from studpoker.cli import main
from studpoker.store import DEFAULT_URL, Store, TableConfig, database_url
from studpoker.store.schema import (
    accounts,
    hand_seats,
    hands,
    ledger_entries,
    ledger_transactions,
    seats,
)

from .conftest import FakeClock, deck_reveal, open_store, put_in_pot, write_one


@pytest.fixture
async def played(db_url: str, clock: FakeClock) -> AsyncIterator[Store]:
    """A store with two players, a table, one finished hand and one hand in progress;
    the tests here tamper with it, so it is not audited afterwards."""
    store = await open_store(db_url, clock)
    alice = await store.register("alice", "secret-pass")
    bob = await store.register("bob", "secret-pass")
    table = await store.create_table(TableConfig.derive("T", "7S", 100, 200))
    await store.buy_in(alice.id, table.id, 1, 4_000)
    await store.buy_in(bob.id, table.id, 2, 4_000)
    deck = Deck()
    await write_one(
        store, store.start_hand_op("done", table.id, deck.commitment, seats={1: alice.id, 2: bob.id})
    )
    await write_one(
        store,
        store.finish_hand_op(
            "done", contributions={1: 300, 2: 300}, awards={1: 600}, phh="p", text="t", **deck_reveal(deck)
        ),
    )
    await write_one(
        store, store.start_hand_op("open", table.id, Deck().commitment, seats={1: alice.id, 2: bob.id})
    )
    await put_in_pot(store, "open", {1: 50, 2: 50})
    report = await store.audit()
    assert report.balanced, report.render()
    assert (report.grants, report.bankrolls, report.seats, report.in_hands) == (20_000, 12_000, 7_900, 100)
    try:
        yield store
    finally:
        await store.close()


async def tamper(store: Store, *statements: object) -> list[str]:
    async with store.engine.begin() as conn:
        for statement in statements:
            await conn.execute(statement)  # type: ignore[call-overload]
    report = await store.audit()
    assert not report.balanced
    assert "NOT BALANCED" in report.render()
    return report.details


async def test_bankroll_changed(played: Store) -> None:
    details = await tamper(
        played, update(accounts).where(accounts.c.id == 1).values(bankroll=accounts.c.bankroll + 1)
    )
    assert any("bankroll 60.01 but its ledger book says 60.00" in d for d in details)
    assert any("grants ever made = 200.00 (difference 0.01)" in d for d in details)


async def test_stack_changed(played: Store) -> None:
    details = await tamper(played, update(seats).where(seats.c.seat == 2).values(stack=0))
    assert any("table 1 seat 2: stack 0.00 but its ledger book says 36.50" in d for d in details)


async def test_ledger_entry_changed(played: Store) -> None:
    details = await tamper(
        played,
        update(ledger_entries).where(ledger_entries.c.id == 1).values(amount=ledger_entries.c.amount - 5),
    )
    assert any("sums to -0.05, not 0.00" in d for d in details)


async def test_ledger_entry_deleted(played: Store) -> None:
    async with played.engine.connect() as conn:
        last = await conn.scalar(select(ledger_entries.c.id).order_by(ledger_entries.c.id.desc()).limit(1))
    details = await tamper(played, delete(ledger_entries).where(ledger_entries.c.id == last))
    assert any("not 0" in d for d in details)


async def test_money_printed_with_a_balanced_transaction(played: Store) -> None:
    """A forged grant that balances on its own still leaves the cached bankroll behind the ledger."""
    async with played.engine.begin() as conn:
        result = await conn.execute(
            insert(ledger_transactions).values(kind="grant", created_at=played.clock(), account_id=1)
        )
        txn = result.inserted_primary_key[0]  # type: ignore[index]
    base = {"txn_id": txn, "account_id": None, "table_id": None, "seat": None, "hand_id": None}
    details = await tamper(
        played,
        insert(ledger_entries).values(**base | {"book": "bank", "amount": -500}),
        insert(ledger_entries).values(**base | {"book": "bankroll", "account_id": 1, "amount": 500}),
    )
    assert any("bankroll 60.00 but its ledger book says 65.00" in d for d in details)


async def test_finished_hand_awards_changed(played: Store) -> None:
    details = await tamper(
        played,
        update(hand_seats).where(hand_seats.c.hand_id == "done", hand_seats.c.seat == 1).values(award=700),
    )
    assert any("hand done: awards 7.00 differ from contributions 6.00" in d for d in details)


async def test_pot_of_finished_hand_not_empty(played: Store) -> None:
    details = await tamper(played, update(hands).where(hands.c.id == "open").values(status="finished"))
    assert any("hand open (finished) has 1.00 left in its pot" in d for d in details)


async def test_unknown_book(played: Store) -> None:
    details = await tamper(
        played, update(ledger_entries).where(ledger_entries.c.id == 1).values(book="vault")
    )
    assert any("unknown book 'vault'" in d for d in details)


async def test_empty_seat_holding_chips(played: Store) -> None:
    details = await tamper(played, update(seats).where(seats.c.seat == 5).values(stack=10))
    assert any("seat 5 is empty but holds 0.10" in d for d in details)


# ---------------------------------------------------------------- commands
def run_cli(*argv: str) -> int:
    return main(list(argv))


async def test_audit_command(played: Store, db_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert await asyncio.to_thread(run_cli, "audit", "--database-url", db_url) == 0
    out = capsys.readouterr().out
    assert "BALANCED" in out and "NOT BALANCED" not in out and "grants ever made      200.00\n" in out
    await tamper(played, update(accounts).where(accounts.c.id == 2).values(bankroll=0))
    assert await asyncio.to_thread(run_cli, "audit", "--database-url", db_url) == 1
    assert "NOT BALANCED" in capsys.readouterr().out


async def test_commands_read_the_environment(
    played: Store, db_url: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STUDPOKER_DATABASE_URL", db_url)
    assert database_url() == db_url
    assert database_url("sqlite+aiosqlite:///other.db") == "sqlite+aiosqlite:///other.db"
    assert await asyncio.to_thread(run_cli, "audit") == 0
    assert await asyncio.to_thread(run_cli, "verify", "done") == 0
    monkeypatch.delenv("STUDPOKER_DATABASE_URL")
    assert database_url() == DEFAULT_URL == "sqlite+aiosqlite:///studpoker.sqlite3"
    assert database_url("sqlite:///x.db") == "sqlite+aiosqlite:///x.db"
    assert database_url("postgresql://u:p@h/db") == "postgresql+asyncpg://u:p@h/db"
    assert database_url("postgres://u@h:5433/db") == "postgresql+asyncpg://u@h:5433/db"


async def test_verify_command(played: Store, db_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert await asyncio.to_thread(run_cli, "verify", "done", "--database-url", db_url) == 0
    out = capsys.readouterr().out
    assert "OK" in out
    hand = await played.hand("done")
    assert hand.commitment in out and hand.salt is not None and hand.salt in out
    # a hand whose deck was never revealed, and one that does not exist: cannot check
    assert await asyncio.to_thread(run_cli, "verify", "open", "--database-url", db_url) == 2
    assert "never revealed" in capsys.readouterr().err
    assert await asyncio.to_thread(run_cli, "verify", "nope", "--database-url", db_url) == 2
    assert "no hand" in capsys.readouterr().err
    # a stored deck swapped after the hand no longer matches what was committed to
    assert hand.deck_order is not None
    swapped = hand.deck_order.split()
    swapped[0], swapped[1] = swapped[1], swapped[0]
    async with played.engine.begin() as conn:
        await conn.execute(update(hands).where(hands.c.id == "done").values(deck_order=" ".join(swapped)))
    assert await asyncio.to_thread(run_cli, "verify", "done", "--database-url", db_url) == 1
    assert "MISMATCH" in capsys.readouterr().out
    async with played.engine.begin() as conn:
        await conn.execute(
            update(hands).where(hands.c.id == "done").values(deck_order=hand.deck_order, salt="x")
        )
    assert await asyncio.to_thread(run_cli, "verify", "done", "--database-url", db_url) == 1
    async with played.engine.begin() as conn:
        await conn.execute(
            update(hands).where(hands.c.id == "done").values(deck_order="As Ks", salt=hand.salt)
        )
    assert await asyncio.to_thread(run_cli, "verify", "done", "--database-url", db_url) == 1


async def test_commands_refuse_a_missing_sqlite_file(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'missing.sqlite3'}"
    assert await asyncio.to_thread(run_cli, "audit", "--database-url", url) == 2
    assert "no database" in capsys.readouterr().err
    assert await asyncio.to_thread(run_cli, "verify", "h1", "--database-url", url) == 2
    assert not (tmp_path / "missing.sqlite3").exists()
    bad = "postgresql+asyncpg://nobody@127.0.0.1:1/nothing"
    assert await asyncio.to_thread(run_cli, "audit", "--database-url", bad) == 2
    assert "cannot read" in capsys.readouterr().err


async def test_commands_listed_in_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert "audit" in out and "verify" in out


async def test_migrations_match_the_schema(fresh_db_url: str) -> None:
    """Alembic's head creates exactly the tables, columns and indexes of ``schema.metadata``,
    and opening again is a no-op."""
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from studpoker.store.migrate import head_revision
    from studpoker.store.schema import metadata

    store = await open_store(fresh_db_url)
    await store.close()
    store = await open_store(fresh_db_url)
    try:
        async with store.engine.connect() as conn:

            def diff(sync_conn: object) -> list[object]:
                context = MigrationContext.configure(sync_conn, opts={"compare_type": True})  # type: ignore[arg-type]
                return list(compare_metadata(context, metadata))

            assert await conn.run_sync(diff) == []
            version = await conn.scalar(text("SELECT version_num FROM alembic_version"))
        assert version == head_revision()
    finally:
        await store.close()
