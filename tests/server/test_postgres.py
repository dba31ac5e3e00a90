"""The room on PostgreSQL (a throwaway server started by tests/pg.py): people and bots play
hands, the ledger audit balances before and after the shutdown."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from studpoker.server.bots import start_bots
from tests.pg import PostgresServer, postgres_server  # noqa: F401  (a fixture)
from tests.server.conftest import autoplay, make_settings, running_server


@pytest.mark.postgres
async def test_room_on_postgres(postgres_server: PostgresServer, tmp_path: Path) -> None:  # noqa: F811
    url = await postgres_server.new_database()
    try:
        async with running_server(make_settings(tmp_path, database_url=url)) as h:
            stud = await h.add_table("7S8", 100, 200)
            omaha = await h.add_table("O8", 100, 200)
            alice, bob = await h.player("alice"), await h.player("bob")
            stud.hand_pause_seconds = 0.3
            await h.seat(alice, stud.table_id, 1, 4000)
            await h.seat(bob, stud.table_id, 2, 4000)
            await asyncio.gather(autoplay(alice, hands=2), autoplay(bob, hands=2))
            bots = await start_bots(h.room, 3, table_ids=[omaha.table_id], seed=3)
            h.room.bots.extend(bots)
            deadline = time.monotonic() + 30
            while omaha.hands_played < 10 and time.monotonic() < deadline:
                await asyncio.sleep(0.1)
            assert omaha.hands_played >= 10
            alice_hands = await h.store.hands_for_account((await h.store.account_by_name("alice")).id)
            assert sum(r.status == "finished" for r in alice_hands) >= 2
    finally:
        await postgres_server.drop_database(url)
