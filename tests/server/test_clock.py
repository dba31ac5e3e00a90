"""The action clock (check, protected all-in, fold), sitting out after a timeout, reconnection
with the countdown extension, out-of-turn and illegal actions."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from studpoker.server.protocol import ErrorCode
from tests.server.conftest import Client, Harness, make_settings, passive_choice, running_server

Choice = Callable[[list[dict[str, Any]]], dict[str, Any] | None]


def aggressive_choice(options: list[dict[str, Any]]) -> dict[str, Any]:
    by_kind = {o["kind"]: o for o in options}
    for kind in ("complete", "bet", "raise", "check", "call", "bring_in"):
        if kind in by_kind:
            return by_kind[kind]
    return options[0]


def stall(options: list[dict[str, Any]]) -> None:
    return None


async def play(
    client: Client, choose: Choice, until: Callable[[dict[str, Any]], bool], timeout: float = 20
) -> None:
    """Answer your_turn with ``choose`` (None: let the clock run) until a message matches ``until``."""
    deadline = time.monotonic() + timeout
    while True:
        message = await client.recv(max(0.01, deadline - time.monotonic()))
        if until(message):
            return
        if message["type"] == "your_turn":
            option = choose(message["options"])
            if option is not None:
                await client.send(
                    type="action",
                    table_id=message["table_id"],
                    hand_id=message["hand_id"],
                    kind=option["kind"],
                    amount=option["amount"],
                )


def finished(message: dict[str, Any]) -> bool:
    return bool(message["type"] == "hand_finished")


def timeouts(client: Client, seat: int) -> list[str]:
    return [
        m["event"]["detail"]
        for m in client.log
        if m["type"] == "event" and m["event"].get("kind") == "timeout" and m["event"].get("seat") == seat
    ]


async def two_players(h: Harness, game: str = "7S") -> tuple[int, Client, Client]:
    actor = await h.add_table(game, 100, 200)
    alice, bob = await h.player("alice"), await h.player("bob")
    actor.hand_pause_seconds = 0.3
    await h.seat(alice, actor.table_id, 1, 4000)
    await h.seat(bob, actor.table_id, 2, 4000)
    actor.hand_pause_seconds = 0.0
    return actor.table_id, alice, bob


async def table_line(h: Harness, table_id: int) -> dict[str, Any]:
    """The table as the lobby shows it (``GET /api/tables/{id}``)."""
    line: dict[str, Any] = (await h.http.get(f"/api/tables/{table_id}")).json()
    return line


async def table_state(client: Client, table_id: int) -> dict[str, Any]:
    """The table as ``client`` is sent it on a resync (its version, the hand being played)."""
    assert (await client.request(type="resync", table_id=table_id))["type"] == "ack"
    return await client.wait_for("table_state")


async def test_timeouts_check_then_sit_out(tmp_path: Path) -> None:
    async with running_server(make_settings(tmp_path, think_seconds=0.15, countdown_seconds=0.15)) as h:
        table_id, alice, bob = await two_players(h)

        def bob_choice(options: list[dict[str, Any]]) -> dict[str, Any] | None:
            return None if any(o["kind"] == "check" for o in options) else passive_choice(options)

        await asyncio.gather(play(alice, passive_choice, finished), play(bob, bob_choice, finished))
        assert "check" in timeouts(alice, 2)
        # Bob timed out: he sits out from the next hand until he comes back.
        seats = {s["seat"]: s for s in (await table_line(h, table_id))["seats"]}
        assert seats[2]["sitting_out"]
        if seats[1]["sitting_out"]:
            # A loaded machine: alice's own answers missed her 0.3 s clock too (not what this
            # test is about); she comes back first, so that bob's return is what deals.
            assert (await alice.request(type="sit_in", table_id=table_id))["type"] == "ack"
        await asyncio.sleep(0.3)
        assert (await table_line(h, table_id))["hand_id"] is None
        assert (await bob.request(type="sit_in", table_id=table_id))["type"] == "ack"
        started = await bob.wait_for("hand_started")
        assert (await table_line(h, table_id))["hand_id"] == started["hand_id"]


async def test_timeout_protected_all_in(tmp_path: Path) -> None:
    async with running_server(make_settings(tmp_path, think_seconds=0.1, countdown_seconds=0.1)) as h:
        _table_id, alice, bob = await two_players(h)
        await asyncio.gather(play(alice, aggressive_choice, finished), play(bob, stall, finished))
        details = timeouts(alice, 2)
        assert "protected_all_in" in details, details
        account = await h.store.account_by_name("bob")
        assert await h.store.protected_all_ins_left(account.id, 2) < 2


async def test_timeout_fold_without_protection(tmp_path: Path) -> None:
    settings = make_settings(tmp_path, think_seconds=0.1, countdown_seconds=0.1, protected_all_ins_per_day=0)
    async with running_server(settings) as h:
        _table_id, alice, bob = await two_players(h)
        done = await asyncio.gather(
            play(alice, aggressive_choice, finished), play(bob, stall, finished), return_exceptions=True
        )
        assert not any(isinstance(d, BaseException) for d in done), done
        details = timeouts(alice, 2)
        assert "fold" in details and "protected_all_in" not in details, details


async def test_reconnect_gets_extension_and_state(tmp_path: Path) -> None:
    async with running_server(make_settings(tmp_path, think_seconds=0.3, countdown_seconds=1.5)) as h:
        actor = await h.add_table("7S", 100, 200)
        table_id = actor.table_id
        alice_token, bob_token = await h.register("alice"), await h.register("bob")
        alice, bob = await h.connect(alice_token, "alice"), await h.connect(bob_token, "bob")
        actor.hand_pause_seconds = 0.3
        await h.seat(alice, table_id, 1, 4000)
        await h.seat(bob, table_id, 2, 4000)
        # Whoever is asked first drops the connection and comes back while the clock runs.
        turn = await asyncio.wait_for(_first_turn(alice, bob), 5)
        leaver, token, other = (alice, alice_token, bob) if turn[0] is alice else (bob, bob_token, alice)
        first = turn[1]
        seat = first["seat"]
        await leaver.close()
        gone = await other.wait_for(
            lambda m: (
                m["type"] == "event"
                and m["event"].get("kind") == "seats"
                and m["event"].get("reason") == "disconnected"
            )
        )
        assert next(s for s in gone["event"]["seats"] if s["seat"] == seat)["connected"] is False
        await asyncio.sleep(0.6)  # past the think time, inside the countdown
        back = await h.connect(token, "back")
        # Seated at the table: the new connection joins it at once and gets the full state.
        state = await back.wait_for("table_state")
        assert state["your_seat"] == seat and state["hand"] is not None
        assert state["hand"]["viewer"] == seat
        own = next(s for s in state["hand"]["seats"] if s["seat"] == seat)
        assert all(c is not None for c in own["down"])
        clock = state["clock"]
        assert clock["seat"] == seat and clock["extended"] is True
        assert clock["countdown_ends"] > first["countdown_ends"]
        assert clock["countdown_ends"] >= time.time() + 1.0
        assert state["your_turn"] is not None and state["your_turn"]["seat"] == seat
        option = passive_choice(state["your_turn"]["options"])
        answer = await back.request(
            type="action",
            table_id=table_id,
            hand_id=state["hand_id"],
            kind=option["kind"],
            amount=option["amount"],
        )
        assert answer["type"] == "ack"
        assert not [d for d in timeouts(other, seat)]


async def _first_turn(alice: Client, bob: Client) -> tuple[Client, dict[str, Any]]:
    tasks = {asyncio.create_task(c.wait_for("your_turn")): c for c in (alice, bob)}
    done, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    for task in pending:
        task.cancel()
    task = done.pop()
    return tasks[task], task.result()


async def test_out_of_turn_and_illegal_actions(harness: Harness) -> None:
    table_id, alice, bob = await two_players(harness)
    client, turn = await asyncio.wait_for(_first_turn(alice, bob), 5)
    other = bob if client is alice else alice
    before = await table_state(client, table_id)
    assert before["hand_id"] == turn["hand_id"]

    async def refused(who: Client, code: str, **fields: Any) -> None:
        message = {"type": "action", "table_id": table_id, "hand_id": turn["hand_id"], **fields}
        answer = await who.request(**message)
        assert answer["type"] == "error" and answer["code"] == code, answer

    option = turn["options"][0]
    await refused(other, ErrorCode.NOT_YOUR_TURN, kind=option["kind"], amount=option["amount"])
    await refused(client, ErrorCode.ILLEGAL_ACTION, kind="raise", amount=10**6)
    await refused(client, ErrorCode.ILLEGAL_ACTION, kind=option["kind"], amount=option["amount"] + 1)
    await refused(client, ErrorCode.ILLEGAL_ACTION, kind="shove")
    await refused(
        client, ErrorCode.STALE, kind=option["kind"], amount=option["amount"], version=turn["version"] - 1
    )
    answer = await client.request(
        type="action", table_id=table_id, hand_id="0" * 32, kind=option["kind"], amount=option["amount"]
    )
    assert answer["code"] == ErrorCode.STALE
    # Nothing happened at the table: no event (each one moves its version), the same hand.
    after = await table_state(client, table_id)
    assert (after["version"], after["hand_id"]) == (before["version"], before["hand_id"])
    answer = await client.request(
        type="action",
        table_id=table_id,
        hand_id=turn["hand_id"],
        kind=option["kind"],
        amount=option["amount"],
        version=turn["version"],
    )
    assert answer["type"] == "ack"
    assert (await table_state(client, table_id))["version"] > before["version"]


async def test_second_connection_gets_no_extension(tmp_path: Path) -> None:
    async with running_server(make_settings(tmp_path, think_seconds=0.5, countdown_seconds=2.0)) as h:
        actor = await h.add_table("7S", 100, 200)
        tokens = {name: await h.register(name) for name in ("alice", "bob")}
        clients = {name: await h.connect(token, name) for name, token in tokens.items()}
        actor.hand_pause_seconds = 0.3
        await h.seat(clients["alice"], actor.table_id, 1, 4000)
        await h.seat(clients["bob"], actor.table_id, 2, 4000)
        who, turn = await asyncio.wait_for(_first_turn(clients["alice"], clients["bob"]), 5)
        second = await h.connect(tokens[who.name], "second tab")
        state = await second.wait_for("table_state")
        assert state["clock"]["extended"] is False
        assert state["clock"]["countdown_ends"] == turn["countdown_ends"]
        assert state["your_turn"]["seat"] == turn["seat"]
