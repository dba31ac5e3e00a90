"""The snapshot's ``hand_events`` (the dealer log a reloaded page writes again) are the events
the viewer was sent live, the table's notes on them included: a time bank used (R-TIME-BANK)."""

from __future__ import annotations

from typing import Any

from studpoker.server.protocol import EventMsg
from studpoker.server.table import Watch
from tests.server.table_fakes import FakeViewer, Table, make_table

CLOCK = 30.0  # think + countdown of the fake table


def live_events(viewer: FakeViewer, hand_id: str) -> list[dict[str, Any]]:
    """The engine events of ``hand_id`` the viewer was sent (the table's own events have no
    engine version)."""
    return [m.event for m in viewer.of_type(EventMsg) if m.hand_id == hand_id and "version" in m.event]


async def table_with_bank_used() -> tuple[Table, FakeViewer, str]:
    """Three players and a watcher; the first to act spends 12.4 s of his bank, the next one
    his whole bank before the clock rule folds him; the third is to act."""
    table = make_table(hand_pause_seconds=0.0, time_bank_seconds=30.0, time_bank_max_seconds=60.0)
    await table.seat(3)
    watcher = FakeViewer(99, "watcher")
    await table.actor.call(Watch(conn=watcher))
    table.clock.advance(0.0)
    await table.flush()
    hand_id = table.actor.hand_id
    assert hand_id is not None
    table.clock.advance(CLOCK + 12.4)
    await table.flush()
    await table.act()
    table.clock.advance(CLOCK + 30.0)
    await table.flush()
    return table, watcher, hand_id


async def test_the_snapshots_hand_events_are_the_live_events_with_the_bank_notes() -> None:
    table, watcher, hand_id = await table_with_bank_used()
    assert table.actor.hand_id == hand_id and table.turn() is not None  # the hand goes on
    for viewer in (*table.players, watcher):
        live = live_events(viewer, hand_id)
        banks = [(e["kind"], e["time_bank"]) for e in live if "time_bank" in e]
        assert banks == [("action", 12.4), ("timeout", 30.0)], viewer.name
        assert table.actor.snapshot(viewer).hand_events == live, viewer.name
    await table.actor.stop()
