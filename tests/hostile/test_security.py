"""Security: acting for another seat, replays, dead tokens, other players' histories, markup and
SQL in names, login brute force, a spy that must never see a hidden card, and a deck order that
nothing sent before the end of the hand gives away."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import re
import time
from collections import Counter, defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import websockets
from sqlalchemy import text

from studpoker.cards import format_cards, parse_cards, verify
from studpoker.server.bots import start_bots
from tests.server.conftest import Client, Harness, make_settings, passive_choice, running_server

CARD_RE = re.compile(r"^[2-9TJQKA][cdhs]$")


async def two_players(harness: Harness) -> tuple[int, Client, Client]:
    table = await harness.add_table()
    alice = await harness.player("alice")
    bob = await harness.player("bob")
    await harness.seat(alice, table.table_id, 1, 4000)
    await harness.seat(bob, table.table_id, 2, 4000)
    return table.table_id, alice, bob


async def first_turn(alice: Client, bob: Client) -> tuple[Client, Client, dict[str, Any]]:
    """Whoever is asked first, the other one, and the your_turn message."""
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        for me, other in ((alice, bob), (bob, alice)):
            for message in me.drain():
                if message["type"] == "your_turn":
                    return me, other, message
        await asyncio.sleep(0.02)
    raise TimeoutError("nobody was asked to act")


def action_of(turn: dict[str, Any], option: dict[str, Any] | None = None) -> dict[str, Any]:
    option = option or passive_choice(turn["options"])
    return {
        "type": "action",
        "table_id": turn["table_id"],
        "hand_id": turn["hand_id"],
        "kind": option["kind"],
        "amount": option["amount"],
        "version": turn["version"],
    }


async def test_cannot_act_for_another_seat(harness: Harness) -> None:
    table_id, alice, bob = await two_players(harness)
    me, other, turn = await first_turn(alice, bob)
    actor = harness.room.actors[table_id]
    before = (actor.version, actor.hand.version if hasattr(actor.hand, "version") else None)
    # The other player sends the exact action the player to act was offered.
    answer = await other.request(**action_of(turn))
    assert answer["type"] == "error" and answer["code"] == "not_your_turn", answer
    # Naming the seat is not part of the protocol at all.
    answer = await other.request(**action_of(turn), seat=turn["seat"])
    assert answer["type"] == "error" and answer["code"] == "bad_message", answer
    after = (actor.version, actor.hand.version if hasattr(actor.hand, "version") else None)
    assert before == after
    # The real player still can.
    answer = await me.request(**action_of(turn))
    assert answer["type"] == "ack", answer


async def test_replayed_and_stale_actions_are_refused(harness: Harness) -> None:
    table_id, alice, bob = await two_players(harness)
    me, _other, turn = await first_turn(alice, bob)
    message = action_of(turn)
    assert (await me.request(**message))["type"] == "ack"
    actor = harness.room.actors[table_id]
    version = actor.version
    # The very same frame again.
    answer = await me.request(**message)
    assert answer["type"] == "error" and answer["code"] in ("not_your_turn", "stale"), answer
    assert actor.version == version
    # When the same player is to act again, the old decision's version is stale.
    hand_id = turn["hand_id"]
    deadline = time.monotonic() + 30
    stale_seen = finished = False
    while time.monotonic() < deadline and not finished:
        for who in (alice, bob):
            for m in who.drain():
                if m["type"] == "your_turn" and m["hand_id"] == hand_id:
                    if who is me and m["version"] != turn["version"] and not stale_seen:
                        answer = await me.request(**message)
                        assert answer["type"] == "error" and answer["code"] == "stale", answer
                        stale_seen = True
                    await who.send(**action_of(m))
                if m["type"] == "hand_finished" and m["hand_id"] == hand_id:
                    finished = True
        await asyncio.sleep(0.01)
    assert finished
    # After the hand: its id is no longer playable.
    answer = await me.request(**message)
    assert answer["type"] == "error" and answer["code"] in ("stale", "no_hand", "not_your_turn"), answer


async def test_expired_and_revoked_tokens(harness: Harness) -> None:
    revoked = await harness.register("revoked")
    expired = await harness.register("expired")
    assert (
        await harness.http.get("/api/me", headers={"Authorization": f"Bearer {revoked}"})
    ).status_code == 200
    assert (
        await harness.http.post("/api/logout", headers={"Authorization": f"Bearer {revoked}"})
    ).status_code == 204
    async with harness.store.engine.begin() as conn:
        await conn.execute(
            text("update sessions set expires_at = :t where token_hash = :h"),
            {
                "t": datetime.now(UTC) - timedelta(minutes=1),
                "h": hashlib.sha256(expired.encode()).hexdigest(),
            },
        )
    for token in (revoked, expired, "forged-" + revoked[7:]):
        response = await harness.http.get("/api/me", headers={"Authorization": f"Bearer {token}"})
        assert response.status_code == 401, response.text
        response = await harness.http.get("/api/hands", headers={"Authorization": f"Bearer {token}"})
        assert response.status_code == 401, response.text
        async with websockets.connect(f"ws://{harness.base}/ws?token={token}") as ws:
            error = json.loads(await ws.recv())
            assert error["type"] == "error" and error["code"] == "unauthorized", error
            with pytest.raises(websockets.ConnectionClosed):
                await ws.recv()
        async with websockets.connect(f"ws://{harness.base}/ws") as ws:
            await ws.send(json.dumps({"type": "auth", "token": token}))
            error = json.loads(await ws.recv())
            assert error["code"] == "unauthorized", error


async def test_logout_closes_open_sockets(harness: Harness) -> None:
    token = await harness.register("leaver")
    client = await harness.connect(token, "leaver")
    assert (
        await harness.http.post("/api/logout", headers={"Authorization": f"Bearer {token}"})
    ).status_code == 204
    await asyncio.sleep(0.5)
    # The logged-out socket must not be able to do anything any more.
    try:
        answer = await client.request(type="ping", timeout=2)
    except (TimeoutError, websockets.ConnectionClosed):
        return
    assert answer["type"] == "error", answer


async def test_cannot_read_another_players_hand(harness: Harness) -> None:
    table_id, alice, bob = await two_players(harness)
    carol_token = await harness.register("carol")
    alice_token = await harness.register("alice2")
    del alice_token
    me, _other, turn = await first_turn(alice, bob)
    hand_id = turn["hand_id"]
    carol = {"Authorization": f"Bearer {carol_token}"}
    response = await harness.http.get(f"/api/hands/{hand_id}", headers=carol)
    assert response.status_code == 403, response.text
    assert "deck_order" not in response.text
    assert (await harness.http.get("/api/hands", headers=carol)).json() == []
    assert (await harness.http.get(f"/api/hands/{hand_id}")).status_code == 401
    assert (await harness.http.get("/api/hands/nope", headers=carol)).status_code == 404
    del me, table_id


async def test_hand_in_progress_hides_the_deck_from_its_players(tmp_path: Path) -> None:
    async with running_server(make_settings(tmp_path)) as harness:
        table = await harness.add_table()
        tokens = [await harness.register(n) for n in ("ann", "ben")]
        clients = [await harness.connect(t, n) for t, n in zip(tokens, ("ann", "ben"), strict=True)]
        for i, c in enumerate(clients):
            await harness.seat(c, table.table_id, i + 1, 4000)
        _me, _other, turn = await first_turn(*clients)
        response = await harness.http.get(
            f"/api/hands/{turn['hand_id']}", headers={"Authorization": f"Bearer {tokens[0]}"}
        )
        assert response.status_code == 200, response.text
        body = response.json()
        assert body["status"] == "in_progress" and body["deck_order"] is None and body["salt"] is None


async def test_names_with_markup_or_sql(harness: Harness) -> None:
    async with harness.store.engine.connect() as conn:
        before = (await conn.execute(text("select count(*) from accounts"))).scalar()
    for name in (
        "<script>alert(1)</script>",
        "<b>bold</b>",
        "x' OR '1'='1",
        "Robert'); DROP TABLE accounts;--",
        "a\u0000b",
        "&lt;img&gt;",
        "name with spaces",
    ):
        response = await harness.http.post("/api/register", json={"name": name, "password": "password123"})
        assert response.status_code == 422, (name, response.text)
        response = await harness.http.post("/api/login", json={"name": name, "password": "password123"})
        assert response.status_code in (401, 422, 429), (name, response.text)
    # SQL in a password is just a password.
    sql_password = "'); DROP TABLE accounts;--"
    response = await harness.http.post("/api/register", json={"name": "sqlpass", "password": sql_password})
    assert response.status_code == 201
    response = await harness.http.post("/api/login", json={"name": "sqlpass", "password": sql_password})
    assert response.status_code == 200
    async with harness.store.engine.connect() as conn:
        after = (await conn.execute(text("select count(*) from accounts"))).scalar()
    assert after == (before or 0) + 1
    # There is no chat: a chat message with markup is an unknown type, answered and dropped.
    client = await harness.connect(response.json()["token"], "sqlpass")
    answer = await client.request(type="chat", text="<script>alert(1)</script>")
    assert answer["code"] == "unknown_type"
    # Error messages quote input as JSON text, never as markup the server renders.
    assert answer["message"].count("<script>") == 0


async def test_login_brute_force_is_rate_limited(harness: Harness) -> None:
    await harness.register("victim", "the-right-password")
    codes = []
    for i in range(8):
        response = await harness.http.post("/api/login", json={"name": "victim", "password": f"guess-{i}"})
        codes.append(response.status_code)
    assert codes[:5] == [401] * 5 and set(codes[5:]) == {429}, codes
    # Even the right password waits out the window; the answer says how long.
    response = await harness.http.post(
        "/api/login", json={"name": "victim", "password": "the-right-password"}
    )
    assert response.status_code == 429 and int(response.headers["Retry-After"]) > 0
    assert (
        await harness.http.post("/api/register", json={"name": "other", "password": "password123"})
    ).status_code == 201


# ----------------------------------------------------------------------------- the spy


def card_strings(value: Any) -> list[str]:
    out: list[str] = []
    if isinstance(value, str):
        if CARD_RE.match(value):
            out.append(value)
    elif isinstance(value, dict):
        for v in value.values():
            out.extend(card_strings(v))
    elif isinstance(value, list):
        for v in value:
            out.extend(card_strings(v))
    return out


def leaks(message: dict[str, Any], own_seat: int | None, exposed: set[str]) -> list[str]:
    """Cards in a pre-showdown message that this viewer may not see (empty: none).

    ``exposed``: hands whose down cards an all-in run-out turned face up (updated here); the
    down cards dealt after that go to everyone, without a visibility.
    """
    kind = message["type"]
    if kind == "hand_finished":
        return []
    if kind == "event":
        event = message["event"]
        what = event.get("kind")
        if what == "expose":
            exposed.add(str(message.get("hand_id")))
        if what in ("show", "expose", "deal_board") or (what == "deal" and event.get("detail") == "up"):
            return []
        if what == "deal" and message.get("hand_id") in exposed and "visibility" not in event:
            return []
        if what == "deal" and event.get("detail") == "down":
            if own_seat is not None and event.get("seat") == own_seat:
                return []
            return card_strings(event)
        return card_strings(event)
    if kind == "table_state":
        hand = message.get("hand") or {}
        found: list[str] = []
        for seat in hand.get("seats", []):
            if seat.get("seat") != own_seat and not seat.get("shown"):
                found += card_strings(seat.get("down"))
        rest = {k: v for k, v in hand.items() if k not in ("seats", "board")}
        found += card_strings(rest)
        return found
    return card_strings(message)


async def spy_run(tmp_path: Path, hands_wanted: int, tables: int = 3) -> dict[str, Any]:
    settings = make_settings(tmp_path, bot_delay=(0.0, 0.0), think_seconds=20.0, countdown_seconds=20.0)
    async with running_server(settings) as harness:
        table_ids = []
        for i in range(tables):
            game = ("7S", "RZ", "7S8", "O8")[i % 4]
            table_ids.append((await harness.add_table(game)).table_id)
        await start_bots(harness.room, 4, table_ids=table_ids, seed=7)
        spies: list[tuple[Client, int | None, int]] = []
        for i, table_id in enumerate(table_ids):
            player = await harness.player(f"spy{i}")
            actor = harness.room.actors[table_id]
            free = min(set(range(1, actor.config.max_seats + 1)) - set(actor.seats))
            await harness.seat(player, table_id, free, 4000)
            watcher = await harness.player(f"watch{i}")
            assert (await watcher.request(type="join_table", table_id=table_id))["type"] == "ack"
            spies += [(player, free, table_id), (watcher, None, table_id)]
        finished: set[str] = set()
        violations: list[str] = []
        salts_seen: dict[str, str] = {}
        commitments: dict[str, str] = {}
        pre_end_text: dict[str, list[str]] = defaultdict(list)
        counts: Counter[str] = Counter()
        exposed: dict[str, set[str]] = defaultdict(set)
        deadline = time.monotonic() + float(os.environ.get("STUDPOKER_SPY_SECONDS", "600"))
        next_ping = time.monotonic() + 10
        while len(finished) < hands_wanted and time.monotonic() < deadline:
            progressed = False
            if time.monotonic() > next_ping:  # the heartbeat: a silent watcher is dropped
                next_ping = time.monotonic() + 10
                for client, _seat, _table in spies:
                    await client.send(type="ping")
            for client, seat, _table in spies:
                for message in client.drain():
                    progressed = True
                    counts["messages"] += 1
                    hand_id = message.get("hand_id")
                    if message["type"] == "hand_started":
                        commitments[message["hand_id"]] = message["commitment"]
                    if message["type"] == "your_turn" and seat is not None:
                        option = passive_choice(message["options"])
                        await client.send(**action_of(message, option))
                    bad = leaks(message, seat, exposed[client.name])
                    if bad:
                        violations.append(f"{client.name}: {bad} in {json.dumps(message)[:300]}")
                    if message["type"] == "hand_finished":
                        finished.add(message["hand_id"])
                        salts_seen[message["hand_id"]] = message["salt"]
                        if not verify(message["commitment"], message["deck_order"], message["salt"]):
                            violations.append(f"commitment does not verify for {message['hand_id']}")
                        if (
                            commitments.get(message["hand_id"], message["commitment"])
                            != message["commitment"]
                        ):
                            violations.append(f"commitment changed during {message['hand_id']}")
                        order = parse_cards(message["deck_order"])
                        bare = hashlib.sha256(format_cards(order).encode()).hexdigest()
                        if bare == message["commitment"]:
                            violations.append("commitment without salt")
                    elif hand_id is not None:
                        pre_end_text[hand_id].append(json.dumps(message))
            if not progressed:
                await asyncio.sleep(0.01)
        # Nothing sent before the end of a hand carries its salt or deck order.
        for hand_id, salt in salts_seen.items():
            joined = "\n".join(pre_end_text.get(hand_id, []))
            if salt in joined or "deck_order" in joined:
                violations.append(f"hand {hand_id}: salt or deck order before the end")
            if len(salt) < 32:
                violations.append(f"hand {hand_id}: salt of {len(salt)} characters")
        for client, _seat, _table in spies:
            await client.request(type="leave_table", table_id=_table)
        for bot in harness.room.bots:
            bot.stop()
        return {
            "hands": len(finished),
            "violations": violations,
            "commitments": commitments,
            "messages": counts["messages"],
        }


async def test_spy_never_sees_a_hidden_card(tmp_path: Path) -> None:
    result = await spy_run(tmp_path, int(os.environ.get("STUDPOKER_SPY_HANDS", "200")))
    print(f"\nspy: {result['hands']} hands, {result['messages']} messages inspected")
    assert result["hands"] >= int(os.environ.get("STUDPOKER_SPY_HANDS", "200"))
    assert result["violations"] == []
    assert len(set(result["commitments"].values())) == len(result["commitments"])


def test_leak_rule() -> None:
    exposed: set[str] = set()
    deal: dict[str, Any] = {"kind": "deal", "seat": 2, "detail": "down", "cards": ["3c"]}
    down: dict[str, Any] = {"type": "event", "hand_id": "h", "event": deal}
    mine = {**down, "event": {**deal, "visibility": 1, "seat": 1}}
    assert leaks(down, 1, exposed) == ["3c"]
    assert leaks(mine, 1, exposed) == []
    hidden = {**down, "event": {**deal, "cards": [None]}}
    assert leaks(hidden, None, exposed) == []
    expose = {"type": "event", "hand_id": "h", "event": {"kind": "expose", "seat": 2, "cards": ["2c"]}}
    assert leaks(expose, 1, exposed) == [] and exposed == {"h"}
    assert leaks(down, 1, exposed) == []
    turn = {"type": "your_turn", "hand_id": "h", "options": [{"kind": "call", "note": "Ah"}]}
    assert leaks(turn, 1, exposed) == ["Ah"]


@pytest.mark.slow
async def test_spy_thousands_of_hands(tmp_path: Path) -> None:
    result = await spy_run(tmp_path, 3000, tables=4)
    print(f"\nspy: {result['hands']} hands, {result['messages']} messages inspected")
    assert result["hands"] >= 3000 and result["violations"] == []
