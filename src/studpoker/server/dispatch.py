"""A client's frames, from the text to the handler (docs/protocol.md).

Each frame is rate limited (the connection's token bucket), parsed
(:func:`~studpoker.server.protocol.parse_client_message`), checked against the guest rule (a
guest may only send :data:`GUEST_MESSAGES`) and the seat-command limit (:data:`SEAT_COMMANDS`,
per account and table), then handed to the handler of its class in :data:`HANDLERS`. A table
message becomes a command in that table's actor queue; the actor answers it. Every failure is
answered with an ``error``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from . import table as actors
from .caps import SlidingWindow
from .chat import RoomModeration
from .chat.moderation import ModerationSource
from .connections import Connection
from .lobby_push import LobbyPush
from .protocol import (
    AckMsg,
    ActionMsg,
    AddChipsMsg,
    AuthMsg,
    AutoTopUpMsg,
    ChatMsg,
    ClientMsg,
    ClientSeedMsg,
    ErrorCode,
    ErrorMsg,
    JoinTableMsg,
    JoinWaitListMsg,
    LeaveAfterHandMsg,
    LeaveTableMsg,
    LeaveWaitListMsg,
    PingMsg,
    PongMsg,
    PostBlindMsg,
    ProtocolError,
    ResyncMsg,
    SitInMsg,
    SitMsg,
    SitOutMsg,
    StandUpMsg,
    SubscribeLobbyMsg,
    UnsubscribeLobbyMsg,
    parse_client_message,
)
from .settings import Settings
from .table import TableActor, TableError
from .table.commands import Chat
from .wait_list import WaitLists

log = logging.getLogger(__name__)

# Frames refused by the token bucket in a row after which the socket is closed as a flood.
FLOOD_REFUSALS = 200


class Dispatcher:
    """The frames of every connection to the tables (``tables``, the room's actors) and the
    lobby push; ``seat_commands`` counts the seat-state commands per (account, table)."""

    def __init__(
        self,
        settings: Settings,
        tables: Mapping[int, TableActor],
        lobby: LobbyPush,
        *,
        moderation: ModerationSource | None = None,
        wait_lists: WaitLists | None = None,
    ) -> None:
        self.max_message_bytes = settings.max_message_bytes
        # The operator's mutes and bans (server/chat/moderation.py), read from ``moderation``.
        self.moderation = RoomModeration(moderation, settings.moderation_refresh_seconds)
        self.tables = tables
        self.lobby = lobby
        # The full tables' wait lists (server/wait_list.py; the room's, which hears the seats).
        self.wait_lists = wait_lists or WaitLists(
            tables, {}, lobby, offer_seconds=settings.seat_offer_seconds, max_waiting=settings.wait_list_max
        )
        self.seat_commands = SlidingWindow(
            settings.seat_commands_per_window, settings.seat_command_window_seconds
        )

    def table(self, table_id: int) -> TableActor:
        """The open table ``table_id``; ``not_found`` otherwise."""
        actor = self.tables.get(table_id)
        if actor is None or actor.stopped:
            raise TableError(ErrorCode.NOT_FOUND, f"no table {table_id}")
        return actor

    async def handle_frame(self, conn: Connection, raw: str | bytes) -> None:
        """One frame: the rate limit, parsing, then :meth:`dispatch`."""
        if not conn.bucket.take():
            conn.rejected += 1
            conn.send(ErrorMsg(code=ErrorCode.RATE_LIMITED, message="too many messages: slow down"))
            if conn.rejected > FLOOD_REFUSALS:
                conn.close(1008, "flood")
            return
        conn.rejected = 0
        if self.moderation.due():
            await self.moderation.refresh()
        if not conn.is_bot and self.moderation.is_banned(conn.account_id):
            conn.send(ErrorMsg(code=ErrorCode.BANNED, message="this account is banned from this room"))
            conn.close(4403, "banned")
            return
        try:
            message = parse_client_message(raw, max_bytes=self.max_message_bytes)
        except ProtocolError as exc:
            conn.send(ErrorMsg(code=exc.code, message=exc.message, ref=exc.ref))
            return
        await self.dispatch(conn, message)

    async def dispatch(self, conn: Connection, message: ClientMsg) -> None:
        """A parsed message to its handler, after the guest rule and the seat-command limit."""
        handler = HANDLERS[type(message)]
        if conn.is_guest and type(message) not in GUEST_MESSAGES:
            conn.send(
                ErrorMsg(
                    code=ErrorCode.LOGIN_REQUIRED,
                    message="guests may only watch: log in to sit and play",
                    ref=message.id,
                    table_id=getattr(message, "table_id", None),
                )
            )
            return
        if (
            isinstance(message, SEAT_COMMANDS)
            and not conn.is_bot
            and not self._seat_command_allowed(conn, message)
        ):
            return
        try:
            await handler(self, conn, message)
        except TableError as exc:
            conn.send(ErrorMsg(code=exc.code, message=exc.message, ref=message.id))
        except Exception:
            log.exception("%r: handling %r failed", conn, message)
            conn.send(
                ErrorMsg(code=ErrorCode.INTERNAL, message="the server could not handle that", ref=message.id)
            )

    def _seat_command_allowed(self, conn: Connection, message: SeatCommand) -> bool:
        """At most ``seat_commands_per_window`` seat-state commands per account per table in
        ``seat_command_window_seconds``: each one changes the seat list every watcher is sent."""
        table_id = message.table_id
        key = (conn.account_id, table_id)
        if self.seat_commands.allow(key):
            return True
        wait = int(self.seat_commands.retry_after(key)) + 1
        conn.send(
            ErrorMsg(
                code=ErrorCode.SEAT_RATE_LIMITED,
                message=f"too many seat changes at table {table_id}: try again in {wait} s",
                ref=message.id,
                table_id=table_id,
            )
        )
        return False


# ----------------------------------------------------------------------------- message handlers

MessageHandler = Callable[[Dispatcher, Connection, Any], Awaitable[None]]


async def _on_auth(d: Dispatcher, conn: Connection, msg: AuthMsg) -> None:
    conn.send(ErrorMsg(code=ErrorCode.BAD_MESSAGE, message="already authenticated", ref=msg.id))


async def _on_join(d: Dispatcher, conn: Connection, msg: JoinTableMsg) -> None:
    d.table(msg.table_id).submit(actors.Watch(conn=conn, ref=msg.id))
    d.wait_lists.on_watch(conn, msg.table_id)  # its place, or the count


async def _on_leave(d: Dispatcher, conn: Connection, msg: LeaveTableMsg) -> None:
    d.table(msg.table_id).submit(actors.Unwatch(conn=conn, ref=msg.id))


async def _on_sit(d: Dispatcher, conn: Connection, msg: SitMsg) -> None:
    d.wait_lists.check_sit(conn.account_id, msg.table_id)  # a seat held for the wait list
    d.table(msg.table_id).submit(actors.Sit(conn=conn, ref=msg.id, seat=msg.seat, buy_in=msg.buy_in))


async def _on_sit_out(d: Dispatcher, conn: Connection, msg: SitOutMsg) -> None:
    d.table(msg.table_id).submit(actors.SitOut(conn=conn, ref=msg.id))


async def _on_sit_in(d: Dispatcher, conn: Connection, msg: SitInMsg) -> None:
    d.table(msg.table_id).submit(actors.SitIn(conn=conn, ref=msg.id))


async def _on_post_blind(d: Dispatcher, conn: Connection, msg: PostBlindMsg) -> None:
    d.table(msg.table_id).submit(actors.PostBlind(conn=conn, ref=msg.id, now=msg.now))


async def _on_stand_up(d: Dispatcher, conn: Connection, msg: StandUpMsg) -> None:
    d.table(msg.table_id).submit(actors.StandUp(conn=conn, ref=msg.id))


async def _on_leave_after_hand(d: Dispatcher, conn: Connection, msg: LeaveAfterHandMsg) -> None:
    d.table(msg.table_id).submit(actors.LeaveAfterHand(conn=conn, ref=msg.id, leave=msg.leave))


async def _on_add_chips(d: Dispatcher, conn: Connection, msg: AddChipsMsg) -> None:
    d.table(msg.table_id).submit(actors.AddChips(conn=conn, ref=msg.id, amount=msg.amount))


async def _on_auto_top_up(d: Dispatcher, conn: Connection, msg: AutoTopUpMsg) -> None:
    d.table(msg.table_id).submit(actors.AutoTopUp(conn=conn, ref=msg.id, amount=msg.amount))


async def _on_join_wait_list(d: Dispatcher, conn: Connection, msg: JoinWaitListMsg) -> None:
    d.wait_lists.join_for(conn, msg.table_id, msg.id)  # in the cluster: sent to the table's owner


async def _on_leave_wait_list(d: Dispatcher, conn: Connection, msg: LeaveWaitListMsg) -> None:
    d.wait_lists.leave_for(conn, msg.table_id, msg.id)


async def _on_action(d: Dispatcher, conn: Connection, msg: ActionMsg) -> None:
    d.table(msg.table_id).submit(
        actors.Act(
            conn=conn, ref=msg.id, hand_id=msg.hand_id, kind=msg.kind, amount=msg.amount, version=msg.version
        )
    )


async def _on_client_seed(d: Dispatcher, conn: Connection, msg: ClientSeedMsg) -> None:
    d.table(msg.table_id).submit(
        actors.ClientSeed(conn=conn, ref=msg.id, hand_id=msg.hand_id, seed=bytes.fromhex(msg.seed))
    )


async def _on_chat(d: Dispatcher, conn: Connection, msg: ChatMsg) -> None:
    actor = d.table(msg.table_id)
    if d.moderation.is_muted(conn.account_id):
        raise TableError(ErrorCode.CHAT_MUTED, "the room's operator has muted you: your lines are not sent")
    actor.submit(Chat(conn=conn, ref=msg.id, text=msg.text))


async def _on_ping(d: Dispatcher, conn: Connection, msg: PingMsg) -> None:
    conn.send(PongMsg(ref=msg.id, server_time=time.time()))


async def _on_resync(d: Dispatcher, conn: Connection, msg: ResyncMsg) -> None:
    d.table(msg.table_id).submit(actors.Resync(conn=conn, ref=msg.id))


async def _on_subscribe_lobby(d: Dispatcher, conn: Connection, msg: SubscribeLobbyMsg) -> None:
    conn.send(AckMsg(ref=msg.id, request="subscribe_lobby"))
    d.lobby.subscribe(conn)
    for status in d.wait_lists.statuses_of(conn.account_id):
        conn.send(status)  # the lists it waits on, with any seat offered


async def _on_unsubscribe_lobby(d: Dispatcher, conn: Connection, msg: UnsubscribeLobbyMsg) -> None:
    d.lobby.unsubscribe(conn)
    conn.send(AckMsg(ref=msg.id, request="unsubscribe_lobby"))


HANDLERS: dict[type[ClientMsg], MessageHandler] = {
    AuthMsg: _on_auth,
    JoinTableMsg: _on_join,
    LeaveTableMsg: _on_leave,
    SitMsg: _on_sit,
    SitOutMsg: _on_sit_out,
    SitInMsg: _on_sit_in,
    PostBlindMsg: _on_post_blind,
    StandUpMsg: _on_stand_up,
    LeaveAfterHandMsg: _on_leave_after_hand,
    AddChipsMsg: _on_add_chips,
    AutoTopUpMsg: _on_auto_top_up,
    JoinWaitListMsg: _on_join_wait_list,
    LeaveWaitListMsg: _on_leave_wait_list,
    ActionMsg: _on_action,
    ClientSeedMsg: _on_client_seed,
    PingMsg: _on_ping,
    ResyncMsg: _on_resync,
    ChatMsg: _on_chat,
    SubscribeLobbyMsg: _on_subscribe_lobby,
    UnsubscribeLobbyMsg: _on_unsubscribe_lobby,
}

# The seat-state commands, limited per account and table (``Dispatcher._seat_command_allowed``).
SeatCommand = (
    SitMsg | SitOutMsg | SitInMsg | StandUpMsg | LeaveAfterHandMsg | AddChipsMsg | AutoTopUpMsg
    | JoinWaitListMsg | LeaveWaitListMsg | PostBlindMsg
)  # fmt: skip
SEAT_COMMANDS = (
    SitMsg, SitOutMsg, SitInMsg, StandUpMsg, LeaveAfterHandMsg, AddChipsMsg, AutoTopUpMsg,
    JoinWaitListMsg, LeaveWaitListMsg, PostBlindMsg,
)  # fmt: skip

# What a guest (no account) may send: watching only.
GUEST_MESSAGES: frozenset[type[ClientMsg]] = frozenset(
    {JoinTableMsg, LeaveTableMsg, ResyncMsg, PingMsg, SubscribeLobbyMsg, UnsubscribeLobbyMsg}
)
