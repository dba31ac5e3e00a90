"""The words of a timeout survive a reload (R-TIMEOUT-SAID, protocol 1.7): the ``timed_out``
events of the hand in progress are in every ``table_state``, for a page that reloads, a viewer
who joins late and a resync, exactly as the table said them; the next hand starts with none."""

from __future__ import annotations

from typing import Any

from studpoker.server.protocol import TableStateMsg
from studpoker.server.table import Resync, Unwatch, Watch
from tests.server.table_fakes import FakeViewer, RecordingStore, Table
from tests.server.test_seat_life import started, time_out, timeout_words


def snapshot_notes(viewer: FakeViewer) -> list[dict[str, Any]]:
    return viewer.of_type(TableStateMsg)[-1].timeout_notes


async def three_players_one_protected() -> tuple[Table, list[FakeViewer], FakeViewer, FakeViewer]:
    """Three at a stud table: the bring-in is posted, the next player times out facing it (his
    ante in: a protected all-in) and the hand goes on between the other two."""
    table, seated, watcher = await started(players=3, store=RecordingStore(protected_left=2))
    await table.act(lambda turn: "bring_in")
    late = await time_out(table)
    assert table.actor.hand is not None and not table.actor.hand.is_over
    return table, seated, watcher, late


async def test_a_reload_mid_hand_has_the_timeouts_words_as_the_table_said_them() -> None:
    table, _, watcher, late = await three_players_one_protected()
    (said,) = timeout_words(watcher)
    assert said["text"] == f"{late.name} timed out: protected all-in (1 of 2 today)"
    # The player who timed out reloads: his page's new snapshot says it again.
    await table.actor.call(Unwatch(conn=late, closed=True))
    await table.actor.call(Watch(conn=late))
    assert snapshot_notes(late) == [said]
    # So does a newcomer's, and a resync's.
    newcomer = FakeViewer(98, "nora")
    table.room.viewers.append(newcomer)
    await table.actor.call(Watch(conn=newcomer))
    assert snapshot_notes(newcomer) == [said]
    await table.actor.call(Resync(conn=watcher))
    assert snapshot_notes(watcher) == [said]
    await table.actor.stop()


async def test_the_next_hand_starts_with_no_words_and_a_hand_without_a_timeout_has_none() -> None:
    table, seated, watcher, _ = await three_players_one_protected()
    await table.play_out()
    await table.flush()
    await table.actor.call(Resync(conn=watcher))
    assert snapshot_notes(watcher) == []
    table.clock.advance(5.0)  # the next hand (the one who timed out sits out)
    await table.flush()
    assert table.actor.hand is not None
    await table.actor.call(Resync(conn=seated[0]))
    assert snapshot_notes(seated[0]) == []
    await table.actor.stop()
