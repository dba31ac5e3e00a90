"""Kill ``studpoker serve`` with SIGKILL in the middle of hands, restart it, and find the ledger
balanced and every interrupted hand voided and refunded."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

from studpoker.store import Store


def start_server(url: str, *extra: str) -> tuple[subprocess.Popen[str], str]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "studpoker",
            "serve",
            "--port",
            "0",
            "--database-url",
            url,
            "--log-level",
            "warning",
            *extra,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    assert "studpoker room on http://" in line, line
    base = line.split("http://", 1)[1].split("/", 1)[0]
    return process, base


def get(base: str, path: str) -> Any:
    with urllib.request.urlopen(f"http://{base}{path}", timeout=5) as response:
        return json.loads(response.read())


def wait_until(predicate: Any, timeout: float) -> Any:
    deadline = time.monotonic() + timeout
    last_error: Exception | None = None
    while time.monotonic() < deadline:
        try:
            value = predicate()
            if value:
                return value
        except Exception as exc:  # not up yet
            last_error = exc
        time.sleep(0.1)
    raise TimeoutError(f"condition not met in {timeout} s ({last_error!r})")


async def in_progress_and_audit(url: str) -> tuple[list[str], bool]:
    store = await Store.open(url)
    try:
        from sqlalchemy import text

        async with store.engine.connect() as conn:
            rows = (await conn.execute(text("select id from hands where status = 'in_progress'"))).all()
        report = await store.audit()
        return [str(r[0]) for r in rows], report.balanced
    finally:
        await store.close()


async def statuses(url: str, hand_ids: list[str]) -> tuple[dict[str, str], bool, str]:
    store = await Store.open(url)
    try:
        records = {h: await store.hand(h) for h in hand_ids}
        report = await store.audit()
        return {h: r.status for h, r in records.items()}, report.balanced, report.render()
    finally:
        await store.close()


def test_sigkill_mid_hand_then_restart(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'room.sqlite3'}"
    bots = ["--bots", "2", "--bot-tables", "3", "--bot-delay", "0.05", "0.15", "--hand-pause", "0"]
    interrupted: list[str] = []
    for _attempt in range(3):
        process, base = start_server(url, *bots)
        try:

            def playing(base: str = base) -> bool:
                tables = get(base, "/api/tables")
                return (
                    sum(t["hands_played"] for t in tables) >= 3
                    and sum(bool(t["hand_id"]) for t in tables) >= 2
                )

            wait_until(playing, 60)
        finally:
            process.send_signal(signal.SIGKILL)
            process.wait(10)
        interrupted, balanced = asyncio.run(in_progress_and_audit(url))
        assert balanced
        if interrupted:
            break
    assert interrupted, "no hand was in progress when the server was killed"
    # Restart: the interrupted hands are voided at startup; a clean SIGTERM shutdown after.
    process, base = start_server(url, "--hand-pause", "0")
    try:
        wait_until(lambda: get(base, "/api/health")["ok"], 30)
    finally:
        process.send_signal(signal.SIGTERM)
        # uvicorn re-raises the signal after its graceful shutdown.
        assert process.wait(20) in (0, -signal.SIGTERM)
    found, balanced, report = asyncio.run(statuses(url, interrupted))
    assert balanced, report
    assert set(found.values()) == {"void"}, found
    left, _ = asyncio.run(in_progress_and_audit(url))
    assert left == []
