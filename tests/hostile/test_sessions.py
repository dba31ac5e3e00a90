"""Logout and expiry end every socket of the session (issue 10, point 4): also a socket whose
handshake checked the token just before the logout committed, and a socket whose session
expires while it is open; what such a socket still sends is refused and changes nothing."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import websockets

from studpoker.server import table as actors
from studpoker.server.connections import Connection
from studpoker.server.protocol import ErrorCode
from tests.server.conftest import Harness, make_settings, running_server


class FakeClock:
    """The store's clock, moved by the test (sessions expire by it)."""

    def __init__(self) -> None:
        self.now = datetime.now(UTC)

    def __call__(self) -> datetime:
        return self.now


def logout(harness: Harness, token: str) -> Any:
    return harness.http.post("/api/logout", headers={"Authorization": f"Bearer {token}"})


async def closed_with(ws: Any) -> int | None:
    with pytest.raises(websockets.ConnectionClosed) as info:
        while True:
            await ws.recv()
    return info.value.rcvd.code if info.value.rcvd else None


async def server_connection(harness: Harness, name: str) -> Connection:
    account = await harness.store.account_by_name(name)
    (conn,) = harness.room.connections[account.id].values()
    return conn


async def test_logout_between_token_check_and_attach_refuses_the_socket(
    harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The race, made deterministic: the socket's token check reads the session, then the
    logout commits and closes the session's sockets, then the socket would attach."""
    token = await harness.register("racer")
    store = harness.store
    real_authenticate = store.authenticate
    checked, logged_out = asyncio.Event(), asyncio.Event()

    async def authenticate_then_wait(token: str) -> Any:
        account = await real_authenticate(token)
        monkeypatch.setattr(store, "authenticate", real_authenticate)
        checked.set()
        await logged_out.wait()
        return account

    monkeypatch.setattr(store, "authenticate", authenticate_then_wait)
    async with websockets.connect(f"ws://{harness.base}/ws?token={token}") as ws:
        await asyncio.wait_for(checked.wait(), 10)
        assert (await logout(harness, token)).status_code == 204
        logged_out.set()
        first = json.loads(await ws.recv())
        assert first["type"] == "error" and first["code"] == ErrorCode.UNAUTHORIZED, first
        assert await closed_with(ws) == 4401
    account = await store.account_by_name("racer")
    assert account.id not in harness.room.connections
    assert harness.room.sockets.by_token == {} and harness.room.sockets.handshakes == {}


async def test_logout_closes_every_socket_of_the_session_only(harness: Harness) -> None:
    token = await harness.register("tabs")
    tabs = [await harness.connect(token, f"tab{i}") for i in range(3)]
    other_session = (
        await harness.http.post("/api/login", json={"name": "tabs", "password": "password123"})
    ).json()["token"]
    phone = await harness.connect(other_session, "phone")
    assert (await logout(harness, token)).status_code == 204
    for tab in tabs:
        await asyncio.wait_for(tab.closed.wait(), 10)
        assert tab.log[-1]["code"] == ErrorCode.UNAUTHORIZED
    assert (await phone.request(type="ping"))["type"] == "pong"


async def test_a_message_after_the_logout_is_not_handled(harness: Harness) -> None:
    """A frame the socket had sent when its session was closed (read before the socket shut)."""
    table = await harness.add_table()
    token = await harness.register("late")
    client = await harness.connect(token, "late")
    await harness.seat(client, table.table_id, 1, 4000)
    conn = await server_connection(harness, "late")
    await harness.store.revoke(token)
    harness.room.close_session(token)  # as the logout does once the revocation committed
    await harness.room.handle_raw(conn, json.dumps({"type": "sit_out", "table_id": table.table_id}))
    await table.call(actors.Resync(conn=conn))  # everything submitted before has been handled
    assert table.seats[1].sitting_out is False


async def test_expired_session_refuses_the_next_message_and_closes(harness: Harness) -> None:
    clock = FakeClock()
    harness.store.clock = clock
    table = await harness.add_table()
    client = await harness.player("expiring")
    await harness.seat(client, table.table_id, 1, 4000)
    clock.now += harness.store.session_ttl + timedelta(seconds=1)
    await client.send(type="sit_out", table_id=table.table_id, id="late")
    error = await client.wait_for("error")
    assert error["code"] == ErrorCode.UNAUTHORIZED and "expired" in error["message"], error
    await asyncio.wait_for(client.closed.wait(), 10)
    assert table.seats[1].sitting_out is False
    assert not any(m.get("ref") == "late" and m["type"] == "ack" for m in client.log)


async def test_session_sweep_closes_expired_sockets(tmp_path: Path) -> None:
    async with running_server(make_settings(tmp_path, session_sweep_seconds=0.05)) as h:
        clock = FakeClock()
        h.store.clock = clock
        quiet = await h.player("quiet")
        fresh = await h.player("fresh")
        # Only the first session expires: the second was opened a day later.
        clock.now += timedelta(hours=23)
        later = await h.player("later")
        clock.now += timedelta(hours=2)
        for client in (quiet, fresh):
            await asyncio.wait_for(client.closed.wait(), 10)
            assert client.log[-1]["code"] == ErrorCode.UNAUTHORIZED
        assert (await later.request(type="ping"))["type"] == "pong"
        assert h.room.close_expired_sessions() == 0


async def test_session_expiring_before_attach_is_refused(
    harness: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    token = await harness.register("stale")

    async def already_expired(token: str) -> datetime:
        return harness.store.clock() - timedelta(seconds=1)

    monkeypatch.setattr(harness.store, "session_expires_at", already_expired)
    async with websockets.connect(f"ws://{harness.base}/ws?token={token}") as ws:
        first = json.loads(await ws.recv())
        assert first["type"] == "error" and first["code"] == ErrorCode.UNAUTHORIZED, first
        assert await closed_with(ws) == 4401
