"""Every timeout says in a replay what the clock did, as the table said it (R-TIMEOUT-SAID,
R-PROTECTED-ALL-INS-PER-DAY): the stored PHH marks each check, bring-in or fold the clock made
(``# p2 timed out``) and keeps the day's protected all-ins the table counted, so that a replay
of the stored hand has "bob timed out: folded (no protected all-in left: 2 of 2 used today)" and
"alice timed out: protected all-in (2 of 2 today)", word for word the table's ``timed_out``."""

from __future__ import annotations

import pytest

from studpoker.history.phh import PhhError, dump_hand, loads, replay_with_time_banks
from studpoker.server.replays import EquityBudget, EquityLimits, EquitySolver, build_replay
from studpoker.server.store_adapter import operator_histories
from studpoker.server.table.ports import HandEnd
from tests.server.table_fakes import RecordingStore, Table, passive
from tests.server.test_seat_life import started, time_out, timeout_words

SOLVER = EquitySolver(EquityLimits(max_deals=200, max_seconds=0.1, precision=0.05, budget_seconds=10.0), 16)


async def a_hand(store: RecordingStore, script: list[str]) -> tuple[Table, HandEnd, list[str]]:
    """Three at a stud table: each decision of ``script`` is taken ("act": check, call or bring
    in) or left to the clock ("out"), the rest is played out; the finished hand's record and the
    table's words for its timeouts."""
    table, _, watcher = await started(players=3, store=store)
    for step in script:
        if step == "out":
            await time_out(table)
        else:
            await table.act(passive)
    await table.play_out()
    await table.flush()
    end = table.store.ends[-1]
    await table.actor.stop()
    return table, end, [e["text"] for e in timeout_words(watcher)]


def names_of(end: HandEnd) -> dict[int, str]:
    return {seat: f"player{seat}" for seat in end.accounts}


def timeout_notes(end: HandEnd, phh: str) -> list[str]:
    """The timeout notes of the replay of the stored ``phh``, as a watcher sees it."""
    replayed = replay_with_time_banks(loads(phh)[0])
    replay = build_replay(
        replayed.hand,
        None,
        SOLVER,
        EquityBudget(10.0),
        label=end.hand_id,
        names=names_of(end),
        time_banks=replayed.time_banks,
        protected_counts=replayed.protected_counts,
    )
    return [n for s in replay.steps for n in s.notes if " timed out: " in n]


def stored_phh(end: HandEnd) -> str:
    phh, _ = operator_histories(
        end.hand, end.hand_id, names_of(end), "Stud", end.time_banks, protected_counts=end.protected_counts
    )
    return phh


async def test_a_stored_protected_all_in_and_a_fold_with_none_left_say_the_days_count() -> None:
    # The bring-in is posted; the next player, his ante in, is protected all-in (the last of the
    # day), and the third, with none left, is folded.
    _, end, said = await a_hand(RecordingStore(protected_left=1, protected_per_day=2), ["act", "out", "out"])
    assert [s.split(" timed out: ")[1] for s in said] == [
        "protected all-in (2 of 2 today)",
        "folded (no protected all-in left: 2 of 2 used today)",
    ]
    phh = stored_phh(end)
    assert "disconnect protection (2 of 2 protected all-ins today)" in phh
    assert timeout_notes(end, phh) == said
    # Written again from the replay (a seat's or a watcher's copy), the notes are kept.
    replayed = replay_with_time_banks(loads(phh)[0])
    again = dump_hand(
        replayed.hand,
        players=names_of(end),
        hand_id=end.hand_id,
        table="Stud",
        time_banks=replayed.time_banks,
        protected_counts=replayed.protected_counts,
    )
    assert again == phh


async def test_a_check_the_clock_made_says_checked_in_the_replay() -> None:
    # Third street is called round; on fourth street the first to act lets his clock run out.
    _, end, said = await a_hand(RecordingStore(protected_left=2), ["act", "act", "act", "out"])
    (check,) = said
    assert check.endswith(" timed out: checked")
    assert timeout_notes(end, stored_phh(end)) == said
    # The live hand's record says the same.
    live = build_replay(
        end.hand,
        None,
        SOLVER,
        EquityBudget(10.0),
        label=end.hand_id,
        names=names_of(end),
        time_banks=end.time_banks,
        protected_counts=end.protected_counts,
    )
    assert [n for s in live.steps for n in s.notes if " timed out: " in n] == said


def test_a_timeout_the_clock_could_not_have_made_is_refused() -> None:
    phh = """variant = "F7S"
antes = [25, 25]
bring_in = 50
small_bet = 100
big_bet = 200
starting_stacks = [1000, 1000]
actions = [
  "d dh p1 2c3c4c",
  "d dh p2 5d6d7d",
  "p1 pb",
  "# p2 timed out",
  "p2 cc",
]
"""
    # Facing the bring-in the clock folds (no protection but the file's own commentary): not a call.
    with pytest.raises(PhhError, match="the clock cannot make that decision"):
        replay_with_time_banks(loads(phh)[0])
    folded = replay_with_time_banks(loads(phh.replace('"p2 cc"', '"p2 f"'))[0])
    (timeout,) = (e for e in folded.hand.events if e.kind.value == "timeout")
    assert (timeout.seat, timeout.detail) == (2, "fold")
