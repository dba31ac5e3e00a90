"""Errors raised by the store; every one carries a message fit to show a player."""

from __future__ import annotations


class StoreError(Exception):
    """Base of every store error: a request that breaks a rule of the room, nothing written."""


class InvalidInputError(StoreError, ValueError):
    """A name, password, amount, seat or table setting that is not acceptable."""


class NameTakenError(InvalidInputError):
    """An account or table name already in use. Account names compare after NFKC and case
    folding, and by their look-alike skeleton (:mod:`studpoker.store.names`)."""


class AuthError(StoreError):
    """Wrong name or password, or a session token that is unknown, expired or revoked."""


class InsufficientFundsError(StoreError):
    """The bankroll does not hold the amount asked for."""


class NotFoundError(StoreError, LookupError):
    """No account, table, seat or hand with that id."""


class LimitError(StoreError):
    """A per-address budget (new accounts or top-ups a day) is spent: nothing written.
    ``retry_after``: seconds until it refills (the next UTC day)."""

    def __init__(self, message: str, retry_after: float) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class BusyError(StoreError):
    """Too many password hashes are waiting for the hashing pool: try again in a moment."""
