"""The ASGI application: REST for accounts, the lobby, tables and hand histories, and the
table WebSocket. Build it with :func:`create_app`; ``studpoker serve`` runs it with uvicorn.
"""

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import Depends, FastAPI, Query, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocketDisconnect

from studpoker.store import Account, Store
from studpoker.store.budgets import AddressBudget
from studpoker.store.errors import (
    AuthError,
    BusyError,
    InsufficientFundsError,
    InvalidInputError,
    LimitError,
    NameTakenError,
    NotFoundError,
    StoreError,
)
from studpoker.store.models import HandRecord
from studpoker.store.names import lookup_key

from .connections import WebSocketConnection
from .hand_views import player_copy
from .lobby import Room
from .protocol import (
    PROTOCOL_VERSION,
    AuthMsg,
    ErrorCode,
    ErrorMsg,
    ProtocolError,
    WelcomeMsg,
    encode,
    parse_client_message,
)
from .ratelimit import LoginLimiter, RegistrationLimiter, TokenBucket, address_key
from .sessions import AdmissionError, Handshake
from .settings import Settings

log = logging.getLogger(__name__)

StoreFactory = Callable[[Settings], Awaitable[Store]]


class ApiError(Exception):
    def __init__(self, status: int, code: str, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers


# ----------------------------------------------------------------------------- REST models


class Credentials(BaseModel):
    name: Annotated[str, Field(min_length=1, max_length=40, examples=["alice"])]
    password: Annotated[str, Field(min_length=1, max_length=256, examples=["correct horse"])]


class AccountOut(BaseModel):
    id: int
    name: str
    bankroll: int


class SessionOut(BaseModel):
    token: str
    expires_at: datetime
    account: AccountOut


class TopupOut(BaseModel):
    granted: int
    account: AccountOut


class ErrorBody(BaseModel):
    code: str
    message: str


class ErrorOut(BaseModel):
    error: ErrorBody


class SeatOut(BaseModel):
    seat: int
    account_id: int
    name: str
    stack: int
    sitting_out: bool
    connected: bool
    is_bot: bool
    bot: bool


class TableOut(BaseModel):
    id: int
    name: str
    game: str
    small_bet: int
    big_bet: int
    ante: int
    bring_in: int
    small_blind: int
    big_blind: int
    max_seats: int
    min_buy_in: int
    max_buy_in: int
    think_seconds: float
    countdown_seconds: float
    house: str
    seated: int
    bots: int
    seats: list[SeatOut]
    hand_id: str | None
    hands_played: int
    average_pot: int | None = Field(
        description="the average pot (cents) of the hands finished in the last hour; null when none"
    )
    hands_per_hour: int = Field(
        description="hands finished in the last hour (extrapolated after a fresh start)"
    )


class HandSeatOut(BaseModel):
    seat: int
    account_id: int
    name: str
    starting_stack: int
    contribution: int
    award: int
    net: int


class HandSummaryOut(BaseModel):
    id: str
    table_id: int
    status: str
    started_at: datetime
    finished_at: datetime | None
    commitment: str
    seats: list[HandSeatOut]


class ClientSeedOut(BaseModel):
    seat: int
    seed: str


class HandOut(HandSummaryOut):
    """A hand as its player reads it (docs/fairness.md): the PHH and text as his seat saw it,
    the openings of the cards he was shown, and what the deck was committed to."""

    phh: str | None
    text: str | None
    void_reason: str | None
    deck_root: str | None
    seed_commitment: str | None
    client_seeds: list[ClientSeedOut]
    openings: list[dict[str, Any]]


class HandSeedOut(BaseModel):
    """A hand's server seed, published after the house's delay: with the client seeds it
    rebuilds the whole deck (``studpoker.fairness.verify_deal``)."""

    hand_id: str
    server_seed: str
    seed_commitment: str
    deck_root: str
    client_seeds: list[ClientSeedOut]


def _account_out(account: Account) -> AccountOut:
    return AccountOut(id=account.id, name=account.name, bankroll=account.bankroll)


def _hand_summary(record: HandRecord) -> dict[str, Any]:
    return {
        "id": record.id,
        "table_id": record.table_id,
        "status": record.status,
        "started_at": record.started_at,
        "finished_at": record.finished_at,
        "commitment": record.commitment,
        "seats": [
            HandSeatOut(
                seat=s.seat,
                account_id=s.account_id,
                name=s.name,
                starting_stack=s.starting_stack,
                contribution=s.contribution,
                award=s.award,
                net=s.net,
            )
            for _, s in sorted(record.seats.items())
        ],
    }


_ERRORS = {
    401: ErrorOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut, 422: ErrorOut, 429: ErrorOut, 503: ErrorOut,
}  # fmt: skip
_RESPONSES: dict[int | str, dict[str, Any]] = {k: {"model": v} for k, v in _ERRORS.items()}

_PLACEHOLDER = """<!doctype html>
<html><head><meta charset="utf-8"><title>studpoker</title></head>
<body style="font-family: sans-serif; max-width: 40em; margin: 3em auto">
<h1>studpoker</h1>
<p>The card room is running. The browser client is not installed in this build.</p>
<ul>
<li><a href="/docs">API documentation</a> (OpenAPI at <a href="/openapi.json">/openapi.json</a>)</li>
<li><a href="/api/tables">Tables</a></li>
<li>WebSocket: <code>/ws</code>, then a first message
<code>{"type": "auth", "token": ...}</code> (see docs/protocol.md)</li>
</ul>
</body></html>
"""


def _web_dir(settings: Settings) -> Path | None:
    if settings.web_dir is not None:
        path = Path(settings.web_dir)
        return path if path.is_dir() else None
    try:
        path = Path(str(resources.files("studpoker") / "web"))
    except Exception:
        return None
    return path if (path / "index.html").is_file() else None


async def _default_store(settings: Settings) -> Store:
    return await Store.open(
        settings.database_url,
        hash_workers=settings.password_hash_workers,
        hash_max_waiting=settings.password_hash_max_waiting,
    )


def _rate_limited(message: str, wait: float) -> ApiError:
    """429 with Retry-After; ``message`` ends with the seconds to wait."""
    seconds = int(wait) + 1
    return ApiError(
        429, "rate_limited", f"{message}: try again in {seconds} s", {"Retry-After": str(seconds)}
    )


def create_app(settings: Settings | None = None, *, store_factory: StoreFactory | None = None) -> FastAPI:
    """The room as an ASGI app. The store opens and the tables start in the lifespan."""
    settings = settings or Settings()
    factory = store_factory or _default_store
    limiter = LoginLimiter(
        max_failures=settings.login_max_failures,
        window=settings.login_window_seconds,
        max_address_failures=settings.login_max_failures_per_address,
    )
    registrations = RegistrationLimiter(
        per_hour=settings.registrations_per_address_per_hour,
        per_day=settings.registrations_per_address_per_day,
    )

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        store = await factory(settings)
        room = Room(store, settings)
        app.state.store = store
        app.state.room = room
        try:
            await room.start()
            log.info("studpoker room open: %s tables", len(room.actors))
            yield
        finally:
            await room.stop()
            await store.close()

    app = FastAPI(
        title="studpoker",
        version=f"protocol {PROTOCOL_VERSION}",
        description=(
            "Seven Card Stud card room: accounts, lobby, tables and hand histories. "
            "Table play goes over the WebSocket at /ws (docs/protocol.md). Amounts are integer cents."
        ),
        lifespan=lifespan,
    )
    app.state.settings = settings

    bearer = HTTPBearer(auto_error=False)

    def room_of(request: Request) -> Room:
        room: Room = request.app.state.room
        return room

    async def current_token(
        credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
    ) -> str:
        if credentials is None or credentials.scheme.lower() != "bearer" or not credentials.credentials:
            raise ApiError(401, "unauthorized", "log in and send 'Authorization: Bearer <token>'")
        return credentials.credentials

    async def current_account(request: Request, token: Annotated[str, Depends(current_token)]) -> Account:
        try:
            return await room_of(request).store.authenticate(token)
        except AuthError as exc:
            raise ApiError(401, "unauthorized", str(exc), {"WWW-Authenticate": "Bearer"}) from None

    # -- errors -----------------------------------------------------------------------------

    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError) -> JSONResponse:
        return JSONResponse(
            {"error": {"code": exc.code, "message": exc.message}}, status_code=exc.status, headers=exc.headers
        )

    @app.exception_handler(StoreError)
    async def _store_error(request: Request, exc: StoreError) -> JSONResponse:
        status, code = 409, "conflict"
        headers: dict[str, str] | None = None
        if isinstance(exc, AuthError):
            status, code = 401, "unauthorized"
        elif isinstance(exc, NotFoundError):
            status, code = 404, "not_found"
        elif isinstance(exc, NameTakenError):
            status, code = 409, "name_taken"
        elif isinstance(exc, InvalidInputError):
            status, code = 422, "invalid"
        elif isinstance(exc, InsufficientFundsError):
            status, code = 409, "insufficient_funds"
        elif isinstance(exc, LimitError):
            status, code, headers = 429, "rate_limited", {"Retry-After": str(int(exc.retry_after) + 1)}
        elif isinstance(exc, BusyError):
            status, code, headers = 503, "busy", {"Retry-After": "1"}
        return JSONResponse(
            {"error": {"code": code, "message": str(exc)}}, status_code=status, headers=headers
        )

    @app.exception_handler(RequestValidationError)
    async def _validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err.get('loc', ()))}: {err.get('msg')}" for err in exc.errors()[:5]
        )
        return JSONResponse({"error": {"code": "invalid", "message": problems}}, status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        return JSONResponse(
            {"error": {"code": code, "message": str(exc.detail)}},
            status_code=exc.status_code,
            headers=getattr(exc, "headers", None),
        )

    # -- accounts ---------------------------------------------------------------------------

    @app.post(
        "/api/register", status_code=201, response_model=SessionOut, responses=_RESPONSES, tags=["accounts"]
    )
    async def register(body: Credentials, request: Request) -> SessionOut:
        """Open an account with the starting play-money grant; returns a session (logged in).
        One address opens at most a few accounts an hour and a UTC day (settings
        ``registrations_per_address_per_hour``/``_per_day``): past them 429 with Retry-After."""
        address = _client_address(request)
        attempt = registrations.begin(address)  # counted before the password is hashed
        if not attempt.allowed:
            raise _rate_limited("too many new accounts from your address", attempt.retry_after)
        store = room_of(request).store
        budget = AddressBudget(address, settings.registrations_per_address_per_day)
        try:
            account = await store.register(body.name, body.password, budget=budget)
        except BaseException:
            registrations.failed(attempt)
            raise
        session = await store.open_session(account.id)  # the password was just set: no second check
        return SessionOut(token=session.token, expires_at=session.expires_at, account=_account_out(account))

    @app.post("/api/login", response_model=SessionOut, responses=_RESPONSES, tags=["accounts"])
    async def login(body: Credentials, request: Request) -> SessionOut:
        """Log in. At most 5 attempts for a name from one address, and 50 from one address over
        all names (password spraying), in 5 minutes, each counted when it starts and given back
        when it succeeds: past them 429 with Retry-After."""
        address = _client_address(request)
        # Counted before the password is checked: however many arrive at once, no more than the
        # budget is ever checked. A success gives its count back; a failure keeps it.
        attempt = limiter.begin(lookup_key(body.name), address)
        if not attempt.allowed:
            raise _rate_limited("too many failed logins", attempt.retry_after)
        store = room_of(request).store
        try:
            session = await store.login(body.name, body.password)
        except BusyError:
            limiter.not_checked(attempt)
            raise
        limiter.succeeded(attempt)
        account = await store.account(session.account_id)
        return SessionOut(token=session.token, expires_at=session.expires_at, account=_account_out(account))

    @app.post("/api/logout", status_code=204, responses=_RESPONSES, tags=["accounts"])
    async def logout(request: Request, token: Annotated[str, Depends(current_token)]) -> Response:
        """Revoke the session of the bearer token."""
        room = room_of(request)
        await room.store.revoke(token)
        room.close_session(token)
        return Response(status_code=204)

    @app.get("/api/me", response_model=AccountOut, responses=_RESPONSES, tags=["accounts"])
    async def me(account: Annotated[Account, Depends(current_account)]) -> AccountOut:
        """The logged-in account and its bankroll (chips off the tables)."""
        return _account_out(account)

    @app.post("/api/topup", response_model=TopupOut, responses=_RESPONSES, tags=["accounts"])
    async def topup(request: Request, account: Annotated[Account, Depends(current_account)]) -> TopupOut:
        """The daily top-up for a broke player (0 when not eligible). One address claims at most
        ``topups_per_address_per_day`` top-ups a UTC day, over all accounts: past it 429."""
        store = room_of(request).store
        address = _client_address(request)
        budget = AddressBudget(address, settings.topups_per_address_per_day)
        granted = await store.daily_topup(account.id, budget=budget)
        return TopupOut(granted=granted, account=_account_out(await store.account(account.id)))

    # -- lobby ------------------------------------------------------------------------------

    @app.get("/api/tables", response_model=list[TableOut], tags=["lobby"])
    async def tables(
        request: Request,
        game: Annotated[str | None, Query(description="7S, 7S8, RZ or O8")] = None,
        stakes: Annotated[str | None, Query(description="small/big bet in cents, e.g. 100/200")] = None,
    ) -> list[dict[str, Any]]:
        """The tables, with their seats; filter by game and stakes."""
        out = []
        for actor in sorted(room_of(request).actors.values(), key=lambda a: a.table_id):
            cfg = actor.config
            if game is not None and cfg.game.upper() != game.upper():
                continue
            if stakes is not None and stakes.replace(" ", "") != f"{cfg.small_bet}/{cfg.big_bet}":
                continue
            out.append(actor.summary())
        return out

    @app.get("/api/tables/{table_id}", response_model=TableOut, responses=_RESPONSES, tags=["lobby"])
    async def table(table_id: int, request: Request) -> dict[str, Any]:
        """One table with its seats and the hand in progress."""
        actor = room_of(request).actors.get(table_id)
        if actor is None:
            raise ApiError(404, "not_found", f"no table {table_id}")
        return actor.summary()

    # -- hand histories ---------------------------------------------------------------------

    exports = asyncio.Semaphore(settings.max_concurrent_exports)
    downloading: set[int] = set()  # accounts whose download is running

    @app.get(
        "/api/me/hands",
        response_class=StreamingResponse,
        responses={**_RESPONSES, 200: {"content": {"text/plain": {}}}},
        tags=["hands"],
    )
    async def my_hands_download(
        request: Request,
        account: Annotated[Account, Depends(current_account)],
        fmt: Annotated[
            Literal["phh", "pokerstars"],
            Query(alias="format", description="phh (a .phhs file) or pokerstars (text for trackers)"),
        ] = "phh",
        since: Annotated[
            datetime | None,
            Query(description="only hands started at or after (ISO 8601; UTC without a zone)"),
        ] = None,
    ) -> StreamingResponse:
        """All your finished hands, oldest first by table, streamed as one file; each hand as your
        seat saw it (opponents' unseen down cards unknown). One download at a time per account
        and ``max_concurrent_exports`` in the room: past them 503 busy."""
        from studpoker.store.exports import finished_hand_ids, join, write_hand

        if exports.locked() or account.id in downloading:
            raise ApiError(
                503, "busy", "a download is already running: try again shortly", {"Retry-After": "5"}
            )
        store = room_of(request).store
        start = since if since is None or since.tzinfo is not None else since.replace(tzinfo=UTC)

        async def body() -> AsyncIterator[str]:
            async with exports:
                downloading.add(account.id)
                try:
                    tables: dict[int, Any] = {}
                    written = 0
                    async for hand_id in finished_hand_ids(store, account.id, start):
                        record = await store.hand(hand_id)
                        if record.table_id not in tables:
                            tables[record.table_id] = await store.table(record.table_id)
                        try:
                            # Replaying a hand is CPU work: off the event loop, one hand at a time.
                            text = await asyncio.to_thread(
                                write_hand, record, tables[record.table_id], fmt, account.id
                            )
                        except ValueError as exc:
                            log.warning("download of %s: hand %s left out: %s", account.id, hand_id, exc)
                            continue
                        yield join(fmt, written, text)
                        written += 1
                finally:
                    downloading.discard(account.id)

        suffix = "txt" if fmt == "pokerstars" else "phhs"
        return StreamingResponse(
            body(),
            media_type="text/plain; charset=utf-8",
            headers={"Content-Disposition": f'attachment; filename="studpoker-hands-{account.id}.{suffix}"'},
        )

    @app.get("/api/hands", response_model=list[HandSummaryOut], responses=_RESPONSES, tags=["hands"])
    async def my_hands(
        request: Request,
        account: Annotated[Account, Depends(current_account)],
        limit: Annotated[int, Query(ge=1, le=200)] = 50,
        offset: Annotated[int, Query(ge=0, le=10**9)] = 0,
    ) -> list[dict[str, Any]]:
        """The hands you were dealt into, newest first."""
        records = await room_of(request).store.hands_for_account(account.id, limit=limit, offset=offset)
        return [_hand_summary(r) for r in records]

    @app.get("/api/hands/{hand_id}", response_model=HandOut, responses=_RESPONSES, tags=["hands"])
    async def hand(
        hand_id: str, request: Request, account: Annotated[Account, Depends(current_account)]
    ) -> dict[str, Any]:
        """One of your hands as your seat saw it: PHH and readable text once it is over (the
        cards you were not shown unknown), the openings of the cards you were shown."""
        if not 0 < len(hand_id) <= 64:
            raise ApiError(404, "not_found", "no such hand")
        store = room_of(request).store
        record = await store.hand(hand_id)
        seat = next((s.seat for s in record.seats.values() if s.account_id == account.id), None)
        if seat is None:
            raise ApiError(403, "forbidden", "only a player of this hand may read its history")
        config = (await store.table(record.table_id)).config
        # Replaying the stored hand takes a few milliseconds: off the event loop the tables share.
        copy = await asyncio.to_thread(player_copy, record, seat, config)
        return {
            **_hand_summary(record),
            "phh": copy.phh,
            "text": copy.text,
            "void_reason": record.void_reason,
            "deck_root": record.deck_root,
            "seed_commitment": record.seed_commitment,
            "client_seeds": [{"seat": s, "seed": seed} for s, seed in record.client_seeds],
            "openings": copy.openings,
        }

    @app.get("/api/hands/{hand_id}/seed", response_model=HandSeedOut, responses=_RESPONSES, tags=["hands"])
    async def hand_seed(hand_id: str, request: Request) -> dict[str, Any]:
        """A finished hand's server seed, to anyone, once the house's delay
        (``server_seed_public_after_seconds``) has passed since it ended; 403 before (and
        always when the house publishes no seeds), 404 for a hand with no seed."""
        delay = settings.server_seed_public_after_seconds
        if delay is None:
            raise ApiError(403, "forbidden", "this room does not publish server seeds")
        if not 0 < len(hand_id) <= 64:
            raise ApiError(404, "not_found", "no such hand")
        record = await room_of(request).store.hand(hand_id)
        if record.server_seed is None or record.seed_commitment is None or record.deck_root is None:
            raise ApiError(404, "not_found", f"hand {hand_id} was not dealt from seeds")
        if record.finished_at is None:
            raise ApiError(403, "forbidden", f"hand {hand_id} is not over")
        wait = record.finished_at.timestamp() + delay - time.time()
        if wait > 0:
            raise ApiError(403, "forbidden", f"the seed of hand {hand_id} is published in {int(wait) + 1} s")
        return {
            "hand_id": record.id,
            "server_seed": record.server_seed,
            "seed_commitment": record.seed_commitment,
            "deck_root": record.deck_root,
            "client_seeds": [{"seat": s, "seed": seed} for s, seed in record.client_seeds],
        }

    @app.get("/api/health", tags=["lobby"])
    async def health(request: Request) -> dict[str, Any]:
        room = room_of(request)
        return {
            "ok": True,
            "tables": len(room.actors),
            "protocol": PROTOCOL_VERSION,
            "guests": room.guest_count,
            "time": time.time(),
        }

    # -- the table WebSocket ----------------------------------------------------------------

    @app.websocket("/ws")
    async def websocket_endpoint(
        websocket: WebSocket, token: str | None = None, guest: str | None = None
    ) -> None:
        room: Room = websocket.app.state.room
        await websocket.accept()
        address = _socket_address(websocket)
        conn: WebSocketConnection | None = None
        if token is None and guest not in (None, "", "0", "false"):
            # Watching without an account: a guest may join tables and the lobby push only.
            admitted = room.admit_guest(address)
            if admitted is None:
                await _refuse_socket(
                    websocket, ErrorCode.TOO_MANY_GUESTS, "too many guests: log in, or try again later", 1013
                )
                return
            account_id, name = admitted
            conn = WebSocketConnection(
                websocket,
                account_id,
                name,
                TokenBucket(settings.message_rate, settings.message_burst),
                settings.send_queue_size,
            )
            conn.is_guest = True
            conn.address = address
        handshake: Handshake | None = None
        if conn is None:
            session = await _authenticate_socket(websocket, room, token, settings)
            if session is None:
                return
            conn = WebSocketConnection(
                websocket,
                session.account.id,
                session.account.name,
                TokenBucket(settings.message_rate, settings.message_burst),
                settings.send_queue_size,
            )
            conn.token = session.token
            conn.session_expires_at = session.expires_at
            conn.address = address
            handshake = session.handshake
        try:
            # The caps, and a logout or expiry since the token was checked (no await from here
            # to the welcome: nothing can come in between).
            room.attach(conn, handshake=handshake)
        except AdmissionError as exc:
            await _refuse_socket(websocket, exc.code, exc.message, exc.close_code)
            return
        conn.start()
        conn.send(
            WelcomeMsg(
                account_id=None if conn.is_guest else conn.account_id,
                name=conn.name,
                guest=conn.is_guest,
                server_time=time.time(),
                heartbeat_seconds=settings.heartbeat_seconds,
                max_message_bytes=settings.max_message_bytes,
            )
        )
        try:
            while not conn.closed:
                try:
                    frame = await asyncio.wait_for(websocket.receive(), settings.heartbeat_timeout_seconds)
                except TimeoutError:
                    conn.send(ErrorMsg(code="heartbeat_timeout", message="no message in time: disconnected"))
                    conn.close(1001, "heartbeat timeout")
                    break
                if frame["type"] == "websocket.disconnect":
                    break
                raw = frame.get("text")
                if raw is None:
                    raw = frame.get("bytes") or b""
                await room.handle_raw(conn, raw)
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            await room.detach(conn)
            await conn.finish()

    web = _web_dir(settings)
    if web is not None:
        app.mount("/", StaticFiles(directory=web, html=True), name="web")
    else:

        @app.get("/", response_class=HTMLResponse, include_in_schema=False)
        async def index() -> str:
            return _PLACEHOLDER

    return app


def _client_address(request: Request) -> str:
    """The unit the per-address limits count for a REST caller (ratelimit.address_key)."""
    return address_key(request.client.host if request.client else None)


def _socket_address(websocket: WebSocket) -> str:
    return websocket.client.host if websocket.client else "?"


async def _refuse_socket(
    websocket: WebSocket, code: str, message: str, close_code: int, ref: str | None = None
) -> None:
    """Answer a socket the room does not take with an ``error``, then close it."""
    with contextlib.suppress(Exception):
        await websocket.send_text(encode(ErrorMsg(code=code, message=message, ref=ref)))
        await websocket.close(close_code, code)


@dataclass(frozen=True)
class SocketSession:
    """A socket's checked session; ``handshake`` goes to :meth:`Room.attach`, which refuses the
    socket if the session was logged out in between."""

    account: Account
    token: str
    # Unix seconds on the store's clock.
    expires_at: float
    handshake: Handshake


async def _authenticate_socket(
    websocket: WebSocket, room: Room, token: str | None, settings: Settings
) -> SocketSession | None:
    """The session of ``?token=`` or of a first ``auth`` message (within 10 s); None after
    refusing."""

    async def refuse(message: str, ref: str | None = None) -> None:
        await _refuse_socket(websocket, ErrorCode.UNAUTHORIZED, message, 4401, ref)

    ref = None
    if token is None:
        try:
            raw = await asyncio.wait_for(websocket.receive_text(), 10)
            message = parse_client_message(raw, max_bytes=settings.max_message_bytes)
        except ProtocolError as exc:
            await refuse(f"authenticate first with an 'auth' message ({exc.message})", exc.ref)
            return None
        except (TimeoutError, WebSocketDisconnect, RuntimeError, KeyError):
            await refuse("authenticate with ?token= or a first 'auth' message")
            return None
        if not isinstance(message, AuthMsg):
            await refuse("authenticate first: send an 'auth' message with your token", message.id)
            return None
        token, ref = message.token, message.id
    # Registered before the session is read: a logout from now on marks the handshake. A token
    # or an address that holds its sockets already is refused here, before the database.
    try:
        handshake = room.begin_handshake(token, _socket_address(websocket))
    except AdmissionError as exc:
        await _refuse_socket(websocket, exc.code, exc.message, exc.close_code, ref)
        return None
    try:
        account = await room.store.authenticate(token)
        expires_at = await room.store.session_expires_at(token)
        if expires_at is None:
            raise AuthError("unknown session: log in again")
    except AuthError as exc:
        room.end_handshake(handshake)
        await refuse(str(exc), ref)
        return None
    except BaseException:
        room.end_handshake(handshake)
        raise
    return SocketSession(account, token, expires_at.timestamp(), handshake)
