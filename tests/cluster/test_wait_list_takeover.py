"""A worker dies with the wait lists it kept (docs/cluster.md "Shared state"): the new owner
cannot know them, so each gateway tells the accounts it last saw on the old owner's list of that
table that their place was lost, when a lobby line shows the table's new owner. A gateway on the
in-process bus; the owners' messages are published by the test as a worker would."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from studpoker.cluster import subjects
from studpoker.cluster.bus import InProcessBus
from studpoker.cluster.gateway import GatewayRoom
from studpoker.cluster.remote import encode_account_frame, encode_lobby_line
from studpoker.cluster.waiting import LOST, MOVED
from studpoker.server.connections import Connection
from studpoker.server.protocol import ServerMsg, WaitListMsg, encode
from studpoker.server.ratelimit import TokenBucket
from studpoker.server.settings import Settings
from studpoker.store import Store
from studpoker.store.models import TableConfig
from tests.cluster.conftest import until


class Listener(Connection):
    """A local socket that keeps the models it is sent."""

    def __init__(self, account_id: int, name: str) -> None:
        super().__init__(account_id, name, TokenBucket(rate=100.0, burst=100.0))
        self.got: list[ServerMsg] = []

    def send(self, message: ServerMsg) -> None:
        self.got.append(message)

    def lists(self) -> list[WaitListMsg]:
        return [m for m in self.got if isinstance(m, WaitListMsg)]


@dataclasses.dataclass
class Gateway:
    room: GatewayRoom
    bus: InProcessBus
    table_id: int

    async def owner(self, epoch: int, waiting: int) -> None:
        """The table's owner at ``epoch`` publishes its lobby line."""
        line: dict[str, Any] = {**self.room.remote[self.table_id].line, "waiting": waiting}
        payload = encode_lobby_line(f"worker-{epoch}", epoch, line)
        await self.bus.publish(subjects.lobby_summary(self.table_id), payload)
        await until(lambda: self.room.remote[self.table_id].epoch == epoch, f"the owner at epoch {epoch}")

    async def tell(self, account_id: int, epoch: int, **fields: Any) -> None:
        """The owner at ``epoch`` sends an account a ``wait_list`` (``account.<id>.out``)."""
        text = encode(WaitListMsg(table_id=self.table_id, **fields))
        frame = encode_account_frame(account_id, self.table_id, epoch, text)
        await self.bus.publish(subjects.account_out(account_id), frame)


@pytest.fixture
async def gateway(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Gateway]:
    store = await Store.open(f"sqlite+aiosqlite:///{tmp_path / 'room.db'}")

    async def guest_block() -> int:
        return 1  # PostgreSQL's sequence in a cluster; this gateway is alone

    monkeypatch.setattr(store.login_attempts, "reserve_guest_block", guest_block)
    table = await store.create_table(TableConfig.derive("Full", "7S", 100, 200, max_seats=2))
    bus = InProcessBus()

    async def connect() -> InProcessBus:
        return bus

    settings = dataclasses.replace(Settings(), command_give_up_seconds=0.5)
    room = GatewayRoom(store, settings, name="1", connect=connect)
    await room.start()
    try:
        yield Gateway(room, bus, table.id)
    finally:
        await room.stop()
        await store.close()


def attach(gateway: Gateway, account_id: int, *, watching: bool = False) -> Listener:
    conn = Listener(account_id, f"p{account_id}")
    gateway.room.attach(conn, rejoin=False)
    if watching:
        conn.tables.add(gateway.table_id)
    return conn


async def test_a_dead_owners_list_is_told_lost_at_the_new_owner(gateway: Gateway) -> None:
    ann, ben = attach(gateway, 7), attach(gateway, 8, watching=True)
    await gateway.owner(1, waiting=1)
    await gateway.tell(7, 1, waiting=1, position=1)
    await until(lambda: len(ann.lists()) == 1, "ann's place")
    # The owner dies; a survivor takes the table (epoch 2) with an empty list.
    await gateway.owner(2, waiting=0)
    await until(lambda: len(ann.lists()) == 2, "ann told")
    told = ann.lists()[-1]
    assert (told.table_id, told.position, told.offer, told.note) == (gateway.table_id, None, None, LOST)
    assert told.waiting == 0
    # The other watcher of the table (a bot would count the people waiting) gets the new count.
    assert [(m.waiting, m.position) for m in ben.lists()] == [(0, None)]
    # The gateway no longer has her on it: the lobby's re-subscription shows her nothing.
    assert gateway.room.remote_lists.statuses_of(7) == []
    # Told once: a later owner change finds nothing of hers.
    await gateway.owner(3, waiting=0)
    assert [m.note for m in ann.lists()] == [None, LOST]


async def test_a_clean_move_and_the_new_owners_list_are_not_lost(gateway: Gateway) -> None:
    ann, cara = attach(gateway, 7), attach(gateway, 9)
    await gateway.owner(1, waiting=2)
    await gateway.tell(7, 1, waiting=2, position=1)
    await gateway.tell(9, 1, waiting=2, position=2)
    # A move between hands: the old owner told ann herself (MOVED) before letting the table go.
    await gateway.tell(7, 1, waiting=1, position=None, note=MOVED)
    await until(lambda: len(ann.lists()) == 2 and len(cara.lists()) == 1, "the old owner's messages")
    # Cara already joined the new owner's list (epoch 2), heard before its lobby line came.
    await gateway.tell(9, 2, waiting=1, position=1)
    await until(lambda: len(cara.lists()) == 2, "cara's new place")
    await gateway.owner(2, waiting=1)
    assert [m.note for m in ann.lists()] == [None, MOVED]
    assert [m.position for m in cara.lists()] == [2, 1]
    assert gateway.room.remote_lists.statuses_of(9)[0].position == 1


async def test_the_first_owner_a_gateway_hears_of_loses_nothing(gateway: Gateway) -> None:
    # A gateway started during a takeover: her place at epoch 4 came before any lobby line.
    ann, ben = attach(gateway, 7), attach(gateway, 8, watching=True)
    await gateway.tell(7, 4, waiting=1, position=1)
    await until(lambda: len(ann.lists()) == 1, "ann's place")
    await gateway.owner(4, waiting=1)
    assert [m.position for m in ann.lists()] == [1]
    assert ben.lists() == []  # no owner change seen: nothing to correct
