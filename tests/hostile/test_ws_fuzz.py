"""Fuzz the table WebSocket: messages built from the protocol's pydantic models (valid and broken
field by field), random JSON, random bytes, truncated and oversized frames.

Every frame must get exactly one answer (ack / error / pong), never ``internal_error``; the
connection stays up (a frame over the transport limit may close it: then we reconnect); and an
input answered with an error leaves the room exactly as it was (database rows and table actors,
see :meth:`LiveRoom.fingerprint`). The counts go to ``FUZZ_COUNTS`` and are printed.
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from studpoker.server.protocol import CLIENT_MESSAGE_TYPES, MAX_MESSAGE_BYTES
from tests.hostile.conftest import LiveRoom, live_room

EXAMPLES = int(os.environ.get("STUDPOKER_FUZZ_EXAMPLES", "300"))
FUZZ_COUNTS: Counter[str] = Counter()

# ----------------------------------------------------------------------------- strategies

JSON_LEAVES = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=40)
JSON_VALUES = st.recursive(
    JSON_LEAVES,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
    max_leaves=12,
)
NASTY_TEXT = st.sampled_from(
    [
        "",
        "<script>alert(1)</script>",
        "'; DROP TABLE accounts; --",
        "\u0000",
        "\ud7ff\ufffd",
        "x" * 300,
        "../../etc/passwd",
        "%s%s%s",
        "{{7*7}}",
    ]
)
# Text with lone UTF-16 surrogates (hypothesis' text() leaves them out by default; json.dumps
# writes them as \udXXX escapes): not Unicode text, so a reply that echoed one could not be
# encoded. WebSocket frames only (a URL cannot carry them: the REST fuzzer shares NASTY_TEXT).
SURROGATE_TEXT = st.sampled_from(["\ud800", "a\udfffb", "\udc00\ud800"]) | st.text(
    alphabet=st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF, categories=["Cs"]) | st.characters(),
    min_size=1,
    max_size=8,
)
# A message id (echoed as ``ref``): mostly fine, sometimes nasty or holding a surrogate.
MESSAGE_IDS = st.text(max_size=64) | NASTY_TEXT | SURROGATE_TEXT


def _field_strategy(spec: dict[str, Any], table_ids: list[int]) -> st.SearchStrategy[Any]:
    """Values for one JSON-schema property: mostly within its bounds, sometimes just outside,
    sometimes of the wrong type."""
    options = spec.get("anyOf", [spec])
    strategies: list[st.SearchStrategy[Any]] = []
    for option in options:
        kind = option.get("type")
        if kind == "integer":
            lo = option.get("minimum", -(2**40))
            hi = option.get("maximum", 2**40)
            strategies.append(st.integers(lo, min(hi, lo + 10_000)))
            strategies.append(st.sampled_from([lo - 1, hi + 1, lo, hi, *table_ids]))
        elif kind == "string":
            top = option.get("maxLength", 80)
            strategies.append(st.text(max_size=min(top, 40)))
            strategies.append(st.text(min_size=top + 1, max_size=top + 3) if top < 300 else st.just(""))
            strategies.append(NASTY_TEXT)
            strategies.append(SURROGATE_TEXT)
        elif kind == "null":
            strategies.append(st.none())
        elif "const" in option:
            strategies.append(st.just(option["const"]))
    strategies.append(JSON_LEAVES)
    return st.one_of(strategies)


def message_strategy(table_ids: list[int]) -> st.SearchStrategy[dict[str, Any]]:
    """A client message dict built from one of the protocol models."""
    per_type = []
    for type_name, model in CLIENT_MESSAGE_TYPES.items():
        schema = model.model_json_schema()
        props = {k: v for k, v in schema.get("properties", {}).items() if k not in ("type", "id")}
        required = set(schema.get("required", [])) - {"type"}
        fields = {name: _field_strategy(spec, table_ids) for name, spec in props.items()}

        @st.composite
        def build(
            draw: st.DrawFn,
            type_name: str = type_name,
            fields: dict[str, st.SearchStrategy[Any]] = fields,
            required: set[str] = required,
        ) -> dict[str, Any]:
            out: dict[str, Any] = {"type": type_name}
            for name, strategy in fields.items():
                # Optional fields half the time; now and then a required field is dropped.
                if (name in required or draw(st.booleans())) and draw(st.integers(0, 19)) > 0:
                    out[name] = draw(strategy)
            if draw(st.integers(0, 2)) == 0:
                out["id"] = draw(MESSAGE_IDS)
            if draw(st.integers(0, 9)) == 0:
                out[draw(st.sampled_from(["seat", "account_id", "hand", "extra"]))] = draw(JSON_LEAVES)
            if draw(st.integers(0, 19)) == 0:
                out[draw(SURROGATE_TEXT)] = draw(JSON_LEAVES)
            if draw(st.integers(0, 14)) == 0:
                out["type"] = draw(st.sampled_from(["", "Sit", "action ", "admin", "auth"]))
            return out

        per_type.append(build())
    return st.one_of(per_type)


def frames(table_ids: list[int]) -> st.SearchStrategy[tuple[str, str | bytes]]:
    """(label, frame) pairs: model messages, random JSON, random bytes, truncated, oversized."""
    messages = message_strategy(table_ids)
    return st.one_of(
        messages.map(lambda m: ("model", json.dumps(m))),
        messages.map(lambda m: ("model-bytes", json.dumps(m).encode())),
        JSON_VALUES.map(lambda v: ("json", json.dumps(v))),
        st.binary(max_size=200).map(lambda b: ("bytes", b)),
        st.text(max_size=200).map(lambda t: ("text", t)),
        st.tuples(messages, st.integers(1, 60)).map(lambda p: ("truncated", json.dumps(p[0])[: p[1]])),
        st.integers(MAX_MESSAGE_BYTES + 1, 60_000).map(
            lambda n: ("oversized", json.dumps({"type": "ping", "id": "x" * n}))
        ),
        # Nesting deeper than the JSON decoder's recursion limit, within the size limit.
        st.integers(900, MAX_MESSAGE_BYTES // 2 - 20).map(
            lambda n: ("deep", '{"type": "ping", "id": "d", "x": ' + "[" * n + "]" * n + "}")
        ),
    )


# ----------------------------------------------------------------------------- the fuzz client


class Fuzzer:
    def __init__(self, live: LiveRoom, token: str) -> None:
        self.live = live
        self.token = token
        self.ws: ClientConnection | None = None
        self.reconnects = 0
        self.last_close = ""
        self._stack = contextlib.ExitStack()

    def connect(self) -> ClientConnection:
        ws = self._stack.enter_context(
            connect(f"ws://{self.live.base}/ws?token={self.token}", max_size=2**22, open_timeout=10)
        )
        welcome = json.loads(ws.recv(timeout=10))
        assert welcome["type"] == "welcome"
        self.ws = ws
        return ws

    def answer(self, frame: str | bytes) -> dict[str, Any] | None:
        """Send one frame; the ack / error / pong answering it (None if the transport closed)."""
        ws = self.ws or self.connect()
        try:
            ws.send(frame)
            while True:
                message: dict[str, Any] = json.loads(ws.recv(timeout=10))
                if message["type"] in ("ack", "error", "pong"):
                    return message
        except ConnectionClosed as exc:
            self.ws = None
            self.reconnects += 1
            self.last_close = f"{exc.rcvd!r} after {frame[:80]!r}"
            return None

    def close(self) -> None:
        self._stack.close()


@pytest.fixture(scope="module")
def fuzz_room(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LiveRoom, Fuzzer, list[int]]]:
    # No hand ever starts here (a fuzzer that sits next to the sitter would otherwise start one,
    # a change the fuzzer's later, rejected frames did not cause); in-hand input: test_security.
    with live_room(tmp_path_factory.mktemp("wsfuzz"), hand_pause_seconds=10**6) as live:
        table_ids = [live.add_table(), live.add_table("O8")]
        # Someone sits at the first table (one player: no hand starts, the table stays still).
        token, _ = live.register("sitter")
        with connect(f"ws://{live.base}/ws?token={token}") as ws:
            ws.recv(timeout=10)
            ws.send(
                json.dumps({"type": "sit", "id": "s", "table_id": table_ids[0], "seat": 3, "buy_in": 4000})
            )
            while json.loads(ws.recv(timeout=10)).get("ref") != "s":
                pass
            fuzz_token, _ = live.register("fuzzer")
            fuzzer = Fuzzer(live, fuzz_token)
            yield live, fuzzer, table_ids
            fuzzer.close()
        print(f"\nWebSocket fuzz: {dict(FUZZ_COUNTS)} (reconnects {fuzzer.reconnects})")


def test_websocket_fuzz(fuzz_room: tuple[LiveRoom, Fuzzer, list[int]]) -> None:
    run_fuzz(*fuzz_room, examples=EXAMPLES, derandomize=os.environ.get("STUDPOKER_FUZZ_RANDOM") is None)


@pytest.mark.slow
def test_websocket_fuzz_long(fuzz_room: tuple[LiveRoom, Fuzzer, list[int]]) -> None:
    run_fuzz(*fuzz_room, examples=5000, derandomize=False)


def run_fuzz(
    live: LiveRoom, fuzzer: Fuzzer, table_ids: list[int], *, examples: int, derandomize: bool
) -> None:
    start = FUZZ_COUNTS["frames"]
    start_rejected = FUZZ_COUNTS["rejected"]
    baseline = [live.fingerprint()]

    @settings(
        max_examples=examples,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        derandomize=derandomize,
    )
    @given(frames(table_ids))
    def one(item: tuple[str, str | bytes]) -> None:
        label, frame = item
        FUZZ_COUNTS["frames"] += 1
        FUZZ_COUNTS[label] += 1
        reply = fuzzer.answer(frame)
        after = live.fingerprint()
        if reply is None:
            # Only a frame over the transport's own limit (64 KiB) may close the socket.
            assert len(frame) > 64 * 1024 or label == "oversized", (label, frame[:200], fuzzer.last_close)
            FUZZ_COUNTS["closed"] += 1
            assert after == baseline[0]
            return
        assert reply.get("code") != "internal_error", (label, frame[:300], reply)
        if reply["type"] == "error":
            FUZZ_COUNTS["rejected"] += 1
            assert after == baseline[0], (label, frame[:300], reply)
        else:
            FUZZ_COUNTS["accepted"] += 1
            # An accepted command may still be writing (stand_up is acknowledged before its
            # cash-out commits): the new baseline is the state once it is stable.
            for _ in range(50):
                time.sleep(0.02)
                settled = live.fingerprint()
                if settled == after:
                    break
                after = settled
            baseline[0] = after

    one()
    frames_sent = FUZZ_COUNTS["frames"] - start
    assert frames_sent >= examples * 0.9
    assert FUZZ_COUNTS["rejected"] - start_rejected > frames_sent // 2
    assert live.actors_alive()
    assert live.audit_balanced()


def test_flood_is_rate_limited_then_cut(tmp_path: Path) -> None:
    """With the real limits a flood is answered with rate_limited, then the socket is closed."""
    with live_room(tmp_path, message_rate=10.0, message_burst=30.0) as live:
        token, _ = live.register("flooder")
        before = live.fingerprint()
        codes: Counter[str] = Counter()
        with connect(f"ws://{live.base}/ws?token={token}") as ws:
            ws.recv(timeout=10)
            # The server may cut the socket before the client has sent all 400 (a slow client
            # on a loaded machine): what it answered before the cut is still read.
            with contextlib.suppress(ConnectionClosed):
                for _ in range(400):
                    ws.send(json.dumps({"type": "ping"}))
            try:
                for _ in range(400):
                    message = json.loads(ws.recv(timeout=10))
                    codes[message.get("code") or message["type"]] += 1
            except ConnectionClosed:
                pass
        assert codes["rate_limited"] > 100 and codes["pong"] <= 60, codes
        assert live.fingerprint() == before
