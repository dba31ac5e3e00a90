"""Database errors: a full disk or a locked database, simulated by making every write transaction
of the store fail (SQLAlchemy ``OperationalError`` as sqlite3 raises it; as root, a read-only
file would not stop us, and a real lock waits out the 30 s busy timeout).

While writes fail: no new hand starts, nothing is half-written (a hand is in the database
entirely or not at all: its row stays ``in_progress`` and the ledger does not move), the books
balance, and the players are told. When the database is back the table goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.exc import OperationalError

from studpoker.server.store_adapter import StoreTableAdapter
from studpoker.server.table.ports import HandEnd
from studpoker.store import Store
from tests.server.conftest import Client, Harness, make_settings, passive_choice, running_server

MESSAGES = ["database or disk is full", "database is locked"]


@contextlib.contextmanager
def failing_writes(store: Store, message: str) -> Iterator[list[int]]:
    """Every write transaction of ``store`` fails like SQLite does; yields the failure count."""
    failures = [0]
    original = store.database.write

    @contextlib.asynccontextmanager
    async def broken() -> AsyncIterator[Any]:
        failures[0] += 1
        raise OperationalError("BEGIN IMMEDIATE", {}, sqlite3.OperationalError(message))
        yield  # pragma: no cover

    store.database.write = broken
    try:
        yield failures
    finally:
        store.database.write = original


async def db_counts(harness: Harness) -> dict[str, Any]:
    async with harness.store.engine.connect() as conn:
        return {
            "ledger": (await conn.execute(text("select count(*) from ledger_transactions"))).scalar(),
            "hands": [tuple(r) for r in (await conn.execute(text("select id, status from hands"))).all()],
            "hand_seats": (await conn.execute(text("select count(*), sum(award) from hand_seats"))).one(),
        }


async def table_line(harness: Harness, table_id: int) -> dict[str, Any]:
    """The table as the lobby shows it (``GET /api/tables/{id}``): its seats and hand."""
    response = await harness.http.get(f"/api/tables/{table_id}")
    assert response.status_code == 200, response.text
    line: dict[str, Any] = response.json()
    return line


async def seated_pair(harness: Harness) -> tuple[int, list[Client]]:
    table = await harness.add_table()
    clients = [await harness.player(n) for n in ("ann", "bob")]
    for i, client in enumerate(clients):
        await harness.seat(client, table.table_id, i + 1, 4000)
    return table.table_id, clients


async def play_until(clients: list[Client], stop: Any, timeout: float) -> list[dict[str, Any]]:
    """Answer every your_turn passively; return the messages seen, until ``stop(message)``."""
    seen: list[dict[str, Any]] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        stopped = False
        for client in clients:
            # The whole drained batch is handled (a your_turn may come in the same batch as the
            # message we stop at: dropping it would leave the hand waiting for nobody).
            for message in client.drain():
                seen.append(message)
                if message["type"] == "your_turn":
                    option = passive_choice(message["options"])
                    await client.send(
                        type="action",
                        table_id=message["table_id"],
                        hand_id=message["hand_id"],
                        kind=option["kind"],
                        amount=option["amount"],
                        version=message["version"],
                    )
                stopped = stopped or bool(stop(message))
        if stopped:
            return seen
        await asyncio.sleep(0.01)
    return seen


def told_about_database(messages: list[dict[str, Any]]) -> bool:
    for m in messages:
        body = str(m).lower()
        if ("database" in body or "unavailable" in body or "paused" in body) and m["type"] in (
            "error",
            "event",
        ):
            return True
    return False


@pytest.mark.parametrize("message", MESSAGES)
async def test_no_hand_starts_while_writes_fail(tmp_path: Path, message: str) -> None:
    async with running_server(make_settings(tmp_path, hand_pause_seconds=1.0)) as harness:
        table_id, clients = await seated_pair(harness)
        before = await db_counts(harness)
        with failing_writes(harness.store, message) as failures:
            await asyncio.sleep(2.5)
            assert (await table_line(harness, table_id))["hand_id"] is None
            assert failures[0] >= 1
            assert await db_counts(harness) == before
            assert not any(m["type"] == "hand_started" for c in clients for m in c.log)
            report = await harness.store.audit()
            assert report.balanced, report.render()
        # The database is back: hands start again.
        started = await play_until(clients, lambda m: m["type"] == "hand_started", 10)
        assert any(m["type"] == "hand_started" for m in started)
        await play_until(clients, lambda m: m["type"] == "hand_finished", 20)


async def test_players_are_told_when_hands_cannot_start(tmp_path: Path) -> None:
    async with running_server(make_settings(tmp_path, hand_pause_seconds=1.0)) as harness:
        _table_id, clients = await seated_pair(harness)
        with failing_writes(harness.store, MESSAGES[0]):
            await asyncio.sleep(2.5)
            assert told_about_database([m for c in clients for m in c.log])


async def test_sitting_down_while_writes_fail_is_refused_cleanly(tmp_path: Path) -> None:
    async with running_server(make_settings(tmp_path)) as harness:
        table = await harness.add_table()
        client = await harness.player("carl")
        before = await db_counts(harness)
        with failing_writes(harness.store, MESSAGES[0]):
            answer = await client.request(type="sit", table_id=table.table_id, seat=1, buy_in=4000)
        assert answer["type"] == "error", answer
        assert (await table_line(harness, table.table_id))["seats"] == []
        assert await db_counts(harness) == before
        # Works once the database is back.
        await harness.seat(client, table.table_id, 1, 4000)


async def test_standing_up_while_writes_fail_is_not_acknowledged(tmp_path: Path) -> None:
    async with running_server(make_settings(tmp_path)) as harness:
        table = await harness.add_table()
        client = await harness.player("dora")
        await harness.seat(client, table.table_id, 1, 4000)
        with failing_writes(harness.store, MESSAGES[0]):
            answer = await client.request(type="stand_up", table_id=table.table_id)
            await asyncio.sleep(0.3)
        assert [s["seat"] for s in (await table_line(harness, table.table_id))["seats"]] == [1]
        assert answer["type"] == "error", answer


async def test_disk_full_at_the_end_of_a_hand_writes_nothing_and_stops_new_hands(tmp_path: Path) -> None:
    async with running_server(make_settings(tmp_path)) as harness:
        table_id, clients = await seated_pair(harness)
        seen = await play_until(clients, lambda m: m["type"] == "your_turn", 10)
        hand_id = next(m["hand_id"] for m in seen if m["type"] == "your_turn")  # answered already
        before = await db_counts(harness)
        with failing_writes(harness.store, MESSAGES[0]):
            during = await play_until(clients, lambda m: False, 4.0)
            after = await db_counts(harness)
            # Not half-written: the hand row is as it was at the start, the ledger has not moved.
            assert after == before, (before, after)
            assert dict(after["hands"])[hand_id] == "in_progress"
            report = await harness.store.audit()
            assert report.balanced, report.render()
            # No new hand while the database fails.
            assert not any(m["type"] == "hand_started" and m["hand_id"] != hand_id for m in during)
            assert (await table_line(harness, table_id))["hand_id"] in (None, hand_id)
        await asyncio.sleep(0.5)
        report = await harness.store.audit()
        assert report.balanced, report.render()


async def test_table_recovers_when_the_database_is_back(tmp_path: Path) -> None:
    async with running_server(make_settings(tmp_path)) as harness:
        _table_id, clients = await seated_pair(harness)
        seen = await play_until(clients, lambda m: m["type"] == "hand_started", 10)
        hand_id = next(m["hand_id"] for m in seen if m["type"] == "hand_started")
        with failing_writes(harness.store, MESSAGES[0]):
            during = await play_until(clients, lambda m: False, 4.0)
        # Back: the interrupted hand is settled (finished or void) and play goes on.
        after = await play_until(
            clients, lambda m: m["type"] == "hand_started" and m["hand_id"] != hand_id, 10
        )
        assert any(m["type"] == "hand_started" and m["hand_id"] != hand_id for m in after)
        status = dict((await db_counts(harness))["hands"])[hand_id]
        assert status in ("finished", "void")
        assert told_about_database(during)


async def test_a_hand_end_committed_but_reported_failed_is_settled_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The end of a hand commits, then the write is reported as failed (a lost reply): the retry
    reads the hand's status instead of being refused for ever, and nothing is paid twice."""
    async with running_server(make_settings(tmp_path, hand_pause_seconds=0.5)) as harness:
        table_id, clients = await seated_pair(harness)
        original = StoreTableAdapter.finish_hand
        lost: list[str] = []

        async def commit_then_fail(self: StoreTableAdapter, end: HandEnd) -> None:
            # The table's store port: the end commits, then its reply is lost.
            await original(self, end)
            if not lost:
                lost.append(end.hand_id)
                raise OperationalError("COMMIT", {}, sqlite3.OperationalError("disk I/O error"))

        monkeypatch.setattr(StoreTableAdapter, "finish_hand", commit_then_fail)
        # Until a hand starts after the one whose end was "lost" (the table went on).
        seen = await play_until(
            clients, lambda m: m["type"] == "hand_started" and bool(lost) and m["hand_id"] not in lost, 30
        )
        assert lost, "no hand finished"
        (hand_id,) = lost
        assert any(m["type"] == "hand_started" and m["hand_id"] != hand_id for m in seen), (
            "the table never went on after the committed end"
        )
        finished = [m for m in clients[0].log if m["type"] == "hand_finished" and m["hand_id"] == hand_id]
        assert len(finished) == 1
        assert dict((await db_counts(harness))["hands"])[hand_id] == "finished"
        async with harness.store.engine.connect() as conn:
            settled = (
                await conn.execute(
                    text("select count(*) from ledger_transactions where hand_id = :h and kind = 'hand'"),
                    {"h": hand_id},
                )
            ).scalar()
        assert settled == 1
        # The stacks at the table are the stacks in the database.
        line = await table_line(harness, table_id)
        async with harness.store.engine.connect() as conn:
            query = text("select seat, stack from seats where table_id = :t")
            rows = {int(r[0]): int(r[1]) for r in (await conn.execute(query, {"t": table_id})).all()}
        if line["hand_id"] is None:
            assert {s["seat"]: s["stack"] for s in line["seats"]} == rows
        report = await harness.store.audit()
        assert report.balanced, report.render()
