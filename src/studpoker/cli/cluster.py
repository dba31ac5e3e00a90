"""``studpoker cluster up|status``: a whole cluster on one machine, for trial and tests
(docs/cluster.md "Roles"); and what the ``gateway`` and ``worker`` subcommands share.

``cluster up`` starts, in this order: a throwaway PostgreSQL in DIR (unless ``--database-url``),
the schema and the default tables, nats-server with one user per process, the workers, the
gateways, and HAProxy on ``--port`` in front of the gateways. It writes ``DIR/cluster.json``
(each process's role, name, pid and address; the room's URL; the database's), prints the URL,
then supervises the gateways, workers, nats-server, HAProxy and its own PostgreSQL (a crashed one
is started again, its new pid written to ``cluster.json``: :mod:`studpoker.cluster.supervise`; a
server's restart runs in a thread, so that it holds neither the roles' restarts nor a stop), and
on Ctrl-C or SIGTERM stops everything in the reverse order.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from studpoker.cluster.nats_config import NatsFiles
    from studpoker.cluster.services import NatsService, Server
    from studpoker.cluster.supervise import RestartPolicy, Supervised, Supervisor

CLUSTER_FILE = "cluster.json"
# How often the launcher looks at its children (a crash is noticed within this).
_POLL_SECONDS = 0.2


class RoleError(Exception):
    """A cluster role cannot start with these arguments (the message says why)."""


def add_role_arguments(parser: argparse.ArgumentParser) -> None:
    """What a gateway and a worker both take."""
    parser.add_argument("--name", required=True, help="this process's name (a subject token: 1, 2, eu-1...)")
    parser.add_argument(
        "--nats", required=True, metavar="URL", help="nats-server, e.g. nats://127.0.0.1:4222"
    )
    parser.add_argument(
        "--credentials", required=True, type=Path, metavar="FILE", help="its NATS user (credentials/*.json)"
    )
    parser.add_argument("--database-url", required=True, help="PostgreSQL (the cluster refuses SQLite)")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="a server setting")
    parser.add_argument("--log-level", default="info", choices=["debug", "info", "warning", "error"])


def check_postgres(url: str) -> str:
    from studpoker.store import database_url

    chosen = database_url(url)
    if not chosen.startswith("postgresql"):
        raise RoleError(f"the cluster needs PostgreSQL, not {chosen.partition(':')[0]} ({chosen})")
    return chosen


def role_settings(args: argparse.Namespace, **extra: Any) -> Any:
    """The role's Settings: PostgreSQL, the ``--set`` pairs, and ``extra``."""
    from studpoker.server import Settings

    from .serve import parse_settings

    url = check_postgres(args.database_url)
    pairs = {"shutdown_grace_seconds": 5.0, **parse_settings(args.set)}
    return Settings(database_url=url, **extra, **pairs)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "cluster", help="start a whole cluster on this machine (cluster up), or show who owns what (status)"
    )
    commands = parser.add_subparsers(dest="cluster_command", metavar="up|status", required=True)
    up = commands.add_parser("up", help="PostgreSQL, nats-server, workers, gateways and HAProxy in DIR")
    up.add_argument("--dir", required=True, type=Path, help="where every file, log and database go")
    up.add_argument("--gateways", type=int, default=2, help="how many gateways (default 2)")
    up.add_argument("--workers", type=int, default=2, help="how many table workers (default 2)")
    up.add_argument("--port", type=int, default=8000, help="HAProxy's port, the room's (default 8000)")
    up.add_argument("--database-url", default=None, help="an existing PostgreSQL instead of one in DIR")
    up.add_argument(
        "--set", action="append", default=[], metavar="NAME=VALUE", help="a setting for every role"
    )
    up.add_argument(
        "--bots",
        type=int,
        default=0,
        metavar="N",
        help="keep N bots at each table (run by the first gateway)",
    )
    up.add_argument(
        "--bot-tables", type=int, default=None, metavar="K", help="the bots at the first K tables only"
    )
    up.set_defaults(func=run_up)
    status = commands.add_parser(
        "status", help="each process's pid and restarts, and the tables each worker owns"
    )
    status.add_argument("--dir", required=True, type=Path, help="the cluster's DIR")
    status.set_defaults(func=run_status)


@dataclass
class _Cluster:
    """What ``cluster up`` started, stopped in the reverse order. The gateways and workers are
    the supervisor's children (``gateway_ports``: each gateway's, kept across its restarts);
    the servers (PostgreSQL when ours, nats-server, HAProxy) are ``servers``' children, each
    restart of theirs in a thread (``background``) that gives up when ``servers.stopped`` is set."""

    directory: Path
    supervisor: Supervisor[subprocess.Popen[bytes]]
    servers: Supervisor[Server]
    postgres: Any = None  # services.PostgresServer, when ours
    gateway_ports: dict[str, int] = field(default_factory=dict)

    @classmethod
    def create(cls, directory: Path, policy: RestartPolicy) -> _Cluster:
        from studpoker.cluster.supervise import Supervisor

        # A role starts in a moment (Popen); a server's restart may take seconds: in a thread.
        return cls(directory, Supervisor(policy), Supervisor(policy, background=True))

    def children(self, role: str) -> list[Supervised[subprocess.Popen[bytes]]]:
        return [child for child in self.supervisor.children if child.role == role]

    def server(self, name: str) -> Server | None:
        return next((child.process for child in self.servers.children if child.name == name), None)

    def spawn(self, role: str, name: str, arguments: list[str], *, min_delay: float = 0.0) -> None:
        """Start a role and supervise it; a restart runs the same command, logging to the same file."""
        log_file = self.directory / "logs" / f"{role}-{name}.log"
        command = [sys.executable, "-m", "studpoker", role, "--name", name, *arguments]

        def start() -> subprocess.Popen[bytes]:
            with log_file.open("ab") as log:
                # A session of its own: a Ctrl-C in the terminal reaches only this launcher.
                return subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)

        self.supervisor.add(role, name, start, min_delay=min_delay, log_file=log_file)

    def stop(self) -> None:
        from studpoker.cluster import services

        self.supervisor.stop()  # nothing is restarted while the cluster stops
        self.servers.stop()  # and a server's restart in flight gives up or is waited for
        for gateway in self.children("gateway"):
            _terminate(gateway.process, 10.0)
        self._stop_server("haproxy")
        for worker in self.children("worker"):
            _terminate(worker.process, 20.0)
        self._stop_server("nats-server")  # after the workers, which publish until they end
        if self.postgres is not None:
            services.stop_postgres(self.postgres, remove=False)  # even when it is down now
        (self.directory / CLUSTER_FILE).unlink(missing_ok=True)

    def _stop_server(self, name: str) -> None:
        server = self.server(name)
        if server is not None:
            server.stop()

    def watch_server(
        self, server: Server, start: Callable[[], Server], log_file: Path, describe: Callable[[int], str]
    ) -> None:
        """Supervise a server started already; ``start`` starts it again the same way."""
        self.servers.watch(server.name, server.name, server, start, log_file=log_file, describe=describe)


def _terminate(process: subprocess.Popen[bytes], timeout: float) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _healthy(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health", timeout=1.0) as response:
            return bool(response.status == 200)
    except OSError:
        return False


async def _prepare_database(url: str, pairs: dict[str, Any]) -> None:
    """The schema, and the default tables in an empty database (before any role starts, so
    that they neither race to migrate nor to create the tables), as the ``--set`` pairs
    shape them (``default_table_copies``, the clocks)."""
    from studpoker.server import Settings
    from studpoker.server.room import default_table_configs
    from studpoker.store import Store

    store = await Store.open(url)
    try:
        if not await store.list_tables():
            for config in default_table_configs(Settings(**pairs)):
                await store.create_table(config)
    finally:
        await store.close()


def run_up(args: argparse.Namespace) -> int:
    from studpoker.cluster import services
    from studpoker.cluster.haproxy_config import Backend
    from studpoker.cluster.supervise import (
        CrashLoopError,
        RestartPolicy,
        describe_exit,
        worker_restart_delay,
    )
    from studpoker.server import Settings

    from .serve import parse_settings

    try:
        settings = Settings(**parse_settings(args.set))
        policy = RestartPolicy.from_settings(settings)
        worker_delay = worker_restart_delay(settings)
        if args.gateways < 1 or args.workers < 1:
            raise RoleError("a cluster needs at least one gateway and one worker")
        bots = _bot_arguments(args, settings.bots)
        if args.database_url is not None:
            check_postgres(args.database_url)
    except (RoleError, ValueError) as exc:
        print(f"studpoker cluster up: error: {exc}", file=sys.stderr)
        return 2
    _log_supervision()
    directory = args.dir.resolve()
    (directory / "logs").mkdir(parents=True, exist_ok=True)
    cluster = _Cluster.create(directory, policy)
    stop = _stop_on_signals()
    try:
        url = _database(cluster, args.database_url)
        asyncio.run(_prepare_database(url, parse_settings(args.set)))
        nats, files = _nats(cluster, args.gateways, args.workers)
        sets = [a for pair in args.set for a in ("--set", pair)]
        common = ["--nats", nats.url, "--database-url", url, *sets]
        for name, credentials in files.workers.items():
            # The workers started together wait for each other before their first claims (a
            # loaded machine can start one seconds after another); a --set of its own wins.
            together = ["--set", f"expected_workers={args.workers}"]
            arguments = ["--credentials", str(credentials), *together, *common]
            cluster.spawn("worker", name, arguments, min_delay=worker_delay)
        for name, credentials in files.gateways.items():
            port = services.free_port()  # kept across restarts: HAProxy's backend
            arguments = [
                "--credentials",
                str(credentials),
                "--port",
                str(port),
                "--trusted-proxy",
                "127.0.0.1",
            ]
            arguments += [] if cluster.gateway_ports else bots  # the first gateway alone runs the bots
            cluster.spawn("gateway", name, [*arguments, *common])
            cluster.gateway_ports[name] = port
        _wait_for_gateways(cluster, stop)
        backends = [
            Backend(f"gateway-{name}", "127.0.0.1", port) for name, port in cluster.gateway_ports.items()
        ]
        proxy_dir = directory / "haproxy"
        proxy = services.start_haproxy(proxy_dir, backends, port=args.port)
        cluster.watch_server(
            proxy,
            lambda: services.start_haproxy(
                proxy_dir, backends, port=proxy.port, cancel=cluster.servers.stopped
            ),
            proxy.log,
            describe_exit,
        )
        room = f"http://127.0.0.1:{proxy.port}/"
        _write_cluster_file(cluster, room, url)
        print(f"studpoker cluster on {room}  ({directory / CLUSTER_FILE})", flush=True)
        _supervise(cluster, stop, room, url)
        return 0
    except (services.ServiceError, RoleError, OSError, CrashLoopError) as exc:
        print(f"studpoker cluster up: error: {exc}", file=sys.stderr)
        return 1
    finally:
        cluster.stop()


def _supervise(cluster: _Cluster, stop: _Flag, room: str, database_url: str) -> None:
    """Until Ctrl-C or SIGTERM. Neither check waits on a start: a server's restart runs in a
    thread (seconds, for PostgreSQL), so a role that crashes meanwhile is restarted on time and
    a stop is answered within a poll."""
    while not stop.is_set():
        # The servers first: a server crashed with a role (the role's cause, perhaps) begins
        # its restart before the role's.
        changed = cluster.servers.check()
        if cluster.supervisor.check() or changed:
            _write_cluster_file(cluster, room, database_url)
        stop.wait(_POLL_SECONDS)


def _nats(cluster: _Cluster, gateways: int, workers: int) -> tuple[NatsService, NatsFiles]:
    """nats-server with a user per role (its configuration and credentials), supervised."""
    from studpoker.cluster import services
    from studpoker.cluster.nats_config import write_nats_config
    from studpoker.cluster.supervise import describe_exit

    where = cluster.directory / "nats"
    files = write_nats_config(where, gateways=gateways, workers=workers)
    nats = services.start_nats(where, files.config)

    # Started again on the same port with the same configuration: the roles reconnect.
    def again() -> Server:
        return services.start_nats(where, files.config, port=nats.port, cancel=cluster.servers.stopped)

    cluster.watch_server(nats, again, nats.log, describe_exit)
    return nats, files


def _database(cluster: _Cluster, database_url: str | None) -> str:
    """The operator's PostgreSQL, or a throwaway one in DIR started (and supervised) here."""
    from studpoker.cluster import services

    if database_url is not None:
        print(
            "studpoker cluster up: the --database-url PostgreSQL is not ours to restart: run it"
            " under its own supervisor",
            file=sys.stderr,
            flush=True,
        )
        return check_postgres(database_url)
    where = cluster.directory / "postgres"
    cluster.directory.chmod(0o755)  # PostgreSQL may run as its own user (root cannot initdb)
    postgres = cluster.postgres = services.start_postgres(where)
    url: str = asyncio.run(postgres.new_database("studpoker"))
    cluster.watch_server(
        services.postmaster(postgres),
        # The same data directory and port.
        lambda: services.restart_postgres(postgres, cancel=cluster.servers.stopped),
        where / "log",
        lambda _status: "its postmaster died",  # not our child: no exit status to tell
    )
    return url


def _bot_arguments(args: argparse.Namespace, set_bots: int) -> list[str]:
    """The first gateway's bot options (docs/cluster.md "Bots"); a ``--set bots=`` is refused,
    since every gateway would get it and run bots of its own."""
    if set_bots:
        raise RoleError("give the bots with --bots, which the first gateway alone runs")
    if args.bots < 0 or (args.bot_tables is not None and args.bot_tables < 0):
        raise RoleError("--bots and --bot-tables take a whole number, 0 or more")
    if not args.bots:
        return []
    tables = [] if args.bot_tables is None else ["--bot-tables", str(args.bot_tables)]
    return ["--bots", str(args.bots), *tables]


def _log_supervision() -> None:
    """The supervisor's crashes and restarts on stderr, with the time (only its own lines)."""
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s studpoker cluster: %(message)s"))
    logger = logging.getLogger("studpoker.cluster.supervise")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False


class _Flag:
    """Set by SIGINT or SIGTERM; the launcher polls it."""

    def __init__(self) -> None:
        self._set = False

    def set(self, *_: object) -> None:
        self._set = True

    def is_set(self) -> bool:
        return self._set

    def wait(self, seconds: float) -> None:
        time.sleep(seconds)


def _stop_on_signals() -> _Flag:
    flag = _Flag()
    signal.signal(signal.SIGINT, flag.set)
    signal.signal(signal.SIGTERM, flag.set)
    return flag


def _wait_for_gateways(cluster: _Cluster, stop: _Flag, timeout: float = 60.0) -> None:
    """Until every gateway answers. A role that exits meanwhile fails the start at once (a
    broken setting or address: restarting would not mend it); supervision begins after."""
    deadline = time.monotonic() + timeout
    waiting = set(cluster.gateway_ports.values())
    while waiting:
        if stop.is_set():
            raise RoleError("stopped while starting")
        for child in cluster.supervisor.children:
            if child.process.poll() is not None:
                raise RoleError(f"{child.role} {child.name} exited at start: see {child.log_file}")
        waiting = {port for port in waiting if not _healthy(port)}
        if waiting and time.monotonic() > deadline:
            raise RoleError(f"gateways on ports {sorted(waiting)} did not answer in {timeout:.0f} s")
        time.sleep(0.1)


def _write_cluster_file(cluster: _Cluster, room: str, database_url: str) -> None:
    processes: list[dict[str, Any]] = []
    for server in cluster.servers.children:  # postgres (when ours), nats-server, haproxy
        processes.append(
            {
                "role": server.role,
                "name": server.label,
                "pid": None if server.left_down else server.process.pid,
                "address": server.process.address,
                "restarts": server.restarts,
            }
        )
    for role in ("worker", "gateway"):
        for child in cluster.children(role):
            port = cluster.gateway_ports.get(child.name) if role == "gateway" else None
            processes.append(
                {
                    "role": role,
                    "name": child.label,
                    "pid": None if child.left_down else child.process.pid,  # None: stopped on purpose
                    "address": None if port is None else f"127.0.0.1:{port}",
                    "restarts": child.restarts,
                }
            )
    text = json.dumps({"url": room, "database_url": database_url, "processes": processes}, indent=2)
    # Written aside and renamed: a reader never sees half a file. Mode 0600: the database URL
    # may carry a password.
    partial = cluster.directory / f"{CLUSTER_FILE}.partial"
    partial.write_text(text + "\n")
    partial.chmod(0o600)
    partial.replace(cluster.directory / CLUSTER_FILE)


def run_status(args: argparse.Namespace) -> int:
    path = args.dir / CLUSTER_FILE
    try:
        info = json.loads(path.read_text())
        url = check_postgres(str(info["database_url"]))
    except (OSError, ValueError, KeyError, RoleError) as exc:
        print(f"studpoker cluster status: error: no running cluster in {args.dir}: {exc}", file=sys.stderr)
        return 1
    for line in [*_process_lines(info), *asyncio.run(_status_lines(url))]:
        print(line)
    return 0


def _process_lines(info: dict[str, Any]) -> list[str]:
    """Each process of ``cluster.json``: its pid (down: stopped on purpose) and its restarts."""
    lines = []
    for process in info.get("processes", []):
        pid = "down" if process.get("pid") is None else f"pid {process['pid']}"
        where = f" on {process['address']}" if process.get("address") else ""
        restarts = process.get("restarts", 0)
        lines.append(f"{process['name']}: {pid}{where}, {restarts} restart{'' if restarts == 1 else 's'}")
    return lines


async def _status_lines(url: str) -> list[str]:
    from studpoker.store import Store

    store = await Store.open(url, migrate_schema=False)
    try:
        leases = await store.leases.owners()
        live = await store.leases.workers()
        held = await store.tournament_leases.owners()
    finally:
        await store.close()
    owned: dict[str, list[str]] = {worker: [] for worker in live}
    for lease in leases:
        key = lease.owner if lease.owner is not None and lease.live else "(unowned)"
        owned.setdefault(key, []).append(f"{lease.table_id}@{lease.epoch}")
    # The tournaments (each with all its tables) by owner; a finished one's row has none.
    tournaments: dict[str, list[str]] = {}
    for t in held:
        if t.owner is not None and t.live:
            tournaments.setdefault(t.owner, []).append(f"{t.tournament_id}@{t.epoch}")
    lines = [
        f"{worker}: {len(tables)} tables: {' '.join(tables)}" for worker, tables in sorted(owned.items())
    ]
    return lines + [f"{worker}: tournaments {' '.join(ids)}" for worker, ids in sorted(tournaments.items())]
