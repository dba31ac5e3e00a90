"""The WebSocket protocol: authentication, and bad input answered with errors that change nothing."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
import websockets

from studpoker.server.protocol import (
    CLIENT_MESSAGE_TYPES,
    ErrorCode,
    ProtocolError,
    decode_server_message,
    parse_client_message,
)
from studpoker.server.ratelimit import TokenBucket
from tests.server.conftest import Client, Harness, make_settings, running_server


def test_parse_client_messages() -> None:
    msg = parse_client_message('{"type": "sit", "table_id": 3, "seat": 2, "buy_in": 4000, "id": "a"}')
    assert type(msg) is CLIENT_MESSAGE_TYPES["sit"] and msg.id == "a"
    cases = {
        "{nope": ErrorCode.BAD_JSON,
        "[1, 2]": ErrorCode.BAD_MESSAGE,
        '{"type": 5}': ErrorCode.BAD_MESSAGE,
        '{"type": "dance"}': ErrorCode.UNKNOWN_TYPE,
        '{"type": "sit", "table_id": 3, "seat": 0, "buy_in": 10}': ErrorCode.BAD_MESSAGE,
        '{"type": "ping", "extra": 1}': ErrorCode.BAD_MESSAGE,
        '{"type": "action", "table_id": 1, "hand_id": "h", "kind": "call", "amount": -5}': (
            ErrorCode.BAD_MESSAGE
        ),
        json.dumps({"type": "ping", "id": "x" * 5000}): ErrorCode.TOO_LARGE,
    }
    for raw, code in cases.items():
        with pytest.raises(ProtocolError) as info:
            parse_client_message(raw)
        assert info.value.code == code, raw


def test_server_messages_round_trip() -> None:
    text = '{"type": "pong", "ref": "a", "server_time": 1.5}'
    assert decode_server_message(text).model_dump() == {"type": "pong", "ref": "a", "server_time": 1.5}


def test_token_bucket() -> None:
    # The login limiter's tests: tests/server/test_ratelimit.py.
    now = [0.0]
    bucket = TokenBucket(rate=2.0, burst=3.0, clock=lambda: now[0])
    assert [bucket.take() for _ in range(4)] == [True, True, True, False]
    now[0] += 0.5
    assert bucket.take() and not bucket.take()


async def test_websocket_auth(harness: Harness) -> None:
    # No token: the first message must be auth.
    token = await harness.register("alice")
    async with websockets.connect(f"ws://{harness.base}/ws") as ws:
        await ws.send(json.dumps({"type": "auth", "token": token, "id": "1"}))
        welcome = json.loads(await ws.recv())
        assert welcome["type"] == "welcome" and welcome["name"] == "alice"
    async with websockets.connect(f"ws://{harness.base}/ws?token=bogus") as ws:
        error = json.loads(await ws.recv())
        assert error["type"] == "error" and error["code"] == ErrorCode.UNAUTHORIZED
        with pytest.raises(websockets.ConnectionClosed):
            await ws.recv()
    async with websockets.connect(f"ws://{harness.base}/ws") as ws:
        await ws.send(json.dumps({"type": "ping"}))
        error = json.loads(await ws.recv())
        assert error["code"] == ErrorCode.UNAUTHORIZED


async def test_bad_messages_answered(harness: Harness) -> None:
    actor = await harness.add_table("7S", 100, 200)
    client = await harness.player("bob")
    version = actor.version

    async def expect(raw: str | bytes, code: str) -> None:
        await client.send_raw(raw)
        answer = await client.wait_for("error")
        assert answer["code"] == code, answer

    await expect("not json", ErrorCode.BAD_JSON)
    await expect('{"type": "teleport"}', ErrorCode.UNKNOWN_TYPE)
    await expect(json.dumps({"type": "ping", "id": "y" * 5000}), ErrorCode.TOO_LARGE)
    await expect('{"type": "sit", "table_id": "x"}', ErrorCode.BAD_MESSAGE)
    await expect(json.dumps({"type": "join_table", "table_id": 999}), ErrorCode.NOT_FOUND)
    # Table-level refusals carry the id of the request.
    answer = await client.request(type="sit", table_id=actor.table_id, seat=9, buy_in=4000)
    assert answer["type"] == "error" and answer["code"] == ErrorCode.BAD_MESSAGE
    answer = await client.request(type="sit", table_id=actor.table_id, seat=1, buy_in=1)
    assert answer["code"] == ErrorCode.BAD_BUY_IN
    answer = await client.request(type="sit", table_id=actor.table_id, seat=1, buy_in=10**9)
    assert answer["code"] == ErrorCode.BAD_BUY_IN
    answer = await client.request(type="stand_up", table_id=actor.table_id)
    assert answer["code"] == ErrorCode.NOT_SEATED
    answer = await client.request(type="action", table_id=actor.table_id, hand_id="h1", kind="call")
    assert answer["code"] == ErrorCode.NOT_SEATED
    answer = await client.request(type="resync", table_id=actor.table_id)
    assert answer["code"] == ErrorCode.NOT_JOINED
    pong = await client.request(type="ping")
    assert pong["type"] == "pong"
    assert actor.version == version and not actor.seats
    # Still alive and answering.
    answer = await client.request(type="join_table", table_id=actor.table_id)
    assert answer["type"] == "ack"
    state = await client.wait_for("table_state")
    assert state["your_seat"] is None and state["hand"] is None


async def test_flood_rate_limited(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, message_rate=5.0, message_burst=10.0)
    async with running_server(settings) as h:
        client = await h.player("flooder")
        for _ in range(40):
            await client.send(type="ping")
        await asyncio.sleep(0.3)
        kinds = [m.get("code", m["type"]) for m in client.drain()]
        assert kinds.count("pong") >= 10 and kinds.count(ErrorCode.RATE_LIMITED) >= 20
        await asyncio.sleep(0.5)
        assert (await client.request(type="ping"))["type"] == "pong"


async def test_heartbeat_timeout(tmp_path: Path) -> None:
    async with running_server(make_settings(tmp_path, heartbeat_timeout_seconds=0.5)) as h:
        client: Client = await h.player("sleepy")
        await asyncio.wait_for(client.closed.wait(), 5)
        assert client.log[-1]["code"] == "heartbeat_timeout"


async def test_logout_closes_the_socket(harness: Harness) -> None:
    token = await harness.register("leaver")
    client = await harness.connect(token, "leaver")
    response = await harness.http.post("/api/logout", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 204
    await asyncio.wait_for(client.closed.wait(), 5)
    assert client.log[-1]["code"] == ErrorCode.UNAUTHORIZED


async def test_add_chips_between_hands(harness: Harness) -> None:
    actor = await harness.add_table("7S", 100, 200)
    client = await harness.player("topper")
    await harness.seat(client, actor.table_id, 3, 2000)
    answer = await client.request(type="add_chips", table_id=actor.table_id, amount=500)
    assert answer["type"] == "ack"
    assert actor.seats[3].stack == 2500
    too_much = await client.request(type="add_chips", table_id=actor.table_id, amount=10**6)
    assert too_much["code"] == ErrorCode.BAD_BUY_IN and actor.seats[3].stack == 2500
    seats = await harness.store.seats(actor.table_id)
    assert seats[3].stack == 2500
    account = await harness.store.account_by_name("topper")
    assert account.bankroll == harness.store.starting_grant - 2500
