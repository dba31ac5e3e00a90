"""Rate limits: a token bucket per WebSocket connection and a failure limiter for logins."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field


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
class LoginLimiter:
    """Counts failed logins per (name, address); after ``max_failures`` within ``window`` seconds
    further attempts are refused until the window has passed since the oldest failure.

    Each address also has a budget of ``max_address_failures`` failures over all names in the
    window (password spraying: one password tried on many names); a success does not refill it.
    """

    max_failures: int = 5
    window: float = 300.0
    clock: Callable[[], float] = time.monotonic
    max_address_failures: int = 50
    _failures: dict[tuple[str, str], list[float]] = field(default_factory=dict)

    def _recent(self, key: tuple[str, str]) -> list[float]:
        now = self.clock()
        stamps = [t for t in self._failures.get(key, []) if now - t < self.window]
        if stamps:
            self._failures[key] = stamps
        else:
            self._failures.pop(key, None)
        return stamps

    def retry_after(self, name: str, address: str) -> float:
        """Seconds to wait before another attempt is allowed (0 when allowed now)."""
        wait = 0.0
        for key, limit in (
            ((name.lower(), address), self.max_failures),
            (self._address_key(address), self.max_address_failures),
        ):
            stamps = self._recent(key)
            if len(stamps) >= limit:
                wait = max(wait, self.window - (self.clock() - stamps[len(stamps) - limit]))
        return max(0.0, wait)

    @staticmethod
    def _address_key(address: str) -> tuple[str, str]:
        # Names are never empty (registration requires one), so "" keys the address's budget.
        return ("", address)

    def failed(self, name: str, address: str) -> None:
        now = self.clock()
        for key in ((name.lower(), address), self._address_key(address)):
            self._recent(key)
            stamps = self._failures.setdefault(key, [])
            stamps.append(now)
            del stamps[: -max(self.max_failures, self.max_address_failures)]
        if len(self._failures) > 100_000:  # bound memory under a spray of names
            oldest = sorted(self._failures, key=lambda k: self._failures[k][-1])[:50_000]
            for k in oldest:
                del self._failures[k]

    def succeeded(self, name: str, address: str) -> None:
        self._failures.pop((name.lower(), address), None)
