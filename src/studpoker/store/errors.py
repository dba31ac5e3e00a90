"""Errors raised by the store; every one carries a message fit to show a player."""

from __future__ import annotations


class StoreError(Exception):
    """Base of every store error: a request that breaks a rule of the room, nothing written."""


class InvalidInputError(StoreError, ValueError):
    """A name, password, amount, seat or table setting that is not acceptable."""


class NameTakenError(InvalidInputError):
    """An account or table name already in use (names compare without regard to case)."""


class AuthError(StoreError):
    """Wrong name or password, or a session token that is unknown, expired or revoked."""


class InsufficientFundsError(StoreError):
    """The bankroll does not hold the amount asked for."""


class NotFoundError(StoreError, LookupError):
    """No account, table, seat or hand with that id."""
