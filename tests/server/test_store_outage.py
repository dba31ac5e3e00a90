"""The table while the store refuses writes: the finished hand stays pending and is written once
the database is back; the watchers are told (``paused`` / ``resumed``); refused commands answer
``unavailable`` and change nothing."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from sqlalchemy import text

from tests.faults.test_database_errors import MESSAGES, failing_writes, play_until
from tests.server.conftest import make_settings, running_server


def table_events(messages: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [m["event"] for m in messages if m["type"] == "event" and m["event"].get("kind") == kind]


async def test_a_finished_hand_is_written_once_the_database_is_back(tmp_path: Path) -> None:
    async with running_server(make_settings(tmp_path, hand_pause_seconds=0.2)) as h:
        table = await h.add_table()
        ann, bob = await h.player("ann"), await h.player("bob")
        await h.seat(ann, table.table_id, 1, 4000)
        await h.seat(bob, table.table_id, 2, 4000)
        seen = await play_until([ann, bob], lambda m: m["type"] == "hand_started", 10)
        hand_id = next(m["hand_id"] for m in seen if m["type"] == "hand_started")
        with failing_writes(h.store, MESSAGES[0]):
            # The hand is played out; its end cannot be written: it stays pending, play waits.
            during = await play_until([ann, bob], lambda m: False, 1.0)
            while table.hand is None or not table.hand.is_over:
                during += await play_until([ann, bob], lambda m: False, 0.2)
            during += await play_until([ann, bob], lambda m: False, 1.0)
            assert table.hand_id == hand_id and table.paused == "database unavailable"
            assert (
                table_events(during, "paused") == [{"kind": "paused", "reason": "database unavailable"}] * 2
            )  # one each
            assert not any(m["type"] == "hand_finished" for m in during)
            # Standing up now waits for the hand to be written (no cash-out of a pending hand).
            assert (await bob.request(type="stand_up", table_id=table.table_id))["type"] == "ack"
            assert table.seats[2].leaving
        after = await play_until([ann, bob], lambda m: m["type"] == "hand_finished", 15)
        assert any(m["type"] == "hand_finished" and m["hand_id"] == hand_id for m in after)
        assert table_events(after, "resumed") == [{"kind": "resumed"}] * 2
        for _ in range(100):  # the cash-out follows the hand_finished message
            if 2 not in table.seats:
                break
            await asyncio.sleep(0.02)
        assert table.paused is None and 2 not in table.seats
        async with h.store.engine.connect() as conn:
            status = (
                await conn.execute(text("select status from hands where id = :i"), {"i": hand_id})
            ).scalar()
        assert status == "finished"
        await h.audit()


async def test_refused_commands_answer_unavailable(tmp_path: Path) -> None:
    async with running_server(make_settings(tmp_path)) as h:
        table = await h.add_table()
        carl, dora = await h.player("carl"), await h.player("dora")
        await h.seat(dora, table.table_id, 2, 4000)
        with failing_writes(h.store, MESSAGES[1]):
            sit = await carl.request(type="sit", table_id=table.table_id, seat=1, buy_in=4000)
            stand = await dora.request(type="stand_up", table_id=table.table_id)
        assert sit["type"] == "error" and sit["code"] == "unavailable", sit
        assert stand["type"] == "error" and stand["code"] == "unavailable", stand
        assert 1 not in table.seats and 2 in table.seats
        assert (await dora.request(type="stand_up", table_id=table.table_id))["type"] == "ack"
        assert 2 not in table.seats
        await h.audit()
