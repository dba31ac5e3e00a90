"""Server-to-client messages, :func:`encode` and :func:`decode_server_message`."""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

import orjson
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter
from pydantic_core import PydanticSerializationError

from .version import MAX_MESSAGE_BYTES, PROTOCOL_MINOR, PROTOCOL_VERSION


class ServerMsg(BaseModel):
    model_config = ConfigDict(extra="forbid")


class WelcomeMsg(ServerMsg):
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
    # Minor 6: sitting out because his clock ran out (back by acting or sit_in); asked to sit
    # out during the hand he plays (sitting out once it ends); cashed out when his hand ends
    # (stand_up during a hand, or leave_after_hand).
    timed_out: bool = False
    sit_out_next_hand: bool = False
    leaving: bool = False
    # Minor 6: the seconds in the seat's time bank (R-TIME-BANK).
    time_bank: float = 0.0
    # Minor 6, board games: he owes the big blind (and the small blind, dead) to be dealt in
    # before the big blind reaches him, and chose to post it now (post_blind).
    owes_big_blind: bool = False
    owes_small_blind: bool = False
    post_blind_now: bool = False


class ClockInfo(BaseModel):
    seat: int
    think_ends: float
    countdown_ends: float
    extended: bool = False
    # Minor 6: when the decision times out, the seat's time bank run whole after the countdown
    # (``countdown_ends`` when the seat has no bank).
    bank_ends: float | None = None


class ClientSeedInfo(BaseModel):
    seat: int
    seed: str


class NextDealInfo(BaseModel):
    hand_id: str
    seed_commitment: str


class ChipsMsg(ServerMsg):
    """Minor 6, to a seated player only: the chips he asked for during the hand he is in (they
    land when it ends), his auto top-up (the stack his seat is topped up to before each hand,
    null: off), and what just landed (``added``) or why less or nothing did (``note``)."""

    type: Literal["chips"] = "chips"
    table_id: int
    pending: int = 0
    auto_top_up: int | None = None
    added: int = 0
    note: str | None = None


class SeatOfferInfo(BaseModel):
    seat: int
    expires_at: float


class WaitListMsg(ServerMsg):
    """Minor 6: a table's wait list as one account sees it: how many wait, his place (1 is the
    next offered; null: not on it), the seat offered to him until ``expires_at`` (take it with
    ``sit``), and why his place changed (``note``)."""

    type: Literal["wait_list"] = "wait_list"
    table_id: int
    waiting: int
    position: int | None = None
    offer: SeatOfferInfo | None = None
    note: str | None = None


class ChatLineInfo(BaseModel):
    """Minor 6: one line of a table's chat. ``id`` counts the table's lines (in this run of the
    server), ``at`` is when it was said (Unix seconds), ``seat`` null for a watcher's line."""

    id: int
    at: float
    account_id: int
    name: str
    seat: int | None
    text: str


class TableStateMsg(ServerMsg):
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
    # Minor 6: the table's last chat lines (oldest first), and the events of the hand in progress
    # as this viewer may see them (each as an ``event`` message's ``event``), for the dealer log.
    chat: list[ChatLineInfo] = Field(default_factory=list)
    hand_events: list[dict[str, Any]] = Field(default_factory=list)
    # Minor 6: the viewer's own chips waiting to land and auto top-up (null: not seated).
    your_chips: ChipsMsg | None = None
    # Minor 7: the ``timed_out`` table events of the hand in progress, oldest first (each as its
    # ``event`` message's ``event``), so that a reload says why a seat is all-in or sitting out.
    timeout_notes: list[dict[str, Any]] = Field(default_factory=list)


class EventMsg(ServerMsg):
    type: Literal["event"] = "event"
    table_id: int
    version: int
    hand_id: str | None
    event: dict[str, Any]
    # Minor 2: the decision clock that starts with this event (the last event of a change); it
    # replaces the separate ``clock`` table event that followed every change in minor 1.
    clock: ClockInfo | None = None
    # Minor 5: on the last engine event of a batch, what changed in the hand's public state since
    # the previous batch (the first of a hand: all of it): any of ``street``, ``to_act``,
    # ``button``, ``bring_in_seat``, ``is_over``, ``pots`` (the pots in the middle, each ``amount``,
    # ``eligible``) and ``seats`` (each changed seat: ``seat`` and whichever of ``stack``, ``bet``,
    # ``contributed``, ``folded``, ``all_in``, ``protected`` changed). The same in every viewer's
    # copy: it holds no card.
    changes: dict[str, Any] | None = None


class LegalOptionInfo(BaseModel):
    kind: str
    amount: int | None = None
    all_in: bool = False


class YourTurnMsg(ServerMsg):
    type: Literal["your_turn"] = "your_turn"
    table_id: int
    hand_id: str
    version: int
    seat: int
    options: list[LegalOptionInfo]
    think_ends: float
    countdown_ends: float
    server_time: float
    # Minor 6: as in ClockInfo, the end of the seat's time bank after the countdown.
    bank_ends: float | None = None


class HandStartedMsg(ServerMsg):
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


class HandFinishedMsg(ServerMsg):
    type: Literal["hand_finished"] = "hand_finished"
    table_id: int
    version: int
    hand_id: str
    result: dict[str, Any]
    commitment: str
    voided: bool = False


class CardsOpenedMsg(ServerMsg):
    """The openings (``fairness.Opening.to_json()``) of the cards that became visible to this
    viewer in the events just sent; ``version`` is the last of those events' (no version of its own)."""

    type: Literal["cards_opened"] = "cards_opened"
    table_id: int
    hand_id: str
    version: int
    openings: list[dict[str, Any]]


class ChatLineMsg(ServerMsg):
    """Minor 6: a new chat line, to every watcher of the table (not versioned: chat is not the
    table's state; ``line.id`` orders and dedupes the lines)."""

    type: Literal["chat"] = "chat"
    table_id: int
    line: ChatLineInfo


class AckMsg(ServerMsg):
    type: Literal["ack"] = "ack"
    ref: str | None
    request: str
    table_id: int | None = None


class ErrorMsg(ServerMsg):
    type: Literal["error"] = "error"
    code: str
    message: str
    ref: str | None = None
    table_id: int | None = None


class PongMsg(ServerMsg):
    type: Literal["pong"] = "pong"
    ref: str | None
    server_time: float


class LobbyMsg(ServerMsg):
    """Every table as ``GET /api/tables`` gives it: the answer to ``subscribe_lobby``."""

    type: Literal["lobby"] = "lobby"
    tables: list[dict[str, Any]]
    server_time: float


class LobbyUpdateMsg(ServerMsg):
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
    | ChatLineMsg
    | AckMsg
    | ErrorMsg
    | PongMsg
    | LobbyMsg
    | LobbyUpdateMsg
    | ChipsMsg
    | WaitListMsg
)

SERVER_MESSAGE_TYPES: tuple[type[ServerMsg], ...] = (
    WelcomeMsg,
    TableStateMsg,
    EventMsg,
    YourTurnMsg,
    HandStartedMsg,
    HandFinishedMsg,
    CardsOpenedMsg,
    ChatLineMsg,
    AckMsg,
    ErrorMsg,
    PongMsg,
    LobbyMsg,
    LobbyUpdateMsg,
    ChipsMsg,
    WaitListMsg,
)

TableStateMsg.model_rebuild()

_SERVER_ADAPTER: TypeAdapter[Any] = TypeAdapter(Annotated[ServerMessage, Field(discriminator="type")])


# Types orjson would write otherwise than pydantic does: they make :func:`fast_encode` refuse.
_FAST_OPTIONS = orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS


def fast_encode(data: Any) -> str | None:
    """Plain JSON data (dicts, lists, strings, numbers, booleans, None) as compact JSON text,
    byte for byte what pydantic's ``model_dump_json`` writes for the same values, about 15
    times faster than the standard library; None when ``data`` holds something orjson does
    not write as pydantic does (a lone surrogate, an integer past 64 bits, bytes, a set, a
    date, a model). The room's events are written with it (``table/encoding.py``)."""
    try:
        return orjson.dumps(data, option=_FAST_OPTIONS).decode()
    except TypeError:  # orjson.JSONEncodeError is a TypeError
        return None


def encode(message: ServerMsg) -> str:
    """The JSON text of one server message. Text that is not valid Unicode (a lone surrogate
    that reached a message despite :func:`parse_client_message`) is sent escaped as ``\\udXXX``
    rather than failing the send (and the socket with it). (pydantic's own writer, in Rust,
    is as fast as orjson on a built model; building the model is what costs.)"""
    try:
        return message.model_dump_json()
    except PydanticSerializationError:
        return json.dumps(message.model_dump(mode="python"), separators=(",", ":"), ensure_ascii=True)


def decode_server_message(text: str) -> ServerMsg:
    """Parse a server message (used by bots-over-the-wire, tests and clients written in Python)."""
    result: ServerMsg = _SERVER_ADAPTER.validate_json(text)
    return result
