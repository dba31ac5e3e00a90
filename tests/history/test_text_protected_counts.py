"""The readable text history says the day's protected all-ins at a timeout as the table said them
(R-PROTECTED-ALL-INS-PER-DAY): "has timed out and is all-in (disconnect protection, 2 of 2
today)", and a fold the clock made with none left "(no protected all-in left: 2 of 2 used
today)"; the operator's text has them from the finished hand, a text written again from the
stored PHH from the counts the PHH keeps (a player's copy, the public view), and a hand without
counts reads as before."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from studpoker.cli import main
from studpoker.engine import EventKind
from studpoker.history.phh import loads, replay_with_time_banks
from studpoker.history.text import text_history
from studpoker.server.hand_views import player_copy
from studpoker.server.replays import EquityBudget
from studpoker.server.replays.stored import public_hand
from studpoker.server.store_adapter import operator_histories
from studpoker.server.table.ports import HandEnd
from studpoker.store.models import HandRecord, HandSeat, TableConfig, TableRecord
from tests.server.table_fakes import RecordingStore
from tests.server.test_replay_timeouts import SOLVER, a_hand, names_of


def timeouts(end: HandEnd) -> list[tuple[int, int, str]]:
    """The hand's timeouts: (engine event version, seat, what the clock did)."""
    return [
        (e.version, e.seat, str(e.detail))
        for e in end.hand.events
        if e.kind is EventKind.TIMEOUT and e.seat is not None
    ]


async def a_protected_all_in_and_a_fold_with_none_left() -> HandEnd:
    # The bring-in is posted; the next player is protected all-in (the day's last), the third,
    # with none left, is folded by the clock.
    _, end, _ = await a_hand(RecordingStore(protected_left=1, protected_per_day=2), ["act", "out", "out"])
    return end


async def test_the_operators_text_says_the_days_protected_all_ins_as_the_table_did() -> None:
    end = await a_protected_all_in_and_a_fold_with_none_left()
    (_, protected, _), (_, folded, outcome) = timeouts(end)
    assert outcome == "fold"
    _, text = operator_histories(
        end.hand, end.hand_id, names_of(end), "Stud", end.time_banks, protected_counts=end.protected_counts
    )
    lines = text.splitlines()
    assert f"player{protected}: has timed out and is all-in (disconnect protection, 2 of 2 today)" in lines
    said = lines.index(f"player{folded}: has timed out (no protected all-in left: 2 of 2 used today)")
    assert lines[said + 1] == f"player{folded}: folds"
    # Without the counts (a hand from before they were kept) the lines are as they were.
    _, bare = operator_histories(end.hand, end.hand_id, names_of(end), "Stud", end.time_banks)
    assert f"player{protected}: has timed out and is all-in (disconnect protection)" in bare.splitlines()
    assert f"player{folded}: has timed out" in bare.splitlines()
    assert "today" not in bare


async def test_a_text_written_again_from_the_stored_phh_keeps_the_counts() -> None:
    end = await a_protected_all_in_and_a_fold_with_none_left()
    names = names_of(end)
    phh, text = operator_histories(
        end.hand, end.hand_id, names, "Stud", end.time_banks, protected_counts=end.protected_counts
    )
    replayed = replay_with_time_banks(loads(phh)[0])
    again = text_history(
        replayed.hand,
        reveal=True,
        players=names,
        hand_id=end.hand_id,
        table="Stud",
        time_banks=replayed.time_banks,
        protected_counts=replayed.protected_counts,
    )
    assert again == text
    assert again.count("today") == 2
    # A watcher's copy says them too: everyone saw the table's words.
    watcher = text_history(replayed.hand, players=names, protected_counts=replayed.protected_counts)
    assert watcher.count(" of 2 ") == 2


async def test_a_fold_counted_with_protection_left_says_it_could_not_be_counted() -> None:
    # The table's words when the store counted the day but could not record the all-in.
    end = await a_protected_all_in_and_a_fold_with_none_left()
    (_, _, _), (version, folded, _) = timeouts(end)
    text = text_history(end.hand, players=names_of(end), protected_counts={version: (1, 2)})
    assert f"player{folded}: has timed out (the protected all-in could not be counted)" in text.splitlines()


async def test_a_players_copy_and_the_public_view_of_the_stored_hand_say_the_counts() -> None:
    end = await a_protected_all_in_and_a_fold_with_none_left()
    names = names_of(end)
    phh, text = operator_histories(
        end.hand, end.hand_id, names, "Stud", end.time_banks, protected_counts=end.protected_counts
    )
    now = datetime.now(UTC)
    record = HandRecord(
        id=end.hand_id,
        table_id=7,
        status="finished",
        commitment="",
        started_at=now,
        finished_at=now,
        seats={s: HandSeat(s, s, name, end.hand.initial_stacks[s]) for s, name in names.items()},
        phh=phh,
        text=text,
    )
    table = TableRecord(id=7, config=TableConfig.derive("Stud", "7S", 100, 200))
    (_, protected, _), (_, folded, _) = timeouts(end)
    said = [
        f"player{protected}: has timed out and is all-in (disconnect protection, 2 of 2 today)",
        f"player{folded}: has timed out (no protected all-in left: 2 of 2 used today)",
    ]
    mine = player_copy(record, protected, table.config).text
    assert mine is not None and all(line in mine.splitlines() for line in said), mine
    public = public_hand(record, table, SOLVER, EquityBudget(10.0))
    assert public is not None
    assert all(line in public.text.splitlines() for line in said), public.text


async def test_studpoker_replay_text_says_the_counts_the_phh_keeps(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`studpoker replay --text` of a stored PHH writes the same timeout lines as the room did."""
    end = await a_protected_all_in_and_a_fold_with_none_left()
    phh, _ = operator_histories(
        end.hand, end.hand_id, names_of(end), "Stud", end.time_banks, protected_counts=end.protected_counts
    )
    path = tmp_path / "hand.phh"
    path.write_text(phh)
    assert main(["replay", "--text", str(path)]) == 0
    out = capsys.readouterr().out
    assert "has timed out and is all-in (disconnect protection, 2 of 2 today)" in out
    assert "has timed out (no protected all-in left: 2 of 2 used today)" in out
