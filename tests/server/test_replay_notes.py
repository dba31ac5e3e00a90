"""The replayer shows the time bank and the timeouts (R-TIME-BANK, R-TIMEOUT-SAID): the steps of
a decision carry the seconds of his bank the player used and the table's words for it, from the
live hand's record or from the PHH the room stored (whose commentaries keep the bank); a
player's copy and the public view of a stored hand keep the notes too."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from studpoker.history.phh import loads, replay_with_time_banks
from studpoker.server.replays import EquityBudget, EquityLimits, EquitySolver, build_replay, replay_file
from studpoker.server.store_adapter import operator_histories
from tests.history.test_replay_time_banks import PHH, a_hand_with_banks
from tests.server.conftest import make_settings, running_server

SOLVER = EquitySolver(EquityLimits(max_deals=500, max_seconds=0.2, precision=0.05, budget_seconds=30.0), 64)


def decisions(steps: Any) -> list[tuple[str, int, float | None, tuple[str, ...]]]:
    """(kind, seat, time_bank, notes) of each step that noted something."""
    return [(s.kind, s.seat, s.time_bank, s.notes) for s in steps if s.time_bank is not None or s.notes]


async def test_the_steps_of_a_live_hand_say_the_bank_used_and_the_timeout() -> None:
    end = await a_hand_with_banks(protected=False)
    names = {seat: f"player{seat}" for seat in end.accounts}
    replay = build_replay(
        end.hand, None, SOLVER, EquityBudget(30.0), label=end.hand_id, names=names, time_banks=end.time_banks
    )
    bringer, sleeper = (s.seat for s in replay.steps if s.time_bank is not None)
    assert decisions(replay.steps) == [
        ("action", bringer, 12.4, (f"player{bringer} used 12.4 s of the time bank",)),
        (
            "action",
            sleeper,
            30.0,
            (f"player{sleeper} used 30.0 s of the time bank", f"player{sleeper} timed out: folded"),
        ),
    ]
    # Without the record's time banks a step says only what the engine knows: the timeout.
    bare = build_replay(end.hand, None, SOLVER, EquityBudget(30.0), label=end.hand_id, names=names)
    assert decisions(bare.steps) == [("action", sleeper, None, (f"player{sleeper} timed out: folded",))]


async def test_the_stored_phh_gives_the_replay_its_notes_the_protected_all_in_its_own_step() -> None:
    end = await a_hand_with_banks(protected=True)
    names = {seat: f"player{seat}" for seat in end.accounts}
    phh, _ = operator_histories(end.hand, end.hand_id, names, "Stud", end.time_banks)
    replayed = replay_with_time_banks(loads(phh)[0])
    replay = build_replay(
        replayed.hand, 1, SOLVER, EquityBudget(30.0), label="x", names=names, time_banks=replayed.time_banks
    )
    noted = decisions(replay.steps)
    protected = next(d for d in noted if d[0] == "timeout")
    seat = protected[1]
    assert protected[2:] == (
        30.0,
        (f"player{seat} used 30.0 s of the time bank", f"player{seat} timed out: protected all-in"),
    )
    assert [d[2] for d in noted] == [12.4, 30.0]


def test_a_dropped_phh_file_replays_with_its_notes() -> None:
    (hand,) = replay_file(PHH, SOLVER, EquityBudget(30.0), max_hands=5).hands
    assert [(s.seat, s.time_bank, s.notes) for s in hand.steps if s.notes] == [
        (1, 3.5, ("p1 used 3.5 s of the time bank",)),
        (2, 7.0, ("p2 used 7.0 s of the time bank",)),
    ]


async def test_a_stored_hand_keeps_its_notes_in_the_replay_the_players_copy_and_the_public_view(
    tmp_path: Path,
) -> None:
    settings = make_settings(
        tmp_path, think_seconds=0.05, countdown_seconds=0.05, time_bank_seconds=0.3, time_bank_max_seconds=1.0
    )
    async with running_server(settings) as h:
        actor = await h.add_table("7S", 100, 200)
        tokens = {name: await h.register(name) for name in ("alice", "bob")}
        alice, bob = await h.connect(tokens["alice"], "alice"), await h.connect(tokens["bob"], "bob")
        await h.seat(alice, actor.table_id, 1, 4000)
        await h.seat(bob, actor.table_id, 2, 4000)
        # Nobody acts: the bring-in is posted by the clock after his bank, and the other player,
        # his ante in, is protected all-in after his.
        done = await alice.wait_for("hand_finished", 30)
        hand_id = done["hand_id"]
        await asyncio.sleep(0.3)  # the hand is written a moment after it ends
        auth = {"Authorization": f"Bearer {tokens['alice']}"}
        answer = await h.http.get(f"/api/hands/{hand_id}/replay", headers=auth)
        assert answer.status_code == 200, answer.text
        noted = [(s["kind"], s["time_bank"], s["notes"]) for s in answer.json()["steps"] if s["notes"]]
        bring_in, protected = noted
        assert bring_in[:2] == ("action", 0.3) and bring_in[2][0].endswith("used 0.3 s of the time bank")
        assert protected[:2] == ("timeout", 0.3)
        # The stored hand keeps the day's count the table said (R-PROTECTED-ALL-INS-PER-DAY).
        assert protected[2][1].endswith("timed out: protected all-in (1 of 2 today)")
        assert bring_in[2][1].endswith("timed out: brought in")
        copy = (await h.http.get(f"/api/hands/{hand_id}", headers=auth)).json()
        assert copy["phh"].count("time bank 0.3 s") == 2
        assert copy["text"].count("(time bank: 0.3 s)") == 2
        public = (await h.http.get(f"/api/hands/{hand_id}/public")).json()
        assert public["phh"].count("time bank 0.3 s") == 2
        assert [s["notes"] for s in public["replay"]["steps"] if s["notes"]] == [n[2] for n in noted]
