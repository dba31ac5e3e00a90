"""The wait list in the cluster (issue 15, docs/cluster.md "Shared state"): the list lives with
the table's owner. Every client connects through HAProxy (``balance leastconn``), and the test
reads from the gateways' access logs where each socket landed: ben, who stands up, and cara,
opened while his socket is open, are on different gateways (asserted); ann lands on either.
Cara joins the wait list of the full two-seat table; ben stands up; the offer reaches cara on
her gateway (``account.<id>.out``), the seat is held for her against ben on the other gateway,
and she takes it."""

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
from tests.cluster.conftest import ClusterUp, LaunchCluster, until
from tests.cluster.test_roles import _owners, _until
from tests.server.conftest import Client

# One cluster for this module's test, in one xdist worker (--dist loadgroup).
pytestmark = pytest.mark.xdist_group("test_wait_list_cluster")

HEADS_UP = "Heads-up wait list"


def gateways(up: ClusterUp) -> list[str]:
    """The gateways' addresses (host:port), by name."""
    found = {p["name"]: p["address"] for p in up.info()["processes"] if p["role"] == "gateway"}
    return [found[name] for name in sorted(found)]


def proxy(up: ClusterUp) -> str:
    """HAProxy's address (host:port): where the clients connect."""
    return str(up.info()["url"]).removeprefix("http://").rstrip("/")


def _access_logs(up: ClusterUp) -> dict[str, list[str]]:
    """Each gateway's log lines (its access log among them), by name."""
    names = sorted(p["name"] for p in up.info()["processes"] if p["role"] == "gateway")
    return {name: (up.directory / "logs" / f"{name}.log").read_text().splitlines() for name in names}


def checked_by_haproxy(up: ClusterUp) -> bool:
    """Every gateway has passed one of HAProxy's health checks (HTTP/1.0; ``rise 1``): HAProxy
    counts it up, so leastconn chooses among all of them."""
    check = '"GET /api/health HTTP/1.0" 200'
    return all(any(check in line for line in lines) for lines in _access_logs(up).values())


def accepted(up: ClusterUp) -> dict[str, int]:
    """How many WebSockets each gateway has accepted so far (its access log)."""
    return {
        name: sum('"WebSocket /ws' in line and line.endswith("[accepted]") for line in lines)
        for name, lines in _access_logs(up).items()
    }


async def landed(up: ClusterUp, before: dict[str, int], timeout: float = 10.0) -> str:
    """The gateway that accepted the one socket opened since ``before`` (:func:`accepted`)."""
    deadline = time.monotonic() + timeout
    while True:
        now = accepted(up)
        changed = {name: count - before.get(name, 0) for name, count in now.items()}
        grown = {name: more for name, more in changed.items() if more}
        if grown:
            assert list(grown.values()) == [1], f"one socket, one gateway: {grown}"
            return next(iter(grown))
        assert time.monotonic() < deadline, f"no gateway logged the socket: {now}"
        await asyncio.sleep(0.05)


async def two_seat_table(url: str) -> None:
    """The only table: two seats (cluster up then creates no default tables)."""
    store = await Store.open(url)
    try:
        await store.create_table(TableConfig.derive(HEADS_UP, "7S", 100, 200, max_seats=2))
    finally:
        await store.close()


@contextlib.asynccontextmanager
async def account(address: str, name: str) -> AsyncIterator[tuple[Client, str]]:
    """A new account's socket at ``address`` (HAProxy's or a gateway's; welcomed, pinging as a
    browser does), and its session token."""
    async with httpx.AsyncClient(base_url=f"http://{address}", timeout=10) as http:
        answer = await http.post("/api/register", json={"name": name, "password": "password123"})
        assert answer.status_code == 201, answer.text
        token = answer.json()["token"]
    ws = await websockets.connect(f"ws://{address}/ws?token={token}", max_size=2**22)
    client = Client(ws, name)
    try:
        await client.wait_for("welcome")
        client.keep_alive()
        yield client, token
    finally:
        await client.close()


@contextlib.asynccontextmanager
async def placed(up: ClusterUp, name: str) -> AsyncIterator[tuple[Client, str]]:
    """A new account's socket through HAProxy, and the gateway it landed on."""
    before = accepted(up)
    async with account(proxy(up), name) as (client, _):
        yield client, await landed(up, before)


async def ok(client: Client, **message: Any) -> dict[str, Any]:
    answer = await client.request(timeout=10, **message)
    assert answer["type"] == "ack", (client.name, answer)
    return answer


def wait_list(**fields: Any) -> Any:
    return lambda m: m["type"] == "wait_list" and all(m.get(k) == v for k, v in fields.items())


def lobby_of(client: Client) -> dict[int, dict[str, Any]]:
    """The lobby as ``client``'s gateway pushed it (after ``subscribe_lobby``): each table's
    latest line, by id."""
    lines: dict[int, dict[str, Any]] = {}
    for message in client.log:
        if message["type"] in ("lobby", "lobby_update"):
            lines.update({int(line["id"]): line for line in message["tables"]})
    return lines


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
    async with httpx.AsyncClient(base_url=f"http://{proxy(up)}", timeout=10) as http:
        lines = (await http.get("/api/tables")).json()
        table_id = int(next(t for t in lines if t["name"] == HEADS_UP)["id"])

        async def owned() -> bool:
            owner, _, live = (await _owners(up.database_url))[table_id]
            return live and owner is not None

        await _until(owned, "the table's owner", timeout=30)
        await until(lambda: checked_by_haproxy(up), "HAProxy's health checks on every gateway", timeout=10)
        # Ben first, then cara while his socket is open: leastconn gives her the other gateway.
        async with placed(up, "ben") as (ben, ben_at), placed(up, "cara") as (cara, cara_at):
            assert ben_at != cara_at, (ben_at, cara_at)
            async with placed(up, "ann") as (ann, _):
                await _offered_across(http, table_id, ann, ben, cara)
    store = await Store.open(up.database_url, migrate_schema=False)
    try:
        report = await store.audit()
        assert report.balanced, report.render()
    finally:
        await store.close()


async def _offered_across(
    http: httpx.AsyncClient, table_id: int, ann: Client, ben: Client, cara: Client
) -> None:
    """Ann and ben fill the table, cara (on the other gateway than ben's) waits, ben stands up."""
    # Each sits out, so no hand holds a seat.
    for seat, client in ((1, ann), (2, ben)):
        await ok(client, type="join_table", table_id=table_id)
        await ok(client, type="sit", table_id=table_id, seat=seat, buy_in=2000)
        await ok(client, type="sit_out", table_id=table_id)
    # Cara joins the list, from the lobby, of a table she never watched; ben watches the lobby
    # on his gateway.
    await ok(cara, type="subscribe_lobby")
    await ok(ben, type="subscribe_lobby")
    await ok(cara, type="join_wait_list", table_id=table_id)
    first = await seen(cara, wait_list(table_id=table_id, position=1))
    assert first["waiting"] == 1 and first["offer"] is None

    # Every gateway's lobby counts her (the owner's line): both gateways' pushes, and REST.
    async def counted() -> bool:
        line = next(t for t in (await http.get("/api/tables")).json() if t["id"] == table_id)
        pushed = [lobby_of(c).get(table_id, {}).get("waiting") for c in (cara, ben)]
        return bool(line["waiting"] == 1 and pushed == [1, 1])

    await _until(counted, "the lobby line's count on both gateways", timeout=10)
    # Refused where it is decided, on the owner: a seated player may not join.
    refused = await ann.request(timeout=10, type="join_wait_list", table_id=table_id)
    assert (refused["type"], refused.get("code")) == ("error", ErrorCode.ALREADY_SEATED), refused
    # Ben stands up on his gateway: the seat is offered to cara on hers.
    await ok(ben, type="stand_up", table_id=table_id)
    offered = await seen(cara, lambda m: wait_list(table_id=table_id)(m) and m["offer"] is not None)
    assert offered["offer"]["seat"] == 2
    assert offered["offer"]["expires_at"] > time.time()
    # The seat is held for her: ben, back on his gateway, may not take it.
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
