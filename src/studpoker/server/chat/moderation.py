"""The operator's mutes and bans as the room holds them (docs/server.md "Table chat").

``studpoker admin mute|ban NAME`` writes to the database from another process, so the room
reads the accounts muted or banned again (one small query) when a client's message comes in and
the last reading is older than ``moderation_refresh_seconds``: no timer to run or to stop, and
no reading at all while nobody sends anything. A muted account's ``chat`` is refused
(``chat_muted``); a banned account's socket is closed at its next message (``banned``), and it
cannot log in or open a session again (the store refuses it).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Protocol

from studpoker.store.moderation import Moderated

log = logging.getLogger(__name__)


class ModerationSource(Protocol):
    """Where the decisions are read: the store's :class:`~studpoker.store.moderation.Moderation`."""

    async def moderated(self) -> Moderated: ...


class RoomModeration:
    """The accounts muted and banned now, read again from ``source`` at most every
    ``refresh_seconds`` (``None`` as source: nobody is ever muted or banned)."""

    def __init__(
        self,
        source: ModerationSource | None,
        refresh_seconds: float,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.source = source
        self.refresh_seconds = refresh_seconds
        self.clock = clock
        self.muted: frozenset[int] = frozenset()
        self.banned: frozenset[int] = frozenset()
        self._read_at: float | None = None
        self._reading = False

    def due(self) -> bool:
        """Whether a reading is due (one at a time: the others go on with the last one)."""
        if self.source is None or self._reading:
            return False
        return self._read_at is None or self.clock() - self._read_at >= self.refresh_seconds

    async def refresh(self) -> None:
        """Read the decisions again. A database that fails keeps the last ones (logged); the
        next reading is tried after the interval again."""
        if self.source is None or self._reading:
            return
        self._reading = True
        try:
            moderated = await self.source.moderated()
        except Exception:
            log.exception("could not read the operator's mutes and bans: keeping the last ones")
        else:
            self.muted, self.banned = moderated.muted, moderated.banned
        finally:
            self._reading = False
            self._read_at = self.clock()

    def is_muted(self, account_id: int) -> bool:
        return account_id in self.muted

    def is_banned(self, account_id: int) -> bool:
        return account_id in self.banned
