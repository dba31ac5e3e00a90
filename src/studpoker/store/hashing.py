"""Password hashing (argon2) on a bounded pool of worker threads, never on the event loop.

argon2 is slow on purpose (tens of milliseconds of CPU and 64 MiB per hash). Run on the event
loop it would stall every table; run on asyncio's default executor (up to 32 threads) a flood
of registrations or logins would take every core from the tables. So hashes and checks go to a
pool of ``workers`` threads (1 by default), and at most ``max_waiting`` more wait for it: past
that, :class:`BusyError` at once (HTTP 503) rather than an ever longer queue.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from .errors import BusyError, InvalidInputError

_T = TypeVar("_T")
THREAD_PREFIX = "studpoker-hash"


class PasswordHashing:
    """``hash`` and ``verify`` of ``hasher``, run on the bounded pool."""

    def __init__(self, hasher: PasswordHasher, *, workers: int = 1, max_waiting: int = 64) -> None:
        if workers < 1 or max_waiting < 0:
            raise InvalidInputError("the hashing pool needs at least 1 worker and a queue of 0 or more")
        self.hasher = hasher
        self.workers = workers
        self.max_waiting = max_waiting
        # Jobs submitted and not finished (running + waiting); counted on the event loop.
        self.pending = 0
        self._pool: ThreadPoolExecutor | None = None

    async def _run(self, job: Callable[..., _T], *args: str) -> _T:
        if self.pending >= self.workers + self.max_waiting:
            raise BusyError("the server is busy checking passwords: try again in a moment")
        if self._pool is None:
            self._pool = ThreadPoolExecutor(self.workers, thread_name_prefix=THREAD_PREFIX)
        self.pending += 1
        try:
            return await asyncio.get_running_loop().run_in_executor(self._pool, job, *args)
        finally:
            self.pending -= 1

    async def hash(self, password: str) -> str:
        return await self._run(self.hasher.hash, password)

    async def verify(self, stored: str, password: str) -> bool:
        """Whether ``password`` matches ``stored``; False for a hash that is not argon2's."""
        return await self._run(self._verify, stored, password)

    def _verify(self, stored: str, password: str) -> bool:
        try:
            return bool(self.hasher.verify(stored, password))
        except (VerifyMismatchError, VerificationError, InvalidHashError):
            return False

    def needs_rehash(self, stored: str) -> bool:
        """Whether ``stored`` was made with weaker parameters (parses it: cheap, no hashing)."""
        try:
            return self.hasher.check_needs_rehash(stored)
        except InvalidHashError:
            return False

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
