"""The registration limits of a cluster's gateways (``Settings.shared_login_limits``,
docs/cluster.md "Shared state"): two rooms on one PostgreSQL database, as two gateways, share one
budget of new accounts per address (counted in ``login_attempts``), where two one-process rooms
would each give out their own."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.pg import PostgresServer, postgres_server  # noqa: F401  (a fixture)
from tests.server.conftest import Harness, make_settings, running_server

pytestmark = pytest.mark.postgres


@contextlib.asynccontextmanager
async def two_gateways(
    postgres_server: PostgresServer,  # noqa: F811
    tmp_path: Path,
    **limits: Any,
) -> AsyncIterator[tuple[Harness, Harness]]:
    url = await postgres_server.new_database()
    settings = make_settings(tmp_path, database_url=url, shared_login_limits=True, **limits)
    try:
        async with running_server(settings) as first, running_server(settings) as second:
            yield first, second
    finally:
        await postgres_server.drop_database(url)


async def register(harness: Harness, name: str) -> httpx.Response:
    return await harness.http.post("/api/register", json={"name": name, "password": "x" * 8})


async def test_two_gateways_share_the_hourly_budget(
    postgres_server: PostgresServer,  # noqa: F811
    tmp_path: Path,
) -> None:
    async with two_gateways(postgres_server, tmp_path, registrations_per_address_per_hour=3) as (a, b):
        assert (await register(a, "farm1")).status_code == 201
        # A refused name opens no account: its count is given back.
        assert (await register(b, "FARM1")).status_code == 409
        assert (await register(b, "farm2")).status_code == 201
        assert (await register(a, "farm3")).status_code == 201
        for harness in (b, a):  # the fourth from this address, on either gateway
            refused = await register(harness, "farm4")
            assert refused.status_code == 429, refused.text
            assert refused.json()["error"]["code"] == "rate_limited"
            assert 0 < int(refused.headers["Retry-After"]) <= 3600


async def test_the_daily_window_is_shared_too(
    postgres_server: PostgresServer,  # noqa: F811
    tmp_path: Path,
) -> None:
    async with two_gateways(
        postgres_server, tmp_path, registrations_per_address_per_hour=10, registrations_per_address_per_day=2
    ) as (a, b):
        assert (await register(a, "day1")).status_code == 201
        assert (await register(b, "day2")).status_code == 201
        refused = await register(a, "day3")
        assert refused.status_code == 429
        # The shared window refused it before the hasher (the store's own daily budget says
        # "had its 2 new accounts for today").
        assert "too many new accounts" in refused.json()["error"]["message"]


async def test_registrations_at_once_on_both_gateways_never_pass_the_budget(
    postgres_server: PostgresServer,  # noqa: F811
    tmp_path: Path,
) -> None:
    async with two_gateways(postgres_server, tmp_path, registrations_per_address_per_hour=4) as (a, b):
        answers = await asyncio.gather(*(register((a, b)[i % 2], f"rush{i}") for i in range(12)))
        assert sorted(r.status_code for r in answers) == [201] * 4 + [429] * 8
        assert len({r.json()["account"]["name"] for r in answers if r.status_code == 201}) == 4
