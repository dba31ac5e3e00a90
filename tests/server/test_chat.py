"""Table chat over the WebSocket (issue 12): who may speak (seated players; watchers if the
house allows; never guests), what a line may hold, how often, the last lines in the snapshot,
the operator's mute and ban (``studpoker admin``, written to the database behind the room's
back), the players muted for oneself and the reports over REST, and the hand's events in the
snapshot for the dealer log. Every refusal sends nothing to anyone."""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path
from typing import Any

import websockets

from tests.server.conftest import Client, Harness, make_settings, passive_choice, running_server


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def chat_lines(client: Client) -> list[dict[str, Any]]:
    return [m["line"] for m in client.log if m.get("type") == "chat"]


async def guest(h: Harness) -> Client:
    ws = await websockets.connect(f"ws://{h.base}/ws?guest=1", max_size=2**22)
    client = Client(ws, "guest")
    h.clients.append(client)
    await client.wait_for("welcome")
    return client


async def watch(client: Client, table_id: int) -> dict[str, Any]:
    """Join the table; its snapshot."""
    answer = await client.request(type="join_table", table_id=table_id)
    assert answer["type"] == "ack", answer
    return await client.wait_for("table_state")


async def settle(*clients: Client) -> None:
    """Every client answers a ping: what the server sent before it has arrived."""
    for client in clients:
        assert (await client.request(type="ping"))["type"] == "pong"


async def seated_pair(h: Harness) -> tuple[int, Client, Client]:
    """alice in seat 1 and bob in seat 2 of a new table (no hand starts: a long pause)."""
    actor = await h.add_table()
    alice, bob = await h.player("alice"), await h.player("bob")
    await h.seat(alice, actor.table_id, 1, 4000)
    await h.seat(bob, actor.table_id, 2, 4000)
    return actor.table_id, alice, bob


def quiet(tmp_path: Path, **overrides: Any) -> Any:
    """Settings where seated players wait for ever for their first hand."""
    return make_settings(tmp_path, hand_pause_seconds=10**6, **overrides)


async def test_a_seated_player_chats_and_every_watcher_hears(tmp_path: Path) -> None:
    async with running_server(quiet(tmp_path)) as h:
        table_id, alice, bob = await seated_pair(h)
        looker = await guest(h)
        await watch(looker, table_id)
        answer = await alice.request(
            type="chat", table_id=table_id, text="  good luck <img src=x onerror=alert(1)>  "
        )
        assert (answer["type"], answer["request"]) == ("ack", "chat"), answer
        await settle(alice, bob, looker)
        alice_id = (await h.store.account_by_name("alice")).id
        for client in (alice, bob, looker):
            [line] = chat_lines(client)
            # the text as written (only the spaces around it stripped): the client shows it as text
            assert line | {"at": 0} == {
                "id": 1,
                "at": 0,
                "account_id": alice_id,
                "name": "alice",
                "seat": 1,
                "text": "good luck <img src=x onerror=alert(1)>",
            }
        # the chat message is not versioned: the table's version did not move
        state = await watch(await h.player("dave"), table_id)
        assert [(c["name"], c["text"]) for c in state["chat"]] == [
            ("alice", "good luck <img src=x onerror=alert(1)>")
        ]
        assert state["version"] == h.room.actors[table_id].version


async def test_who_may_chat(tmp_path: Path) -> None:
    async with running_server(quiet(tmp_path)) as h:
        table_id, alice, _ = await seated_pair(h)
        carol = await h.player("carol")
        await watch(carol, table_id)
        looker = await guest(h)
        await watch(looker, table_id)
        # a watcher, by default: refused
        answer = await carol.request(type="chat", table_id=table_id, text="hello")
        assert (answer["type"], answer["code"]) == ("error", "chat_not_allowed"), answer
        assert "seated" in answer["message"]
        # a guest: never
        answer = await looker.request(type="chat", table_id=table_id, text="hello")
        assert (answer["type"], answer["code"]) == ("error", "login_required"), answer
        # no such table
        answer = await alice.request(type="chat", table_id=999, text="hello")
        assert answer["code"] == "not_found", answer
        await settle(alice, carol, looker)
        assert chat_lines(alice) == chat_lines(carol) == chat_lines(looker) == []
        assert h.room.actors[table_id].chat.snapshot() == []


async def test_watchers_chat_when_the_house_allows(tmp_path: Path) -> None:
    async with running_server(quiet(tmp_path, chat_watchers=True)) as h:
        table_id, alice, _ = await seated_pair(h)
        carol = await h.player("carol")
        answer = await carol.request(type="chat", table_id=table_id, text="hello")
        assert (answer["type"], answer["code"]) == ("error", "not_joined"), answer  # not watching
        await watch(carol, table_id)
        assert (await carol.request(type="chat", table_id=table_id, text="hello"))["type"] == "ack"
        await settle(alice)
        [line] = chat_lines(alice)
        assert (line["name"], line["seat"], line["text"]) == ("carol", None, "hello")
        looker = await guest(h)
        await watch(looker, table_id)
        answer = await looker.request(type="chat", table_id=table_id, text="hello")
        assert answer["code"] == "login_required", answer


async def test_what_a_line_may_hold(tmp_path: Path) -> None:
    async with running_server(quiet(tmp_path, chat_max_chars=20)) as h:
        table_id, alice, bob = await seated_pair(h)
        refused = {
            "x" * 21: ("chat_too_long", "at most 20 characters, not 21"),
            "   ": ("chat_invalid", "empty"),
            "ring\x07": ("chat_invalid", "U+0007"),
            "two\nlines": ("chat_invalid", "U+000A"),
            "abc\u202edcba": ("chat_invalid", "U+202E"),
        }
        for text, (code, words) in refused.items():
            answer = await alice.request(type="chat", table_id=table_id, text=text)
            assert (answer["type"], answer["code"]) == ("error", code), (text, answer)
            assert words in answer["message"], answer
        # a lone surrogate is refused before it reaches the table
        await alice.send_raw(f'{{"type": "chat", "table_id": {table_id}, "text": "a\\ud800", "id": "s"}}')
        answer = await alice.wait_for(lambda m: m.get("ref") == "s")
        assert answer["code"] == "bad_message", answer
        # 20 characters of any script are fine, emoji included
        assert (await alice.request(type="chat", table_id=table_id, text="ça va? 🂡 " + "é" * 11))[
            "type"
        ] == "ack"
        await settle(alice, bob)
        assert [line["text"] for line in chat_lines(bob)] == ["ça va? 🂡 " + "é" * 11]


async def test_the_rate_limit(tmp_path: Path) -> None:
    async with running_server(quiet(tmp_path, chat_lines_per_window=3, chat_window_seconds=600)) as h:
        table_id, alice, bob = await seated_pair(h)
        # refused lines do not count
        assert (await alice.request(type="chat", table_id=table_id, text="\x00"))["type"] == "error"
        for n in range(3):
            assert (await alice.request(type="chat", table_id=table_id, text=f"line {n}"))["type"] == "ack"
        answer = await alice.request(type="chat", table_id=table_id, text="one more")
        assert (answer["type"], answer["code"]) == ("error", "chat_rate_limited"), answer
        assert "at most 3 lines in 600 s" in answer["message"] and "try again in" in answer["message"]
        # per account: bob still speaks
        assert (await bob.request(type="chat", table_id=table_id, text="me too"))["type"] == "ack"
        await settle(alice, bob)
        assert [line["text"] for line in chat_lines(bob)] == ["line 0", "line 1", "line 2", "me too"]


async def test_the_snapshot_has_the_last_lines(tmp_path: Path) -> None:
    async with running_server(quiet(tmp_path, chat_history_lines=3, chat_lines_per_window=100)) as h:
        table_id, alice, bob = await seated_pair(h)
        for n in range(5):
            assert (await (alice, bob)[n % 2].request(type="chat", table_id=table_id, text=f"n{n}"))[
                "type"
            ] == "ack"
        state = await watch(await guest(h), table_id)
        assert [(c["id"], c["name"], c["text"]) for c in state["chat"]] == [
            (3, "alice", "n2"),
            (4, "bob", "n3"),
            (5, "alice", "n4"),
        ]
        # a resync has them too
        await alice.request(type="resync", table_id=table_id)
        again = await alice.wait_for("table_state")
        assert again["chat"] == state["chat"]


async def test_the_operator_mutes_an_account(tmp_path: Path) -> None:
    async with running_server(quiet(tmp_path, moderation_refresh_seconds=0.0)) as h:
        table_id, alice, bob = await seated_pair(h)
        await h.store.moderation.moderate("alice", "mute", reason="spam")  # as studpoker admin does
        answer = await alice.request(type="chat", table_id=table_id, text="buy chips at ...")
        assert (answer["type"], answer["code"]) == ("error", "chat_muted"), answer
        assert "muted" in answer["message"]
        # muted, not banned: she plays on
        assert (await alice.request(type="sit_out", table_id=table_id))["type"] == "ack"
        await h.store.moderation.moderate("alice", "unmute")
        assert (await alice.request(type="chat", table_id=table_id, text="sorry"))["type"] == "ack"
        await settle(alice, bob)
        assert [line["text"] for line in chat_lines(bob)] == ["sorry"]


async def test_a_ban_closes_the_sockets_and_refuses_logins(tmp_path: Path) -> None:
    async with running_server(quiet(tmp_path, moderation_refresh_seconds=0.0)) as h:
        token = await h.register("alice")
        alice = await h.connect(token, "alice")
        bob = await h.player("bob")
        await h.store.moderation.moderate("alice", "ban", reason="collusion")
        # her socket: closed at its next message, which is not handled
        await alice.send(type="ping", id="p")
        answer = await alice.wait_for("error")
        assert (answer["code"], answer["message"]) == ("banned", "this account is banned from this room")
        await asyncio.wait_for(alice.closed.wait(), 5)
        assert alice.ws.close_code == 4403
        assert not any(m.get("type") == "pong" for m in alice.log)
        # bob is not touched
        assert (await bob.request(type="ping"))["type"] == "pong"
        # no new socket, no REST, no login
        ws = await websockets.connect(f"ws://{h.base}/ws")
        await ws.send(json.dumps({"type": "auth", "token": token}))
        refusal = json.loads(await ws.recv())
        assert (refusal["type"], refusal["code"]) == ("error", "banned"), refusal
        with contextlib.suppress(websockets.ConnectionClosed):
            await ws.recv()
        assert ws.close_code == 4403
        me = await h.http.get("/api/me", headers=auth(token))
        assert me.status_code == 401 and "banned" in me.json()["error"]["message"]
        login = await h.http.post("/api/login", json={"name": "alice", "password": "password123"})
        assert (login.status_code, login.json()["error"]["code"]) == (403, "banned")
        # unbanned: she logs in again
        await h.store.moderation.moderate("alice", "unban")
        login = await h.http.post("/api/login", json={"name": "alice", "password": "password123"})
        assert login.status_code == 200, login.text
        back = await h.connect(login.json()["token"], "alice again")
        assert (await back.request(type="ping"))["type"] == "pong"


async def test_a_ban_takes_effect_after_the_refresh(tmp_path: Path) -> None:
    """The room reads the decisions again at most every moderation_refresh_seconds: a ban
    written meanwhile is not seen yet (here: never within the test)."""
    async with running_server(quiet(tmp_path, moderation_refresh_seconds=10**6)) as h:
        alice = await h.player("alice")
        assert (await alice.request(type="ping"))["type"] == "pong"  # the first reading
        await h.store.moderation.moderate("alice", "ban")
        assert (await alice.request(type="ping"))["type"] == "pong"
        h.room.dispatcher.moderation.refresh_seconds = 0.0
        await alice.send(type="ping")
        assert (await alice.wait_for("error"))["code"] == "banned"


async def test_players_muted_for_oneself(harness: Harness) -> None:
    alice, bob = await harness.register("alice"), await harness.register("bob")
    bob_id = (await harness.store.account_by_name("bob")).id
    put = await harness.http.put("/api/me/chat/mutes/BOB", headers=auth(alice))
    assert put.status_code == 200, put.text
    assert (put.json()["player"], put.json()["account_id"]) == ("bob", bob_id)
    listed = (await harness.http.get("/api/me/chat/mutes", headers=auth(alice))).json()
    assert [(m["player"], m["account_id"]) for m in listed["muted"]] == [("bob", bob_id)]
    assert listed["max_mutes"] == 500
    assert (await harness.http.get("/api/me/chat/mutes", headers=auth(bob))).json()["muted"] == []
    for name, status in (("alice", 422), ("nobody", 404)):
        answer = await harness.http.put(f"/api/me/chat/mutes/{name}", headers=auth(alice))
        assert answer.status_code == status, answer.text
    assert (await harness.http.delete("/api/me/chat/mutes/bob", headers=auth(alice))).status_code == 204
    assert (await harness.http.delete("/api/me/chat/mutes/bob", headers=auth(alice))).status_code == 404
    assert (await harness.http.get("/api/me/chat/mutes")).status_code == 401


async def test_the_mute_limit(tmp_path: Path) -> None:
    async with running_server(quiet(tmp_path, chat_mutes_per_account=1)) as h:
        alice = await h.register("alice")
        await h.register("bob")
        await h.register("carol")
        assert (await h.http.put("/api/me/chat/mutes/bob", headers=auth(alice))).status_code == 200
        answer = await h.http.put("/api/me/chat/mutes/carol", headers=auth(alice))
        assert (answer.status_code, answer.json()["error"]["code"]) == (409, "too_many_mutes")


async def test_a_report_keeps_the_line_for_the_operator(tmp_path: Path) -> None:
    async with running_server(quiet(tmp_path, chat_reports_per_hour=1)) as h:
        table_id, alice, bob = await seated_pair(h)
        assert (await alice.request(type="chat", table_id=table_id, text="you fish"))["type"] == "ack"
        await settle(bob)
        [line] = chat_lines(bob)
        bob_token = (await h.http.post("/api/login", json={"name": "bob", "password": "password123"})).json()[
            "token"
        ]
        path = f"/api/tables/{table_id}/chat/{line['id']}/report"
        answer = await h.http.post(path, json={"reason": "insults"}, headers=auth(bob_token))
        assert answer.status_code == 201, answer.text
        # the same line again: the same report, not counted against the hourly budget
        again = await h.http.post(path, headers=auth(bob_token))
        assert (again.status_code, again.json()) == (201, answer.json())
        [report] = await h.store.moderation.reports()
        assert (report.id, report.reporter, report.speaker, report.table_id, report.line_id) == (
            answer.json()["id"],
            "bob",
            "alice",
            table_id,
            line["id"],
        )
        assert (report.text, report.reason) == ("you fish", "insults")
        assert abs(report.said_at.timestamp() - line["at"]) < 0.001
        # refusals: her own line, a line the table does not keep, no table, no session
        alice_token = (
            await h.http.post("/api/login", json={"name": "alice", "password": "password123"})
        ).json()["token"]
        assert (await h.http.post(path, headers=auth(alice_token))).status_code == 422
        for wrong in (f"/api/tables/{table_id}/chat/99/report", "/api/tables/999/chat/1/report"):
            assert (await h.http.post(wrong, headers=auth(bob_token))).status_code == 404
        assert (await h.http.post(path)).status_code == 401
        assert len(await h.store.moderation.reports()) == 1


async def first_turn(*clients: Client) -> tuple[Client, dict[str, Any]]:
    """The client whose turn comes first, and its ``your_turn``."""
    waits = {asyncio.ensure_future(c.wait_for("your_turn", 20)): c for c in clients}
    done, pending = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    for task in pending:
        task.cancel()
    task = done.pop()
    return waits[task], task.result()


def events_before_snapshot(client: Client, hand_id: str) -> list[dict[str, Any]]:
    """The engine events of the hand the client was sent before its last ``table_state``."""
    last = max(i for i, m in enumerate(client.log) if m.get("type") == "table_state")
    return [
        m["event"]
        for m in client.log[:last]
        if m.get("type") == "event" and m.get("hand_id") == hand_id and "version" in m["event"]
    ]


async def test_the_snapshot_has_the_hands_events(tmp_path: Path) -> None:
    """A player who reloads mid-hand gets the events he was sent, his own down cards in them
    (the dealer log is written again from them); a watcher's copy shows no down card."""
    async with running_server(make_settings(tmp_path, think_seconds=30.0)) as h:
        actor = await h.add_table()
        alice, bob = await h.player("alice"), await h.player("bob")
        await h.seat(alice, actor.table_id, 1, 4000)
        await h.seat(bob, actor.table_id, 2, 4000)
        client, turn = await first_turn(alice, bob)
        hand_id, seat = turn["hand_id"], turn["seat"]
        option = passive_choice(turn["options"])
        await client.send(type="action", table_id=actor.table_id, hand_id=hand_id, kind=option["kind"])
        await client.wait_for(
            lambda m: (
                m.get("type") == "event" and m["event"].get("kind") == "action" and m["event"]["seat"] == seat
            )
        )
        await client.request(type="resync", table_id=actor.table_id)
        state = await client.wait_for("table_state")
        assert state["hand_events"] == events_before_snapshot(client, hand_id)
        own = [
            e
            for e in state["hand_events"]
            if e["kind"] == "deal" and e["seat"] == seat and e["detail"] == "down"
        ]
        assert len(own) == 2 and all(e["cards"][0] is not None for e in own)
        assert any(e["kind"] == "action" and e["seat"] == seat for e in state["hand_events"])
        looker = await watch(await guest(h), actor.table_id)
        events = looker["hand_events"]
        assert [e["version"] for e in events] == list(range(1, len(events) + 1))
        down = [e for e in events if e["kind"] == "deal" and e["detail"] == "down"]
        assert len(down) == 4 and all(e["cards"] == [None] for e in down)
        assert events[0]["kind"] == "hand_start"
