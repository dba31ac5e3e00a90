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
    further attempts are refused until the window has passed since the oldest failure."""

    max_failures: int = 5
    window: float = 300.0
    clock: Callable[[], float] = time.monotonic
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
        key = (name.lower(), address)
        stamps = self._recent(key)
        if len(stamps) < self.max_failures:
            return 0.0
        return max(0.0, self.window - (self.clock() - stamps[0]))

    def failed(self, name: str, address: str) -> None:
        key = (name.lower(), address)
        self._recent(key)
        self._failures.setdefault(key, []).append(self.clock())
        if len(self._failures) > 100_000:  # bound memory under a spray of names
            oldest = sorted(self._failures, key=lambda k: self._failures[k][-1])[:50_000]
            for k in oldest:
                del self._failures[k]

    def succeeded(self, name: str, address: str) -> None:
        self._failures.pop((name.lower(), address), None)
