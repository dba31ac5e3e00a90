"""The time bank in the hand histories (R-TIME-BANK): each decision's bank use goes from the table
(``HandInPlay.time_banks``) to the finished hand (``HandEnd.time_banks``) and into the operator's
stored PHH (a commentary on the action) and text (after the action's line); a hand nobody used
the bank in is written as it was before the bank existed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from studpoker.history.phh import dump_hand, loads, replay
from studpoker.history.text import text_history
from studpoker.server.store_adapter import operator_histories
from studpoker.server.table.ports import HandEnd
from tests.server.conftest import make_settings, running_server
from tests.server.table_fakes import Table, make_table

CLOCK = 30.0  # think + countdown of the fake table
BANK: dict[str, Any] = {"time_bank_seconds": 30.0, "time_bank_max_seconds": 60.0}


async def finished(table: Table) -> HandEnd:
    """The hand in play played out (check or call), and its record as the store was given it."""
    await table.play_out()
    await table.flush()
    assert table.store.ends, "the hand did not end"
    return table.store.ends[-1]


def names_of(end: HandEnd) -> dict[int, str]:
    return {seat: f"player{seat}" for seat in end.accounts}


async def test_a_bank_used_on_an_action_and_on_a_timeout_is_in_the_phh_and_the_text() -> None:
    table = make_table(hand_pause_seconds=0.0, **BANK)
    await table.seat(3)
    table.clock.advance(0.0)
    await table.flush()
    # The bring-in after 12.4 s of his bank; the next player's whole bank runs, then the clock
    # folds him; the rest is played inside the clock.
    found = table.turn()
    assert found is not None
    thinker = found[1].seat
    table.clock.advance(CLOCK + 12.4)
    await table.flush()
    await table.act()
    found = table.turn()
    assert found is not None
    sleeper = found[1].seat
    table.clock.advance(CLOCK + 30.0)
    await table.flush()
    end = await finished(table)
    events = {e.version: e for e in end.hand.events}
    assert sorted((events[v].kind.value, events[v].seat, s) for v, s in end.time_banks.items()) == [
        ("action", thinker, 12.4),
        ("timeout", sleeper, 30.0),
    ]
    names = names_of(end)
    phh, text = operator_histories(end.hand, end.hand_id, names, "Stud", end.time_banks)
    # PHH: stud players are in seat order (p1 is seat 1).
    assert f'"p{thinker} pb # time bank 12.4 s"' in phh
    assert f'"p{sleeper} f # time bank 30.0 s"' in phh
    assert phh.count("time bank") == 2
    (record,) = loads(phh)
    assert [a.commentary for a in record.parsed_actions() if a.commentary] == [
        "time bank 12.4 s",
        f"p{sleeper} timed out",  # the bare note of the fold the clock made
        "time bank 30.0 s",
    ]
    assert replay(record).result.final_stacks == end.hand.result.final_stacks
    # Text: the note after the action's line (a timeout's after "has timed out").
    lines = text.splitlines()
    assert f"player{thinker}: brings in for 0.50 (time bank: 12.4 s)" in lines
    timed_out = lines.index(f"player{sleeper}: has timed out (time bank: 30.0 s)")
    assert lines[timed_out + 1] == f"player{sleeper}: folds"
    assert text.count("time bank") == 2
    # A seat's copy from the live hand says the same (the notes are public: everyone saw the clock).
    seat_copy = text_history(end.hand, viewer=thinker, players=names, time_banks=end.time_banks)
    assert seat_copy.count("time bank") == 2
    assert dump_hand(end.hand, seen_by=None, time_banks=end.time_banks).count("time bank") == 2
    await table.actor.stop()


async def test_a_bank_spent_before_a_protected_all_in_is_a_bare_commentary_the_replay_still_plays() -> None:
    table = make_table(hand_pause_seconds=0.0, **BANK)
    table.store.protected_left = 1
    await table.seat(2)
    table.clock.advance(0.0)
    await table.flush()
    await table.act()  # the bring-in, inside the clock
    found = table.turn()
    assert found is not None
    seat = found[1].seat
    table.clock.advance(CLOCK + 30.0)
    await table.flush()
    end = await finished(table)
    phh, text = operator_histories(end.hand, end.hand_id, names_of(end), "Stud", end.time_banks)
    actions = loads(phh)[0].parsed_actions()
    noted = next(i for i, a in enumerate(actions) if a.commentary == f"p{seat} time bank 30.0 s")
    assert actions[noted + 1].commentary == f"p{seat} timed out: all-in under disconnect protection"
    assert replay(loads(phh)[0]).result.final_stacks == end.hand.result.final_stacks
    assert (
        f"player{seat}: has timed out and is all-in (disconnect protection) (time bank: 30.0 s)"
        in text.splitlines()
    )
    await table.actor.stop()


async def test_a_hand_nobody_used_the_bank_in_is_written_byte_for_byte_as_before() -> None:
    table = make_table(hand_pause_seconds=0.0, **BANK)
    await table.seat(3)
    table.clock.advance(0.0)
    await table.flush()
    end = await finished(table)
    assert end.time_banks == {}
    names = names_of(end)
    assert operator_histories(end.hand, end.hand_id, names, "Stud", end.time_banks) == operator_histories(
        end.hand, end.hand_id, names, "Stud"
    )
    phh, text = operator_histories(end.hand, end.hand_id, names, "Stud", end.time_banks)
    assert "time bank" not in phh and "time bank" not in text
    await table.actor.stop()


async def test_the_stored_histories_keep_the_bank_over_a_real_server(tmp_path: Path) -> None:
    """The room's store adapter writes the notes into the hand's stored PHH and text."""
    settings = make_settings(
        tmp_path, think_seconds=0.05, countdown_seconds=0.05, time_bank_seconds=0.3, time_bank_max_seconds=1.0
    )
    async with running_server(settings) as h:
        actor = await h.add_table("7S", 100, 200)
        alice, bob = await h.player("alice"), await h.player("bob")
        await h.seat(alice, actor.table_id, 1, 4000)
        await h.seat(bob, actor.table_id, 2, 4000)
        # Nobody acts: the bring-in runs its whole bank before the clock rule brings in.
        message = await alice.wait_for(lambda m: m["type"] == "event" and m["event"].get("kind") == "timeout")
        timeout = message["event"]
        seat = timeout["seat"]
        assert (timeout["detail"], timeout["time_bank"]) == ("bring_in", 0.3)
        done = await alice.wait_for("hand_finished", 20)
        record = await h.store.hand(done["hand_id"])
        assert record.phh is not None and record.text is not None
        assert f'"p{seat} pb # time bank 0.3 s"' in record.phh
        name = "alice" if seat == 1 else "bob"
        assert f"{name}: has timed out (time bank: 0.3 s)" in record.text.splitlines()
