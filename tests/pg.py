"""A throwaway PostgreSQL server for tests: ``initdb`` + ``pg_ctl`` in a temporary directory.

``postgres_server`` (session-scoped) yields a :class:`PostgresServer`; ``await
server.new_database()`` returns the SQLAlchemy URL of a fresh empty database. With
``STUDPOKER_TEST_PG_URL`` set (``postgresql+asyncpg://user:pw@host:port/db``) that server is used
instead. When no binaries are found and we run as root, the ``postgresql`` package is installed
with apt-get (:mod:`tests.provision`). If nothing works the tests that need it are skipped, with
the reason, and fail under CI.

Starting and stopping are :mod:`studpoker.cluster.services`, which ``studpoker cluster up`` uses
too (run as root, the server runs as the ``postgres`` system user, since initdb refuses root).
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from studpoker.cluster import services
from studpoker.cluster.services import PostgresServer, stop_postgres
from tests import provision

__all__ = ["PostgresServer", "postgres_server", "start_postgres", "stop_postgres"]


def start_postgres() -> tuple[PostgresServer | None, str]:
    """Start a server in a temporary directory; returns (server, "") or (None, reason)."""
    bin_dir, reason = provision.postgres()
    if bin_dir is None:
        return None, reason
    try:
        return services.start_postgres(bin_dir=bin_dir), ""
    except services.ServiceError as exc:
        return None, str(exc)


def _from_env(url: str) -> PostgresServer:
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    return PostgresServer(
        host=parsed.host or "127.0.0.1",
        port=parsed.port or 5432,
        user=parsed.username or "postgres",
        password=parsed.password,
        admin_db=parsed.database or "postgres",
    )


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A PostgreSQL server for the whole test session (one per xdist worker)."""
    given = os.environ.get("STUDPOKER_TEST_PG_URL")
    if given:
        yield _from_env(given)
        return
    server, reason = start_postgres()
    if server is None:
        provision.unavailable(f"PostgreSQL tests cannot run: {reason}")
    try:
        yield server
    finally:
        stop_postgres(server)
