"""The wait lists and the chat reports on the bus (docs/cluster.md "Shared state"), without a
cluster: the new wire messages, the subject and its permissions, the owner's answers to the
wait-list requests, a gateway's memory of what it passed on, and the chat-line question over
the in-process bus."""

from __future__ import annotations

import asyncio
import dataclasses
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest

from studpoker.cluster import services, subjects
from studpoker.cluster.bus import InProcessBus, Message
from studpoker.cluster.gateway import GatewayRoom
from studpoker.cluster.nats_bus import NatsBus
from studpoker.cluster.nats_config import (
    NatsCredentials,
    gateway_permissions,
    worker_permissions,
    write_nats_config,
)
from studpoker.cluster.remote import (
    AccountSender,
    Outbox,
    WireError,
    chat_line_query,
    decode_account_frame,
    decode_chat_line,
    decode_command,
    encode_chat_line,
    encode_chat_line_query,
    encode_command,
)
from studpoker.cluster.waiting import MOVED, RemoteChatLines, RemoteWaitLists, owner_takes, owner_wait_lists
from studpoker.server.protocol import AckMsg, ChatLineInfo, ErrorCode, ErrorMsg, WaitListMsg
from studpoker.server.settings import Settings
from studpoker.server.table import Sit, TableError, Watch
from studpoker.server.wait_list import JoinWaitList, LeaveWaitList, WaitLists
from tests.cluster.conftest import until
from tests.server.table_fakes import FakeRoom, FakeViewer, ManualClock
from tests.server.test_wait_list import TABLE, FakeTable

# -- the wire ---------------------------------------------------------------------------------------


def test_the_wait_list_requests_cross_the_wire() -> None:
    cara = FakeViewer(7, "cara")
    join = decode_command(encode_command("gw-a", JoinWaitList(conn=cara, ref="j1"), boot="b", seq=4))
    assert isinstance(join.command, JoinWaitList) and join.command.ref == "j1"
    assert (join.sender.gateway, join.sender.conn_id, join.sender.account_id) == ("gw-a", cara.id, 7)
    assert (join.boot, join.seq) == ("b", 4)
    quiet = decode_command(encode_command("gw-a", LeaveWaitList(conn=cara, quiet=True, why="you logged out")))
    assert isinstance(quiet.command, LeaveWaitList)
    assert (quiet.command.quiet, quiet.command.why, quiet.command.ref) == (True, "you logged out", None)
    plain = decode_command(encode_command("gw-a", LeaveWaitList(conn=cara, ref="l")))
    assert isinstance(plain.command, LeaveWaitList) and not plain.command.quiet


def test_the_account_subject_is_built_and_parsed_in_one_place() -> None:
    assert subjects.account_out(7) == "account.7.out"
    assert subjects.parse("account.7.out") == subjects.AccountOut(7)
    assert subjects.parse("account.123.out") == subjects.AccountOut(123)
    for bad in (0, -3, True):
        with pytest.raises(ValueError):
            subjects.account_out(bad)
    for subject in ("account.0.out", "account.x.out", "account.+1.out", "account.7", "account.7.in"):
        with pytest.raises(ValueError):
            subjects.parse(subject)


def test_only_workers_publish_the_accounts_messages_and_a_gateway_still_reads_only_its_frames() -> None:
    gateway = gateway_permissions("1", NatsCredentials.for_user("gateway-1"))
    worker = worker_permissions(NatsCredentials.for_user("worker-1"))
    assert subjects.ALL_ACCOUNTS_OUT in gateway.subscribe and subjects.ALL_ACCOUNTS_OUT in worker.publish
    assert subjects.ALL_ACCOUNTS_OUT not in gateway.publish  # no gateway forges an offer
    assert [s for s in gateway.subscribe if s.startswith("gw.")] == ["gw.1.out"]  # no one else's cards
    assert not any(s in gateway.subscribe for s in (">", "gw.*.out", "gw.>", "account.>"))


async def test_an_accounts_message_goes_on_its_subject_with_the_tables_epoch() -> None:
    bus = InProcessBus()
    got: list[Message] = []

    async def heard(message: Message) -> None:
        got.append(message)

    await bus.subscribe(subjects.ALL_ACCOUNTS_OUT, heard)
    outbox = Outbox(bus)
    AccountSender(7, outbox, {3: 5}).send(WaitListMsg(table_id=3, waiting=2, position=1, note="hi"))
    await until(lambda: bool(got), "the message")
    assert got[0].subject == "account.7.out"
    account_id, table_id, epoch, text = decode_account_frame(got[0].payload)
    assert (account_id, table_id, epoch) == (7, 3, 5)
    message = WaitListMsg.model_validate_json(text)
    assert (message.waiting, message.position, message.note) == (2, 1, "hi")
    await outbox.close()
    await bus.close()


def test_the_chat_line_question_and_answer() -> None:
    assert chat_line_query(encode_chat_line_query(12)) == 12
    # A command is no question (the owner decodes it as a command).
    assert chat_line_query(encode_command("g", Watch(conn=FakeViewer(1, "a")))) is None
    for bad in (b'{"op":"chat_line","line":"1"}', b'{"op":"chat_line"}', b'{"op":"chat_line","line":true}'):
        with pytest.raises(WireError):
            chat_line_query(bad)
    with pytest.raises(WireError):
        encode_chat_line_query(True)
    line = ChatLineInfo(id=12, at=1.5, account_id=7, name="cara", seat=2, text="nice hand")
    assert decode_chat_line(encode_chat_line(line)) == line
    assert decode_chat_line(encode_chat_line(None)) is None
    for bad in (b"{}", b'{"line":{"id":1}}', b"nope"):
        with pytest.raises(WireError):
            decode_chat_line(bad)


# -- the owner's side -------------------------------------------------------------------------------


def _lists(table: FakeTable, players: dict[int, FakeViewer]) -> WaitLists:
    connections = {account: {viewer.id: viewer} for account, viewer in players.items()}
    return WaitLists(
        {TABLE: table}, connections, FakeRoom(), offer_seconds=30.0, max_waiting=10, clock=ManualClock()
    )


def test_the_owner_answers_each_request_as_the_one_process_room_does() -> None:
    table = FakeTable()
    players = {account: FakeViewer(account, f"p{account}") for account in (1, 2, 101)}
    lists = _lists(table, players)
    assert owner_takes(lists, TABLE, players[1], JoinWaitList(ref="j"))
    assert players[1].of_type(AckMsg)[-1].ref == "j" and lists.count(TABLE) == 1
    assert owner_takes(lists, TABLE, players[2], JoinWaitList(ref="k"))
    # A seated player may not join: the error answers his request, nothing changes.
    assert owner_takes(lists, TABLE, players[101], JoinWaitList(ref="x"))
    refused = players[101].of_type(ErrorMsg)[-1]
    assert (refused.code, refused.ref) == (ErrorCode.ALREADY_SEATED, "x") and lists.count(TABLE) == 2
    # A seat frees: held for the first; the second's sit is refused, the first's goes on.
    del table.seats[2]
    lists.lobby_changed(TABLE)
    assert lists.status(1, TABLE).offer is not None
    assert owner_takes(lists, TABLE, players[2], Sit(ref="s", seat=2, buy_in=2000))
    assert players[2].of_type(ErrorMsg)[-1].code == ErrorCode.SEAT_OFFERED
    assert not owner_takes(lists, TABLE, players[1], Sit(ref="t", seat=2, buy_in=2000))
    assert not owner_takes(lists, TABLE, players[1], Watch())
    # The quiet leave of a logout: nothing said to one not waiting; off the list for one waiting.
    before = len(players[101].messages)
    assert owner_takes(lists, TABLE, players[101], LeaveWaitList(quiet=True, why="you logged out"))
    assert len(players[101].messages) == before
    assert owner_takes(lists, TABLE, players[2], LeaveWaitList(quiet=True, why="you logged out"))
    assert lists.count(TABLE) == 1 and players[2].of_type(WaitListMsg)[-1].position is None
    # Declining the offer: acked, and the leave of one not waiting refused.
    assert owner_takes(lists, TABLE, players[1], LeaveWaitList(ref="d"))
    assert players[1].of_type(AckMsg)[-1].ref == "d" and lists.count(TABLE) == 0
    assert owner_takes(lists, TABLE, players[1], LeaveWaitList(ref="e"))
    assert players[1].of_type(ErrorMsg)[-1].code == ErrorCode.NOT_WAITING


async def test_a_workers_lists_reach_the_accounts_on_the_bus_and_a_move_tells_them() -> None:
    bus = InProcessBus()
    got: list[tuple[int, WaitListMsg]] = []

    async def heard(message: Message) -> None:
        account_id, _, _, text = decode_account_frame(message.payload)
        got.append((account_id, WaitListMsg.model_validate_json(text)))

    await bus.subscribe(subjects.ALL_ACCOUNTS_OUT, heard)
    table, lobby, outbox = FakeTable(), FakeRoom(), Outbox(bus)
    tables: dict[int, Any] = {TABLE: SimpleNamespace(actor=table)}
    lists = owner_wait_lists(tables, outbox, {TABLE: 1}, lobby, Settings())
    lists.join(5, TABLE)
    await until(lambda: len(got) == 1, "the join's message")
    assert got[0][0] == 5 and got[0][1].position == 1 and lobby.lobby_changes[-1] == TABLE
    # The owner lets the table go (a move): the players on its list are told.
    del tables[TABLE]
    lists.drop_table(TABLE, MOVED)
    await until(lambda: len(got) == 2, "the move's message")
    assert got[1][0] == 5 and (got[1][1].position, got[1][1].note) == (None, MOVED)
    assert lists.count(TABLE) == 0
    await outbox.close()
    await bus.close()


# -- the gateway's side -----------------------------------------------------------------------------


def _room(**line: Any) -> Any:
    forwarded: list[tuple[int, Any]] = []
    cara = FakeViewer(7, "cara")
    room = SimpleNamespace(
        settings=Settings(), lobby=FakeRoom(), remote={TABLE: SimpleNamespace(line=line)},
        connections={7: {cara.id: cara}}, forwarded=forwarded, bus=None,
        forward=lambda table_id, command: forwarded.append((table_id, command)),
    )  # fmt: skip
    return room, cara


def test_a_gateway_forwards_the_requests_and_remembers_what_it_passed_on() -> None:
    room, cara = _room(waiting=3)
    lists = RemoteWaitLists(cast(GatewayRoom, room))
    with pytest.raises(TableError) as unknown:
        lists.join_for(cara, 999, "r")
    assert unknown.value.code == ErrorCode.NOT_FOUND and room.forwarded == []
    lists.join_for(cara, TABLE, "r")
    [(table_id, command)] = room.forwarded
    assert (
        table_id == TABLE and isinstance(command, JoinWaitList) and (command.conn, command.ref) == (cara, "r")
    )
    lists.check_sit(7, TABLE)  # the owner checks it
    assert lists.count(TABLE) == 3  # the owner's lobby line
    assert lists.status(8, TABLE) == WaitListMsg(table_id=TABLE, waiting=3)
    lists.heard(7, WaitListMsg(table_id=TABLE, waiting=3, position=2, note="you are number 2"))
    assert [(s.position, s.note) for s in lists.statuses_of(7)] == [(2, None)]
    # A logout: the owner takes him off each list he was last seen on; then he is on none.
    lists.leave_all(7)
    _, leave = room.forwarded[-1]
    assert isinstance(leave, LeaveWaitList) and leave.quiet and leave.conn is cara
    assert lists.statuses_of(7) == []
    lists.heard(7, WaitListMsg(table_id=TABLE, waiting=3, position=1))
    lists.heard(7, WaitListMsg(table_id=TABLE, waiting=2, position=None, note="you left"))
    assert lists.statuses_of(7) == [] and len(room.forwarded) == 2
    lists.leave_all(7)
    assert len(room.forwarded) == 2  # on no list: nothing sent


async def test_a_chat_line_is_asked_of_the_tables_owner() -> None:
    bus = InProcessBus()
    settings = dataclasses.replace(Settings(), command_reply_timeout_seconds=0.3, command_retry_seconds=0.05)
    room = SimpleNamespace(bus=bus, settings=settings)
    chat = RemoteChatLines(TABLE, cast(GatewayRoom, room))
    # No owner (a takeover in progress) for the whole time: unavailable.
    with pytest.raises(TableError) as nobody:
        await chat.lookup(1)
    assert nobody.value.code == ErrorCode.UNAVAILABLE
    line = ChatLineInfo(id=1, at=2.0, account_id=7, name="cara", seat=None, text="gg")

    async def owner(message: Message) -> None:
        asked = chat_line_query(message.payload)
        await bus.respond(message, encode_chat_line(line if asked == 1 else None))

    await bus.subscribe(subjects.table_commands(TABLE), owner)
    assert await chat.lookup(1) == line
    assert await chat.lookup(2) is None
    await bus.close()
    with pytest.raises(TableError):
        await chat.lookup(1)  # the gateway is stopping
    await asyncio.sleep(0)


async def test_on_nats_every_gateway_hears_the_accounts_messages_and_none_may_send_one(
    nats_binary: Path, tmp_path: Path
) -> None:
    files = write_nats_config(tmp_path, gateways=2, workers=1)
    server = services.start_nats(tmp_path, files.config)
    buses: list[NatsBus] = []
    try:
        for path in (files.workers["1"], files.gateways["1"], files.gateways["2"]):
            credentials = NatsCredentials.read(path)
            buses.append(await NatsBus.connect(server.url, credentials, name=credentials.user))
        worker, gateway_1, gateway_2 = buses
        heard: dict[str, list[bytes]] = {"1": [], "2": []}
        for name, bus in (("1", gateway_1), ("2", gateway_2)):

            async def on(message: Message, name: str = name) -> None:
                heard[name].append(message.payload)

            await bus.subscribe(subjects.ALL_ACCOUNTS_OUT, on)  # allowed: no BusPermissionError
        await gateway_1.publish(subjects.account_out(3), b"a forged offer")
        await gateway_1.flush()
        await worker.publish(subjects.account_out(3), b"the owner's")
        await until(lambda: heard["1"] == heard["2"] == [b"the owner's"], "the owner's message on both")
        assert ("publish", "account.3.out") in gateway_1.violations and worker.violations == []
    finally:
        for bus in buses:
            await bus.close()
        server.stop()
