"""The gateway and worker roles end to end (issue 15, docs/cluster.md "Roles"): ``studpoker
cluster up`` with 2 gateways and 2 workers behind HAProxy, real nats-server and PostgreSQL;
players over WebSockets; a worker killed with SIGKILL in the middle of a hand."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from studpoker.store import Store
from tests.cluster.conftest import LaunchCluster
from tests.server.conftest import Client, passive_choice

# One cluster per module, started by a module fixture: its tests run in one worker, in order
# (the Makefile runs pytest with --dist loadgroup).
pytestmark = pytest.mark.xdist_group("test_roles")

LEASE = 5.0  # Settings.lease_seconds's default, which the cluster runs with


@dataclass
class RunningCluster:
    directory: Path
    process: subprocess.Popen[bytes]
    info: dict[str, Any]
    database_url: str
    clients: list[Client] = field(default_factory=list)

    @property
    def base(self) -> str:
        return str(self.info["url"]).removeprefix("http://").rstrip("/")

    def pids(self, role: str) -> dict[str, int]:
        return {p["name"]: p["pid"] for p in self.info["processes"] if p["role"] == role}


@pytest.fixture
def cluster(launch_cluster: LaunchCluster) -> Iterator[RunningCluster]:
    sets = {"hand_pause_seconds": 0.3, "shutdown_grace_seconds": 1}
    up = launch_cluster(gateways=2, workers=2, sets=sets)
    yield RunningCluster(up.directory, up.process, up.info(), up.database_url)


async def _owners(url: str) -> dict[int, tuple[str | None, int, bool]]:
    store = await Store.open(url, migrate_schema=False)
    try:
        return {
            lease.table_id: (lease.owner, lease.epoch, lease.live) for lease in await store.leases.owners()
        }
    finally:
        await store.close()


async def _until(condition: Any, what: str, timeout: float) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = await condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.1)


class Player:
    """A client at one table that plays passively while ``acting`` (every decision answered)."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.acting = True
        self.finished: list[str] = []
        self.voided: list[str] = []
        self.states = 0
        self.turns: list[dict[str, Any]] = []
        self.unanswered: list[dict[str, Any]] = []  # decisions left waiting (not acting)
        self._task = asyncio.get_running_loop().create_task(self._play())

    async def _play(self) -> None:
        while True:
            message = await self.client._queue.get()
            kind = message["type"]
            if kind == "hand_finished":
                self.finished.append(message["hand_id"])
            elif kind == "table_state":
                self.states += 1
            elif kind == "event" and message["event"].get("kind") == "hand_voided":
                self.voided.append(message["event"]["hand_id"])
            elif kind == "your_turn":
                self.turns.append(message)
                if not self.acting:
                    self.unanswered.append(message)
                else:
                    option = passive_choice(message["options"])
                    await self.client.send(
                        type="action", table_id=message["table_id"], hand_id=message["hand_id"],
                        kind=option["kind"], amount=option["amount"], version=message["version"],
                    )  # fmt: skip

    async def stop(self) -> None:
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task


@contextlib.asynccontextmanager
async def players(cluster: RunningCluster, table_id: int, names: list[str]) -> AsyncIterator[list[Player]]:
    out: list[Player] = []
    async with httpx.AsyncClient(base_url=f"http://{cluster.base}", timeout=10) as http:
        try:
            for seat, name in enumerate(names):
                response = await http.post("/api/register", json={"name": name, "password": "password123"})
                assert response.status_code == 201, response.text
                token = response.json()["token"]
                ws = await websockets.connect(f"ws://{cluster.base}/ws?token={token}", max_size=2**22)
                client = Client(ws, name)
                await client.wait_for("welcome")
                client.keep_alive()
                joined = await client.request(type="join_table", table_id=table_id)
                assert joined["type"] == "ack", joined
                sat = await client.request(type="sit", table_id=table_id, seat=seat + 1, buy_in=2000)
                assert sat["type"] == "ack", sat
                out.append(Player(client))
            yield out
        finally:
            for player in out:
                await player.stop()
                with contextlib.suppress(Exception):
                    await player.client.close()


async def test_cluster_plays_and_survives_a_killed_worker(cluster: RunningCluster) -> None:
    url = cluster.database_url
    # The tables are spread over both workers (fair share), each once claimed.
    owners = await _until(lambda: _spread(url), "the tables spread over both workers", timeout=3 * LEASE)
    table_id = min(owners)
    victim = owners[table_id][0]
    async with players(cluster, table_id, ["alice", "bob"]) as (alice, bob):
        # Hands are played through HAProxy, the gateways and the table's worker.
        await _until(lambda: _finished(alice, 2), "two hands played", timeout=30)
        # The next hand is dealt and waits on a player who does not act: kill its worker then.
        alice.acting = bob.acting = False
        await _until(lambda: _waiting(alice, bob), "a decision left waiting", timeout=15)
        interrupted = (alice.unanswered + bob.unanswered)[0]["hand_id"]
        assert interrupted not in alice.finished
        states = (alice.states, bob.states)
        os.kill(cluster.pids("worker")[victim], signal.SIGKILL)
        killed_at = time.monotonic()
        await _until(lambda: _taken(url, table_id, victim), "the table owned again", timeout=LEASE + 3)
        assert time.monotonic() - killed_at <= LEASE + 1 + 0.5  # +0.5: our own polling
        # On the same sockets: hand_voided for the interrupted hand, then a fresh table_state.
        for player, before in zip((alice, bob), states, strict=True):
            await _until(lambda p=player: _true(interrupted in p.voided), "hand_voided", timeout=10)
            await _until(lambda p=player, b=before: _true(p.states > b), "a fresh table_state", timeout=10)
            assert not player.client.closed.is_set()
        # Play goes on at the table under its new owner.
        alice.acting = bob.acting = True
        done = len(alice.finished)
        await _until(lambda: _finished(alice, done + 1), "a hand under the new owner", timeout=30)
    store = await Store.open(url, migrate_schema=False)
    try:
        record = await store.hand(interrupted)
        assert record.status == "void"  # voided (never also finished); its refunds in the audit
        report = await store.audit()
        assert report.balanced, report.render()
    finally:
        await store.close()


async def _spread(url: str) -> dict[int, tuple[str | None, int, bool]] | None:
    owners = await _owners(url)
    counts: dict[str | None, int] = {}
    for owner, _, live in owners.values():
        counts[owner if live else None] = counts.get(owner if live else None, 0) + 1
    fair = -(-len(owners) // 2)
    if None in counts or len(counts) != 2 or max(counts.values()) > fair:
        return None
    return owners


async def _finished(player: Player, count: int) -> bool:
    return len(player.finished) >= count


async def _waiting(a: Player, b: Player) -> bool:
    return bool(a.unanswered or b.unanswered)


async def _taken(url: str, table_id: int, victim: str | None) -> bool:
    owner, _, live = (await _owners(url))[table_id]
    return live and owner is not None and owner != victim


async def _true(value: bool) -> bool:
    return value
