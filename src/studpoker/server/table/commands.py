"""The commands a table actor handles, one at a time, from its queue, and the refusal it answers.

A command carries the viewer that sent it (``conn``: it gets the ``ack`` or the ``error``), the
client's ``ref`` (echoed in the answer) and, for :meth:`TableActor.call`, a future set once the
command has been handled.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from .ports import Viewer


class TableError(Exception):
    """A refused command: answered to the sender with an ``error`` message carrying ``code``."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(kw_only=True)
class Command:
    """Something to do at the table; ``conn`` (if any) gets the ack or the error."""

    conn: Viewer | None = None
    ref: str | None = None
    done: asyncio.Future[Any] | None = field(default=None, repr=False)


@dataclass(kw_only=True)
class Watch(Command):
    pass


@dataclass(kw_only=True)
class Unwatch(Command):
    """The connection leaves the table (or closed); the seat, if any, stays."""

    closed: bool = False


@dataclass(kw_only=True)
class Sit(Command):
    seat: int
    buy_in: int


@dataclass(kw_only=True)
class SitOut(Command):
    pass


@dataclass(kw_only=True)
class SitIn(Command):
    pass


@dataclass(kw_only=True)
class PostBlind(Command):
    """Owing the big blind: post it now (``now``) or wait for it (R-O8-POST-TO-COME-IN)."""

    now: bool = True


@dataclass(kw_only=True)
class StandUp(Command):
    pass


@dataclass(kw_only=True)
class LeaveAfterHand(Command):
    """Cash out when the hand the player is in ends, playing it out (``leave`` False: stay)."""

    leave: bool = True


@dataclass(kw_only=True)
class AddChips(Command):
    amount: int


@dataclass(kw_only=True)
class AutoTopUp(Command):
    """Top the seat up to ``amount`` before each hand (``None``: off; ``top_up.py``)."""

    amount: int | None


@dataclass(kw_only=True)
class Act(Command):
    hand_id: str
    kind: str
    amount: int | None
    version: int | None


@dataclass(kw_only=True)
class Resync(Command):
    pass


@dataclass(kw_only=True)
class Chat(Command):
    """A line of table chat (``server/chat/``: who may say what, how often)."""

    text: str


@dataclass(kw_only=True)
class ClientSeed(Command):
    """A seated player's seed for the announced next hand (docs/fairness.md)."""

    hand_id: str
    seed: bytes


@dataclass(kw_only=True)
class ClockExpired(Command):
    serial: int


@dataclass(kw_only=True)
class FreeIdleSeat(Command):
    """The idle-seat timer of ``seat`` ran out (R-IDLE-SEAT-FREED): cash it out if its player
    (``account_id``) is still disconnected and sitting out, in the same idle spell (``spell``:
    a timer of an earlier spell, cancelled too late, changes nothing)."""

    seat: int
    account_id: int
    spell: int


@dataclass(kw_only=True)
class StartHand(Command):
    """Deal the next hand now (the start timer sends it; a pending timer is cancelled)."""


@dataclass(kw_only=True)
class RetrySettle(Command):
    """Try again to write the end (or the void) of a finished hand the store refused."""

    hand_id: str


@dataclass(kw_only=True)
class Stop(Command):
    """Shut the table down: void a hand in progress, stop the clock, end the task."""
