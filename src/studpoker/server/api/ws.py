"""The table WebSocket, ``/ws`` (docs/protocol.md): a player's socket, checked by a token
(``?token=`` or a first ``auth`` message), or a guest's (``?guest=1``), watching only.

:class:`TableSocket` has the shape of Starlette's ``WebSocketEndpoint`` (connect, receive,
disconnect), which it cannot be as it stands: the first message may be the ``auth`` one, the
receive loop has the heartbeat's timeout and it stops when the room closes the connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass

from fastapi import APIRouter, WebSocket
from starlette.types import Message
from starlette.websockets import WebSocketDisconnect

from studpoker.store import Account
from studpoker.store.errors import AuthError

from ..connections import WebSocketConnection
from ..protocol import AuthMsg, ErrorCode, ErrorMsg, ProtocolError, WelcomeMsg, encode, parse_client_message
from ..ratelimit import TokenBucket
from ..room import Room
from ..sessions import AdmissionError, Handshake
from ..settings import Settings

router = APIRouter()

# ``?guest=`` values that do not ask for a guest connection.
_NOT_GUEST = (None, "", "0", "false")
# Seconds a socket without ``?token=`` has to send its ``auth`` message.
_AUTH_SECONDS = 10


@router.websocket("/ws")
async def websocket_endpoint(
    websocket: WebSocket, token: str | None = None, guest: str | None = None
) -> None:
    socket = TableSocket(websocket, websocket.app.state.room, websocket.app.state.settings)
    conn = await socket.on_connect(token, guest)
    if conn is None:
        return
    try:
        await socket.receive_frames(conn)
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        await socket.on_disconnect(conn)


@dataclass(frozen=True)
class SocketSession:
    """A socket's checked session; ``handshake`` goes to :meth:`Room.attach`, which refuses the
    socket if the session was logged out in between."""

    account: Account
    token: str
    # Unix seconds on the store's clock.
    expires_at: float
    handshake: Handshake


class TableSocket:
    """One socket's life: admitted (or refused) in :meth:`on_connect`, its frames handed to the
    room, detached in :meth:`on_disconnect`."""

    def __init__(self, websocket: WebSocket, room: Room, settings: Settings) -> None:
        self.websocket = websocket
        self.room = room
        self.settings = settings
        self.address = websocket.client.host if websocket.client else "?"

    async def on_connect(self, token: str | None, guest: str | None) -> WebSocketConnection | None:
        """Accept the socket and admit it to the room, then welcome it; None after refusing."""
        await self.websocket.accept()
        handshake: Handshake | None = None
        if token is None and guest not in _NOT_GUEST:
            conn = await self._guest()
            if conn is None:
                return None
        else:
            session = await self._authenticate(token)
            if session is None:
                return None
            conn = self._connection(session.account.id, session.account.name)
            conn.token = session.token
            conn.session_expires_at = session.expires_at
            handshake = session.handshake
        try:
            # The caps, and a logout or expiry since the token was checked (no await from here
            # to the welcome: nothing can come in between).
            self.room.attach(conn, handshake=handshake)
        except AdmissionError as exc:
            await self.refuse(exc.code, exc.message, exc.close_code)
            return None
        conn.start()
        conn.send(
            WelcomeMsg(
                account_id=None if conn.is_guest else conn.account_id,
                name=conn.name,
                guest=conn.is_guest,
                server_time=time.time(),
                heartbeat_seconds=self.settings.heartbeat_seconds,
                max_message_bytes=self.settings.max_message_bytes,
            )
        )
        return conn

    async def receive_frames(self, conn: WebSocketConnection) -> None:
        """Every frame to :meth:`on_receive` until the client leaves, the room closes the
        connection or the heartbeat times out."""
        receive = self.websocket.receive
        timeout = self.settings.heartbeat_timeout_seconds
        while not conn.closed:
            try:
                # A deadline, not ``wait_for``: that wrapped every frame's receive in a task.
                async with asyncio.timeout(timeout):
                    frame = await receive()
            except TimeoutError:
                conn.send(ErrorMsg(code="heartbeat_timeout", message="no message in time: disconnected"))
                conn.close(1001, "heartbeat timeout")
                return
            if frame["type"] == "websocket.disconnect":
                return
            await self.on_receive(conn, frame)

    async def on_receive(self, conn: WebSocketConnection, frame: Message) -> None:
        raw = frame.get("text")
        if raw is None:
            raw = frame.get("bytes") or b""
        await self.room.handle_raw(conn, raw)

    async def on_disconnect(self, conn: WebSocketConnection) -> None:
        await self.room.detach(conn)
        await conn.finish()

    async def refuse(self, code: str, message: str, close_code: int, ref: str | None = None) -> None:
        """Answer a socket the room does not take with an ``error``, then close it."""
        with contextlib.suppress(Exception):
            await self.websocket.send_text(encode(ErrorMsg(code=code, message=message, ref=ref)))
            await self.websocket.close(close_code, code)

    def _connection(self, account_id: int, name: str) -> WebSocketConnection:
        conn = WebSocketConnection(
            self.websocket,
            account_id,
            name,
            TokenBucket(self.settings.message_rate, self.settings.message_burst),
            self.settings.send_queue_size,
        )
        conn.address = self.address
        return conn

    async def _guest(self) -> WebSocketConnection | None:
        """Watching without an account: a guest may join tables and the lobby push only. None
        after refusing (the room holds its most guests)."""
        admitted = self.room.admit_guest(self.address)
        if admitted is None:
            await self.refuse(ErrorCode.TOO_MANY_GUESTS, "too many guests: log in, or try again later", 1013)
            return None
        conn = self._connection(*admitted)
        conn.is_guest = True
        return conn

    async def _authenticate(self, token: str | None) -> SocketSession | None:
        """The session of ``?token=`` or of a first ``auth`` message; None after refusing."""
        ref = None
        if token is None:
            auth = await self._auth_message()
            if auth is None:
                return None
            token, ref = auth.token, auth.id
        # Registered before the session is read: a logout from now on marks the handshake. A token
        # or an address that holds its sockets already is refused here, before the database.
        try:
            handshake = self.room.begin_handshake(token, self.address)
        except AdmissionError as exc:
            await self.refuse(exc.code, exc.message, exc.close_code, ref)
            return None
        try:
            account = await self.room.store.authenticate(token)
            expires_at = await self.room.store.session_expires_at(token)
            if expires_at is None:
                raise AuthError("unknown session: log in again")
        except AuthError as exc:
            self.room.end_handshake(handshake)
            # A banned account (minor 6) hears ``banned``, and 4403: not worth retrying.
            banned = exc.code == ErrorCode.BANNED
            await self.refuse(exc.code, str(exc), 4403 if banned else 4401, ref)
            return None
        except BaseException:
            self.room.end_handshake(handshake)
            raise
        return SocketSession(account, token, expires_at.timestamp(), handshake)

    async def _auth_message(self) -> AuthMsg | None:
        """The socket's first message, which must be ``auth``; None after refusing."""
        try:
            raw = await asyncio.wait_for(self.websocket.receive_text(), _AUTH_SECONDS)
            message = parse_client_message(raw, max_bytes=self.settings.max_message_bytes)
        except ProtocolError as exc:
            await self._unauthorized(f"authenticate first with an 'auth' message ({exc.message})", exc.ref)
            return None
        except (TimeoutError, WebSocketDisconnect, RuntimeError, KeyError):
            await self._unauthorized("authenticate with ?token= or a first 'auth' message")
            return None
        if not isinstance(message, AuthMsg):
            await self._unauthorized("authenticate first: send an 'auth' message with your token", message.id)
            return None
        return message

    async def _unauthorized(self, message: str, ref: str | None = None) -> None:
        await self.refuse(ErrorCode.UNAUTHORIZED, message, 4401, ref)
