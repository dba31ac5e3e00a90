"""Disconnect storms: half the players drop their socket at random and come back after up to a
few seconds, with a short action clock, while a spectator records every table event.

The rule book (docs/rules.md, R-TIMEOUT and the rules after it): when the clock runs out a
player checks if checking is free; otherwise, with chips in the pot, he is all-in for what he has
put in (protected: at most 2 per account per day), else he folds; a player who timed out sits
out from the next hand until he comes back; a player who reconnects while his clock runs gets 20
(here: the countdown) more seconds.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from studpoker.loadtest import LoadConfig, LoadRun
from tests.server.conftest import Client, make_settings, running_server

PROTECTED_PER_DAY = 2
TIMEOUT_DETAILS = {"check", "fold", "protected_all_in", "bring_in"}


def check_log(log: list[dict[str, Any]]) -> dict[str, Any]:
    """Rules checks over one spectator's messages of one table."""
    seat_account: dict[int, int] = {}
    protected: Counter[int] = Counter()
    details: Counter[str] = Counter()
    problems: list[str] = []
    timed_out_in: dict[int, str] = {}  # seat -> hand in which it timed out (and did not come back)
    extended = 0
    hand_id: str | None = None
    for message in log:
        kind = message["type"]
        if kind == "hand_started":
            hand_id = message["hand_id"]
            for seat in message["seats"]:
                if seat in timed_out_in and timed_out_in[seat] != hand_id:
                    problems.append(
                        f"seat {seat} timed out in {timed_out_in[seat]} but was dealt into {hand_id}"
                    )
            timed_out_in.clear()
        elif kind == "event":
            event = message["event"]
            what = event.get("kind") or event.get("type")
            if what == "seats":
                seat_account = {s["seat"]: s["account_id"] for s in event["seats"]}
                for s in event["seats"]:
                    if not s["sitting_out"]:
                        timed_out_in.pop(s["seat"], None)  # he came back (sat in)
            elif what == "timeout":
                details[event.get("detail")] += 1
                if event.get("detail") not in TIMEOUT_DETAILS:
                    problems.append(f"unknown timeout rule {event}")
                if event.get("detail") == "protected_all_in":
                    protected[seat_account.get(event["seat"], -1)] += 1
                if hand_id is not None:
                    timed_out_in[event["seat"]] = hand_id
            elif what == "clock" and event.get("extended"):
                extended += 1
    return {"protected": protected, "details": details, "problems": problems, "extended": extended}


async def storm(tmp_path: Path, *, tables: int, players: int, seconds: float) -> dict[str, Any]:
    settings = make_settings(
        tmp_path,
        think_seconds=1.0,
        countdown_seconds=1.0,
        hand_pause_seconds=0.2,
        protected_all_ins_per_day=PROTECTED_PER_DAY,
        message_rate=50.0,
        message_burst=100.0,
        # Half the players drop every 2 s and sit (in) again on each reconnect: far more seat
        # commands than the per-seat limit allows a person (tests/server/test_fanout.py tests it).
        seat_commands_per_window=10**6,
    )
    async with running_server(settings) as harness:
        table_ids = [(await harness.add_table()).table_id for _ in range(tables)]
        watchers: list[Client] = []
        for i, table_id in enumerate(table_ids):
            watcher = await harness.player(f"watcher{i}")
            assert (await watcher.request(type="join_table", table_id=table_id))["type"] == "ack"
            watchers.append(watcher)
        config = LoadConfig(
            url=f"ws://{harness.base}",
            tables=tables,
            players_per_table=players,
            seconds=seconds,
            think_time=0.3,
            seed=11,
            drop_fraction=0.5,
            drop_every=2.0,
            max_away=2.5,
            table_ids=table_ids,
        )

        async def keep_alive() -> None:
            while True:
                await asyncio.sleep(10)
                for w in watchers:
                    await w.send(type="ping")

        pinger = asyncio.get_running_loop().create_task(keep_alive())
        try:
            async with LoadRun(config) as run:
                await run.setup()
                await run.play()
                report = run.report()
        finally:
            pinger.cancel()
        checks = [check_log(w.log) for w in watchers]
        async with harness.store.engine.connect() as conn:
            counts = (await conn.execute(text("select max(protected_count) from accounts"))).scalar()
        return {"report": report, "checks": checks, "max_protected_count": int(counts or 0)}


def assert_storm(result: dict[str, Any]) -> None:
    report = result["report"]
    assert report.drops > 0 and report.reconnects > 0, report.render()
    assert report.actions > 0, report.render()
    # A player who comes back may act on a decision the clock has just closed: refused, nothing else.
    assert set(report.errors) <= {"not_your_turn", "stale", "no_hand"}, report.render()
    problems = [p for c in result["checks"] for p in c["problems"]]
    assert problems == [], problems[:5]
    protected: Counter[int] = Counter()
    for c in result["checks"]:
        protected.update(c["protected"])
    assert all(n <= PROTECTED_PER_DAY for n in protected.values()), protected
    assert result["max_protected_count"] <= PROTECTED_PER_DAY


async def test_disconnect_storm(tmp_path: Path) -> None:
    seconds = float(os.environ.get("STUDPOKER_STORM_SECONDS", "20"))
    began = time.monotonic()
    result = await storm(tmp_path, tables=3, players=6, seconds=seconds)
    report = result["report"]
    details: Counter[str] = Counter()
    for c in result["checks"]:
        details.update(c["details"])
    print(
        f"\nstorm: {report.hands} hands, {report.drops} drops, {report.reconnects} reconnects,"
        f" timeouts {dict(details)}, extensions {sum(c['extended'] for c in result['checks'])},"
        f" errors {report.errors}, {time.monotonic() - began:.0f} s"
    )
    assert_storm(result)


@pytest.mark.slow
async def test_disconnect_storm_long(tmp_path: Path) -> None:
    result = await storm(tmp_path, tables=8, players=8, seconds=120)
    assert_storm(result)
