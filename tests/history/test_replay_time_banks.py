"""The time bank read back from a PHH file (R-TIME-BANK): ``replay_with_time_banks`` turns the
commentaries the writer puts on a decision (``p2 cc # time bank 12.4 s``, the bare
``# p2 time bank 30.0 s`` before a protected all-in) into the ``time_banks`` the room keeps
(engine event version -> seconds), so that a stored hand written again, for a seat or a
watcher, keeps its notes, and the replayer can show them."""

from __future__ import annotations

from studpoker.engine import ActionKind, EventKind
from studpoker.history.phh import dump_hand, loads, replay, replay_with_time_banks
from studpoker.history.text import text_history
from studpoker.server.store_adapter import operator_histories
from studpoker.server.table.ports import HandEnd
from tests.history.test_time_bank_history import BANK, CLOCK, finished, names_of
from tests.server.table_fakes import Table, make_table


async def a_hand_with_banks(protected: bool) -> HandEnd:
    """A stud hand in which the bring-in used 12.4 s of his bank and the next player's whole bank
    ran out before the clock rule played for him (protected all-in when ``protected``)."""
    table: Table = make_table(hand_pause_seconds=0.0, **BANK)
    table.store.protected_left = 1 if protected else 0
    await table.seat(3)
    table.clock.advance(0.0)
    await table.flush()
    table.clock.advance(CLOCK + 12.4)
    await table.flush()
    await table.act()
    table.clock.advance(CLOCK + 30.0)
    await table.flush()
    end = await finished(table)
    await table.actor.stop()
    return end


async def test_the_notes_of_a_stored_hand_come_back_keyed_by_the_event_that_ended_each_decision() -> None:
    end = await a_hand_with_banks(protected=False)
    names = names_of(end)
    phh, text = operator_histories(end.hand, end.hand_id, names, "Stud", end.time_banks)
    replayed = replay_with_time_banks(loads(phh)[0])
    events = {e.version: e for e in replayed.hand.events}
    # The bring-in's action, and the timeout before the fold the clock made (as the room keys it).
    assert sorted(
        (events[v].kind, str(events[v].detail or events[v].action), s) for v, s in replayed.time_banks.items()
    ) == [
        (EventKind.ACTION, str(ActionKind.BRING_IN), 12.4),
        (EventKind.TIMEOUT, "fold", 30.0),
    ]
    # Written again from the replay, the operator's record is what the table wrote, byte for byte.
    again = operator_histories(replayed.hand, end.hand_id, names, "Stud", replayed.time_banks)
    assert again[0] == phh
    # The text written again is the table's: the timeout's line has the note.
    assert text.count("time bank") == again[1].count("time bank") == 2
    assert again[1] == text


async def test_the_bare_note_before_a_protected_all_in_is_keyed_by_its_timeout() -> None:
    end = await a_hand_with_banks(protected=True)
    phh, _ = operator_histories(end.hand, end.hand_id, names_of(end), "Stud", end.time_banks)
    assert "time bank 30.0 s" in phh and "disconnect protection" in phh
    replayed = replay_with_time_banks(loads(phh)[0])
    events = {e.version: e for e in replayed.hand.events}
    keyed = {(events[v].kind, events[v].detail): s for v, s in replayed.time_banks.items()}
    assert keyed[(EventKind.TIMEOUT, "protected_all_in")] == 30.0
    assert dump_hand(replayed.hand, time_banks=replayed.time_banks) == dump_hand(
        end.hand, time_banks=end.time_banks
    )


PHH = """variant = "F7S"
antes = [25, 25, 25]
bring_in = 50
small_bet = 100
big_bet = 200
starting_stacks = [1000, 1000, 1000]
actions = [
  "d dh p1 2c3c4c",
  "d dh p2 5d6d7d",
  "d dh p3 8h9hTh",
  "p1 pb # time bank 3.5 s",
  "# p2 time bank 7.0 s",
  "p2 cbr 100 # a comment of no use",
  "p3 f # time bank twelve s",
  "p1 f",
]
"""


def test_a_bare_note_goes_to_the_players_next_decision_and_other_comments_are_no_notes() -> None:
    (record,) = loads(PHH)
    replayed = replay_with_time_banks(record)
    by_action = {
        (e.seat, e.action.value): replayed.time_banks[e.version]
        for e in replayed.hand.events
        if e.kind is EventKind.ACTION and e.version in replayed.time_banks and e.action is not None
    }
    assert by_action == {(1, "bring_in"): 3.5, (2, "complete"): 7.0}
    # The plain replay is the same hand.
    assert replay(record).result.final_stacks == replayed.hand.result.final_stacks


def test_a_hand_with_no_notes_has_no_time_banks() -> None:
    (record,) = loads(PHH.replace(" # time bank 3.5 s", "").replace('  "# p2 time bank 7.0 s",\n', ""))
    assert replay_with_time_banks(record).time_banks == {}
    assert "time bank" not in text_history(replay(record))
