"""Sit-and-go tournaments in the room, over real WebSockets and REST (server/tournaments,
api/tournaments.py): registration and its refusals, the start when full, play to the end with
the payouts equal to the pool and the audit balanced; a restart in the middle."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from sqlalchemy import select

from studpoker.server.tournaments import create_sit_and_go, table_id_of
from studpoker.store.schema import tournament_hands

from .conftest import Client, Harness, make_settings, passive_choice, running_server


def aggressive_choice(options: list[dict[str, Any]]) -> dict[str, Any]:
    """Raise whenever allowed: the chips move fast and the tournament ends in a few hands."""
    by_kind = {o["kind"]: o for o in options}
    for kind in ("raise", "bet", "complete", "bring_in", "call", "check"):
        if kind in by_kind:
            return by_kind[kind]
    return options[0]


async def raise_on_turns(client: Client, stop: asyncio.Event) -> None:
    """``client`` takes the most aggressive option on each of its turns until ``stop`` is set."""
    # A stop flag, not only the cancellation: Python 3.11's wait_for (under recv) can swallow a
    # cancellation that comes as a message arrives, and the task would play on.
    while not stop.is_set():
        try:
            message = await client.recv(0.2)
        except TimeoutError:
            continue
        if message["type"] == "your_turn":
            option = aggressive_choice(message["options"])
            await client.send(
                type="action", table_id=message["table_id"], hand_id=message["hand_id"],
                kind=option["kind"], amount=option["amount"], version=message["version"],
            )  # fmt: skip


async def play_until(
    h: Harness, clients: list[Client], tournament_id: int, status: str, limit: float
) -> None:
    """Every client acts on its turns until the tournament has ``status``."""
    stop = asyncio.Event()
    tasks = [asyncio.create_task(raise_on_turns(c, stop)) for c in clients]
    try:
        deadline = time.monotonic() + limit
        while (await h.store.tournaments.get(tournament_id)).status != status:
            assert time.monotonic() < deadline, "the tournament did not get there in time"
            for task in tasks:
                if task.done():
                    task.result()
            await asyncio.sleep(0.1)
    finally:
        stop.set()
        for task in tasks:
            task.cancel()


async def _entrants(h: Harness, names: list[str]) -> tuple[list[str], list[Client]]:
    tokens = [await h.register(name) for name in names]
    clients = [await h.connect(token, name) for token, name in zip(tokens, names, strict=True)]
    return tokens, clients


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def test_a_sit_and_go_over_websockets_to_the_end(tmp_path: Path) -> None:
    async with running_server(make_settings(tmp_path)) as h:
        sng = await create_sit_and_go(h.store, "SNG 3", "7S", "turbo", buy_in=1_000, fee=100, seats=3)
        tokens, clients = await _entrants(h, ["ann", "ben", "cyd"])
        for token in tokens[:2]:
            answer = await h.http.post(f"/api/tournaments/{sng.id}/register", headers=auth(token))
            assert answer.status_code == 200, answer.text
        # Refusals change nothing: twice, the bankroll too small, unregistered.
        twice = await h.http.post(f"/api/tournaments/{sng.id}/register", headers=auth(tokens[0]))
        assert twice.status_code == 409
        line = (await h.http.get(f"/api/tournaments/{sng.id}")).json()
        assert (line["status"], line["entrants"], line["prize_pool"]) == ("registering", 2, 2_000)
        me = (await h.http.get("/api/me", headers=auth(tokens[0]))).json()
        assert me["bankroll"] == 10_000 - 1_100
        # The third fills it: it starts, and the players are at its table.
        answer = await h.http.post(f"/api/tournaments/{sng.id}/register", headers=auth(tokens[2]))
        assert answer.json()["status"] == "running"
        state = await clients[0].wait_for(lambda m: m["type"] == "table_state")
        assert state["table_id"] == table_id_of(sng.id)
        assert state["table"]["big_bet"] == 40  # the turbo's first level
        late = await h.http.post(f"/api/tournaments/{sng.id}/unregister", headers=auth(tokens[1]))
        assert late.status_code == 409
        running = (await h.http.get("/api/tournaments", params={"status": "running"})).json()
        assert [(t["id"], t["level"]["level"], t["tables"]) for t in running] == [
            (sng.id, 1, [table_id_of(sng.id)])
        ]
        await play_until(h, clients, sng.id, "finished", 120)
        result = (await h.http.get(f"/api/tournaments/{sng.id}")).json()
        # Two players busting in one hand with equal starting stacks tie (R-TOURNAMENT-FINISH-ORDER):
        # the deal is random, so second place may be shared.
        assert [r["place"] for r in result["results"]] in ([1, 2, 3], [1, 2, 2])
        assert sum(r["prize"] for r in result["results"]) == result["prize_pool"] == 3_000
        winner = result["results"][0]
        for token, name in zip(tokens, ["ann", "ben", "cyd"], strict=True):
            me = (await h.http.get("/api/me", headers=auth(token))).json()
            assert me["bankroll"] == 10_000 - 1_100 + (3_000 if name == winner["name"] else 0)
        await h.audit()


async def test_a_restart_mid_tournament_resumes_it(tmp_path: Path) -> None:
    settings = make_settings(tmp_path)
    async with running_server(settings) as h:
        sng = await create_sit_and_go(h.store, "SNG 2", "7S", "turbo", buy_in=500, fee=0, seats=2)
        tokens, clients = await _entrants(h, ["ann", "ben"])
        for token in tokens:
            await h.http.post(f"/api/tournaments/{sng.id}/register", headers=auth(token))
        # A hand or more is finished, then the room stops in the middle of the next one.
        await clients[0].wait_for("hand_started")
        while (await h.store.tournaments.get(sng.id)).hands_played < 1:
            await play_until_hand(h, clients)
        before = await h.store.tournaments.get(sng.id)
        assert before.status == "running"
    async with running_server(settings) as h:
        record = await h.store.tournaments.get(sng.id)
        assert record.status == "running"
        assert sum(e.stack for e in record.entries) == 2 * record.starting_stack
        assert record.hands_played >= before.hands_played
        clients = [await h.connect(token, name) for token, name in zip(tokens, ["ann", "ben"], strict=True)]
        state = await clients[0].wait_for(lambda m: m["type"] == "table_state")
        assert state["table_id"] == table_id_of(sng.id)
        await play_until(h, clients, sng.id, "finished", 120)
        result = (await h.http.get(f"/api/tournaments/{sng.id}")).json()
        assert sum(r["prize"] for r in result["results"]) == 1_000


async def play_until_hand(h: Harness, clients: list[Client]) -> None:
    """The decisions asked so far, played passively (few chips move), for a little while."""
    for client in clients:
        for message in client.drain():
            if message["type"] == "your_turn":
                option = passive_choice(message["options"])
                await client.send(
                    type="action", table_id=message["table_id"], hand_id=message["hand_id"],
                    kind=option["kind"], amount=option["amount"], version=message["version"],
                )  # fmt: skip
    await asyncio.sleep(0.05)


async def test_an_absent_player_antes_and_is_folded_by_the_clock(tmp_path: Path) -> None:
    """He never connects: he is dealt into every hand all the same (a cash table would sit him
    out after his first timeout, and two players could not go on), his antes paid."""
    async with running_server(make_settings(tmp_path, think_seconds=0.2, countdown_seconds=0.2)) as h:
        sng = await create_sit_and_go(h.store, "SNG away", "7S", "turbo", buy_in=500, fee=0, seats=2)
        tokens, clients = await _entrants(h, ["ann", "ben"])
        await clients[1].close()  # ben is away from the start
        for token in tokens:
            await h.http.post(f"/api/tournaments/{sng.id}/register", headers=auth(token))
        ben = (await h.http.get("/api/me", headers=auth(tokens[1]))).json()["id"]

        async def played() -> int:
            return (await h.store.tournaments.get(sng.id)).hands_played

        deadline = time.monotonic() + 60
        while await played() < 3:
            assert time.monotonic() < deadline, "the hands did not go on without him"
            await play_until_hand(h, clients[:1])
        # Every hand dealt him in: his ante is in each history.
        async with h.store.database.read() as conn:
            texts = (
                (
                    await conn.execute(
                        select(tournament_hands.c.text).where(tournament_hands.c.status == "finished")
                    )
                )
                .scalars()
                .all()
            )
        assert len(texts) >= 3
        assert all("ben: posts the ante" in text for text in texts), texts[0]
        assert (await h.store.tournaments.get(sng.id)).entry(ben) is not None
