"""The lobby and watching: average pot and hands/hour, guests (watching without an account),
the deck commitment in the snapshot, the lobby push, bot flags, and a history writer that fails."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest
import websockets

from studpoker.server import store_adapter
from studpoker.server.bots import start_bots
from studpoker.server.table import table_stats
from tests.server.conftest import Client, Harness, autoplay, make_settings, running_server
from tests.server.test_bots import leaks


async def guest(harness: Harness, name: str = "guest") -> Client:
    ws = await websockets.connect(f"ws://{harness.base}/ws?guest=1", max_size=2**22)
    client = Client(ws, name)
    harness.clients.append(client)
    return client


async def play_hands(harness: Harness, table_id: int, hands: int, names: tuple[str, str]) -> list[Any]:
    alice, bob = await harness.player(names[0]), await harness.player(names[1])
    await harness.seat(alice, table_id, 1, 4000)
    await harness.seat(bob, table_id, 2, 4000)
    finished = await asyncio.gather(autoplay(alice, hands), autoplay(bob, hands))
    return finished[0]


def pot_of(finished: dict[str, Any]) -> int:
    return sum(finished["result"]["contributions"].values())


async def test_average_pot_and_hands_per_hour(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    async with running_server(settings) as harness:
        actor = await harness.add_table("7S", 100, 200)
        other = await harness.add_table("RZ", 100, 200)
        tables = {t["id"]: t for t in (await harness.http.get("/api/tables")).json()}
        assert tables[actor.table_id]["average_pot"] is None
        assert tables[actor.table_id]["hands_per_hour"] == 0
        finished = await play_hands(harness, actor.table_id, 3, ("alice", "bob"))
        pots = [pot_of(f) for f in finished]
        await asyncio.sleep(0.1)
        tables = {t["id"]: t for t in (await harness.http.get("/api/tables")).json()}
        line = tables[actor.table_id]
        assert line["hands_played"] >= 3
        # The hand after the third may have finished too: the average is over every hand.
        assert line["average_pot"] is not None and line["average_pot"] > 0
        if line["hands_played"] == 3:
            assert line["average_pot"] == round(sum(pots) / 3)
        # A fresh room: 3 hands in its first minutes count as at most 12 times that an hour.
        assert 3 <= line["hands_per_hour"] <= 12 * line["hands_played"]
        assert tables[other.table_id]["average_pot"] is None
        one = (await harness.http.get(f"/api/tables/{actor.table_id}")).json()
        assert one["average_pot"] == line["average_pot"] or one["hands_played"] > line["hands_played"]
        for client in harness.clients:
            await client.request(type="stand_up", table_id=actor.table_id)
        for _ in range(100):
            if not actor.seats:
                break
            await asyncio.sleep(0.05)
        played = actor.hands_played
        average = actor.stats()[0]
    # A restart reads the stored hands: the statistics survive it.
    async with running_server(settings) as harness:
        line = (await harness.http.get(f"/api/tables/{actor.table_id}")).json()
        assert line["hands_played"] == 0  # this run's count
        assert line["average_pot"] == average
        assert line["hands_per_hour"] >= played


def test_stats_window() -> None:
    """An hour's window; the rate is extrapolated (from at least five minutes) after a start."""
    recent = [(10_050.0, 100), (10_090.0, 300)]

    def stats(now: float, pots: list[tuple[float, int]] = recent) -> tuple[int | None, int]:
        return table_stats(pots, watched_since=10_000.0, now=now)

    assert stats(10_100.0, []) == (None, 0)
    assert stats(10_100.0) == (200, 24)  # 2 hands in the first 5 minutes
    assert stats(10_000.0 + 1800) == (200, 4)  # 2 hands in half an hour
    assert stats(10_000.0 + 3600 + 60) == (300, 1)  # the first one left the window
    assert stats(20_000.0) == (None, 0)
    # Hands seeded from the store, older than the start: the whole hour counts.
    assert stats(10_000.0, [(7_000.0, 50), (9_900.0, 150)]) == (100, 2)


async def test_guest_watches_and_may_not_play(tmp_path: Path) -> None:
    async with running_server(make_settings(tmp_path, max_guests_per_address=2)) as harness:
        actor = await harness.add_table("7S", 100, 200)
        watcher = await guest(harness)
        welcome = await watcher.wait_for("welcome")
        assert welcome["guest"] is True and welcome["account_id"] is None and welcome["protocol"] == 1
        assert welcome["protocol_minor"] >= 1
        answer = await watcher.request(type="join_table", table_id=actor.table_id)
        assert answer["type"] == "ack"
        state = await watcher.wait_for("table_state")
        assert state["your_seat"] is None
        messages: list[dict[str, Any]] = [
            {"type": "sit", "table_id": actor.table_id, "seat": 3, "buy_in": 4000},
            {"type": "action", "table_id": actor.table_id, "hand_id": "x", "kind": "fold"},
            {"type": "sit_in", "table_id": actor.table_id},
            {"type": "stand_up", "table_id": actor.table_id},
            {"type": "add_chips", "table_id": actor.table_id, "amount": 100},
        ]
        for message in messages:
            refused = await watcher.request(**message)
            assert refused["type"] == "error" and refused["code"] == "login_required", refused
        assert 3 not in actor.seats
        finished = await play_hands(harness, actor.table_id, 1, ("alice", "bob"))
        seen = await watcher.wait_for(
            lambda m: m["type"] == "hand_finished" and m["hand_id"] == finished[0]["hand_id"]
        )
        # The end of the hand shows a guest no deck: only the root all were given (protocol 1.4).
        assert "deck_order" not in seen and seen["commitment"] == finished[0]["commitment"]
        # Everything the guest got is the spectator's view: no down card before it is shown.
        hand_id = finished[0]["hand_id"]
        down: dict[int, set[str]] = {}
        for player in harness.clients[1:3]:
            account = next(m["account_id"] for m in player.log if m["type"] == "welcome")
            for m in player.log:
                event = m.get("event") or {}
                if (
                    m.get("hand_id") == hand_id
                    and event.get("kind") == "deal"
                    and event.get("detail") == "down"
                ):
                    down.setdefault(account, set()).update(c for c in event["cards"] if c)
        assert sum(len(cards) for cards in down.values()) >= 6
        assert not leaks(watcher.raw, None, {hand_id: down})
        # Resync and ping work; rate limits apply to guests as to everyone.
        assert (await watcher.request(type="resync", table_id=actor.table_id))["type"] == "ack"
        assert (await watcher.request(type="ping"))["type"] == "pong"
        for _ in range(60):
            await watcher.send(type="ping")
        limited = await watcher.wait_for(lambda m: m.get("code") == "rate_limited")
        assert limited["type"] == "error"
        # The cap: two guests from this address at once; a third is refused and closed.
        second = await guest(harness, "second")
        assert (await second.wait_for("welcome"))["guest"] is True
        third = await guest(harness, "third")
        refused = await third.wait_for("error")
        assert refused["code"] == "too_many_guests"
        await asyncio.wait_for(third.closed.wait(), 5)
        assert harness.room.guest_count == 2
        await second.close()
        for _ in range(100):
            if harness.room.guest_count == 1:
                break
            await asyncio.sleep(0.02)
        assert harness.room.guest_count == 1
        fourth = await guest(harness, "fourth")
        assert (await fourth.wait_for("welcome"))["guest"] is True
        health = (await harness.http.get("/api/health")).json()
        assert health["guests"] == 2


async def test_snapshot_carries_the_commitment(harness: Harness) -> None:
    actor = await harness.add_table("7S", 100, 200)
    alice, bob = await harness.player("alice"), await harness.player("bob")
    await harness.seat(alice, actor.table_id, 1, 4000)
    await harness.seat(bob, actor.table_id, 2, 4000)
    started = await alice.wait_for("hand_started")
    # A reload: a new connection of alice's gets the snapshot with the commitment and hand id.
    token = await harness.http.post("/api/login", json={"name": "alice", "password": "password123"})
    again = await harness.connect(token.json()["token"], "alice-2")
    state = await again.wait_for("table_state")
    if state["hand_id"] == started["hand_id"]:
        assert state["commitment"] == started["commitment"]
    else:  # that hand ended already (a very quick one): the snapshot names the one in play
        assert state["hand_id"] is None or state["commitment"] is not None
    watcher = await guest(harness)
    await watcher.wait_for("welcome")
    await watcher.request(type="join_table", table_id=actor.table_id)
    seen = await watcher.wait_for("table_state")
    assert (seen["hand_id"] is None) == (seen["commitment"] is None)
    assert seen["hand_id"] != started["hand_id"] or seen["commitment"] == started["commitment"]
    finished = await asyncio.gather(autoplay(alice), autoplay(bob))
    assert finished[0][0]["commitment"] == started["commitment"]
    for client in (alice, bob):
        await client.request(type="sit_out", table_id=actor.table_id)


async def test_lobby_push(tmp_path: Path) -> None:
    async with running_server(make_settings(tmp_path, lobby_push_seconds=0.1)) as harness:
        actor = await harness.add_table("7S", 100, 200)
        await harness.add_table("RZ", 100, 200)
        watcher = await guest(harness)
        await watcher.wait_for("welcome")
        answer = await watcher.request(type="subscribe_lobby")
        assert answer["type"] == "ack" and answer["request"] == "subscribe_lobby"
        lobby = await watcher.wait_for("lobby")
        assert [t["game"] for t in lobby["tables"]] == ["7S", "RZ"]
        assert {"average_pot", "hands_per_hour", "seated", "hands_played", "bots"} <= set(lobby["tables"][0])
        alice = await harness.player("alice")
        await harness.seat(alice, actor.table_id, 1, 4000)
        update = await watcher.wait_for(
            lambda m: m["type"] == "lobby_update" and any(t["seated"] == 1 for t in m["tables"])
        )
        assert [t["id"] for t in update["tables"]] == [actor.table_id]
        assert update["tables"][0]["seats"][0]["name"] == "alice"
        bob = await harness.player("bob")
        await harness.seat(bob, actor.table_id, 2, 4000)
        await asyncio.gather(autoplay(alice), autoplay(bob))
        played = await watcher.wait_for(
            lambda m: m["type"] == "lobby_update" and any(t["hands_played"] >= 1 for t in m["tables"]),
            timeout=10,
        )
        assert played["tables"][0]["average_pot"] > 0
        # Changes are coalesced: never more than one push per interval, each table once.
        updates = [m for m in watcher.log if m["type"] == "lobby_update"]
        for m in updates:
            assert len({t["id"] for t in m["tables"]}) == len(m["tables"])
        assert (await watcher.request(type="unsubscribe_lobby"))["type"] == "ack"
        for client in (alice, bob):
            await client.request(type="sit_out", table_id=actor.table_id)
        await asyncio.sleep(0.4)
        watcher.drain()
        await alice.request(type="stand_up", table_id=actor.table_id)
        await asyncio.sleep(0.4)
        assert not [m for m in watcher.drain() if m["type"].startswith("lobby")]
        assert not harness.room.lobby.subscribers


async def test_bots_are_flagged_and_cheap_to_create(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    async with running_server(make_settings(tmp_path, bot_delay=(0.05, 0.1))) as harness:
        first = await harness.add_table("7S", 100, 200)
        second = await harness.add_table("RZ", 100, 200)
        store = harness.store
        hashes = 0
        real = store.hasher

        class CountingHasher:
            def hash(self, password: str | bytes, **kw: Any) -> str:
                nonlocal hashes
                hashes += 1
                return real.hash(password, **kw)

            def __getattr__(self, name: str) -> Any:
                return getattr(real, name)

        monkeypatch.setattr(store, "hasher", CountingHasher())
        started = time.monotonic()
        bots = await start_bots(harness.room, 3, seed=1)
        assert hashes == 0  # a bot has no password: no hashing at all
        for _ in range(200):
            if len(first.seats) == 3 and len(second.seats) == 3:
                break
            await asyncio.sleep(0.05)
        assert len(first.seats) == 3 and len(second.seats) == 3
        assert time.monotonic() - started < 8
        tables = (await harness.http.get("/api/tables")).json()
        for table in tables:
            assert table["bots"] == 3
            assert all(seat["bot"] is True and seat["is_bot"] is True for seat in table["seats"])
        alice = await harness.player("alice")
        await harness.seat(alice, first.table_id, next(s for s in range(1, 9) if s not in first.seats), 4000)
        line = (await harness.http.get(f"/api/tables/{first.table_id}")).json()
        people = [s for s in line["seats"] if s["name"] == "alice"]
        assert people and people[0]["bot"] is False and line["bots"] == 3
        await alice.request(type="sit_out", table_id=first.table_id)
        for bot in bots:
            bot.stop()
        # A second start finds the accounts: no hashing at all.
        hashes = 0
        more = await start_bots(harness.room, 3, seed=2, table_ids=[first.table_id])
        assert hashes == 0
        for bot in more:
            bot.stop()


async def test_a_failing_history_writer_never_stops_the_table(
    harness: Harness, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(*args: Any, **kwargs: Any) -> str:
        raise RuntimeError("the PHH writer is broken")

    monkeypatch.setattr(store_adapter, "dump_hand", broken)
    actor = await harness.add_table("7S", 100, 200)
    finished = await play_hands(harness, actor.table_id, 2, ("alice", "bob"))
    assert len(finished) == 2
    for done in finished:
        record = await harness.store.hand(done["hand_id"])
        assert record.status == "finished"
        assert record.phh in ("", None)
        assert record.text and "alice" in record.text  # the other writer still ran
    assert "the PHH writer failed" in caplog.text
    for client in harness.clients:
        await client.request(type="sit_out", table_id=actor.table_id)


def test_histories_render_with_the_real_writers() -> None:
    """The writers are imported directly (no optional lookup) and both render a real hand."""
    from studpoker.cards import Deck
    from studpoker.engine import Hand
    from studpoker.games import Stakes, get_game

    game = get_game("7S")
    hand = Hand(
        game,
        Stakes(ante=20, bring_in=50, small_bet=100, big_bet=200),
        seats=[(1, 4000), (2, 4000)],
        deck=Deck(),
    )
    while not hand.is_over:
        assert hand.to_act is not None
        hand.timeout(hand.to_act, protection_allowed=False)
    phh, text = store_adapter.operator_histories(hand, "h1", {1: "alice", 2: "bob"}, "Stud 1/2")
    assert phh and "alice" in phh
    assert text and "bob" in text
    json.dumps([phh, text])


def test_default_table_copies_give_each_game_and_stake_that_many_tables() -> None:
    from studpoker.server.room import default_table_configs
    from studpoker.server.settings import Settings

    one = default_table_configs(Settings())
    three = default_table_configs(Settings(default_table_copies=3))
    assert len(three) == 3 * len(one)
    assert len({c.name for c in three}) == len(three)
    assert {c.name for c in one} <= {c.name for c in three}
    assert any(c.name.endswith(" #3") for c in three)
