"""Crash test: while the load client plays, SIGKILL the server at random moments and restart it.

After every kill: the books balance (chips in open hands included), and every hand a client was
told had finished is finished in the database. After every restart: the hands the kill
interrupted are voided and their chips back with their owners (the ledger rows of a voided hand
net to zero for every account), the clients reconnect and sit again, and hands go on.
"""

from __future__ import annotations

import asyncio
import os
import random
import socket
import time
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from studpoker.loadtest import LoadConfig, LoadRun
from studpoker.loadtest.server import SpawnedServer, spawn
from studpoker.store import Store

KILLS_FAST = int(os.environ.get("STUDPOKER_KILLS", "2"))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


async def db_state(url: str) -> dict[str, Any]:
    store = await Store.open(url)
    try:
        async with store.engine.connect() as conn:
            rows = (await conn.execute(text("select id, status from hands"))).all()
            per_hand = (
                await conn.execute(
                    text(
                        "select t.hand_id, e.account_id, sum(e.amount) from ledger_entries e"
                        " join ledger_transactions t on t.id = e.txn_id"
                        " join hands h on h.id = t.hand_id where h.status = 'void'"
                        " group by t.hand_id, e.account_id"
                    )
                )
            ).all()
        report = await store.audit()
        return {
            "status": {str(r[0]): str(r[1]) for r in rows},
            "void_net": [(str(h), a, int(n)) for h, a, n in per_hand if int(n) != 0],
            "balanced": bool(report.balanced),
            "report": report.render(),
        }
    finally:
        await store.close()


async def wait_for(predicate: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"not within {timeout} s: {what}")


async def crash_run(
    tmp_path: Path, kills: int, *, tables: int = 3, players: int = 4, seed: int = 7
) -> dict[str, Any]:
    url = f"sqlite+aiosqlite:///{tmp_path / 'crash.sqlite3'}"
    port = free_port()
    rng = random.Random(seed)

    def start() -> SpawnedServer:
        return spawn(url, tables=tables, port=port, think_seconds=10, countdown_seconds=10, hand_pause=0.1)

    server = await asyncio.to_thread(start)
    config = LoadConfig(
        url=server.ws_url,
        tables=tables,
        players_per_table=players,
        seconds=3600,
        think_time=0.03,
        seed=seed,
    )
    interrupted: set[str] = set()
    finished_before_kill: set[str] = set()
    survived = 0
    try:
        async with LoadRun(config) as run:
            await run.setup()
            assert all(p.ready.is_set() for p in run.players)
            run.metrics.active = True
            run.started = time.monotonic()
            run.control.stop_at = run.started + 3600
            for kill in range(kills):
                seen = len(run.metrics.hands)
                try:
                    await wait_for(lambda seen=seen: len(run.metrics.hands) >= seen + 2, 60, "hands go on")
                except AssertionError as exc:
                    assert run.http is not None
                    tables_now = (await run.http.get("/api/tables")).json()
                    summary = [(t["id"], t["seated"], t["hand_id"], t["hands_played"]) for t in tables_now]
                    raise AssertionError(
                        f"after {kill} kills: {exc}; tables {summary};"
                        f" errors {run.metrics.error_samples[:3]}; seated {[p.seated for p in run.players]}"
                    ) from None
                await asyncio.sleep(rng.uniform(0.0, 1.0))
                await asyncio.to_thread(server.kill)
                state = await db_state(url)
                assert state["balanced"], state["report"]
                told_finished = set(run.metrics.hands)
                missing = {h for h in told_finished if state["status"].get(h) != "finished"}
                assert not missing, f"hands reported finished but not finished in the database: {missing}"
                finished_before_kill |= {h for h, s in state["status"].items() if s == "finished"}
                now_open = {h for h, s in state["status"].items() if s == "in_progress"}
                interrupted |= now_open
                server = await asyncio.to_thread(start)
                state = await db_state(url)
                assert all(state["status"][h] == "void" for h in now_open), state["status"]
                assert state["void_net"] == [], state["void_net"]
                assert state["balanced"], state["report"]
                survived += 1
                # The clients come back and sit again.
                try:
                    await wait_for(
                        lambda: all(p.seated or p.gave_up for p in run.players),
                        60,
                        "every player seated again",
                    )
                except AssertionError as exc:
                    waiting = [(p.name, p.sessions, p.ws is not None) for p in run.players if not p.seated]
                    raise AssertionError(f"after {kill + 1} kills: {exc}: {waiting}") from None
            seen_at_end = len(run.metrics.hands)
            await wait_for(lambda: len(run.metrics.hands) > seen_at_end, 60, "hands resume")
            run.control.stop_at = time.monotonic()
            await run.stop()
            report = run.report()
    finally:
        await asyncio.to_thread(server.terminate, 30)
    state = await db_state(url)
    assert state["balanced"], state["report"]
    assert "in_progress" not in state["status"].values()
    lost = {h for h in finished_before_kill if state["status"].get(h) != "finished"}
    assert not lost, lost
    assert state["void_net"] == []
    return {
        "kills": survived,
        "interrupted": len(interrupted),
        "hands_finished": sum(s == "finished" for s in state["status"].values()),
        "hands_void": sum(s == "void" for s in state["status"].values()),
        "reconnects": report.reconnects,
        "errors": report.errors,
    }


async def test_sigkill_under_load(tmp_path: Path) -> None:
    result = await crash_run(tmp_path, KILLS_FAST)
    print(f"\ncrash test: {result}")
    assert result["kills"] == KILLS_FAST
    assert result["interrupted"] >= 1


@pytest.mark.slow
async def test_sigkill_twenty_times(tmp_path: Path) -> None:
    result = await crash_run(tmp_path, 20, tables=6, players=6, seed=20)
    print(f"\ncrash test: {result}")
    assert result["kills"] == 20
    assert result["interrupted"] >= 10
