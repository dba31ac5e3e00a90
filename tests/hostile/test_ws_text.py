"""Text a client sends that cannot be echoed as it is (issue 10, point 10): lone UTF-16
surrogates (``"\\ud800"`` in JSON decodes to a string that is not Unicode text) and nesting deeper
than the JSON decoder goes. Each is refused with a clean error, nothing is logged as a failure,
and the socket stays usable."""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import Iterator

import pytest
import websockets

from studpoker.server.protocol import ErrorCode, ErrorMsg, ProtocolError, encode, parse_client_message
from tests.server.conftest import Client, Harness

# Written by hand: json.dumps would escape these the same way (ensure_ascii).
LONE_SURROGATE_ID = '{"type": "ping", "id": "\\ud800"}'
LONE_SURROGATE_KEY = '{"type": "ping", "id": "k1", "\\udc00x": 1}'
LONE_SURROGATE_PAIR_REVERSED = '{"type": "ping", "id": "\\udc00\\ud800"}'
DEEP = '{"type": "ping", "id": "d1", "x": ' + "[" * 1500 + "]" * 1500 + "}"


class _Failures(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@contextlib.contextmanager
def failures_logged() -> Iterator[list[logging.LogRecord]]:
    """Error records of the server and of uvicorn (whose loggers do not propagate to the root,
    so caplog would not see an 'Exception in ASGI application')."""
    handler = _Failures()
    loggers = [logging.getLogger(name) for name in ("", "uvicorn", "uvicorn.error", "studpoker")]
    for logger in loggers:
        logger.addHandler(handler)
    try:
        yield handler.records
    finally:
        for logger in loggers:
            logger.removeHandler(handler)


async def answer(client: Client, raw: str) -> dict[str, object]:
    await client.send_raw(raw)
    return await client.wait_for(lambda m: m["type"] in ("error", "pong", "ack"))


async def test_lone_surrogate_id_is_refused_and_the_socket_stays(harness: Harness) -> None:
    actor = await harness.add_table()
    client = await harness.player("surrogate")
    with failures_logged() as failures:
        for raw in (LONE_SURROGATE_ID, LONE_SURROGATE_PAIR_REVERSED):
            reply = await answer(client, raw)
            assert reply["type"] == "error" and reply["code"] == ErrorCode.BAD_MESSAGE, reply
            assert reply["ref"] is None
        # A sound id is echoed even when another string of the message holds a surrogate.
        reply = await answer(client, LONE_SURROGATE_KEY)
        assert reply["code"] == ErrorCode.BAD_MESSAGE and reply["ref"] == "k1", reply
        sit = json.dumps(
            {"type": "sit", "id": "\ud800", "table_id": actor.table_id, "seat": 1, "buy_in": 4000}
        )
        assert "\\ud800" in sit
        reply = await answer(client, sit)
        assert reply["code"] == ErrorCode.BAD_MESSAGE, reply
        assert not actor.seats
        # Still connected and answering.
        pong = await client.request(type="ping")
        assert pong["type"] == "pong"
        assert not client.closed.is_set()
    assert failures == []


async def test_nesting_too_deep_is_bad_json_and_the_socket_stays(harness: Harness) -> None:
    client = await harness.player("nester")
    with failures_logged() as failures:
        reply = await answer(client, DEEP)
        assert reply["type"] == "error" and reply["code"] == ErrorCode.BAD_JSON, reply
        assert (await client.request(type="ping"))["type"] == "pong"
    assert failures == []


async def test_auth_message_with_a_lone_surrogate_gets_a_clean_refusal(harness: Harness) -> None:
    token = await harness.register("surrogate-auth")
    with failures_logged() as failures:
        async with websockets.connect(f"ws://{harness.base}/ws") as ws:
            await ws.send('{"type": "auth", "id": "\\ud800", "token": "' + token + '"}')
            error = json.loads(await ws.recv())
            assert error["type"] == "error" and error["code"] == ErrorCode.UNAUTHORIZED, error
            assert error["ref"] is None
            with pytest.raises(websockets.ConnectionClosed):
                await ws.recv()
    assert failures == []


def test_parse_refuses_lone_surrogates_anywhere() -> None:
    for raw in (
        LONE_SURROGATE_ID,
        LONE_SURROGATE_KEY,
        '{"type": "action", "table_id": 1, "hand_id": "h\\ud83d", "kind": "call"}',
        '{"type": "ping", "x": [{"y": ["\\udfff"]}]}',
    ):
        with pytest.raises(ProtocolError) as info:
            parse_client_message(raw)
        assert info.value.code == ErrorCode.BAD_MESSAGE, raw
        # The error answering it can be sent.
        encode(ErrorMsg(code=info.value.code, message=info.value.message, ref=info.value.ref)).encode()
    # A proper pair is one character, and fine.
    assert parse_client_message('{"type": "ping", "id": "\\ud83d\\ude00"}').id == "\U0001f600"
    with pytest.raises(ProtocolError) as info:
        parse_client_message(DEEP)
    assert info.value.code == ErrorCode.BAD_JSON


def test_encode_escapes_text_that_is_not_unicode() -> None:
    """If a lone surrogate reached a server message anyway, it is sent escaped, not a failure."""
    text = encode(ErrorMsg(code="bad_message", message="x\udfffy", ref="\ud800"))
    text.encode("utf-8")
    decoded = json.loads(text)
    assert decoded["ref"] == "\ud800" and decoded["message"] == "x\udfffy"
