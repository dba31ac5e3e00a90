"""What the REST routes of one process share: the login and registration limiters, the
per-address budgets of free play money and the download slots. One :class:`ApiState` lives on
``app.state.api`` (made by ``create_app``); routes reach it with :func:`api_state`.

The limiters are in memory, per process, except on a cluster's gateways
(``Settings.shared_login_limits``), whose login and registration counts are in the database; the
budgets are counted in the database (:mod:`studpoker.store.budgets`), so only their limits are
kept here.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from fastapi import Request

from studpoker.store.budgets import AddressBudget

from ..ratelimit import LoginLimiter, RegistrationLimiter, SharedLoginLimiter, SharedRegistrationLimiter
from ..settings import Settings


class DownloadSlots:
    """At most ``concurrent`` hand downloads in the room, and one per account at a time."""

    def __init__(self, concurrent: int) -> None:
        self._room = asyncio.Semaphore(concurrent)
        self._running: set[int] = set()  # accounts whose download is running

    def busy(self, account_id: int) -> bool:
        """True when a download of ``account_id`` would have to wait: refuse it instead."""
        return self._room.locked() or account_id in self._running

    @asynccontextmanager
    async def hold(self, account_id: int) -> AsyncIterator[None]:
        async with self._room:
            self._running.add(account_id)
            try:
                yield
            finally:
                self._running.discard(account_id)


@dataclass(frozen=True)
class ApiState:
    settings: Settings
    logins: LoginLimiter
    registrations: RegistrationLimiter
    downloads: DownloadSlots
    # The cluster's gateways count logins and registrations in the database
    # (Settings.shared_login_limits).
    shared_logins: SharedLoginLimiter | None = None
    shared_registrations: SharedRegistrationLimiter | None = None

    @classmethod
    def from_settings(cls, settings: Settings) -> ApiState:
        return cls(
            settings=settings,
            logins=LoginLimiter(
                max_failures=settings.login_max_failures,
                window=settings.login_window_seconds,
                max_address_failures=settings.login_max_failures_per_address,
            ),
            registrations=RegistrationLimiter(
                per_hour=settings.registrations_per_address_per_hour,
                per_day=settings.registrations_per_address_per_day,
            ),
            downloads=DownloadSlots(settings.max_concurrent_exports),
            shared_logins=SharedLoginLimiter(
                max_failures=settings.login_max_failures,
                window=settings.login_window_seconds,
                max_address_failures=settings.login_max_failures_per_address,
            )
            if settings.shared_login_limits
            else None,
            shared_registrations=SharedRegistrationLimiter(
                per_hour=settings.registrations_per_address_per_hour,
                per_day=settings.registrations_per_address_per_day,
            )
            if settings.shared_login_limits
            else None,
        )

    def registration_budget(self, address: str) -> AddressBudget:
        """The new accounts (each a starting grant) ``address`` may still open today."""
        return AddressBudget(address, self.settings.registrations_per_address_per_day)

    def topup_budget(self, address: str) -> AddressBudget:
        """The daily top-ups ``address`` may still claim today, over all its accounts."""
        return AddressBudget(address, self.settings.topups_per_address_per_day)


def api_state(request: Request) -> ApiState:
    state: ApiState = request.app.state.api
    return state
