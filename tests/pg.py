"""A throwaway PostgreSQL server for tests: ``initdb`` + ``pg_ctl`` in a temporary directory.

``postgres_server`` (session-scoped) yields a :class:`PostgresServer`; ``await
server.new_database()`` returns the SQLAlchemy URL of a fresh empty database. With
``STUDPOKER_TEST_PG_URL`` set (``postgresql+asyncpg://user:pw@host:port/db``) that server is used
instead. When no binaries are found and we run as root, the ``postgresql`` package is installed
with apt-get (:mod:`tests.provision`). If nothing works the tests that need it are skipped, with
the reason, and fail under CI.

Run as root, ``initdb`` refuses to work, so the data directory is owned by and the server run as
the ``postgres`` system user (``runuser -u postgres --``).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests import provision

_counter = itertools.count()


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class PostgresServer:
    """A running server; ``base_url`` points at its ``postgres`` database."""

    host: str
    port: int
    user: str
    password: str | None
    admin_db: str
    directory: Path | None = None
    bin_dir: Path | None = None
    as_user: str | None = None
    databases: list[str] = field(default_factory=list)

    def url(self, database: str) -> str:
        auth = self.user if self.password is None else f"{self.user}:{self.password}"
        return f"postgresql+asyncpg://{auth}@{self.host}:{self.port}/{database}"

    @property
    def base_url(self) -> str:
        return self.url(self.admin_db)

    async def _admin(self, sql: str) -> None:
        import asyncpg  # type: ignore[import-untyped]

        conn = await asyncpg.connect(
            host=self.host, port=self.port, user=self.user, password=self.password, database=self.admin_db
        )
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    async def new_database(self) -> str:
        """Create an empty database; returns its SQLAlchemy URL."""
        name = f"sp_{os.getpid()}_{next(_counter)}"
        await self._admin(f'CREATE DATABASE "{name}"')
        self.databases.append(name)
        return self.url(name)

    async def drop_database(self, url: str) -> None:
        name = url.rsplit("/", 1)[-1]
        with contextlib.suppress(Exception):
            await self._admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _run(args: list[str], as_user: str | None, **kwargs: object) -> subprocess.CompletedProcess[str]:
    if as_user is not None:
        args = ["runuser", "-u", as_user, "--", *args]
    return subprocess.run(args, capture_output=True, text=True, check=False, **kwargs)  # type: ignore[call-overload, no-any-return]


def start_postgres() -> tuple[PostgresServer | None, str]:
    """Start a server in a temporary directory; returns (server, "") or (None, reason)."""
    bin_dir, reason = provision.postgres()
    if bin_dir is None:
        return None, reason
    as_user: str | None = None
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return None, "running as root and there is no 'postgres' user to run initdb"
        as_user = "postgres"
    directory = Path(tempfile.mkdtemp(prefix="studpoker-pg-"))
    data = directory / "data"
    if as_user is not None:
        entry = pwd.getpwnam(as_user)
        os.chown(directory, entry.pw_uid, entry.pw_gid)
    directory.chmod(0o700)
    init = _run(
        [str(bin_dir / "initdb"), "-D", str(data), "-U", "postgres", "-A", "trust", "-E", "UTF8",
         "--locale=C", "--no-sync"],
        as_user,
        timeout=120,
    )  # fmt: skip
    if init.returncode != 0:
        shutil.rmtree(directory, ignore_errors=True)
        return None, f"initdb failed: {(init.stderr or init.stdout)[-400:]}"
    last_error = ""
    for _attempt in range(3):
        port = _free_port()
        options = (
            f"-p {port} -k {directory} -c listen_addresses=127.0.0.1 -c fsync=off"
            " -c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
        )
        start = _run(
            [str(bin_dir / "pg_ctl"), "-D", str(data), "-o", options, "-l", str(directory / "log"), "-w",
             "-t", "60", "start"],
            as_user,
            timeout=90,
        )  # fmt: skip
        if start.returncode == 0:
            server = PostgresServer(
                host="127.0.0.1",
                port=port,
                user="postgres",
                password=None,
                admin_db="postgres",
                directory=directory,
                bin_dir=bin_dir,
                as_user=as_user,
            )
            return server, ""
        log = directory / "log"
        last_error = (start.stderr or start.stdout) + (log.read_text()[-400:] if log.exists() else "")
        time.sleep(0.2)
    shutil.rmtree(directory, ignore_errors=True)
    return None, f"pg_ctl start failed: {last_error[-400:]}"


def stop_postgres(server: PostgresServer) -> None:
    if server.directory is None or server.bin_dir is None:
        return
    _run(
        [
            str(server.bin_dir / "pg_ctl"),
            "-D",
            str(server.directory / "data"),
            "-m",
            "immediate",
            "-w",
            "stop",
        ],
        server.as_user,
        timeout=60,
    )
    shutil.rmtree(server.directory, ignore_errors=True)


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
