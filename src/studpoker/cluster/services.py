"""Throwaway servers for a trial cluster and the tests (issue 15): nats-server, HAProxy and
PostgreSQL, each started in a directory of its own on a free port of 127.0.0.1.

Each start returns what it started with its address, or raises :class:`ServiceError` with the
reason (and the end of the server's log); the tools are installed with apt-get when missing and
root (:mod:`.provision`). Each stop is clean: SIGTERM (``pg_ctl stop`` for PostgreSQL), then
SIGKILL after a time-out. The children run in sessions of their own, so a Ctrl-C in the terminal
reaches only the launcher, which stops them in its own order. A start given ``cancel`` (an event:
``cluster up`` stopping while a restart runs in a thread) gives up while it waits once the event is
set, killing what it launched, and raises :class:`ServiceError`.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from studpoker.cluster import probes, provision
from studpoker.cluster.haproxy_config import Backend, ProxyTimeouts, render_haproxy_config
from studpoker.cluster.probes import alive as _alive
from studpoker.cluster.probes import exists as _exists

LOCALHOST, free_port, listening = probes.LOCALHOST, probes.free_port, probes.listening

# A free port found by binding can be taken by someone else before the server binds it: retry.
_PORT_ATTEMPTS = 3
_LOG_TAIL = 600


class Server(Protocol):
    """A server ``cluster up`` supervises: a :class:`Service` or a :class:`Postmaster`."""

    name: str

    @property
    def pid(self) -> int: ...

    @property
    def address(self) -> str: ...

    def poll(self) -> int | None: ...

    def stop(self, timeout: float = ...) -> object: ...


class ServiceError(RuntimeError):
    """A server could not be had or started; the message says why."""


def _pause(seconds: float, cancel: threading.Event | None, what: str) -> None:
    """Sleep a moment of a wait; :class:`ServiceError` once ``cancel`` is set."""
    if cancel is None:
        time.sleep(seconds)
    elif cancel.wait(seconds):
        raise ServiceError(f"{what}: stopped while starting")


def _tail(path: Path) -> str:
    try:
        return path.read_text(errors="replace")[-_LOG_TAIL:]
    except OSError:
        return ""


@dataclass
class Service:
    """A server process we started; it listens on ``host:port``."""

    name: str
    process: subprocess.Popen[bytes]
    host: str
    port: int
    log: Path

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def running(self) -> bool:
        return self.process.poll() is None

    def poll(self) -> int | None:
        """None while it runs, else its exit status (what the supervisor watches)."""
        return self.process.poll()

    def stop(self, timeout: float = 10.0) -> int:
        """SIGTERM, then SIGKILL after ``timeout`` seconds; the exit status (negative: the signal)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode


@dataclass
class NatsService(Service):
    config: Path = field(default=Path())

    @property
    def url(self) -> str:
        return f"nats://{self.host}:{self.port}"


def _launch(
    name: str,
    args: list[str],
    directory: Path,
    *,
    host: str,
    port: int,
    ready_timeout: float,
    cancel: threading.Event | None = None,
) -> tuple[subprocess.Popen[bytes] | None, Path]:
    """Start ``args`` with its output in ``directory/name.log`` and wait until ``host:port``
    answers; (None, log) when the process ended first (its port was perhaps taken)."""
    log = directory / f"{name}.log"
    with log.open("ab") as output:
        process = subprocess.Popen(
            args, stdin=subprocess.DEVNULL, stdout=output, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        deadline = time.monotonic() + ready_timeout
        while time.monotonic() < deadline:
            if process.poll() is not None:
                return None, log
            if listening(host, port):
                return process, log
            _pause(0.05, cancel, name)
    except BaseException:
        _kill(process)  # cancelled: nothing of it is left behind
        raise
    _kill(process)
    raise ServiceError(f"{name} did not listen on {host}:{port} within {ready_timeout} s: {_tail(log)}")


def _kill(process: subprocess.Popen[bytes]) -> None:
    process.kill()
    process.wait()


def _start(
    name: str,
    command: Callable[[int], list[str]],
    directory: Path,
    *,
    host: str,
    port: int | None,
    ready_timeout: float,
    cancel: threading.Event | None = None,
) -> tuple[subprocess.Popen[bytes], int, Path]:
    """Launch ``command(port)`` on ``port``, or on free ports until one works; the process, its
    port and its log."""
    directory.mkdir(parents=True, exist_ok=True)
    log = directory / f"{name}.log"
    for _attempt in range(1 if port is not None else _PORT_ATTEMPTS):
        chosen = port if port is not None else free_port(host)
        process, log = _launch(
            name,
            command(chosen),
            directory,
            host=host,
            port=chosen,
            ready_timeout=ready_timeout,
            cancel=cancel,
        )
        if process is not None:
            return process, chosen, log
    raise ServiceError(f"{name} exited at start: {_tail(log)}")


def start_nats(
    directory: Path,
    config: Path,
    *,
    host: str = LOCALHOST,
    port: int | None = None,
    ready_timeout: float = 20.0,
    cancel: threading.Event | None = None,
) -> NatsService:
    """nats-server with ``config`` (:func:`.nats_config.write_nats_config`) on ``host:port`` (a
    free port when None; give the old one to restart a server in place). Core NATS only."""
    binary, reason = provision.nats_server()
    if binary is None:
        raise ServiceError(f"no nats-server: {reason}")
    if not config.is_file():
        raise ServiceError(f"no nats-server configuration at {config}")

    def command(chosen: int) -> list[str]:
        return [str(binary), "-c", str(config), "-a", host, "-p", str(chosen)]

    process, chosen, log = _start(
        "nats-server", command, directory, host=host, port=port, ready_timeout=ready_timeout, cancel=cancel
    )
    return NatsService("nats-server", process, host, chosen, log, config=config)


def start_haproxy(
    directory: Path,
    backends: Sequence[Backend],
    *,
    host: str = LOCALHOST,
    port: int | None = None,
    timeouts: ProxyTimeouts | None = None,
    ready_timeout: float = 20.0,
    cancel: threading.Event | None = None,
) -> Service:
    """HAProxy on ``host:port`` (free when None) in front of ``backends``; its configuration
    is written to ``directory/haproxy.cfg`` and checked (``haproxy -c``) first."""
    # Bad input is refused before anything starts (a free port stands in for None).
    render_haproxy_config(backends, bind_host=host, port=1 if port is None else port, timeouts=timeouts)
    binary, reason = provision.haproxy()
    if binary is None:
        raise ServiceError(f"no haproxy: {reason}")
    config = directory / "haproxy.cfg"

    def command(chosen: int) -> list[str]:
        config.write_text(render_haproxy_config(backends, bind_host=host, port=chosen, timeouts=timeouts))
        check = subprocess.run(
            [str(binary), "-c", "-q", "-f", str(config)],
            capture_output=True,
            text=True,
            check=False,
            timeout=60,
        )
        if check.returncode != 0:
            raise ServiceError(f"haproxy refused {config}: {(check.stderr or check.stdout)[-_LOG_TAIL:]}")
        # -db: stay in the foreground, so that this process is the one to signal.
        return [str(binary), "-db", "-f", str(config)]

    process, chosen, log = _start(
        "haproxy", command, directory, host=host, port=port, ready_timeout=ready_timeout, cancel=cancel
    )
    return Service("haproxy", process, host, chosen, log)


_databases = itertools.count()


@dataclass
class PostgresServer:
    """A PostgreSQL server; ``base_url`` points at its ``postgres`` database. ``directory`` and
    ``bin_dir`` are set when :func:`start_postgres` started it (and :func:`stop_postgres` stops it)."""

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

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    async def _admin(self, sql: str) -> None:
        import asyncpg  # type: ignore[import-untyped]

        conn = await asyncpg.connect(
            host=self.host, port=self.port, user=self.user, password=self.password, database=self.admin_db
        )
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    async def new_database(self, name: str | None = None) -> str:
        """Create an empty database (named ``sp_<pid>_<n>`` unless given); returns its SQLAlchemy URL."""
        name = name or f"sp_{os.getpid()}_{next(_databases)}"
        if not name.replace("_", "").isalnum() or not name.isascii():
            raise ValueError(f"bad database name {name!r}: letters, digits and '_'")
        await self._admin(f'CREATE DATABASE "{name}"')
        self.databases.append(name)
        return self.url(name)

    async def drop_database(self, url: str) -> None:
        name = url.rsplit("/", 1)[-1]
        with contextlib.suppress(Exception):
            await self._admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _run(args: list[str], as_user: str | None, timeout: float) -> subprocess.CompletedProcess[str]:
    if as_user is not None:
        args = ["runuser", "-u", as_user, "--", *args]
    return subprocess.run(args, capture_output=True, text=True, check=False, timeout=timeout)


def _postgres_user() -> str | None:
    """Run as root, initdb refuses to work: the server then runs as the ``postgres`` system user."""
    if os.geteuid() != 0:
        return None
    try:
        pwd.getpwnam("postgres")
    except KeyError:
        raise ServiceError("running as root and there is no 'postgres' user to run initdb") from None
    return "postgres"


def start_postgres(directory: Path | None = None, *, bin_dir: Path | None = None) -> PostgresServer:
    """initdb + pg_ctl in ``directory`` (a new temporary one when None; created when missing) on a
    free port of 127.0.0.1, trusting local connections; tuned for speed: a crash of the machine
    may lose data, a crash of the server does not."""
    if bin_dir is None:
        bin_dir, reason = provision.postgres()
        if bin_dir is None:
            raise ServiceError(reason)
    as_user = _postgres_user()
    if directory is None:
        directory = Path(tempfile.mkdtemp(prefix="studpoker-pg-"))
    created = not directory.exists()
    directory.mkdir(parents=True, exist_ok=True)
    data = directory / "data"
    if as_user is not None:
        entry = pwd.getpwnam(as_user)
        os.chown(directory, entry.pw_uid, entry.pw_gid)
        if _run(["test", "-w", str(directory)], as_user, timeout=30).returncode != 0:
            if created:
                directory.rmdir()
            raise ServiceError(
                f"the {as_user!r} user (initdb's, run as root) cannot reach {directory}: give its parent"
                " directories o+x, or choose one it can reach (under /tmp)"
            )
    directory.chmod(0o700)
    init = _run(
        [str(bin_dir / "initdb"), "-D", str(data), "-U", "postgres", "-A", "trust", "-E", "UTF8",
         "--locale=C", "--no-sync"],
        as_user,
        timeout=120,
    )  # fmt: skip
    if init.returncode != 0:
        shutil.rmtree(directory, ignore_errors=True)
        raise ServiceError(f"initdb failed: {(init.stderr or init.stdout)[-400:]}")
    last_error = ""
    for _attempt in range(_PORT_ATTEMPTS):
        server = PostgresServer(
            host=LOCALHOST,
            port=free_port(),
            user="postgres",
            password=None,
            admin_db="postgres",
            directory=directory,
            bin_dir=bin_dir,
            as_user=as_user,
        )
        last_error = _pg_ctl_start(server, directory, bin_dir)
        if not last_error:
            return server
        time.sleep(0.2)
    shutil.rmtree(directory, ignore_errors=True)
    raise ServiceError(f"pg_ctl start failed: {last_error[-400:]}")


def _pg_ctl_start(server: PostgresServer, directory: Path, bin_dir: Path) -> str:
    """``pg_ctl start`` on the server's port and data directory; "" when it runs, else why not."""
    # fsync off: only the machine's crash loses data. synchronous_commit stays on: off, a commit
    # acknowledged just before the postmaster is killed is lost when the server comes back.
    options = (
        f"-p {server.port} -k {directory} -c listen_addresses={server.host} -c fsync=off"
        " -c full_page_writes=off -c max_connections=200"
    )
    start = _run(
        [str(bin_dir / "pg_ctl"), "-D", str(directory / "data"), "-o", options, "-l", str(directory / "log"),
         "-w", "-t", "60", "start"],
        server.as_user,
        timeout=90,
    )  # fmt: skip
    if start.returncode == 0:
        return ""
    log = directory / "log"
    return (start.stderr or start.stdout or "failed") + (log.read_text()[-400:] if log.exists() else "")


@dataclass
class Postmaster:
    """The postmaster of a server :func:`start_postgres` started, as the supervisor's child.
    pg_ctl starts it detached (it is not our child to wait for), so it is watched by its pid."""

    server: PostgresServer
    pid: int
    name: str = "postgres"

    @property
    def address(self) -> str:
        return self.server.address

    def poll(self) -> int | None:
        """None while it runs; 0 when it was stopped cleanly (a clean stop removes
        ``postmaster.pid``), 1 when it died (``kill -9`` leaves the file behind)."""
        if _alive(self.pid):
            return None
        return 1 if _postmaster_pid(self.server) == self.pid else 0

    def stop(self, timeout: float = 60.0) -> None:
        stop_postgres(self.server, remove=False, timeout=timeout)


def _postmaster_pid(server: PostgresServer) -> int | None:
    if server.directory is None:
        return None
    with contextlib.suppress(OSError, ValueError, IndexError):
        return int((server.directory / "data" / "postmaster.pid").read_text().splitlines()[0])
    return None


def postmaster(server: PostgresServer) -> Postmaster:
    """The running postmaster of a server :func:`start_postgres` started."""
    pid = _postmaster_pid(server)
    if pid is None or not _alive(pid):
        raise ServiceError(f"no PostgreSQL running in {server.directory}")
    return Postmaster(server, pid)


def restart_postgres(
    server: PostgresServer, *, gone_timeout: float = 10.0, cancel: threading.Event | None = None
) -> Postmaster:
    """Start a server :func:`start_postgres` started again, on the same data directory and
    port (after its postmaster died: PostgreSQL recovers from its write-ahead log). ``cancel``
    ends the wait for the old postmaster; ``pg_ctl start`` itself is let finish (bounded by its
    ``-t``), so that the caller's ``pg_ctl stop`` finds the server it started."""
    if server.directory is None or server.bin_dir is None:
        raise ServiceError("a PostgreSQL this process did not start is not its to restart")
    # PostgreSQL refuses to start while the pid in its lock file exists, even as a zombie that
    # nobody has reaped yet (it is not our child: a container's init may reap it seconds late).
    old = _postmaster_pid(server)
    deadline = time.monotonic() + gone_timeout
    while old is not None and _exists(old):
        if time.monotonic() > deadline:
            raise ServiceError(f"the old postmaster (pid {old}) is still there after {gone_timeout:g} s")
        _pause(0.05, cancel, "postgres")
    if cancel is not None and cancel.is_set():
        raise ServiceError("postgres: stopped while starting")
    error = _pg_ctl_start(server, server.directory, server.bin_dir)
    if error:
        raise ServiceError(f"pg_ctl start failed: {error[-400:]}")
    return postmaster(server)


def stop_postgres(server: PostgresServer, *, remove: bool = True, timeout: float = 60.0) -> None:
    """Stop a server :func:`start_postgres` started: ``pg_ctl stop`` (immediate when its data is
    thrown away, fast otherwise), SIGKILL to the postmaster if that fails; then, with ``remove``,
    its directory goes. A server it did not start (no directory) is left alone."""
    if server.directory is None or server.bin_dir is None:
        return
    data = server.directory / "data"
    mode = "immediate" if remove else "fast"
    command = [
        str(server.bin_dir / "pg_ctl"),
        "-D",
        str(data),
        "-m",
        mode,
        "-w",
        "-t",
        str(round(timeout)),
        "stop",
    ]
    try:
        stopped = _run(command, server.as_user, timeout=timeout + 10).returncode == 0
    except subprocess.TimeoutExpired:
        stopped = False
    if not stopped:
        _kill_postmaster(data)
    if remove:
        shutil.rmtree(server.directory, ignore_errors=True)


def _kill_postmaster(data: Path) -> None:
    with contextlib.suppress(OSError, ValueError, IndexError):
        pid = int((data / "postmaster.pid").read_text().splitlines()[0])
        os.kill(pid, signal.SIGKILL)
