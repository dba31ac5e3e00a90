"""Client-to-server messages and :func:`parse_client_message`, which turns a frame into one of
them or raises :class:`ProtocolError` (with the code of the ``error`` reply), nothing else."""

from __future__ import annotations

import json
import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, ValidationError

from .errors import ErrorCode, ProtocolError
from .version import MAX_MESSAGE_BYTES

TableId = Annotated[int, Field(ge=1, le=2**31 - 1)]


class ClientMsg(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    # A client may tag any message with an id; replies (ack, error, pong) echo it as ``ref``.
    id: Annotated[str, Field(max_length=64)] | None = None


class AuthMsg(ClientMsg):
    type: Literal["auth"] = "auth"
    token: Annotated[str, Field(min_length=1, max_length=256)]


class JoinTableMsg(ClientMsg):
    type: Literal["join_table"] = "join_table"
    table_id: TableId


class LeaveTableMsg(ClientMsg):
    type: Literal["leave_table"] = "leave_table"
    table_id: TableId


class SitMsg(ClientMsg):
    type: Literal["sit"] = "sit"
    table_id: TableId
    seat: Annotated[int, Field(ge=1, le=10)]
    buy_in: Annotated[int, Field(ge=1, le=10**12)]


class SitOutMsg(ClientMsg):
    type: Literal["sit_out"] = "sit_out"
    table_id: TableId


class SitInMsg(ClientMsg):
    type: Literal["sit_in"] = "sit_in"
    table_id: TableId


class PostBlindMsg(ClientMsg):
    """Minor 6, board games: owing the big blind, post it (and a small blind owed, dead) to be
    dealt in at the next hand (``now``), or wait for the big blind (false, the default)."""

    type: Literal["post_blind"] = "post_blind"
    table_id: TableId
    now: StrictBool = True


class StandUpMsg(ClientMsg):
    type: Literal["stand_up"] = "stand_up"
    table_id: TableId


class LeaveAfterHandMsg(ClientMsg):
    """Minor 6: cash out when the hand you are in ends, playing it out (``leave``: false stays)."""

    type: Literal["leave_after_hand"] = "leave_after_hand"
    table_id: TableId
    leave: StrictBool = True


class AddChipsMsg(ClientMsg):
    type: Literal["add_chips"] = "add_chips"
    table_id: TableId
    amount: Annotated[int, Field(ge=1, le=10**12)]


class AutoTopUpMsg(ClientMsg):
    """Minor 6: before each hand, top your seat up to ``amount`` from the bankroll (null: off)."""

    type: Literal["auto_top_up"] = "auto_top_up"
    table_id: TableId
    amount: Annotated[int, Field(ge=1, le=10**12)] | None


class JoinWaitListMsg(ClientMsg):
    """Minor 6: wait for a seat at a full table (R-WAIT-LIST-ORDER)."""

    type: Literal["join_wait_list"] = "join_wait_list"
    table_id: TableId


class LeaveWaitListMsg(ClientMsg):
    """Minor 6: off the table's wait list; with a seat offered, the offer is declined."""

    type: Literal["leave_wait_list"] = "leave_wait_list"
    table_id: TableId


class ActionMsg(ClientMsg):
    type: Literal["action"] = "action"
    table_id: TableId
    hand_id: Annotated[str, Field(min_length=1, max_length=64)]
    kind: Annotated[str, Field(min_length=1, max_length=32)]
    amount: Annotated[int, Field(ge=0, le=10**12)] | None = None
    # The table version the client acted on; if the table moved on since, the action is refused.
    version: Annotated[int, Field(ge=0)] | None = None


class ClientSeedMsg(ClientMsg):
    """A seated player's seed for the announced next hand (1 to 64 bytes, in hex)."""

    type: Literal["client_seed"] = "client_seed"
    table_id: TableId
    hand_id: Annotated[str, Field(min_length=1, max_length=64)]
    seed: Annotated[str, Field(pattern=r"^(?:[0-9a-fA-F]{2}){1,64}$")]


class PingMsg(ClientMsg):
    type: Literal["ping"] = "ping"


class ResyncMsg(ClientMsg):
    type: Literal["resync"] = "resync"
    table_id: TableId


class ChatMsg(ClientMsg):
    """Minor 6: a line of table chat (text only; the server checks its length and characters)."""

    type: Literal["chat"] = "chat"
    table_id: TableId
    text: Annotated[str, Field(max_length=4096)]


class SubscribeLobbyMsg(ClientMsg):
    type: Literal["subscribe_lobby"] = "subscribe_lobby"


class UnsubscribeLobbyMsg(ClientMsg):
    type: Literal["unsubscribe_lobby"] = "unsubscribe_lobby"


ClientMessage = (
    AuthMsg
    | JoinTableMsg
    | LeaveTableMsg
    | SitMsg
    | SitOutMsg
    | SitInMsg
    | PostBlindMsg
    | StandUpMsg
    | LeaveAfterHandMsg
    | AddChipsMsg
    | AutoTopUpMsg
    | JoinWaitListMsg
    | LeaveWaitListMsg
    | ActionMsg
    | ClientSeedMsg
    | PingMsg
    | ResyncMsg
    | ChatMsg
    | SubscribeLobbyMsg
    | UnsubscribeLobbyMsg
)

CLIENT_MESSAGE_TYPES: dict[str, type[ClientMsg]] = {
    "auth": AuthMsg,
    "join_table": JoinTableMsg,
    "leave_table": LeaveTableMsg,
    "sit": SitMsg,
    "sit_out": SitOutMsg,
    "sit_in": SitInMsg,
    "post_blind": PostBlindMsg,
    "stand_up": StandUpMsg,
    "leave_after_hand": LeaveAfterHandMsg,
    "add_chips": AddChipsMsg,
    "auto_top_up": AutoTopUpMsg,
    "join_wait_list": JoinWaitListMsg,
    "leave_wait_list": LeaveWaitListMsg,
    "action": ActionMsg,
    "client_seed": ClientSeedMsg,
    "ping": PingMsg,
    "resync": ResyncMsg,
    "chat": ChatMsg,
    "subscribe_lobby": SubscribeLobbyMsg,
    "unsubscribe_lobby": UnsubscribeLobbyMsg,
}


def parse_client_message(raw: str | bytes, *, max_bytes: int = MAX_MESSAGE_BYTES) -> ClientMsg:
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
