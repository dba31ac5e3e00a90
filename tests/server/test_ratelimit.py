"""The login and registration limiters count an attempt when it starts (issue 10, points 1, 6)."""

from __future__ import annotations

import pytest

from studpoker.server.ratelimit import LoginLimiter, RegistrationLimiter, address_key


def test_attempts_in_flight_count_against_the_budget() -> None:
    """None of them has finished: still no more than the budget are let through."""
    now = [0.0]
    limiter = LoginLimiter(max_failures=5, window=10.0, clock=lambda: now[0])
    attempts = [limiter.begin("victim", "9.9.9.9") for _ in range(200)]
    assert sum(a.allowed for a in attempts) == 5
    refused = attempts[-1]
    assert not refused.allowed and 0 < refused.retry_after <= 10
    assert limiter.begin("victim", "8.8.8.8").allowed  # another address has its own budget
    now[0] += 10
    assert limiter.begin("victim", "9.9.9.9").allowed


def test_a_success_gives_its_count_back_and_clears_the_name() -> None:
    now = [0.0]
    limiter = LoginLimiter(max_failures=2, window=10.0, clock=lambda: now[0], max_address_failures=3)
    failed = limiter.begin("ann", "1.2.3.4")
    assert failed.allowed  # and it failed: stays counted
    for _ in range(10):  # successes use neither budget
        limiter.succeeded(limiter.begin("ann", "1.2.3.4"))
    assert limiter.begin("bob", "1.2.3.4").allowed
    assert limiter.begin("carl", "1.2.3.4").allowed
    # 3 failures from the address (ann's was cleared from her name only): sprayed out.
    assert not limiter.begin("dora", "1.2.3.4").allowed
    assert limiter.begin("dora", "5.6.7.8").allowed


def test_an_attempt_never_checked_gives_both_counts_back() -> None:
    limiter = LoginLimiter(max_failures=1, window=10.0, clock=lambda: 0.0, max_address_failures=1)
    attempt = limiter.begin("ann", "1.2.3.4")
    assert not limiter.begin("ann", "1.2.3.4").allowed
    limiter.not_checked(attempt)
    assert limiter.begin("ann", "1.2.3.4").allowed


def test_password_spraying_runs_out_of_the_address_budget() -> None:
    now = [0.0]
    spray = LoginLimiter(max_failures=5, window=10.0, clock=lambda: now[0], max_address_failures=3)
    assert [spray.begin(f"a{i}", "9.9.9.9").allowed for i in range(5)] == [True, True, True, False, False]
    assert spray.begin("a9", "8.8.8.8").allowed
    now[0] += 11
    assert spray.begin("a4", "9.9.9.9").allowed


def test_registrations_per_hour_and_per_day() -> None:
    now = [0.0]
    limiter = RegistrationLimiter(per_hour=2, per_day=3, clock=lambda: now[0])
    assert limiter.begin("1.2.3.4").allowed and limiter.begin("1.2.3.4").allowed
    refused = limiter.begin("1.2.3.4")
    assert not refused.allowed and 0 < refused.retry_after <= 3600
    limiter.failed(limiter.begin("5.6.7.8"))  # opened no account: given back
    assert limiter.begin("5.6.7.8").allowed and limiter.begin("5.6.7.8").allowed
    now[0] += 3600
    assert limiter.begin("1.2.3.4").allowed
    now[0] += 3600
    refused = limiter.begin("1.2.3.4")  # 3 a day
    assert not refused.allowed and refused.retry_after > 3600


@pytest.mark.parametrize(
    ("host", "key"),
    [
        ("203.0.113.7", "203.0.113.7"),
        ("2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"),
        ("2001:db8:1:2:ffff::1", "2001:db8:1:2::/64"),  # the same /64: the same key
        ("::ffff:203.0.113.7", "203.0.113.7"),
        ("testclient", "testclient"),
        (None, "?"),
    ],
)
def test_address_key(host: str | None, key: str) -> None:
    assert address_key(host) == key
