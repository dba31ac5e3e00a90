"""Rate limits: a token bucket per WebSocket connection, and the limiters of logins and
registrations.

The two limiters count an attempt when it *starts*, before any password is hashed or checked,
and the check and the count are one synchronous call: on the event loop nothing can run
between them, so however many requests arrive at the same moment, no more than the budget ever
reach the password hasher. A login that succeeds gives its count back (as a success never used
a failure's budget); a registration that opened no account gives its count back.
"""

from __future__ import annotations

import ipaddress
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from studpoker.store.login_attempts import Counted, LoginAttempts, Window, attempt_key

# Keys kept per window before the oldest are dropped (memory under a spray of names/addresses).
_MAX_KEYS = 100_000


def address_key(host: str | None) -> str:
    """The unit an address limit counts: an IPv4 address, or the /64 network of an IPv6 one
    (one subscriber usually holds a whole /64, so per address would be no limit); an IPv4
    address mapped into IPv6 counts as the IPv4 one. Anything else as given (``"?"`` if none)."""
    if not host:
        return "?"
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return host[:64]
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


@dataclass
class TokenBucket:
    """``rate`` tokens per second up to ``burst``; each message takes one token."""

    rate: float
    burst: float
    clock: Callable[[], float] = time.monotonic
    tokens: float = field(init=False)
    stamp: float = field(init=False)

    def __post_init__(self) -> None:
        self.tokens = self.burst
        self.stamp = self.clock()

    def take(self, cost: float = 1.0) -> bool:
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= cost:
            self.tokens -= cost
            return True
        return False


@dataclass
class SlidingWindow:
    """At most ``limit`` counted events per key within any ``window`` seconds."""

    limit: int
    window: float
    clock: Callable[[], float] = time.monotonic
    _stamps: dict[str, list[float]] = field(default_factory=dict)

    def _recent(self, key: str) -> list[float]:
        now = self.clock()
        stamps = [t for t in self._stamps.get(key, []) if now - t < self.window]
        if stamps:
            self._stamps[key] = stamps
        else:
            self._stamps.pop(key, None)
        return stamps

    def retry_after(self, key: str) -> float:
        """Seconds until one more event fits (0: now)."""
        stamps = self._recent(key)
        if len(stamps) < self.limit:
            return 0.0
        if self.limit <= 0:
            return self.window
        return max(0.0, self.window - (self.clock() - stamps[len(stamps) - self.limit]))

    def add(self, key: str) -> float:
        """Count one event now; returns its stamp (for :meth:`discard`)."""
        self._recent(key)
        stamp = self.clock()
        stamps = self._stamps.setdefault(key, [])
        stamps.append(stamp)
        del stamps[: -max(1, self.limit)]
        if len(self._stamps) > _MAX_KEYS:
            oldest = sorted(self._stamps, key=lambda k: self._stamps[k][-1])[: _MAX_KEYS // 2]
            for stale in oldest:
                del self._stamps[stale]
        return stamp

    def discard(self, key: str, stamp: float) -> None:
        """Take back one event counted by :meth:`add`."""
        stamps = self._stamps.get(key)
        if stamps is not None and stamp in stamps:
            stamps.remove(stamp)
            if not stamps:
                del self._stamps[key]

    def clear(self, key: str) -> None:
        self._stamps.pop(key, None)


@dataclass(frozen=True)
class Attempt:
    """A login or registration let through (``allowed``), or refused for ``retry_after`` s."""

    allowed: bool
    retry_after: float = 0.0
    # What was counted: (window, key, stamp) for each window, to give the counts back.
    counted: tuple[tuple[SlidingWindow, str, float], ...] = ()


def _begin(windows: tuple[tuple[SlidingWindow, str], ...]) -> Attempt:
    """Check every window, then count in every window: one call, no await in between."""
    wait = max(window.retry_after(key) for window, key in windows)
    if wait > 0:
        return Attempt(False, wait)
    return Attempt(True, counted=tuple((window, key, window.add(key)) for window, key in windows))


class LoginLimiter:
    """Counts login attempts per (name, address) and per address, from when each starts.

    At most ``max_failures`` attempts for one name from one address within ``window`` seconds,
    and ``max_address_failures`` from one address over all names (password spraying). An
    attempt counts until it is known to have succeeded: a success gives its count back and
    clears the name's count (the old behaviour: a success never used the address's budget and
    does not refill it); a failure stays counted for the window.
    """

    def __init__(
        self,
        max_failures: int = 5,
        window: float = 300.0,
        clock: Callable[[], float] = time.monotonic,
        max_address_failures: int = 50,
    ) -> None:
        self.per_name = SlidingWindow(max_failures, window, clock)
        self.per_address = SlidingWindow(max_address_failures, window, clock)

    def begin(self, name_key: str, address: str) -> Attempt:
        """Count an attempt for ``name_key`` (the store's lookup key) from ``address`` (an
        :func:`address_key`), or refuse it. Call before the password is checked."""
        return _begin(((self.per_name, f"{address}\n{name_key}"), (self.per_address, address)))

    def succeeded(self, attempt: Attempt) -> None:
        for window, key, stamp in attempt.counted:
            if window is self.per_name:
                window.clear(key)
            else:
                window.discard(key, stamp)

    def not_checked(self, attempt: Attempt) -> None:
        """Give the counts back for an attempt whose password was never checked (server busy)."""
        for window, key, stamp in attempt.counted:
            window.discard(key, stamp)


@dataclass(frozen=True)
class SharedAttempt:
    """A login counted in the database by :class:`SharedLoginLimiter`."""

    allowed: bool
    retry_after: float = 0.0
    name_key: str = ""
    counted: Counted | None = None


class SharedLoginLimiter:
    """:class:`LoginLimiter`'s rules with the counts in the database (``store.login_attempts``),
    for a cluster: every gateway counts in the same rows, so a brute force split over several
    gateways is held to one budget. The database's clock times the windows."""

    def __init__(self, max_failures: int = 5, window: float = 300.0, max_address_failures: int = 50) -> None:
        self.max_failures = max_failures
        self.window = window
        self.max_address_failures = max_address_failures

    async def begin(self, attempts: LoginAttempts, name_key: str, address: str) -> SharedAttempt:
        per_name = attempt_key(f"login\n{address}\n{name_key}")
        counted = await attempts.begin(
            [
                Window(per_name, self.max_failures, self.window),
                Window(attempt_key(f"login\n{address}"), self.max_address_failures, self.window),
            ]
        )
        return SharedAttempt(counted.allowed, counted.retry_after, per_name, counted)

    async def succeeded(self, attempts: LoginAttempts, attempt: SharedAttempt) -> None:
        """As in memory: the name's count is cleared, the address's given back."""
        if attempt.counted is not None:
            await attempts.give_back(attempt.counted)
        await attempts.clear(attempt.name_key)

    async def not_checked(self, attempts: LoginAttempts, attempt: SharedAttempt) -> None:
        if attempt.counted is not None:
            await attempts.give_back(attempt.counted)


class RegistrationLimiter:
    """At most ``per_hour`` and ``per_day`` new accounts from one address (sliding windows),
    counted from when each registration starts, given back when it opens no account. The store
    keeps its own persistent count per UTC day (``registrations_per_address_per_day``); this
    one holds the requests off the password hasher before it is asked."""

    def __init__(self, per_hour: int, per_day: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.hourly = SlidingWindow(per_hour, 3600.0, clock)
        self.daily = SlidingWindow(per_day, 86400.0, clock)

    def begin(self, address: str) -> Attempt:
        return _begin(((self.hourly, address), (self.daily, address)))

    def failed(self, attempt: Attempt) -> None:
        """No account was opened: give the counts back."""
        for window, key, stamp in attempt.counted:
            window.discard(key, stamp)


class SharedRegistrationLimiter:
    """:class:`RegistrationLimiter`'s windows with the counts in the database
    (``store.login_attempts``, under keys of their own), for a cluster: the gateways share one
    budget of new accounts per address. Counted in one transaction before the password is
    hashed, as in memory; given back when no account was opened."""

    def __init__(self, per_hour: int, per_day: int) -> None:
        self.per_hour = per_hour
        self.per_day = per_day

    async def begin(self, attempts: LoginAttempts, address: str) -> Counted:
        return await attempts.begin(
            [
                Window(attempt_key(f"register\nhour\n{address}"), self.per_hour, 3600.0),
                Window(attempt_key(f"register\nday\n{address}"), self.per_day, 86400.0),
            ]
        )

    async def failed(self, attempts: LoginAttempts, counted: Counted) -> None:
        """No account was opened: give the counts back."""
        await attempts.give_back(counted)
