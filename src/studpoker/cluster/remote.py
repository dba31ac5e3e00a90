"""What the gateway and worker roles send each other over the bus (docs/cluster.md "Roles").

- A table command (``table.<id>.cmd``, gateway to owner): JSON with the command's class name,
  the connection that sent it (its gateway, its id there, its account and name, whether it is
  one of that gateway's bots), the client's ``ref`` and the command's own fields. Only the
  commands a client can cause are accepted (:data:`WIRE_COMMANDS`); the actor's own (clock,
  start, stop, ...) never come off the wire.
- A frame (``gw.<gateway>.out``, owner to gateway): one header line ``<conn id> <table id>
  <epoch>`` and the text the actor encoded, as is (no second JSON encoding of the frame).
- A wait-list message (``account.<id>.out``, owner to every gateway): the frame's header with
  the account's id in place of a connection's, and the ``wait_list`` text.
- A chat-line query (on ``table.<id>.cmd``, a request): ``{"op": "chat_line", "line": id}``;
  the owner answers with the line kept (``{"line": {...}}``) or ``{"line": null}``.
- A lobby line (``lobby.table.<id>``, owner to every gateway): JSON with the owner, the epoch
  and the table's summary.
- Broadcasts: a gateway's presence beat (``room.presence``: its name and boot id) and a logout
  (``room.logout``: the gateway and the SHA-256 of the session's token).

:class:`Outbox` publishes in order from code that must not wait (a viewer's ``send``).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import json
import logging
from dataclasses import dataclass, field
from typing import Any

from studpoker.server.protocol import ChatLineInfo, ServerMsg, encode
from studpoker.server.table import (
    Act,
    AddChips,
    AutoTopUp,
    ClientSeed,
    Command,
    LeaveAfterHand,
    Resync,
    Sit,
    SitIn,
    SitOut,
    StandUp,
    Unwatch,
    Watch,
)
from studpoker.server.table.commands import Chat
from studpoker.server.wait_list import JoinWaitList, LeaveWaitList

from . import subjects
from .bus import Bus, BusError

log = logging.getLogger(__name__)

WIRE_COMMANDS: dict[str, type[Command]] = {
    cls.__name__: cls
    for cls in (
        Watch, Unwatch, Resync, Sit, SitOut, SitIn, StandUp, LeaveAfterHand, AddChips, AutoTopUp, Act,
        ClientSeed, Chat, JoinWaitList, LeaveWaitList,
    )
}  # fmt: skip
_NOT_FIELDS = {"conn", "ref", "done"}


class WireError(ValueError):
    """A bus payload that is not one of ours: logged and dropped by the receiver."""


@dataclass(frozen=True, slots=True)
class Sender:
    """A client connection as the owner of a table knows it: ``conn_id`` is the connection's
    id on ``gateway`` (the pair is unique across gateways)."""

    gateway: str
    conn_id: int
    account_id: int
    name: str
    # A bot of that gateway's (server/bots.py): the table treats it as the one-process room
    # does (its seat marked a bot's, no watcher cap). Set by the gateway, never by a client.
    is_bot: bool = False


@dataclass(frozen=True, slots=True)
class WireCommand:
    sender: Sender
    command: Command  # its ``conn`` is None: the receiver puts its own viewer in
    rewatch: bool = False  # a watch re-sent because the table has a new owner
    # The sending gateway's run (its boot id) and the command's number in it: the owner acts
    # once on a command the courier sent again (cluster/courier.py). 0: not numbered.
    boot: str = ""
    seq: int = 0


def encode_command(
    gateway: str, command: Command, *, rewatch: bool = False, boot: str = "", seq: int = 0
) -> bytes:
    conn = command.conn
    if conn is None or type(command).__name__ not in WIRE_COMMANDS:
        raise WireError(f"{command!r} cannot be sent to a table's owner")
    fields: dict[str, Any] = {}
    for f in dataclasses.fields(command):
        if f.name not in _NOT_FIELDS:
            value = getattr(command, f.name)
            fields[f.name] = value.hex() if isinstance(value, bytes) else value
    return json.dumps(
        {
            "op": type(command).__name__,
            "gw": gateway,
            "conn": conn.id,
            "account": conn.account_id,
            "name": conn.name,
            "bot": bool(conn.is_bot),
            "ref": command.ref,
            "fields": fields,
            "rewatch": rewatch,
            "boot": boot,
            "seq": seq,
        },
        separators=(",", ":"),
    ).encode()


def decode_command(payload: bytes) -> WireCommand:
    try:
        data = json.loads(payload)
        cls = WIRE_COMMANDS[data["op"]]
        fields = dict(data["fields"])
        if cls is ClientSeed:
            fields["seed"] = bytes.fromhex(fields["seed"])
        sender = Sender(
            subjects.check_name(str(data["gw"])),
            int(data["conn"]),
            int(data["account"]),
            str(data["name"]),
            is_bot=data.get("bot") is True,
        )
        ref = data["ref"]
        command = cls(ref=None if ref is None else str(ref), **fields)
        return WireCommand(
            sender,
            command,
            rewatch=bool(data.get("rewatch", False)),
            boot=str(data.get("boot", "")),
            seq=int(data.get("seq", 0)),
        )
    except (ValueError, KeyError, TypeError) as exc:
        raise WireError(f"not a table command: {exc}") from None


def encode_frame(conn_id: int, table_id: int, epoch: int, text: str) -> bytes:
    return f"{conn_id} {table_id} {epoch}\n".encode() + text.encode("utf-8", "surrogatepass")


def decode_frame(payload: bytes) -> tuple[int, int, int, str]:
    """(connection id, table id, epoch, text) of a frame."""
    head, sep, body = payload.partition(b"\n")
    parts = head.split()
    if not sep or len(parts) != 3:
        raise WireError("not a frame")
    try:
        conn_id, table_id, epoch = (int(p) for p in parts)
        return conn_id, table_id, epoch, body.decode("utf-8", "surrogatepass")
    except ValueError:
        raise WireError("not a frame") from None


CHAT_LINE_OP = "chat_line"


def encode_chat_line_query(line_id: int) -> bytes:
    """A gateway's question to a table's owner: the chat line ``line_id`` it keeps (a report)."""
    if isinstance(line_id, bool) or not isinstance(line_id, int):
        raise WireError(f"bad chat line id {line_id!r}")
    return json.dumps({"op": CHAT_LINE_OP, "line": line_id}, separators=(",", ":")).encode()


def chat_line_query(payload: bytes) -> int | None:
    """The line a chat-line query asks for; None for a payload that is no such query (a
    command). WireError for a query that is not well formed."""
    if not payload.startswith(b'{"op":"chat_line"'):
        return None
    try:
        line = json.loads(payload)["line"]
        if isinstance(line, bool) or not isinstance(line, int):
            raise TypeError("line")
        return line
    except (ValueError, KeyError, TypeError) as exc:
        raise WireError(f"not a chat-line query: {exc}") from None


def encode_chat_line(line: ChatLineInfo | None) -> bytes:
    body = "null" if line is None else line.model_dump_json()
    return b'{"line":' + body.encode() + b"}"


def decode_chat_line(payload: bytes) -> ChatLineInfo | None:
    try:
        line = json.loads(payload)["line"]
        return None if line is None else ChatLineInfo.model_validate(line)
    except (ValueError, KeyError, TypeError) as exc:  # pydantic's ValidationError is a ValueError
        raise WireError(f"not a chat line: {exc}") from None


def encode_account_frame(account_id: int, table_id: int, epoch: int, text: str) -> bytes:
    """A wait-list message for every socket of ``account_id`` (``account.<id>.out``)."""
    return encode_frame(account_id, table_id, epoch, text)


decode_account_frame = decode_frame  # (account id, table id, epoch, text)


def encode_lobby_line(owner: str, epoch: int, summary: dict[str, Any]) -> bytes:
    return json.dumps({"owner": owner, "epoch": epoch, "summary": summary}, separators=(",", ":")).encode()


def decode_lobby_line(payload: bytes) -> tuple[str, int, dict[str, Any]]:
    try:
        data = json.loads(payload)
        summary = data["summary"]
        if not isinstance(summary, dict):
            raise TypeError("summary")
        return str(data["owner"]), int(data["epoch"]), summary
    except (ValueError, KeyError, TypeError) as exc:
        raise WireError(f"not a lobby line: {exc}") from None


def encode_presence(gateway: str, boot: str) -> bytes:
    """A gateway's heartbeat on ``room.presence``: its name and this run's random ``boot`` id
    (a restarted gateway numbers its connections from 1 again: its old watchers are not its)."""
    return json.dumps({"gw": gateway, "boot": boot}, separators=(",", ":")).encode()


def decode_presence(payload: bytes) -> tuple[str, str]:
    try:
        data = json.loads(payload)
        return subjects.check_name(str(data["gw"])), str(data["boot"])
    except (ValueError, KeyError, TypeError) as exc:
        raise WireError(f"not a presence beat: {exc}") from None


def token_digest(token: str) -> str:
    """What a logout broadcast names a session by: a session token itself never crosses the bus."""
    return hashlib.sha256(token.encode()).hexdigest()


def encode_logout(gateway: str, token: str) -> bytes:
    return json.dumps({"gw": gateway, "session": token_digest(token)}, separators=(",", ":")).encode()


def decode_logout(payload: bytes) -> tuple[str, str]:
    """(the gateway it came from, the digest of the logged-out session's token)."""
    try:
        data = json.loads(payload)
        return subjects.check_name(str(data["gw"])), str(data["session"])
    except (ValueError, KeyError, TypeError) as exc:
        raise WireError(f"not a logout: {exc}") from None


class Outbox:
    """Messages to publish, in the order they were put, by one task: a viewer's ``send`` never
    waits for the broker. A publish that fails is logged and dropped (the bus is at most once
    anyway, and what the roles send survives a lost message)."""

    def __init__(self, bus: Bus) -> None:
        self.bus = bus
        self._queue: asyncio.Queue[tuple[str, bytes]] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None

    def put(self, subject: str, payload: bytes) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(), name="bus-outbox")
        self._queue.put_nowait((subject, payload))

    async def _run(self) -> None:
        while True:
            subject, payload = await self._queue.get()
            try:
                await self.bus.publish(subject, payload)
            except (BusError, ValueError, TypeError):
                log.exception("publishing on %s failed", subject)

    async def close(self) -> None:
        """Publish what is queued (for at most 2 s), then stop."""
        with contextlib.suppress(asyncio.TimeoutError):
            async with asyncio.timeout(2.0):
                while not self._queue.empty():
                    await asyncio.sleep(0.01)
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task


@dataclass(eq=False)
class AccountSender:
    """Every socket of one account, wherever they are (the wait lists' ``Sender`` on a worker):
    its messages go to ``account.<id>.out``, which every gateway hears."""

    account_id: int
    outbox: Outbox
    epoch_of: dict[int, int]

    def send(self, message: ServerMsg) -> None:
        self.send_encoded(encode(message), message)

    def send_encoded(self, text: str, message: ServerMsg) -> None:
        table_id = getattr(message, "table_id", None)
        table = table_id if isinstance(table_id, int) else 0
        frame = encode_account_frame(self.account_id, table, self.epoch_of.get(table, 0), text)
        self.outbox.put(subjects.account_out(self.account_id), frame)


@dataclass(eq=False)
class RemoteViewer:
    """A client connection on some gateway, as a table actor of a worker sees it (the ``Viewer``
    port): its frames go to ``gw.<gateway>.out`` with its id there. ``id`` is the worker's own
    number for it (the actor keys its watchers by it)."""

    id: int
    sender: Sender
    outbox: Outbox
    epoch_of: dict[int, int]  # table id -> the worker's epoch there, stamped on each frame
    tables: set[int] = field(default_factory=set)

    @property
    def is_bot(self) -> bool:
        return self.sender.is_bot

    @property
    def account_id(self) -> int:
        return self.sender.account_id

    @property
    def name(self) -> str:
        return self.sender.name

    def send(self, message: ServerMsg) -> None:
        self.send_encoded(encode(message), message)

    def send_encoded(self, text: str, message: ServerMsg) -> None:
        table_id = getattr(message, "table_id", None)
        table = table_id if isinstance(table_id, int) else 0
        frame = encode_frame(self.sender.conn_id, table, self.epoch_of.get(table, 0), text)
        self.outbox.put(subjects.gateway_out(self.sender.gateway), frame)
