"""The store's refusals. Each is a type that carries its own ``code`` (the word the REST API and
the WebSocket protocol answer) and HTTP ``status``, as Starlette's ``HTTPException`` carries its
status: the server reads them, it never guesses them from the type. Every message is fit to show
a player; a call that raises has written nothing. The table of codes is in docs/store.md.
"""

from __future__ import annotations

from typing import Any, ClassVar


class StoreError(Exception):
    """Base of every store error: a request that breaks a rule of the room, nothing written.
    Only its subclasses are raised; each names its ``code`` and ``status`` in its class line
    (``class X(StoreError, code=..., status=...)``), and ``retry_after`` when its answer says when
    to ask again."""

    code: ClassVar[str] = "conflict"
    status: ClassVar[int] = 409
    # Seconds until asking again may succeed (the answer's Retry-After), or None: no such answer.
    retry_after: float | None = None

    def __init_subclass__(
        cls,
        *,
        code: str | None = None,
        status: int | None = None,
        retry_after: float | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init_subclass__(**kwargs)
        if code is not None:
            cls.code = code
        if status is not None:
            cls.status = status
        if retry_after is not None:
            cls.retry_after = retry_after

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        if retry_after is not None:
            self.retry_after = retry_after

    @property
    def headers(self) -> dict[str, str] | None:
        """HTTP headers the answer needs, or None: ``Retry-After`` in the whole seconds just past
        ``retry_after`` (a client that waits them finds the budget refilled)."""
        if self.retry_after is None:
            return None
        return {"Retry-After": str(int(self.retry_after) + 1)}


class InvalidInputError(StoreError, ValueError, code="invalid", status=422):
    """A name, password, amount, seat or table setting that is not acceptable."""


class NameTakenError(InvalidInputError, code="name_taken", status=409):
    """An account or table name already in use. Account names compare after NFKC and case
    folding, and by their look-alike skeleton (:mod:`studpoker.store.names`)."""


class BadBuyInError(InvalidInputError, code="bad_buy_in", status=422):
    """A buy-in outside the table's limits, or chips added past its maximum buy-in."""


class AuthError(StoreError, code="unauthorized", status=401):
    """Wrong name or password, or a session token that is unknown, expired or revoked."""


class InsufficientFundsError(StoreError, code="insufficient_funds", status=409):
    """The bankroll does not hold the amount asked for."""


class NotFoundError(StoreError, LookupError, code="not_found", status=404):
    """No account, table, seat or hand with that id."""


class LimitError(StoreError, code="rate_limited", status=429):
    """A per-address budget (new accounts or top-ups a day) is spent: nothing written.
    ``retry_after``: seconds until it refills (the next UTC day), given with the message."""


class BusyError(StoreError, code="busy", status=503, retry_after=0.0):
    """Too many password hashes are waiting for the hashing pool: try again in a moment
    (``Retry-After: 1``)."""


class SeatTakenError(StoreError, code="seat_taken", status=409):
    """Another account holds the seat asked for."""


class AlreadySeatedError(StoreError, code="already_seated", status=409):
    """The account already holds a seat at this table (one seat per account per table)."""


class NotYourSeatError(StoreError, code="not_seated", status=409):
    """The seat is not held by the account that asks (to add chips or leave)."""


class SeatInHandError(StoreError, code="in_hand", status=409):
    """The seat is dealt into the hand in progress: no chips added, no leaving until it ends."""


class HandStateError(StoreError, code="hand_conflict", status=409):
    """A hand write that does not fit the hand's state: the id exists, the table already has a
    hand in progress, the hand is already finished or void, or a seat is no longer held by the
    account the hand names."""


class SettlementError(StoreError, code="bad_settlement", status=422):
    """A settlement that does not add up: awards other than the contributions, a seat not in the
    hand, more chips than its stack, or a deck that is not the one committed to."""


class LeaseLost(StoreError, code="lease_lost", status=409):  # noqa: N818 - the design's name (issue 15)
    """A write under a fence whose worker no longer holds the table's lease at that epoch
    (another worker took the table, or the lease expired), or a hand started under an earlier
    lease: nothing written. The worker stops acting for the table (docs/cluster.md)."""


class StoreInternalError(StoreError, code="internal_error", status=500):
    """A stored record the store cannot read, or a write that would not balance (a bug): nothing
    written."""
