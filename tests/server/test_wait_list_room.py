"""The wait list in the room, over the socket (issue 12): join a full table's list, the lobby
line's count, the offer when a seat frees (to every connection of the player, in the lobby
too), the held seat refused to others (R-WAIT-LIST-OFFER), the sit that takes it; leaving the
table page keeps the place, logging out gives it up (R-WAIT-LIST-STAYS)."""

from __future__ import annotations

import asyncio
from typing import Any

import websockets

from studpoker.server.protocol import ErrorCode
from tests.server.conftest import Client, Harness


def wait_list(client: Client, **fields: Any) -> Any:
    """A predicate: the client's next wait_list message with these fields."""
    return lambda m: m["type"] == "wait_list" and all(m.get(k) == v for k, v in fields.items())


async def full_table(harness: Harness) -> tuple[int, Client, Client]:
    """A two-seat table with both seats taken."""
    actor = await harness.add_table("7S", 100, 200, max_seats=2)
    # No hand: each sits out as he sits down, so that a stand-up frees his seat at once.
    first, second = await harness.player("ann"), await harness.player("ben")
    for seat, client in ((1, first), (2, second)):
        await harness.seat(client, actor.table_id, seat, 2000)
        assert (await client.request(type="sit_out", table_id=actor.table_id))["type"] == "ack"
    return actor.table_id, first, second


async def test_a_full_tables_wait_list_over_the_socket(harness: Harness) -> None:
    table_id, _, ben = await full_table(harness)
    cara, dan = await harness.player("cara"), await harness.player("dan")
    for client in (cara, dan):
        assert (await client.request(type="subscribe_lobby"))["type"] == "ack"
    joined = await cara.request(type="join_wait_list", table_id=table_id)
    assert joined["type"] == "ack", joined
    assert (await dan.request(type="join_wait_list", table_id=table_id))["type"] == "ack"
    line = next(t for t in (await harness.http.get("/api/tables")).json() if t["id"] == table_id)
    assert line["waiting"] == 2
    await dan.wait_for(
        lambda m: m["type"] == "lobby_update" and any(t.get("waiting") == 2 for t in m["tables"])
    )
    # Ben stands up: the seat is cara's for a while, told to her in the lobby.
    assert (await ben.request(type="stand_up", table_id=table_id))["type"] == "ack"
    offered = await cara.wait_for(wait_list(cara, table_id=table_id, position=1))
    while offered["offer"] is None:
        offered = await cara.wait_for(wait_list(cara, table_id=table_id))
    assert offered["offer"]["seat"] == 2
    # Nobody else may take it: not dan (second on the list), not ben coming back.
    for client in (dan, ben):
        refused = await client.request(type="sit", table_id=table_id, seat=2, buy_in=2000)
        assert refused["type"] == "error" and refused["code"] == ErrorCode.SEAT_OFFERED, refused
    await harness.seat(cara, table_id, 2, 2000)
    done = await cara.wait_for(wait_list(cara, table_id=table_id, position=None))
    assert done["note"] == "you have your seat: off the wait list"
    assert (await dan.wait_for(wait_list(dan, table_id=table_id, position=1)))["waiting"] == 1


async def test_leaving_the_table_page_keeps_the_place_and_logging_out_gives_it_up(harness: Harness) -> None:
    table_id, ann, _ = await full_table(harness)
    token = await harness.register("eve")
    eve = await harness.connect(token, "eve")
    assert (await eve.request(type="join_table", table_id=table_id))["type"] == "ack"
    assert (await eve.request(type="join_wait_list", table_id=table_id))["type"] == "ack"
    assert (await eve.request(type="leave_table", table_id=table_id))["type"] == "ack"
    await eve.close()
    assert harness.room.wait_lists.count(table_id) == 1
    # Back (another socket): told of her place when she joins the table again.
    eve = await harness.connect(token, "eve")
    await eve.send(type="join_table", table_id=table_id)
    assert (await eve.wait_for("wait_list"))["position"] == 1
    response = await harness.http.post("/api/logout", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 204
    await asyncio.wait_for(eve.closed.wait(), 5)
    assert harness.room.wait_lists.count(table_id) == 0
    # The next seat that frees is anyone's.
    assert (await ann.request(type="stand_up", table_id=table_id))["type"] == "ack"
    frank = await harness.player("frank")
    await harness.seat(frank, table_id, 1, 2000)


async def test_a_guest_may_not_wait(harness: Harness) -> None:
    table_id, _, _ = await full_table(harness)
    ws = await websockets.connect(f"ws://{harness.base}/ws?guest=1")
    guest = Client(ws, "guest")
    harness.clients.append(guest)
    await guest.wait_for("welcome")
    refused = await guest.request(type="join_wait_list", table_id=table_id)
    assert refused["code"] == ErrorCode.LOGIN_REQUIRED
    assert harness.room.wait_lists.count(table_id) == 0
