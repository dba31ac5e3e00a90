"""What a seat goes through, seen by every watcher at once (issue 12): sitting out after a timeout
and coming back, the words of a timeout (the protected all-in with the day's count), sitting out
from the next hand, leaving after the hand, standing up mid-hand and calling it off. The table
runs behind fake ports (tests/server/table_fakes.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from studpoker.server.protocol import AckMsg, EventMsg
from studpoker.server.table import LeaveAfterHand, SitIn, SitOut, StandUp, TablePhase, Watch
from tests.server.conftest import make_settings, running_server
from tests.server.table_fakes import FakeViewer, RecordingStore, Table, make_table, passive
from tests.server.test_clock import aggressive_choice, finished, play, stall, two_players


async def started(players: int = 2, **kw: Any) -> tuple[Table, list[FakeViewer], FakeViewer]:
    """A table with ``players`` seated, a spectator watching, and its first hand dealt."""
    table = make_table(**kw)
    seated = await table.seat(players)
    watcher = FakeViewer(99, "walt")
    table.room.viewers.append(watcher)
    await table.actor.call(Watch(conn=watcher))
    table.clock.advance(1.0)
    await table.flush()
    assert table.actor.hand is not None
    return table, seated, watcher


def seat_list(viewer: FakeViewer) -> dict[int, dict[str, Any]]:
    """The seat list of the last ``seats`` event the viewer got."""
    return {s["seat"]: s for s in viewer.events("seats")[-1]["seats"]}


def reasons(viewer: FakeViewer) -> list[tuple[int | None, str]]:
    return [(e["seat"], e["reason"]) for e in viewer.events("seats")]


async def time_out(table: Table) -> FakeViewer:
    """The player to act lets his clock run out; that player."""
    found = table.turn()
    assert found is not None
    table.clock.advance(30.0)
    await table.flush()
    return found[0]


async def test_a_timeout_sits_the_player_out_for_everyone_at_once_and_acting_brings_him_back() -> None:
    table, _, watcher = await started()
    late = await time_out(table)
    seat = late.account_id
    # While the hand is still being played, every watcher has the seat sitting out.
    assert table.actor.hand is not None and not table.actor.hand.is_over
    assert reasons(watcher)[-1] == (seat, "timed_out")
    assert seat_list(watcher)[seat]["sitting_out"] and seat_list(watcher)[seat]["timed_out"]
    # He acts on his next decision: back in, and everyone sees that at once too.
    while True:
        found = table.turn()
        assert found is not None, "the hand ended before he could act again"
        if found[0] is late:
            break
        await table.act(passive)
    await table.act(passive)
    assert reasons(watcher)[-1] == (seat, "sat_in")
    assert not seat_list(watcher)[seat]["sitting_out"] and not seat_list(watcher)[seat]["timed_out"]
    await table.actor.stop()


def timeout_words(viewer: FakeViewer) -> list[dict[str, Any]]:
    return viewer.events("timed_out")


async def facing_the_bring_in(store: RecordingStore) -> tuple[Table, FakeViewer, FakeViewer]:
    """Heads-up stud: the bring-in is posted; the other player, antes in, faces it and times out."""
    table, _, watcher = await started(store=store)
    await table.act(lambda turn: "bring_in")
    late = await time_out(table)
    return table, late, watcher


async def test_a_protected_all_in_timeout_says_so_with_the_days_count() -> None:
    table, late, watcher = await facing_the_bring_in(RecordingStore(protected_left=2, protected_per_day=2))
    assert timeout_words(watcher) == [
        {
            "kind": "timed_out",
            "seat": late.account_id,
            "name": late.name,
            "outcome": "protected_all_in",
            "protected_used": 1,
            "protected_per_day": 2,
            "text": f"{late.name} timed out: protected all-in (1 of 2 today)",
        }
    ]
    # The words follow the engine's timeout event, in the same order for everyone.
    kinds = [m.event.get("kind") for m in watcher.of_type(EventMsg)]
    assert kinds.index("timed_out") > kinds.index("timeout")
    assert timeout_words(late) == timeout_words(watcher)
    await table.actor.stop()


async def test_the_room_counts_the_protected_all_ins_of_the_day_from_the_store(tmp_path: Path) -> None:
    async with running_server(make_settings(tmp_path, think_seconds=0.1, countdown_seconds=0.1)) as h:
        _, alice, bob = await two_players(h)
        await asyncio.gather(play(alice, aggressive_choice, finished), play(bob, stall, finished))
        words = [m["event"] for m in alice.log if m["type"] == "event" and m["event"]["kind"] == "timed_out"]
        protected = [w for w in words if w["outcome"] == "protected_all_in"]
        assert protected, words
        assert protected[0]["text"] == "bob timed out: protected all-in (1 of 2 today)"
        account = await h.store.account_by_name("bob")
        used = 2 - await h.store.protected_all_ins_left(account.id, 2)
        assert (protected[-1]["protected_used"], protected[-1]["protected_per_day"]) == (used, 2)


async def test_a_timeout_with_no_protected_all_in_left_says_why_it_folded() -> None:
    table, late, watcher = await facing_the_bring_in(RecordingStore(protected_left=0, protected_per_day=2))
    (words,) = timeout_words(watcher)
    assert words["outcome"] == "fold"
    assert words["text"] == f"{late.name} timed out: folded (no protected all-in left: 2 of 2 used today)"
    await table.actor.stop()


async def test_a_timeout_that_checks_or_brings_in_counts_no_protection() -> None:
    table, _, watcher = await started(store=RecordingStore(protected_left=2))
    late = await time_out(table)  # the bring-in's clock: the clock rule posts it
    (words,) = timeout_words(watcher)
    assert words["text"] == f"{late.name} timed out: brought in"
    assert "protected_used" not in words
    await table.actor.stop()


async def test_sit_out_during_a_hand_takes_effect_when_it_ends() -> None:
    table, (_, second), watcher = await started()
    await table.actor.call(SitOut(conn=second))
    # He plays this hand out: not sitting out yet, the next hand is marked for everyone.
    info = seat_list(watcher)[2]
    assert (info["sit_out_next_hand"], info["sitting_out"]) == (True, False)
    assert reasons(watcher)[-1] == (2, "sit_out_next_hand")
    await table.play_out()  # his decisions come to him as usual
    await table.flush()
    assert all(e.kind.value != "timeout" for e in table.store.ends[0].hand.events)
    info = seat_list(watcher)[2]
    assert (info["sit_out_next_hand"], info["sitting_out"]) == (False, True)
    assert reasons(watcher)[-1] == (2, "sat_out")
    # So the next hand is not dealt: one player is left to play.
    table.clock.advance(5.0)
    await table.flush()
    assert table.actor.phase is TablePhase.IDLE and table.store.names().count("start_hand") == 1
    # Between hands, sit_out is at once; sit_in brings him back and a hand is scheduled.
    await table.actor.call(SitIn(conn=second))
    assert phase_of(table) is TablePhase.SCHEDULED
    await table.actor.stop()


def phase_of(table: Table) -> TablePhase:
    return table.actor.phase


async def test_sit_in_before_the_hand_ends_calls_off_the_sit_out() -> None:
    table, (_, second), watcher = await started()
    await table.actor.call(SitOut(conn=second))
    await table.actor.call(SitIn(conn=second))
    assert not seat_list(watcher)[2]["sit_out_next_hand"]
    await table.play_out()
    await table.flush()
    assert not table.actor.seats[2].sitting_out and table.actor.phase is TablePhase.SCHEDULED
    await table.actor.stop()


async def test_leave_after_the_hand_plays_it_out_then_cashes_out_the_final_stack() -> None:
    table, (_, second), watcher = await started()
    await table.actor.call(LeaveAfterHand(conn=second))
    assert [m.request for m in second.of_type(AckMsg)][-1] == "leave_after_hand"
    assert seat_list(watcher)[2]["leaving"] and reasons(watcher)[-1] == (2, "leaving")
    await table.play_out()
    await table.flush()
    (end,) = table.store.ends
    # He was asked for his decisions and made them (a stand-up's are timed out at once).
    assert all(e.kind.value != "timeout" for e in end.hand.events)
    assert any(e.kind.value == "action" and e.seat == 2 for e in end.hand.events)
    final = end.hand.result.final_stacks[2]
    assert ("cash_out", second.account_id, 2, final) in table.store.calls
    assert 2 not in table.actor.seats and 2 not in seat_list(watcher)
    await table.actor.stop()


async def test_leave_after_hand_called_off_keeps_the_seat_and_between_hands_leaves_at_once() -> None:
    table, (_, second), watcher = await started()
    await table.actor.call(LeaveAfterHand(conn=second))
    await table.actor.call(LeaveAfterHand(conn=second, leave=False))
    assert not seat_list(watcher)[2]["leaving"] and reasons(watcher)[-1] == (2, "staying")
    await table.play_out()
    await table.flush()
    assert 2 in table.actor.seats and "cash_out" not in table.store.names()
    # No hand of his being played: he is cashed out now.
    await table.actor.call(SitOut(conn=second))
    await table.actor.call(LeaveAfterHand(conn=second))
    assert 2 not in table.actor.seats and table.store.names().count("cash_out") == 1
    assert reasons(watcher)[-1] == (2, "stood_up")
    await table.actor.stop()


async def test_a_stand_up_mid_hand_is_shown_and_sitting_back_in_calls_it_off() -> None:
    table, (_, second), watcher = await started()
    await table.actor.call(StandUp(conn=second))
    assert seat_list(watcher)[2]["leaving"] and reasons(watcher)[-1] == (2, "leaving")
    await table.actor.call(SitIn(conn=second))
    assert not seat_list(watcher)[2]["leaving"]
    await table.play_out()
    await table.flush()
    assert 2 in table.actor.seats and "cash_out" not in table.store.names()
    await table.actor.stop()
