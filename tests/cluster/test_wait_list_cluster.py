"""The wait list in the cluster (issue 15, docs/cluster.md "Shared state"): the list lives with
the table's owner. A player on gateway 1 joins the wait list of a full table whose two players
are on gateway 2; one of them stands up; the offer reaches the waiting player on gateway 1
(``account.<id>.out``), the seat is held for him against the other gateway's player, and he
takes it. The gateways are reached directly (each one's address in ``cluster.json``), not
through HAProxy, which would pick them for us."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
import websockets

from studpoker.server.protocol import ErrorCode
from studpoker.store import Store
from studpoker.store.models import TableConfig
from tests.cluster.conftest import ClusterUp, LaunchCluster
from tests.cluster.test_roles import _owners, _until
from tests.server.conftest import Client

# One cluster for this module's test, in one xdist worker (--dist loadgroup).
pytestmark = pytest.mark.xdist_group("test_wait_list_cluster")

HEADS_UP = "Heads-up wait list"


def gateways(up: ClusterUp) -> list[str]:
    """The gateways' addresses (host:port), by name."""
    found = {p["name"]: p["address"] for p in up.info()["processes"] if p["role"] == "gateway"}
    return [found[name] for name in sorted(found)]


async def two_seat_table(url: str) -> None:
    """The only table: two seats (cluster up then creates no default tables)."""
    store = await Store.open(url)
    try:
        await store.create_table(TableConfig.derive(HEADS_UP, "7S", 100, 200, max_seats=2))
    finally:
        await store.close()


@contextlib.asynccontextmanager
async def account(gateway: str, name: str) -> AsyncIterator[tuple[Client, str]]:
    """A new account's socket on ``gateway`` (welcomed), and its session token."""
    async with httpx.AsyncClient(base_url=f"http://{gateway}", timeout=10) as http:
        answer = await http.post("/api/register", json={"name": name, "password": "password123"})
        assert answer.status_code == 201, answer.text
        token = answer.json()["token"]
    ws = await websockets.connect(f"ws://{gateway}/ws?token={token}", max_size=2**22)
    client = Client(ws, name)
    try:
        await client.wait_for("welcome")
        yield client, token
    finally:
        await client.close()


async def ok(client: Client, **message: Any) -> dict[str, Any]:
    answer = await client.request(timeout=10, **message)
    assert answer["type"] == "ack", (client.name, answer)
    return answer


def wait_list(**fields: Any) -> Any:
    return lambda m: m["type"] == "wait_list" and all(m.get(k) == v for k, v in fields.items())


async def seen(client: Client, predicate: Any, timeout: float = 10.0) -> dict[str, Any]:
    """The first message ``client`` got for which ``predicate`` holds, however it was read: the
    owner's ``wait_list`` (``account.<id>.out``) and its ``ack`` (``gw.<gateway>.out``) travel on
    two subjects, in either order."""
    deadline = time.monotonic() + timeout
    while True:
        found = next((m for m in client.log if predicate(m)), None)
        if found is not None:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(
                f"{client.name}: no such message; got: {[m.get('type') for m in client.log]}"
            )
        await asyncio.sleep(0.05)


@pytest.fixture
def up(launch_cluster: LaunchCluster) -> ClusterUp:
    sets = {"hand_pause_seconds": 0.3, "shutdown_grace_seconds": 1}
    return launch_cluster(gateways=2, workers=2, sets=sets, prepare=two_seat_table)


async def test_a_freed_seat_is_offered_across_gateways(up: ClusterUp) -> None:
    one, two = gateways(up)
    async with httpx.AsyncClient(base_url=f"http://{two}", timeout=10) as http:
        lines = (await http.get("/api/tables")).json()
        table_id = int(next(t for t in lines if t["name"] == HEADS_UP)["id"])

        async def owned() -> bool:
            owner, _, live = (await _owners(up.database_url))[table_id]
            return live and owner is not None

        await _until(owned, "the table's owner", timeout=30)
        async with (
            account(two, "ann") as (ann, _),
            account(two, "ben") as (ben, _),
            account(one, "cara") as (cara, _),
        ):
            # Ann and ben (gateway 2) fill the table; each sits out, so no hand holds a seat.
            for seat, client in ((1, ann), (2, ben)):
                await ok(client, type="join_table", table_id=table_id)
                await ok(client, type="sit", table_id=table_id, seat=seat, buy_in=2000)
                await ok(client, type="sit_out", table_id=table_id)
            # Cara (gateway 1) joins the list, from the lobby, of a table she never watched.
            await ok(cara, type="subscribe_lobby")
            await ok(cara, type="join_wait_list", table_id=table_id)
            first = await seen(cara, wait_list(table_id=table_id, position=1))
            assert first["waiting"] == 1 and first["offer"] is None
            # Every gateway's lobby counts her (the owner's line).

            async def counted() -> bool:
                line = next(t for t in (await http.get("/api/tables")).json() if t["id"] == table_id)
                return bool(line["waiting"] == 1)

            await _until(counted, "the lobby line's count on gateway 2", timeout=10)
            # Refused where it is decided, on the owner: a seated player may not join.
            refused = await ann.request(timeout=10, type="join_wait_list", table_id=table_id)
            assert (refused["type"], refused.get("code")) == ("error", ErrorCode.ALREADY_SEATED), refused
            # Ben stands up on gateway 2: the seat is offered to cara on gateway 1.
            await ok(ben, type="stand_up", table_id=table_id)
            offered = await seen(cara, lambda m: wait_list(table_id=table_id)(m) and m["offer"] is not None)
            assert offered["offer"]["seat"] == 2
            assert offered["offer"]["expires_at"] > time.time()
            # The seat is held for her: ben, back on gateway 2, may not take it.
            held = await ben.request(timeout=10, type="sit", table_id=table_id, seat=2, buy_in=2000)
            assert (held["type"], held.get("code")) == ("error", ErrorCode.SEAT_OFFERED), held
            # She takes it with a sit, and is off the list.
            await ok(cara, type="join_table", table_id=table_id)
            await ok(cara, type="sit", table_id=table_id, seat=2, buy_in=2000)
            done = await seen(cara, wait_list(table_id=table_id, position=None))
            assert done["note"] == "you have your seat: off the wait list"
            # Leaving a list one is not on is refused by the owner too.
            left = await cara.request(timeout=10, type="leave_wait_list", table_id=table_id)
            assert (left["type"], left.get("code")) == ("error", ErrorCode.NOT_WAITING), left
    store = await Store.open(up.database_url, migrate_schema=False)
    try:
        report = await store.audit()
        assert report.balanced, report.render()
    finally:
        await store.close()
