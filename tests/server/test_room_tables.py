"""The room's read API of its tables (what REST, the health check and the test harnesses read)."""

from __future__ import annotations

from tests.server.conftest import Harness


async def test_the_room_lists_its_tables_in_id_order(harness: Harness) -> None:
    room = harness.room
    assert room.table_count == 0
    assert room.table_ids() == [] and room.tables() == []
    first = await harness.add_table("7S")
    second = await harness.add_table("RZ")
    assert room.table_count == 2
    assert room.table_ids() == [first.table_id, second.table_id]
    assert room.tables() == [first, second]
    assert room.table(second.table_id) is second
    assert room.table(second.table_id + 1) is None
    health = (await harness.http.get("/api/health")).json()
    assert health["tables"] == 2


async def test_tables_alive_turns_false_when_a_table_actor_ends(harness: Harness) -> None:
    room = harness.room
    assert room.tables_alive()  # no table: nothing has crashed
    first = await harness.add_table("7S")
    await harness.add_table("O8")
    assert room.tables_alive()
    await first.stop()
    assert not first.alive
    assert not room.tables_alive()
