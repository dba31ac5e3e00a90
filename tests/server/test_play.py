"""Whole hands over real WebSockets: each game to showdown, the deal verifiable, histories stored."""

from __future__ import annotations

import asyncio

import pytest

from studpoker.fairness import Opening, verify_deal, verify_opening
from tests.server.conftest import Harness, autoplay


@pytest.mark.parametrize(("game", "players"), [("7S", 2), ("7S8", 3), ("RZ", 2), ("O8", 3)])
async def test_hand_to_showdown(harness: Harness, game: str, players: int) -> None:
    actor = await harness.add_table(game, 100, 200)
    clients = [await harness.player(f"{game.lower()}p{i}") for i in range(players)]
    spectator = await harness.player(f"{game.lower()}spec")
    assert (await spectator.request(type="join_table", table_id=actor.table_id))["type"] == "ack"
    actor.hand_pause_seconds = 0.5  # everyone seated before the first deal
    for seat, client in enumerate(clients, start=1):
        await harness.seat(client, actor.table_id, seat, 4000)
    results = await asyncio.gather(*(autoplay(c) for c in clients))
    finished = results[0][0]
    hand_id = finished["hand_id"]
    assert all(r[0]["hand_id"] == hand_id for r in results)
    result = finished["result"]
    assert result["showdown"] is True and len(result["shown"]) + len(result["mucked"]) == players
    assert "deck_order" not in finished and "salt" not in finished
    started = next(m for m in clients[0].log if m["type"] == "hand_started")
    assert started["commitment"] == finished["commitment"] == started["deck_root"]
    assert started["hand_id"] == hand_id
    # Every card a player was shown came with its opening, and it verifies against the root.
    for client in [*clients, spectator]:
        openings = [
            o
            for m in client.log
            if m["type"] == "cards_opened" and m["hand_id"] == hand_id
            for o in m["openings"]
        ]
        assert openings and all(verify_opening(started["deck_root"], Opening.from_json(o)) for o in openings)
    # Table versions seen by each client have no gaps.
    for client in [*clients, spectator]:
        versions = [
            m["version"] for m in client.log if m["type"] in ("event", "hand_started", "hand_finished")
        ]
        assert versions == list(range(versions[0], versions[0] + len(versions))), client.name
    # The store has the hand with its histories; only its players may read them.
    await asyncio.sleep(0.05)
    record = await harness.store.hand(hand_id)
    assert record.status == "finished" and record.deck_order is not None
    assert record.server_seed is not None and record.deck_root is not None
    assert record.deck_root == started["deck_root"]
    seeds = [(s, bytes.fromhex(seed)) for s, seed in record.client_seeds]
    assert verify_deal(
        record.deck_root, started["seed_commitment"], bytes.fromhex(record.server_seed), seeds
    )[0]
    stacks = {s.seat: s.stack for s in actor.seats.values()}
    assert sum(stacks.values()) == 4000 * players
    token = await harness.register(f"{game.lower()}other")
    denied = await harness.http.get(f"/api/hands/{hand_id}", headers={"Authorization": f"Bearer {token}"})
    assert denied.status_code == 403


async def test_stand_up_cashes_out(harness: Harness) -> None:
    actor = await harness.add_table("7S", 100, 200)
    alice, bob = await harness.player("alice"), await harness.player("bob")
    await harness.seat(alice, actor.table_id, 1, 3000)
    await harness.seat(bob, actor.table_id, 2, 3000)
    await asyncio.gather(autoplay(alice), autoplay(bob))
    for client in (alice, bob):
        await client.request(type="sit_out", table_id=actor.table_id)
    await asyncio.sleep(0.05)
    for client in (alice, bob):
        answer = await client.request(type="stand_up", table_id=actor.table_id)
        assert answer["type"] == "ack"
    # With no pause between hands the next hand may have been dealt before the sit_out: the
    # leavers' decisions in it are then folded or checked at once and they go when it ends.
    for _ in range(200):
        if not actor.seats:
            break
        await asyncio.sleep(0.025)
    assert not actor.seats
    accounts = [await harness.store.account_by_name(n) for n in ("alice", "bob")]
    assert sum(a.bankroll for a in accounts) == 2 * harness.store.starting_grant


async def test_history_readable_by_players(harness: Harness) -> None:
    actor = await harness.add_table("RZ", 100, 200)
    tokens = [await harness.register(name) for name in ("hana", "ivan")]
    clients = [await harness.connect(t, n) for t, n in zip(tokens, ("hana", "ivan"), strict=True)]
    actor.hand_pause_seconds = 0.3
    for seat, client in enumerate(clients, start=1):
        await harness.seat(client, actor.table_id, seat, 3000)
    finished = (await asyncio.gather(*(autoplay(c) for c in clients)))[0][0]
    await asyncio.sleep(0.05)
    headers = {"Authorization": f"Bearer {tokens[0]}"}
    listed = (await harness.http.get("/api/hands", headers=headers)).json()
    assert finished["hand_id"] in [h["id"] for h in listed]
    one = (await harness.http.get(f"/api/hands/{finished['hand_id']}", headers=headers)).json()
    assert one["status"] == "finished" and one["commitment"] == finished["commitment"] == one["deck_root"]
    assert "deck_order" not in one and "salt" not in one
    assert "hana" in one["text"] and "ivan" in one["text"]
    # His openings verify against the deck root; his copy of the PHH replays to the same end.
    assert one["openings"] and all(
        verify_opening(one["deck_root"], Opening.from_json(o)) for o in one["openings"]
    )
    from studpoker.history.phh import loads, replay

    replayed = replay(loads(one["phh"])[0])
    assert replayed.is_over
    assert {str(k): v for k, v in replayed.result.final_stacks.items()} == finished["result"]["final_stacks"]
    assert sum(s["award"] for s in one["seats"]) == sum(s["contribution"] for s in one["seats"])


async def test_stand_up_during_a_hand(harness: Harness) -> None:
    actor = await harness.add_table("7S", 100, 200)
    clients = [await harness.player(name) for name in ("kim", "lou", "max")]
    actor.hand_pause_seconds = 0.3
    for seat, client in enumerate(clients, start=1):
        await harness.seat(client, actor.table_id, seat, 3000)
    await clients[0].wait_for("hand_started")
    hand_id = actor.hand_id
    assert hand_id is not None
    # Seat 3 leaves in the middle of the hand: his decisions are made for him at once.
    answer = await clients[2].request(type="stand_up", table_id=actor.table_id)
    assert answer["type"] == "ack" and actor.seats[3].leaving
    await asyncio.gather(*(autoplay(c) for c in clients[:2]))
    await asyncio.sleep(0.1)
    assert 3 not in actor.seats
    record = await harness.store.hand(hand_id)
    assert record.status == "finished"
    account = await harness.store.account_by_name("max")
    assert (
        account.bankroll
        == harness.store.starting_grant - record.seats[3].contribution + record.seats[3].award
    )
    assert not (await harness.store.seats_of_account(account.id))


async def test_everyone_leaving_mid_hand_plays_it_out(harness: Harness) -> None:
    """When every player of a hand stands up, each remaining decision is timed out at once and
    the hand is written (that it is a loop, not a recursion: tests/server/test_table_actor.py)."""
    actor = await harness.add_table("7S", 100, 200)
    clients = [await harness.player(name) for name in ("ned", "ola")]
    for seat, client in enumerate(clients, start=1):
        await harness.seat(client, actor.table_id, seat, 3000)
    await clients[0].wait_for("hand_started")
    hand_id = actor.hand_id
    assert hand_id is not None
    for client in clients:
        assert (await client.request(type="stand_up", table_id=actor.table_id))["type"] == "ack"
    for _ in range(100):
        if not actor.seats:
            break
        await asyncio.sleep(0.02)
    assert not actor.seats and actor.hand is None
    assert (await harness.store.hand(hand_id)).status == "finished"
    await harness.audit()
