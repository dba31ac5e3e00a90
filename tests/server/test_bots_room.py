"""The room's bots over a real room (issue 12, item 3: "after 25 minutes 5 of 16 tables had one
bot and no game"): ``serve --bots N`` keeps N bots at the table while they go broke one after
another (they top up and buy in again first), and a bot gives its seat to a person waiting at a
full table, then takes one again when the people leave. The ledger audit balances at the end
(``running_server``)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from studpoker.server.bots import BotConnection, BotKeeper
from studpoker.server.settings import Settings
from studpoker.server.table import TableActor
from studpoker.store import Store
from tests.server import conftest
from tests.server.conftest import FAST_HASHER, Client, make_settings, running_server

# Each bot account starts with 25.00 at a 0.50/1 table (buy-ins 10.00 to 50.00): a bot buys in
# for 10.00, tops up twice or so, busts, takes its daily top-up once, and gives up before long.
GRANT = 2500


async def small_grants(settings: Settings) -> Store:
    return await Store.open(settings.database_url, password_hasher=FAST_HASHER, starting_grant=GRANT)


async def until(condition: Callable[[], bool], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"not in time: {what}"
        await asyncio.sleep(0.05)


def bots_seated(actor: TableActor) -> int:
    return sum(1 for s in actor.seats.values() if s.is_bot)


def spy_frames(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Every frame a bot sends, as it sends it."""
    frames: list[dict[str, Any]] = []
    original = BotConnection._say

    async def say(self: BotConnection, message: dict[str, Any]) -> None:
        frames.append({**message, "bot": self.name})
        await original(self, message)

    monkeypatch.setattr(BotConnection, "_say", say)
    return frames


async def test_serve_bots_keeps_n_bots_at_the_table_while_they_go_broke(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(conftest, "fast_store", small_grants)
    frames = spy_frames(monkeypatch)
    settings = make_settings(
        tmp_path,
        default_tables=True,
        bots=3,
        bot_tables=1,
        bot_check_seconds=0.1,
        hand_pause_seconds=0.05,
        think_seconds=2.0,
        countdown_seconds=2.0,
    )
    async with running_server(settings) as h:
        actor = h.room.tables()[0]
        table_id = actor.table_id
        assert actor.config.min_buy_in == 1000

        def replaced() -> bool:
            names = {bot.name for bot in h.room.bots}
            return any(not name.endswith(("_1", "_2", "_3")) for name in names)

        await until(lambda: bots_seated(actor) == 3, 30, "three bots seated")
        await until(replaced, 150, "a bot that went broke replaced")
        # The table plays on with its three bots, the one that gave up detached.
        await until(lambda: bots_seated(actor) == 3 and actor.hand is not None, 30, "three bots again")
        assert len([b for b in h.room.bots if b.table_id == table_id]) == 3
        assert all(not b.gone for b in h.room.bots)
        broke = [c for c in h.room.connections.values() for b in c.values() if getattr(b, "broke", False)]
        assert broke == []  # detached from the room
        # On the way they topped up and bought in again, through the protocol.
        kinds = [f["type"] for f in frames]
        assert kinds.count("add_chips") >= 1 and kinds.count("sit") > 3, kinds.count("sit")
        assert {f["table_id"] for f in frames if f["type"] in ("sit", "add_chips")} == {table_id}


async def test_a_bot_gives_its_seat_to_a_person_waiting_at_a_full_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    frames = spy_frames(monkeypatch)
    settings = make_settings(tmp_path, hand_pause_seconds=0.3, bot_check_seconds=0.1, bot_delay=(0.0, 0.02))
    async with running_server(settings) as h:
        actor = await h.add_table("7S", 50, 100, max_seats=4)
        table_id = actor.table_id
        keeper = BotKeeper(h.room, 3, table_ids=[table_id], bots=h.room.bots, seed=5)
        task = asyncio.get_running_loop().create_task(keeper.run())
        try:
            await until(lambda: bots_seated(actor) == 3, 30, "three bots seated")
            alice, bob = await h.player("alice"), await h.player("bob")
            free = next(s for s in range(1, 5) if s not in actor.seats)
            await h.seat(alice, table_id, free, 2000)  # the seat the bots left for people
            # The table is full: bob waits, and a bot leaves after its hand for him.
            answer = await bob.request(type="join_wait_list", table_id=table_id)
            assert answer["type"] == "ack", answer
            offer = await bob.wait_for(lambda m: m["type"] == "wait_list" and m.get("offer") is not None, 30)
            seat = offer["offer"]["seat"]
            await h.seat(bob, table_id, seat, 2000)
            leaving = [f for f in frames if f["type"] == "leave_after_hand"]
            assert len(leaving) == 1, leaving
            assert bots_seated(actor) == 2 and len(actor.seats) == 4
            # The keeper keeps its three bots: the one that gave way waits, connected.
            await asyncio.sleep(0.5)
            assert bots_seated(actor) == 2 and len(keeper.bots) == 3 and keeper.replaced == 0
            # The people leave: the bots take their seats again (all but one, for people).
            for person in (alice, bob):
                await stand_up(person, table_id)
            await until(lambda: bots_seated(actor) == 3 and len(actor.seats) == 3, 30, "the bots back")
        finally:
            task.cancel()


async def stand_up(client: Client, table_id: int) -> None:
    answer = await client.request(type="stand_up", table_id=table_id)
    assert answer["type"] == "ack", json.dumps(answer)
