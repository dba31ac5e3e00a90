"""The fan-out caps (issue 10, point 2): one account cannot make the room broadcast without
bound. Seat updates are coalesced; seat-state commands are limited per account and table;
sockets per account and per address, and watchers per table, are capped. Every assertion counts
frames or refusals (no timing)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import websockets

from studpoker.server.protocol import ErrorCode
from tests.server.conftest import Client, Harness, make_settings, running_server


def is_seats(message: dict[str, Any]) -> bool:
    return bool(message["type"] == "event" and message["event"]["kind"] == "seats")


async def watch(client: Client, table_id: int) -> None:
    assert (await client.request(type="join_table", table_id=table_id))["type"] == "ack"
    await client.wait_for("table_state")


async def settle(client: Client) -> None:
    """Everything the room queued for ``client`` so far has arrived (a pong comes after it)."""
    assert (await client.request(type="ping"))["type"] == "pong"


async def refused_socket(harness: Harness, query: str) -> tuple[dict[str, Any], int | None]:
    """Open a socket that the room refuses: its one message and the close code."""
    async with websockets.connect(f"ws://{harness.base}/ws?{query}") as ws:
        message = json.loads(await ws.recv())
        try:
            await ws.recv()
        except websockets.ConnectionClosed as exc:
            return message, exc.rcvd.code if exc.rcvd else None
    raise AssertionError("the socket stayed open")


async def until(predicate: Any, timeout: float = 10.0) -> None:
    async def poll() -> None:
        while not predicate():
            await asyncio.sleep(0.01)

    await asyncio.wait_for(poll(), timeout)


async def test_seat_toggles_reach_watchers_coalesced(tmp_path: Path) -> None:
    # A long interval: every change after the first waits for the next frame (sent here by
    # hand, as the interval's end would), so the count does not depend on timing. Nor do the
    # 40 toggles on the socket's token bucket: its burst holds them all (sent faster than
    # ``message_rate`` refills a smaller one, one was refused and its request never answered).
    settings = make_settings(
        tmp_path,
        seats_push_seconds=3600.0,
        seat_commands_per_window=1000,
        message_rate=1000.0,
        message_burst=1000.0,
    )
    async with running_server(settings) as h:
        actor = await h.add_table()
        toggler = await h.player("toggler")
        watcher = await h.player("watcher")
        await watch(watcher, actor.table_id)
        await h.seat(toggler, actor.table_id, 1, 4000)
        first = await watcher.wait_for(is_seats)
        assert first["event"]["reason"] == "sat"  # the first change of a quiet table: at once
        for i in range(40):
            kind = "sit_out" if i % 2 == 0 else "sit_in"
            assert (await toggler.request(type=kind, table_id=actor.table_id))["type"] == "ack"
        await settle(watcher)
        assert sum(1 for m in watcher.log if is_seats(m)) == 1  # 40 changes, no frame yet
        actor.seat_changes.flush()
        last = await watcher.wait_for(is_seats)
        assert last["event"]["changes"] == [{"seat": 1, "reason": "sat_in"}]
        assert last["event"]["seats"][0]["sitting_out"] is False
        # 41 changes, 2 frames, and no version skipped (the watcher needs no resync).
        seats_frames = [m for m in watcher.log if is_seats(m)]
        assert len(seats_frames) == 2
        assert last["version"] == first["version"] + 1 == actor.version


async def test_coalesced_seat_changes_are_sent_when_the_interval_ends(tmp_path: Path) -> None:
    async with running_server(make_settings(tmp_path, seats_push_seconds=0.05)) as h:
        actor = await h.add_table()
        toggler = await h.player("toggler")
        watcher = await h.player("watcher")
        await watch(watcher, actor.table_id)
        await h.seat(toggler, actor.table_id, 1, 4000)
        for kind in ("sit_out", "sit_in", "sit_out"):
            assert (await toggler.request(type=kind, table_id=actor.table_id))["type"] == "ack"
        # The last change is never lost: a frame with the seat sitting out arrives by itself.
        await watcher.wait_for(lambda m: is_seats(m) and m["event"]["seats"][0]["sitting_out"] is True)


async def test_pending_seat_changes_go_out_before_the_next_table_message(tmp_path: Path) -> None:
    async with running_server(make_settings(tmp_path, seats_push_seconds=3600.0)) as h:
        actor = await h.add_table()
        alice = await h.player("alice")
        bob = await h.player("bob")
        watcher = await h.player("watcher")
        await watch(watcher, actor.table_id)
        await h.seat(alice, actor.table_id, 1, 4000)
        await h.seat(bob, actor.table_id, 2, 4000)  # waits for the interval... or the next message
        started = await watcher.wait_for("hand_started")
        before = [m for m in watcher.log[: watcher.log.index(started)] if is_seats(m)]
        assert [s["seat"] for s in before[-1]["event"]["seats"]] == [1, 2]
        # The seat list, then the next hand's seed commitment (protocol 1.4), then the hand.
        announced = next(m for m in watcher.log if m.get("event", {}).get("kind") == "deal_commitment")
        assert before[-1]["version"] == announced["version"] - 1 == started["version"] - 2


async def test_seat_commands_are_limited_per_account_and_table(tmp_path: Path) -> None:
    settings = make_settings(
        tmp_path, seat_commands_per_window=4, seat_command_window_seconds=3600.0, hand_pause_seconds=3600.0
    )
    async with running_server(settings) as h:
        table = await h.add_table()
        other_table = await h.add_table()
        toggler = await h.player("toggler")
        await h.seat(toggler, table.table_id, 1, 4000)  # 1 of 4
        for kind in ("sit_out", "sit_in", "sit_out"):  # 2, 3, 4
            assert (await toggler.request(type=kind, table_id=table.table_id))["type"] == "ack"
        version = table.version
        refused = await toggler.request(type="sit_in", table_id=table.table_id)
        assert refused["type"] == "error" and refused["code"] == ErrorCode.SEAT_RATE_LIMITED, refused
        assert refused["table_id"] == table.table_id
        assert table.seats[1].sitting_out is True and table.version == version  # nothing changed
        # Another account at the same table, and the same account at another table, are not held.
        other = await h.player("other")
        await h.seat(other, table.table_id, 2, 4000)
        await h.seat(toggler, other_table.table_id, 1, 4000)
        assert len(h.room.dispatcher.seat_commands) == 3


async def test_sockets_per_account_are_capped(tmp_path: Path) -> None:
    async with running_server(make_settings(tmp_path, max_sockets_per_account=2)) as h:
        token = await h.register("tabs")
        first = await h.connect(token, "tab1")
        await h.connect(token, "tab2")
        error, code = await refused_socket(h, f"token={token}")
        assert error["type"] == "error" and error["code"] == ErrorCode.TOO_MANY_CONNECTIONS, error
        assert code == 1013
        account = await h.store.account_by_name("tabs")
        assert len(h.room.connections[account.id]) == 2
        # A socket closed frees its place.
        await first.close()
        await until(lambda: len(h.room.connections[account.id]) == 1)
        await h.connect(token, "tab3")


async def test_sockets_per_address_are_capped_guests_included(tmp_path: Path) -> None:
    async with running_server(make_settings(tmp_path, max_sockets_per_address=3)) as h:
        alice = await h.register("alice")
        await h.connect(alice, "a1")
        await h.connect(alice, "a2")
        await h.connect(await h.register("bob"), "b1")
        error, code = await refused_socket(h, f"token={await h.register('carol')}")
        assert error["code"] == ErrorCode.TOO_MANY_CONNECTIONS and code == 1013, error
        error, code = await refused_socket(h, "guest=1")
        assert error["code"] == ErrorCode.TOO_MANY_CONNECTIONS and code == 1013, error
        # Nothing of the refused sockets stays counted.
        assert h.room.guest_count == 0 and h.room.sockets.by_address == {"127.0.0.1": 3}


async def test_watchers_per_table_are_capped_seated_players_exempt(tmp_path: Path) -> None:
    async with running_server(make_settings(tmp_path, max_watchers_per_table=2)) as h:
        table = await h.add_table()
        token = await h.register("player")
        player = await h.connect(token, "player")
        await h.seat(player, table.table_id, 1, 4000)  # watcher 1
        first = await h.player("rail1")
        await watch(first, table.table_id)  # watcher 2
        second = await h.player("rail2")
        refused = await second.request(type="join_table", table_id=table.table_id)
        assert refused["type"] == "error" and refused["code"] == ErrorCode.TOO_MANY_WATCHERS, refused
        assert len(table.watchers) == 2
        # The seated player's second tab rejoins his table at once although it is full.
        again = await h.connect(token, "player-tab2")
        await again.wait_for("table_state")
        assert len(table.watchers) == 3
        # Watchers leaving free places.
        for client in (first, again):
            assert (await client.request(type="leave_table", table_id=table.table_id))["type"] == "ack"
        await watch(second, table.table_id)
        assert len(table.watchers) == 2


async def test_a_burst_of_sockets_is_refused_before_the_database(tmp_path: Path) -> None:
    """Sockets still checking their token count against the caps: of a burst with one token
    (or from one address), only as many as the cap ever read the session."""
    settings = make_settings(tmp_path, max_sockets_per_account=2, max_sockets_per_address=4)
    async with running_server(settings) as h:
        tokens = [await h.register(f"burst{i}") for i in range(2)]
        real_authenticate = h.store.authenticate
        release = asyncio.Event()
        checks: list[str] = []

        async def counted_authenticate(token: str) -> Any:
            checks.append(token)
            await release.wait()
            return await real_authenticate(token)

        h.store.authenticate = counted_authenticate

        async def open_one(token: str) -> str:
            async with websockets.connect(f"ws://{h.base}/ws?token={token}") as ws:
                return str(json.loads(await ws.recv()).get("code") or "welcome")

        # One token: 2 reach the store, 4 are refused at once.
        first = [asyncio.create_task(open_one(tokens[0])) for _ in range(6)]
        await until(lambda: sum(t.done() for t in first) == 4)
        assert len(checks) == 2
        # Another token from the same address: 2 more places of the address's 4.
        second = [asyncio.create_task(open_one(tokens[1])) for _ in range(4)]
        await until(lambda: sum(t.done() for t in second) == 2)
        assert len(checks) == 4
        refused = [t.result() for t in [*first, *second] if t.done()]
        assert refused == [ErrorCode.TOO_MANY_CONNECTIONS] * 6
        release.set()
        outcomes = await asyncio.gather(*first, *second)
        assert outcomes.count("welcome") == 4 and len(checks) == 4
