"""The wait lists and the chat reports in the cluster (docs/cluster.md "Shared state").

A table's wait list lives with the table's owner, next to the actor whose seats it watches:
the worker runs the one-process :class:`~studpoker.server.wait_list.WaitLists` over the actors
it owns (:func:`owner_wait_lists`), and its messages to a player go to ``account.<id>.out``
(:class:`~studpoker.cluster.remote.AccountSender`), which every gateway hears and writes to that
account's sockets there. A gateway's :class:`RemoteWaitLists` sends the players' requests to the
owner as table commands (through the courier, like a ``sit``), and keeps the last ``wait_list``
each local account was sent, for the lobby's re-subscription and a logout.

A chat report needs the line the table keeps: :class:`RemoteChatLines` asks the owner (a
request on ``table.<id>.cmd``).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator, Mapping
from typing import Any, Protocol

from studpoker.server.protocol import ChatLineInfo, ErrorCode, ErrorMsg, WaitListMsg
from studpoker.server.settings import Settings
from studpoker.server.table import Command, Sit, TableActor, TableError
from studpoker.server.table.ports import LobbyNotifier, Sender, Viewer
from studpoker.server.wait_list import JoinWaitList, LeaveWaitList, WaitLists

from . import subjects
from .bus import Bus, BusClosedError, BusError
from .remote import AccountSender, Outbox, WireError, decode_chat_line, encode_chat_line_query

# What these read of a worker's and a gateway's state (protocols: the roles import this module).


class _Owned(Protocol):
    @property
    def actor(self) -> TableActor: ...


class _Lined(Protocol):
    @property
    def line(self) -> dict[str, Any]: ...


class Gateway(Protocol):
    """The gateway's room as its wait lists and chat lines use it (a ``GatewayRoom``)."""

    @property
    def settings(self) -> Settings: ...

    @property
    def lobby(self) -> LobbyNotifier: ...

    @property
    def bus(self) -> Bus | None: ...

    @property
    def remote(self) -> Mapping[int, _Lined]: ...

    @property
    def connections(self) -> Mapping[int, Mapping[int, Viewer]]: ...

    def forward(self, table_id: int, command: Command) -> None: ...


MOVED = "the table moved to another server: join its wait list again"
# A gateway's note when a table's owner changed without telling (the worker died: its lists died with it).
LOST = "the table's server went down and its wait list was lost: join it again"


# -- the owner's side -----------------------------------------------------------------------------


class _OwnedActors(Mapping[int, TableActor]):
    """The actors of the tables a worker owns, as the wait lists read them (a live view)."""

    def __init__(self, tables: Mapping[int, _Owned]) -> None:
        self._tables = tables

    def __getitem__(self, table_id: int) -> TableActor:
        return self._tables[table_id].actor

    def __iter__(self) -> Iterator[int]:
        return iter(self._tables)

    def __len__(self) -> int:
        return len(self._tables)


class _AccountsOnBus(Mapping[int, Mapping[int, Sender]]):
    """Every account's sockets, as one sender on ``account.<id>.out`` (the owner does not know
    which gateways hold them; each gateway writes to its own)."""

    def __init__(self, outbox: Outbox, epoch_of: dict[int, int]) -> None:
        self._outbox = outbox
        self._epoch_of = epoch_of

    def __getitem__(self, account_id: int) -> Mapping[int, Sender]:
        if account_id <= 0:  # a guest (no wait list for guests) or not an account
            raise KeyError(account_id)
        return {0: AccountSender(account_id, self._outbox, self._epoch_of)}

    def __iter__(self) -> Iterator[int]:
        return iter(())

    def __len__(self) -> int:
        return 0


def owner_wait_lists(
    tables: Mapping[int, _Owned],
    outbox: Outbox,
    epochs: dict[int, int],
    lobby: LobbyNotifier,
    settings: Settings,
) -> WaitLists:
    """The wait lists of the tables a worker owns (``tables``, a live map); ``lobby`` is the
    worker's port, ``epochs`` its epoch per table (stamped on each message)."""
    return WaitLists(
        _OwnedActors(tables),
        _AccountsOnBus(outbox, epochs),
        lobby,
        offer_seconds=settings.seat_offer_seconds,
        max_waiting=settings.wait_list_max,
    )


def owner_takes(wait_lists: WaitLists, table_id: int, viewer: Viewer, command: Command) -> bool:
    """What the owner does with a wait-list request, or with a ``sit`` on a seat held for the
    list (refused as the one-process dispatcher refuses it). True: the command was answered
    here; False: it goes on to the table's actor."""
    try:
        if isinstance(command, JoinWaitList):
            wait_lists.join_for(viewer, table_id, command.ref)
        elif isinstance(command, LeaveWaitList):
            if command.quiet:
                wait_lists.leave_quietly(viewer.account_id, table_id, command.why or "you logged out")
            else:
                wait_lists.leave_for(viewer, table_id, command.ref)
        elif isinstance(command, Sit):
            wait_lists.check_sit(viewer.account_id, table_id)
            return False
        else:
            return False
    except TableError as exc:
        viewer.send(ErrorMsg(code=exc.code, message=exc.message, ref=command.ref))
    return True


# -- the gateway's side ---------------------------------------------------------------------------


class RemoteWaitLists(WaitLists):
    """A gateway's wait lists: the requests go to each table's owner, the answers come back on
    ``account.<id>.out`` (:meth:`heard`); the gateway only remembers what it last passed on."""

    def __init__(self, room: Gateway) -> None:
        settings = room.settings
        super().__init__(
            {}, {}, room.lobby, offer_seconds=settings.seat_offer_seconds, max_waiting=settings.wait_list_max
        )
        self.room = room
        # account id -> table id -> the last wait_list he was sent while on that list
        self.last: dict[int, dict[int, WaitListMsg]] = {}
        # (account id, table id) -> the owner's epoch that message came with
        self.epochs: dict[tuple[int, int], int] = {}

    def heard(self, account_id: int, message: WaitListMsg, epoch: int = 0) -> None:
        """A ``wait_list`` from a table's owner (at ``epoch``), on its way to the account's
        local sockets."""
        lists = self.last.setdefault(account_id, {})
        if message.position is None:
            self._forget(account_id, message.table_id)
        else:
            lists[message.table_id] = message
            self.epochs[(account_id, message.table_id)] = epoch

    def _forget(self, account_id: int, table_id: int) -> None:
        lists = self.last.get(account_id, {})
        lists.pop(table_id, None)
        self.epochs.pop((account_id, table_id), None)
        if not lists:
            self.last.pop(account_id, None)

    def owner_changed(self, table_id: int, epoch: int, waiting: int) -> list[tuple[int, WaitListMsg]]:
        """Table ``table_id`` has a new owner at ``epoch``: an owner that let it go cleanly
        told its players (``MOVED``), so whoever is still on a list of an older epoch here lost
        his place with a dead worker. Each such account, off the list, with the ``wait_list``
        that tells him so (``waiting``: the new owner's count)."""
        lost = [
            account_id
            for account_id, lists in self.last.items()
            if table_id in lists and self.epochs.get((account_id, table_id), 0) < epoch
        ]
        out = []
        for account_id in sorted(lost):
            self._forget(account_id, table_id)
            out.append((account_id, WaitListMsg(table_id=table_id, waiting=waiting, note=LOST)))
        return out

    def _forward(self, conn: Viewer, table_id: int, command: Command) -> None:
        if table_id not in self.room.remote:
            raise TableError(ErrorCode.NOT_FOUND, f"no table {table_id}")
        command.conn = conn
        self.room.forward(table_id, command)

    def join_for(self, conn: Viewer, table_id: int, ref: str | None) -> None:
        self._forward(conn, table_id, JoinWaitList(ref=ref))

    def leave_for(self, conn: Viewer, table_id: int, ref: str | None) -> None:
        self._forward(conn, table_id, LeaveWaitList(ref=ref))

    def leave_all(self, account_id: int, why: str = "you logged out") -> None:
        """A logout: each owner of a list he was last seen on takes him off it."""
        conn = next(iter(self.room.connections.get(account_id, {}).values()), None)
        lists = self.last.pop(account_id, {})
        for table_id in lists:
            self.epochs.pop((account_id, table_id), None)
        if conn is None:
            return
        for table_id in sorted(lists):
            self._forward(conn, table_id, LeaveWaitList(quiet=True, why=why))

    def on_watch(self, conn: Viewer, table_id: int) -> None:
        """Nothing here: the owner answers the watch with the list."""

    def check_sit(self, account_id: int, table_id: int) -> None:
        """Nothing here: the owner checks the ``sit`` against its list."""

    def count(self, table_id: int) -> int:
        remote = self.room.remote.get(table_id)
        return 0 if remote is None else int(remote.line.get("waiting", 0))

    def status(self, account_id: int, table_id: int, note: str | None = None) -> WaitListMsg:
        known = self.last.get(account_id, {}).get(table_id)
        if known is not None:
            return known.model_copy(update={"note": note})
        return WaitListMsg(table_id=table_id, waiting=self.count(table_id), note=note)

    def statuses_of(self, account_id: int) -> list[WaitListMsg]:
        lists = self.last.get(account_id, {})
        return [lists[t].model_copy(update={"note": None}) for t in sorted(lists)]

    def lobby_changed(self, table_id: int) -> None:
        self.lobby.lobby_changed(table_id)

    def close(self) -> None:
        self.last.clear()
        self.epochs.clear()


class RemoteChatLines:
    """A table's chat as a gateway's report route reads it: the line comes from the owner."""

    def __init__(self, table_id: int, room: Gateway) -> None:
        self.table_id = table_id
        self.room = room

    def find(self, line_id: int) -> None:
        return None  # kept by the owner: see lookup

    async def lookup(self, line_id: int) -> ChatLineInfo | None:
        """The line the owner keeps, or None; ``unavailable`` when no owner answers within
        ``command_reply_timeout_seconds`` (a takeover in progress), asked again meanwhile."""
        bus = self.room.bus
        settings = self.room.settings
        if bus is None:
            raise TableError(ErrorCode.UNAVAILABLE, f"table {self.table_id} is not answering: try again")
        payload = encode_chat_line_query(line_id)
        deadline = time.monotonic() + settings.command_reply_timeout_seconds
        while True:
            left = deadline - time.monotonic()
            try:
                subject = subjects.table_commands(self.table_id)
                reply = await bus.request(subject, payload, timeout=max(0.05, left))
                return decode_chat_line(reply.payload)
            except (BusClosedError, WireError):
                break
            except BusError:  # no responders, no answer in time: a takeover in progress
                if time.monotonic() + settings.command_retry_seconds >= deadline:
                    break
                await asyncio.sleep(settings.command_retry_seconds)
        raise TableError(ErrorCode.UNAVAILABLE, f"table {self.table_id} is not answering: try again")
