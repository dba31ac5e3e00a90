"""The protocol's refusal: :class:`ProtocolError` and the error codes of the ``error`` reply."""

from __future__ import annotations


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
    INVALID = "invalid"  # a value the store refused (studpoker.store.errors.InvalidInputError)
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
    # Minor 6, the wait list: a sit for a seat held for the players offered it; joining the
    # list of a table with a seat free; leaving a list one is not on; a list that is full.
    SEAT_OFFERED = "seat_offered"
    SEAT_FREE = "seat_free"
    NOT_WAITING = "not_waiting"
    WAIT_LIST_FULL = "wait_list_full"
    # Minor 6: table chat and the operator's moderation (server/chat/).
    CHAT_NOT_ALLOWED = "chat_not_allowed"
    CHAT_INVALID = "chat_invalid"
    CHAT_TOO_LONG = "chat_too_long"
    CHAT_RATE_LIMITED = "chat_rate_limited"
    CHAT_MUTED = "chat_muted"
    BANNED = "banned"
    INTERNAL = "internal_error"
