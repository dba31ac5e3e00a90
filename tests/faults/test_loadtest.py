"""The load client itself: percentiles, the report, its socket, the deadline its players share,
a short run that ends with the audit, and a run over two processes merged into one report."""

from __future__ import annotations

import asyncio
import json
import random
import time
from pathlib import Path
from typing import Any

import httpx
import orjson
from websockets.asyncio.server import ServerConnection, serve

from studpoker.loadtest import LoadConfig, LoadPlayer, Metrics, choose, percentile, run_load
from studpoker.loadtest.client import register
from studpoker.loadtest.config import Control
from studpoker.loadtest.processes import run_load_processes, shares
from studpoker.loadtest.report import LoadReport
from studpoker.loadtest.wire import LightSocket
from tests.server.conftest import make_settings, running_server


def test_percentile_nearest_rank() -> None:
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 0.5) == 50.0
    assert percentile(values, 0.99) == 99.0
    assert percentile(values, 1.0) == 100.0
    assert percentile([], 0.5) == 0.0
    assert percentile([7.0], 0.99) == 7.0


def test_policy_only_picks_offered_options() -> None:
    rng = random.Random(1)
    options: list[dict[str, Any]] = [
        {"kind": "fold"},
        {"kind": "call", "amount": 200},
        {"kind": "raise", "amount": 400},
    ]
    for _ in range(200):
        assert choose(options, rng) in options


def test_report_bar() -> None:
    metrics = Metrics(latencies=[0.01] * 99 + [0.2], actions=100, hands={"a", "b"})
    report = LoadReport.build(
        metrics,
        url="ws://x",
        tables=1,
        players_per_table=2,
        think_time=1.0,
        seconds=10.0,
        players=2,
        seated=2,
        tables_available=1,
        setup_seconds=1.0,
    )
    assert report.latency_ms["p99"] == 10.0 and report.meets()
    metrics.error("stale", "x")
    report.errors = dict(metrics.errors)
    assert not report.meets() and "errors            1" in report.render()
    assert '"meets_bar": false' in report.to_json()


async def test_short_load_run_ends_balanced(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, hand_pause_seconds=0.1)
    async with running_server(settings) as harness:
        for _ in range(2):
            await harness.add_table()
        report = await run_load(
            LoadConfig(
                url=f"ws://{harness.base}",
                tables=3,
                players_per_table=3,
                seconds=4.0,
                think_time=0.05,
                seed=3,
                database_url=settings.database_url,
            )
        )
    assert report.tables_available == 2 and any("only 2" in n for n in report.notes)
    assert report.seated == 6 and report.actions > 0 and report.latency_samples > 0
    assert report.error_count == 0, report.render()
    assert report.audit_balanced is True
    # The server's CPU over the measured window, from its /api/health (in-process here).
    assert report.server_cpu_seconds is not None and report.server_cpu_seconds > 0
    assert report.server_cpu_us_per_action is not None and report.server_cpu_us_per_action > 0
    assert "us per action" in report.render()
    assert report.to_dict()["server_cpu_us_per_action"] == report.server_cpu_us_per_action


def test_what_workers_measured_merges_into_one_run() -> None:
    one = Metrics(latencies=[0.01, 0.02], actions=2, hands={"a", "b"}, drops=1, messages_received=10)
    one.error("stale", "first")
    other = Metrics(latencies=[0.03], actions=1, hands={"b", "c"}, voided={"v"}, timeouts=2)
    other.error("stale", "second")
    other.error("fatal", "third")
    merged = Metrics.from_json(json.loads(json.dumps(one.to_json())))
    merged.merge(Metrics.from_json(json.loads(json.dumps(other.to_json()))))
    assert sorted(merged.latencies) == [0.01, 0.02, 0.03] and merged.actions == 3
    assert merged.hands == {"a", "b", "c"} and merged.voided == {"v"}  # a hand both saw counts once
    assert merged.errors == {"stale": 2, "fatal": 1} and merged.error_samples == ["first", "second", "third"]
    assert (merged.drops, merged.timeouts, merged.messages_received) == (1, 2, 10)


def test_each_worker_gets_every_nth_table() -> None:
    tables: list[dict[str, Any]] = [{"id": n} for n in range(7)]
    assert [[t["id"] for t in s] for s in shares(tables, 3)] == [[0, 3, 6], [1, 4], [2, 5]]
    assert [[t["id"] for t in s] for s in shares(tables[:2], 3)] == [[0], [1]]  # no idle worker


async def test_the_deadline_reaches_every_listener_once() -> None:
    control = Control()
    heard: list[str] = []
    control.listen(1, lambda: heard.append("one"))
    control.listen(2, lambda: heard.append("two"))
    control.unlisten(2)
    control.stop_at = time.monotonic() + 0.05
    control.stop_at = time.monotonic() + 0.2  # moved later: nobody hears the first deadline
    await asyncio.sleep(0.1)
    assert heard == [] and not control.over
    await asyncio.sleep(0.3)
    assert heard == ["one"] and control.over
    control.listen(3, lambda: heard.append("late"))  # the run is over: told at once
    control.stop()
    assert heard == ["one", "late"]


async def test_the_light_socket_speaks_what_browsers_speak(tmp_path: Path) -> None:
    async with running_server(make_settings(tmp_path)) as harness:
        got: list[dict[str, Any]] = []
        socket = await LightSocket.open(
            f"ws://{harness.base}/ws?guest=1",
            lambda data, _: got.append(orjson.loads(data)),
            timeout=20,
            max_size=2**22,
        )
        try:
            # permessage-deflate negotiated, as websockets' and browsers' clients ask for it
            assert [e.name for e in socket.protocol.extensions] == ["permessage-deflate"]
            socket.send(b'{"type":"subscribe_lobby","id":"l"}')
            socket.send(b'{"type":"ping","id":"p"}')
            for _ in range(200):
                if len(got) >= 4:
                    break
                await asyncio.sleep(0.05)
            assert [m["type"] for m in got] == ["welcome", "ack", "lobby", "pong"]
        finally:
            socket.close()
            async with asyncio.timeout(10):
                await socket.closed


async def test_a_run_over_two_processes_is_merged_and_ends_balanced(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, hand_pause_seconds=0.1)
    async with running_server(settings) as harness:
        for _ in range(3):
            await harness.add_table()
        report = await run_load_processes(
            LoadConfig(
                url=f"ws://{harness.base}",
                tables=4,
                players_per_table=2,
                seconds=4.0,
                think_time=0.05,
                seed=5,
                database_url=settings.database_url,
            ),
            2,
        )
    assert report.client_processes == 2 and len(report.client_cpu_by_process) == 3, report.render()
    assert report.seated == report.players == 2 * report.tables_available
    assert report.actions > 0 and report.latency_samples > 0 and report.error_count == 0, report.render()
    assert report.audit_balanced is True and report.server_cpu_seconds is not None
    assert report.client_cpu_seconds == round(sum(report.client_cpu_by_process), 2)
    assert "coordinator" in report.render()


async def test_a_registration_whose_connection_drops_is_sent_again() -> None:
    # The server closes an idle kept-alive connection as the client reuses it (ReadError):
    # thousands of registrations on a busy machine met it; the player registers on a fresh one.
    calls: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        calls.append(request.url.path)
        if len(calls) == 1:
            raise httpx.ReadError("connection closed", request=request)
        return httpx.Response(201, json={"token": "t0k3n"})

    async with httpx.AsyncClient(transport=httpx.MockTransport(answer), base_url="http://room") as http:
        token = await register(http, "lt-00001", "pw", asyncio.Semaphore(1), time.monotonic() + 30)
    assert token == "t0k3n" and calls == ["/api/register", "/api/register"]


async def test_a_player_holds_the_connect_gate_until_the_server_has_checked_its_token() -> None:
    # Thousands of handshakes at once queued on the server's database pool until they timed out:
    # the gate spaces out the token checks, not only the TCP connections.
    events: list[str] = []

    async def slow_room(ws: ServerConnection) -> None:
        auth = json.loads(await ws.recv())
        events.append(f"auth {auth['token']}")
        await asyncio.sleep(0.3)  # the token check
        events.append(f"welcome {auth['token']}")
        await ws.send(json.dumps({"type": "welcome", "account_id": 1}))
        await ws.wait_closed()

    async with serve(slow_room, "127.0.0.1", 0) as server:
        port = server.sockets[0].getsockname()[1]
        config = LoadConfig(url=f"ws://127.0.0.1:{port}", tables=1, players_per_table=2, seconds=1)
        control = Control(asyncio.Semaphore(1))
        async with httpx.AsyncClient() as http:
            players = [
                LoadPlayer(
                    index=i,
                    name=f"p{i}",
                    token=f"t{i}",
                    table_id=1,
                    seat=i,
                    buy_in=100,
                    config=config,
                    metrics=Metrics(),
                    control=control,
                    http=http,
                    rng=random.Random(i),
                )
                for i in (1, 2)
            ]
            tasks = [asyncio.create_task(p.run()) for p in players]
            for _ in range(100):
                if len(events) == 4:
                    break
                await asyncio.sleep(0.05)
            control.stop()
            await asyncio.wait(tasks, timeout=10)
    assert [e.split()[0] for e in events] == ["auth", "welcome", "auth", "welcome"], events
