"""The versioned JSON protocol spoken over the table WebSocket (see ``docs/protocol.md``).

Every message is one JSON object with a ``type`` field. Client messages are parsed into the
pydantic models below through :func:`parse_client_message`, which never raises anything but
:class:`ProtocolError` (carrying an error code for the ``error`` reply). Server messages are
models too, serialized with :func:`encode`.
"""

from __future__ import annotations

import json
import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError
from pydantic_core import PydanticSerializationError

PROTOCOL_VERSION = 1
# Additive changes within version 1 (docs/protocol.md, "Compatibility"): 1 = guests (watching
# without an account), the lobby push (subscribe_lobby), the commitment in table_state, bot flags.
# 2 = the clock on the event that starts a decision (no separate clock event), no ack for an
# action sent without an id (its action event answers it), the paused / resumed table events,
# the unavailable error code. 3 = the fan-out caps (errors too_many_connections,
# too_many_watchers, seat_rate_limited), seats events coalesced (``changes``), a session that
# expires closes its sockets, a lone surrogate anywhere in a message is refused (bad_message).
# 4 = verifiable deals (docs/fairness.md): the deal_commitment table event, client_seed, the deck
# root and seeds in hand_started, cards_opened, table_state.next_deal / openings; hand_finished
# no longer carries the deck order and salt.
PROTOCOL_MINOR = 4
MAX_MESSAGE_BYTES = 4096

TableId = Annotated[int, Field(ge=1, le=2**31 - 1)]


class ProtocolError(Exception):
    """A bad message from a client; ``code`` goes into the ``error`` reply."""

    def __init__(self, code: str, message: str, ref: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.ref = ref


# Error codes (also listed in docs/protocol.md).
class ErrorCode:
    BAD_JSON = "bad_json"
    BAD_MESSAGE = "bad_message"
    UNKNOWN_TYPE = "unknown_type"
    TOO_LARGE = "too_large"
    RATE_LIMITED = "rate_limited"
    UNAUTHORIZED = "unauthorized"
    NOT_FOUND = "not_found"
    NOT_JOINED = "not_joined"
    SEAT_TAKEN = "seat_taken"
    ALREADY_SEATED = "already_seated"
    NOT_SEATED = "not_seated"
    BAD_BUY_IN = "bad_buy_in"
    INSUFFICIENT_FUNDS = "insufficient_funds"
    NO_HAND = "no_hand"
    STALE = "stale"
    NOT_YOUR_TURN = "not_your_turn"
    ILLEGAL_ACTION = "illegal_action"
    IN_HAND = "in_hand"
    TABLE_CLOSED = "table_closed"
    LOGIN_REQUIRED = "login_required"
    TOO_MANY_GUESTS = "too_many_guests"
    UNAVAILABLE = "unavailable"
    TOO_MANY_CONNECTIONS = "too_many_connections"
    TOO_MANY_WATCHERS = "too_many_watchers"
    SEAT_RATE_LIMITED = "seat_rate_limited"
    TOO_LATE = "too_late"
    SEED_ALREADY_SENT = "seed_already_sent"
    INTERNAL = "internal_error"


class _Msg(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    # A client may tag any message with an id; replies (ack, error, pong) echo it as ``ref``.
    id: Annotated[str, Field(max_length=64)] | None = None


# ----------------------------------------------------------------------------- client -> server


class AuthMsg(_Msg):
    type: Literal["auth"] = "auth"
    token: Annotated[str, Field(min_length=1, max_length=256)]


class JoinTableMsg(_Msg):
    type: Literal["join_table"] = "join_table"
    table_id: TableId


class LeaveTableMsg(_Msg):
    type: Literal["leave_table"] = "leave_table"
    table_id: TableId


class SitMsg(_Msg):
    type: Literal["sit"] = "sit"
    table_id: TableId
    seat: Annotated[int, Field(ge=1, le=10)]
    buy_in: Annotated[int, Field(ge=1, le=10**12)]


class SitOutMsg(_Msg):
    type: Literal["sit_out"] = "sit_out"
    table_id: TableId


class SitInMsg(_Msg):
    type: Literal["sit_in"] = "sit_in"
    table_id: TableId


class StandUpMsg(_Msg):
    type: Literal["stand_up"] = "stand_up"
    table_id: TableId


class AddChipsMsg(_Msg):
    type: Literal["add_chips"] = "add_chips"
    table_id: TableId
    amount: Annotated[int, Field(ge=1, le=10**12)]


class ActionMsg(_Msg):
    type: Literal["action"] = "action"
    table_id: TableId
    hand_id: Annotated[str, Field(min_length=1, max_length=64)]
    kind: Annotated[str, Field(min_length=1, max_length=32)]
    amount: Annotated[int, Field(ge=0, le=10**12)] | None = None
    # The table version the client acted on; if the table moved on since, the action is refused.
    version: Annotated[int, Field(ge=0)] | None = None


class ClientSeedMsg(_Msg):
    """A seated player's seed for the announced next hand (1 to 64 bytes, in hex)."""

    type: Literal["client_seed"] = "client_seed"
    table_id: TableId
    hand_id: Annotated[str, Field(min_length=1, max_length=64)]
    seed: Annotated[str, Field(pattern=r"^(?:[0-9a-fA-F]{2}){1,64}$")]


class PingMsg(_Msg):
    type: Literal["ping"] = "ping"


class ResyncMsg(_Msg):
    type: Literal["resync"] = "resync"
    table_id: TableId


class SubscribeLobbyMsg(_Msg):
    type: Literal["subscribe_lobby"] = "subscribe_lobby"


class UnsubscribeLobbyMsg(_Msg):
    type: Literal["unsubscribe_lobby"] = "unsubscribe_lobby"


ClientMessage = (
    AuthMsg
    | JoinTableMsg
    | LeaveTableMsg
    | SitMsg
    | SitOutMsg
    | SitInMsg
    | StandUpMsg
    | AddChipsMsg
    | ActionMsg
    | ClientSeedMsg
    | PingMsg
    | ResyncMsg
    | SubscribeLobbyMsg
    | UnsubscribeLobbyMsg
)

CLIENT_MESSAGE_TYPES: dict[str, type[_Msg]] = {
    "auth": AuthMsg,
    "join_table": JoinTableMsg,
    "leave_table": LeaveTableMsg,
    "sit": SitMsg,
    "sit_out": SitOutMsg,
    "sit_in": SitInMsg,
    "stand_up": StandUpMsg,
    "add_chips": AddChipsMsg,
    "action": ActionMsg,
    "client_seed": ClientSeedMsg,
    "ping": PingMsg,
    "resync": ResyncMsg,
    "subscribe_lobby": SubscribeLobbyMsg,
    "unsubscribe_lobby": UnsubscribeLobbyMsg,
}


def parse_client_message(raw: str | bytes, *, max_bytes: int = MAX_MESSAGE_BYTES) -> _Msg:
    """Parse one client frame; raise :class:`ProtocolError` for anything that is not a message."""
    size = len(raw.encode() if isinstance(raw, str) else raw)
    if size > max_bytes:
        raise ProtocolError(
            ErrorCode.TOO_LARGE, f"message of {size} bytes is over the {max_bytes}-byte limit"
        )
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ProtocolError(ErrorCode.BAD_JSON, f"not valid JSON: {exc}") from None
    except RecursionError:
        # Thousands of nested brackets fit in a frame; the decoder gives up on them.
        raise ProtocolError(ErrorCode.BAD_JSON, "not valid JSON: nested too deeply") from None
    if not isinstance(data, dict):
        raise ProtocolError(ErrorCode.BAD_MESSAGE, "a message is a JSON object with a 'type' field")
    ref = data.get("id")
    ref = ref if isinstance(ref, str) and len(ref) <= 64 and not _SURROGATE.search(ref) else None
    if has_lone_surrogate(data):
        # JSON may escape half of a UTF-16 pair ("\ud800"): such a string is not Unicode text and
        # could not be encoded again in a reply; the message is refused (its id echoed if sound).
        raise ProtocolError(
            ErrorCode.BAD_MESSAGE,
            "a string in the message holds a lone UTF-16 surrogate (not valid Unicode)",
            ref,
        )
    kind = data.get("type")
    if not isinstance(kind, str):
        raise ProtocolError(ErrorCode.BAD_MESSAGE, "a message needs a string 'type' field", ref)
    model = CLIENT_MESSAGE_TYPES.get(kind)
    if model is None:
        known = ", ".join(sorted(CLIENT_MESSAGE_TYPES))
        raise ProtocolError(
            ErrorCode.UNKNOWN_TYPE, f"unknown message type {kind[:40]!r} (known: {known})", ref
        )
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'message'}: {err['msg']}" for err in exc.errors()[:5]
        )
        raise ProtocolError(ErrorCode.BAD_MESSAGE, f"bad {kind!r} message: {problems}", ref) from None


def has_lone_surrogate(data: Any) -> bool:
    """Whether any string (key or value) in parsed JSON ``data`` holds a lone surrogate
    (U+D800..U+DFFF: a valid pair is decoded to one character by the JSON parser). Iterative, so
    that deep nesting cannot overflow the stack."""
    pending = [data]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                return True
        elif isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return False


_SURROGATE = re.compile("[\ud800-\udfff]")


# ----------------------------------------------------------------------------- server -> client


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


class WelcomeMsg(_Out):
    type: Literal["welcome"] = "welcome"
    protocol: int = PROTOCOL_VERSION
    protocol_minor: int = PROTOCOL_MINOR
    # None for a guest (watching without an account: ``/ws?guest=1``).
    account_id: int | None
    name: str
    guest: bool = False
    server_time: float
    heartbeat_seconds: float
    max_message_bytes: int = MAX_MESSAGE_BYTES


class SeatInfo(BaseModel):
    seat: int
    account_id: int
    name: str
    stack: int
    sitting_out: bool
    connected: bool
    is_bot: bool = False
    # The same as ``is_bot`` (the name the lobby and clients use for the badge).
    bot: bool = False


class ClockInfo(BaseModel):
    seat: int
    think_ends: float
    countdown_ends: float
    extended: bool = False


class ClientSeedInfo(BaseModel):
    seat: int
    seed: str


class NextDealInfo(BaseModel):
    hand_id: str
    seed_commitment: str


class TableStateMsg(_Out):
    type: Literal["table_state"] = "table_state"
    table_id: int
    version: int
    table: dict[str, Any]
    seats: list[SeatInfo]
    your_seat: int | None
    hand_id: str | None
    hand: dict[str, Any] | None
    clock: ClockInfo | None
    your_turn: YourTurnMsg | None = None
    # The deck root of the hand being played (as in its hand_started), null between hands.
    commitment: str | None = None
    # Minor 4 (docs/fairness.md): the hand in progress's deck root, seed commitment and the seeds
    # that went into its deck; the openings this viewer may check so far; the next hand's
    # announced seed commitment (``{"hand_id", "seed_commitment"}``, null when none).
    deck_root: str | None = None
    seed_commitment: str | None = None
    client_seeds: list[ClientSeedInfo] | None = None
    openings: list[dict[str, Any]] = Field(default_factory=list)
    next_deal: NextDealInfo | None = None


class EventMsg(_Out):
    type: Literal["event"] = "event"
    table_id: int
    version: int
    hand_id: str | None
    event: dict[str, Any]
    # Minor 2: the decision clock that starts with this event (the last event of a change); it
    # replaces the separate ``clock`` table event that followed every change in minor 1.
    clock: ClockInfo | None = None


class LegalOptionInfo(BaseModel):
    kind: str
    amount: int | None = None
    all_in: bool = False


class YourTurnMsg(_Out):
    type: Literal["your_turn"] = "your_turn"
    table_id: int
    hand_id: str
    version: int
    seat: int
    options: list[LegalOptionInfo]
    think_ends: float
    countdown_ends: float
    server_time: float


class HandStartedMsg(_Out):
    type: Literal["hand_started"] = "hand_started"
    table_id: int
    version: int
    hand_id: str
    game: str
    # The deck root (as deck_root), kept for the clients of minor 3 and before.
    commitment: str
    seats: list[int]
    deck_root: str
    seed_commitment: str
    client_seeds: list[ClientSeedInfo]


class HandFinishedMsg(_Out):
    type: Literal["hand_finished"] = "hand_finished"
    table_id: int
    version: int
    hand_id: str
    result: dict[str, Any]
    commitment: str
    voided: bool = False


class CardsOpenedMsg(_Out):
    """The openings (``fairness.Opening.to_json()``) of the cards that became visible to this
    viewer in the events just sent; ``version`` is the last of those events' (no version of its own)."""

    type: Literal["cards_opened"] = "cards_opened"
    table_id: int
    hand_id: str
    version: int
    openings: list[dict[str, Any]]


class AckMsg(_Out):
    type: Literal["ack"] = "ack"
    ref: str | None
    request: str
    table_id: int | None = None


class ErrorMsg(_Out):
    type: Literal["error"] = "error"
    code: str
    message: str
    ref: str | None = None
    table_id: int | None = None


class PongMsg(_Out):
    type: Literal["pong"] = "pong"
    ref: str | None
    server_time: float


class LobbyMsg(_Out):
    """Every table as ``GET /api/tables`` gives it: the answer to ``subscribe_lobby``."""

    type: Literal["lobby"] = "lobby"
    tables: list[dict[str, Any]]
    server_time: float


class LobbyUpdateMsg(_Out):
    """The tables that changed (seats, hands played, the hand running) since the last push."""

    type: Literal["lobby_update"] = "lobby_update"
    tables: list[dict[str, Any]]
    server_time: float


ServerMessage = (
    WelcomeMsg
    | TableStateMsg
    | EventMsg
    | YourTurnMsg
    | HandStartedMsg
    | HandFinishedMsg
    | CardsOpenedMsg
    | AckMsg
    | ErrorMsg
    | PongMsg
    | LobbyMsg
    | LobbyUpdateMsg
)

SERVER_MESSAGE_TYPES: tuple[type[_Out], ...] = (
    WelcomeMsg,
    TableStateMsg,
    EventMsg,
    YourTurnMsg,
    HandStartedMsg,
    HandFinishedMsg,
    CardsOpenedMsg,
    AckMsg,
    ErrorMsg,
    PongMsg,
    LobbyMsg,
    LobbyUpdateMsg,
)

TableStateMsg.model_rebuild()

_SERVER_ADAPTER: TypeAdapter[Any] = TypeAdapter(Annotated[ServerMessage, Field(discriminator="type")])


def encode(message: _Out) -> str:
    """The JSON text of one server message. Text that is not valid Unicode (a lone surrogate
    that reached a message despite :func:`parse_client_message`) is sent escaped as ``\\udXXX``
    rather than failing the send (and the socket with it)."""
    try:
        return message.model_dump_json()
    except PydanticSerializationError:
        return json.dumps(message.model_dump(mode="python"), separators=(",", ":"), ensure_ascii=True)


def decode_server_message(text: str) -> _Out:
    """Parse a server message (used by bots-over-the-wire, tests and clients written in Python)."""
    result: _Out = _SERVER_ADAPTER.validate_json(text)
    return result
