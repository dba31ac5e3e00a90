"""Scheduled tournaments in the room (server/tournaments, api/tournaments.py), the clock a fake
``now`` (the room's TournamentRoom takes one) rather than a wait: the start at its time at the
fewest tables, the cancellation and refunds under the smallest field, a room restarted after
the start time, late registration that grows the pool and seats the late player at the
shortest table, and its end (R-TOURNAMENT-SCHEDULED-START, R-TOURNAMENT-SCHEDULED-CANCEL,
R-TOURNAMENT-LATE-REGISTRATION, R-TOURNAMENT-LATE-SEAT)."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import update

from studpoker.server.tournaments import create_tournament, table_id_of
from studpoker.store import Store
from studpoker.store.schema import tournaments
from studpoker.store.tournaments import TournamentRecord
from studpoker.tournament.payouts import prize_amounts

from .conftest import Harness, make_settings, running_server
from .test_tournament_room import auth


class FakeNow:
    """The room's tournament time: real time plus what the test moved it on by."""

    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.time() + self.offset

    def advance(self, seconds: float) -> None:
        self.offset += seconds


def fake_now(h: Harness) -> FakeNow:
    now = FakeNow()
    h.room.tournaments.now = now
    return now


async def scheduled(h: Harness, name: str, minutes: float = 10, **kw: object) -> TournamentRecord:
    values: dict[str, object] = {"buy_in": 1_000, "fee": 100, "seats": 30, "min_players": 2}
    values.update(kw)
    starts = datetime.now(UTC) + timedelta(minutes=minutes)
    return await create_tournament(h.store, name, "7S", "turbo", starts_at=starts, **values)  # type: ignore[arg-type]


async def registered(h: Harness, tournament_id: int, names: list[str]) -> list[str]:
    tokens = [await h.register(name) for name in names]
    for token in tokens:
        answer = await h.http.post(f"/api/tournaments/{tournament_id}/register", headers=auth(token))
        assert answer.status_code == 200, answer.text
    return tokens


async def bankroll(h: Harness, token: str) -> int:
    me = (await h.http.get("/api/me", headers=auth(token))).json()
    return int(me["bankroll"])


async def test_r_tournament_scheduled_start_at_its_time_at_the_fewest_tables(tmp_path: Path) -> None:
    async with running_server(make_settings(tmp_path)) as h:
        now = fake_now(h)
        record = await scheduled(h, "Nine o'clock", minutes=10)
        await registered(h, record.id, [f"s{i:02d}" for i in range(10)])
        line = (await h.http.get(f"/api/tournaments/{record.id}")).json()
        # Registered, not started: a scheduled tournament waits for its time (and is not full).
        assert (line["status"], line["entrants"], line["scheduled"], line["max_players"]) == (
            "registering",
            10,
            True,
            30,
        )
        assert 590 <= line["seconds_to_start"] <= 600
        assert line["starts_at"].endswith("Z")
        now.advance(9 * 60)
        await h.room.tournaments.tick()
        assert (await h.store.tournaments.get(record.id)).status == "registering"
        now.advance(61)
        await h.room.tournaments.tick()
        started = await h.store.tournaments.get(record.id)
        assert started.status == "running"
        per_table = sorted(sum(1 for e in started.entries if e.table_no == n) for n in (1, 2))
        assert per_table == [5, 5]  # 10 stud players: the fewest tables, sizes within one
        line = (await h.http.get(f"/api/tournaments/{record.id}")).json()
        assert line["tables"] == [table_id_of(record.id, 1), table_id_of(record.id, 2)]
        assert line["seconds_to_start"] is None and line["level"]["level"] == 1


async def test_r_tournament_scheduled_cancel_under_the_minimum_refunds_everyone(tmp_path: Path) -> None:
    async with running_server(make_settings(tmp_path)) as h:
        now = fake_now(h)
        record = await scheduled(h, "Too few", min_players=3)
        tokens = await registered(h, record.id, ["ann", "ben"])
        assert [await bankroll(h, t) for t in tokens] == [10_000 - 1_100] * 2
        now.advance(10 * 60 + 1)
        await h.room.tournaments.tick()
        line = (await h.http.get(f"/api/tournaments/{record.id}")).json()
        assert line["status"] == "cancelled" and line["tables"] == []
        assert [await bankroll(h, t) for t in tokens] == [10_000, 10_000]  # buy-in and fee back
        late = await h.register("cyd")
        answer = await h.http.post(f"/api/tournaments/{record.id}/register", headers=auth(late))
        assert answer.status_code == 409 and await bankroll(h, late) == 10_000
        await h.audit()


async def test_a_room_restarted_after_the_start_time_starts_or_cancels_at_once(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    async with running_server(settings) as h:
        enough = await scheduled(h, "Enough", min_players=2)
        few = await scheduled(h, "Few", min_players=3)
        await registered(h, enough.id, ["ann", "ben"])
        await registered(h, few.id, ["cyd"])
    # The room is down when their time comes.
    store = await Store.open(settings.database_url)
    try:
        async with store.database.write() as conn:
            past = datetime.now(UTC) - timedelta(minutes=1)
            await conn.execute(update(tournaments).values(starts_at=past))
    finally:
        await store.close()
    async with running_server(settings) as h:
        assert (await h.store.tournaments.get(enough.id)).status == "running"
        assert (await h.store.tournaments.get(few.id)).status == "cancelled"
        assert h.room.tournaments.running[enough.id].tables


async def test_r_tournament_late_registration_grows_the_pool_and_seats_at_the_shortest_table(
    tmp_path: Path,
) -> None:
    async with running_server(make_settings(tmp_path)) as h:
        now = fake_now(h)
        record = await scheduled(h, "Late", late_levels=2, seats=11)
        await registered(h, record.id, [f"pl{i}" for i in range(9)])
        now.advance(10 * 60 + 1)
        await h.room.tournaments.tick()
        started = await h.store.tournaments.get(record.id)
        sizes = {n: sum(1 for e in started.entries if e.table_no == n) for n in (1, 2)}
        short = min(sizes, key=lambda n: (sizes[n], n))
        assert sorted(sizes.values()) == [4, 5]
        # Level 2 of the turbo: late registration is open (to the end of level 2).
        now.advance(5 * 60 + 10)
        line = (await h.http.get(f"/api/tournaments/{record.id}")).json()
        assert line["late_registration_open"] and line["level"]["level"] == 2
        token = await h.register("late")
        answer = await h.http.post(f"/api/tournaments/{record.id}/register", headers=auth(token))
        assert answer.status_code == 200, answer.text
        line = answer.json()
        assert (line["status"], line["entrants"], line["prize_pool"]) == ("running", 10, 10_000)
        assert line["payouts"] == list(prize_amounts(10, 10_000)) == [5_000, 3_000, 2_000]
        assert line["player_tables"]["late"] == table_id_of(record.id, short)
        assert line["player_entries"]["late"] == {"entries": 1, "in_play": True, "reentries_left": 0}
        assert await bankroll(h, token) == 10_000 - 1_100
        entry = (await h.store.tournaments.get(record.id)).entries[-1]
        assert (entry.name, entry.table_no, entry.stack) == ("late", short, record.starting_stack)
        actor = h.room.tournaments.running[record.id].tables[short]
        seated = actor.seat_of(entry.account_id)
        assert seated is not None and seated.seat == entry.seat
        await h.audit()  # ten entries' chips and buy-ins
        # The end of level 2: closed, and a refusal changes nothing.
        now.advance(5 * 60)
        closed = (await h.http.get(f"/api/tournaments/{record.id}")).json()
        assert not closed["late_registration_open"] and closed["level"]["level"] == 3
        token = await h.register("later")
        answer = await h.http.post(f"/api/tournaments/{record.id}/register", headers=auth(token))
        assert answer.status_code == 409 and "closed" in answer.json()["error"]["message"]
        assert await bankroll(h, token) == 10_000
        assert (await h.http.get(f"/api/tournaments/{record.id}")).json()["entrants"] == 10
