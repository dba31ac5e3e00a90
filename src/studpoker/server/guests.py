"""Guests: connections watching without an account (``/ws?guest=1``, docs/protocol.md "Guests").

Each guest gets a negative account id of its own and a ``guest-N`` name; the room holds at most
``max_guests`` of them, and at most ``max_guests_per_address`` from one client address.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator


class Guests:
    """The guests connected now, counted per address for the caps."""

    def __init__(self, max_guests: int, max_per_address: int) -> None:
        self.max_guests = max_guests
        self.max_per_address = max_per_address
        self.by_address: dict[str, int] = {}
        self._numbers: Iterator[int] = itertools.count(1)

    def numbering(self, numbers: Iterator[int]) -> None:
        """Draw the guests' numbers from ``numbers`` (a cluster's gateway: its own block)."""
        self._numbers = numbers

    @property
    def count(self) -> int:
        return sum(self.by_address.values())

    def admit(self, address: str) -> tuple[int, str] | None:
        """A new guest's (negative) account id and name, or None when over a cap."""
        here = self.by_address.get(address, 0)
        if self.count >= self.max_guests or here >= self.max_per_address:
            return None
        self.by_address[address] = here + 1
        number = next(self._numbers)
        return -number, f"guest-{number}"

    def release(self, address: str) -> None:
        """A guest from ``address`` left (or was refused after :meth:`admit`)."""
        left = self.by_address.get(address, 0) - 1
        if left > 0:
            self.by_address[address] = left
        else:
            self.by_address.pop(address, None)
