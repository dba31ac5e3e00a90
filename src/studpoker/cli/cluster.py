"""``studpoker cluster up|status``: a whole cluster on one machine, for trial and tests
(docs/cluster.md "Roles"); and what the ``gateway`` and ``worker`` subcommands share.

``cluster up`` starts, in this order: a throwaway PostgreSQL in DIR (unless ``--database-url``),
the schema and the default tables, nats-server with one user per process, the workers, the
gateways, and HAProxy on ``--port`` in front of the gateways. It writes ``DIR/cluster.json``
(each process's role, name, pid and address; the room's URL; the database's), prints the URL,
then supervises the gateways and workers (a crashed one is started again, its new pid written
to ``cluster.json``: :mod:`studpoker.cluster.supervise`), and on Ctrl-C or SIGTERM stops
everything in the reverse order.
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
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from studpoker.cluster.supervise import Supervised, Supervisor

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
    up.set_defaults(func=run_up)
    status = commands.add_parser("status", help="the tables each worker owns")
    status.add_argument("--dir", required=True, type=Path, help="the cluster's DIR")
    status.set_defaults(func=run_status)


@dataclass
class _Cluster:
    """What ``cluster up`` started, stopped in the reverse order. The gateways and workers are
    the supervisor's children (``gateway_ports``: each gateway's, kept across its restarts)."""

    directory: Path
    supervisor: Supervisor[subprocess.Popen[bytes]]
    postgres: Any = None
    services: list[Any] = field(default_factory=list)  # nats, haproxy (services.Service)
    gateway_ports: dict[str, int] = field(default_factory=dict)

    def children(self, role: str) -> list[Supervised[subprocess.Popen[bytes]]]:
        return [child for child in self.supervisor.children if child.role == role]

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
        for gateway in self.children("gateway"):
            _terminate(gateway.process, 10.0)
        for service in reversed(self.services):  # haproxy, then nats-server after the workers
            if service.name != "nats-server":
                service.stop()
        for worker in self.children("worker"):
            _terminate(worker.process, 20.0)
        for service in self.services:
            if service.name == "nats-server":
                service.stop()
        if self.postgres is not None:
            services.stop_postgres(self.postgres, remove=False)
        (self.directory / CLUSTER_FILE).unlink(missing_ok=True)


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
    from studpoker.cluster.nats_config import write_nats_config
    from studpoker.cluster.supervise import CrashLoopError, RestartPolicy, Supervisor, worker_restart_delay
    from studpoker.server import Settings

    from .serve import parse_settings

    try:
        settings = Settings(**parse_settings(args.set))
        policy = RestartPolicy.from_settings(settings)
        worker_delay = worker_restart_delay(settings)
        if args.gateways < 1 or args.workers < 1:
            raise RoleError("a cluster needs at least one gateway and one worker")
        if args.database_url is not None:
            check_postgres(args.database_url)
    except (RoleError, ValueError) as exc:
        print(f"studpoker cluster up: error: {exc}", file=sys.stderr)
        return 2
    _log_supervision()
    directory = args.dir.resolve()
    (directory / "logs").mkdir(parents=True, exist_ok=True)
    cluster = _Cluster(directory, Supervisor(policy))
    stop = _stop_on_signals()
    try:
        if args.database_url is None:
            directory.chmod(0o755)  # PostgreSQL may run as its own user (root cannot initdb)
            cluster.postgres = services.start_postgres(directory / "postgres")
            url = asyncio.run(cluster.postgres.new_database("studpoker"))
        else:
            url = check_postgres(args.database_url)
        asyncio.run(_prepare_database(url, parse_settings(args.set)))
        files = write_nats_config(directory / "nats", gateways=args.gateways, workers=args.workers)
        nats = services.start_nats(directory / "nats", files.config)
        cluster.services.append(nats)
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
            cluster.spawn("gateway", name, [*arguments, *common])
            cluster.gateway_ports[name] = port
        _wait_for_gateways(cluster, stop)
        backends = [
            Backend(f"gateway-{name}", "127.0.0.1", port) for name, port in cluster.gateway_ports.items()
        ]
        proxy = services.start_haproxy(directory / "haproxy", backends, port=args.port)
        cluster.services.append(proxy)
        room = f"http://127.0.0.1:{proxy.port}/"
        _write_cluster_file(cluster, room, url)
        print(f"studpoker cluster on {room}  ({directory / CLUSTER_FILE})", flush=True)
        while not stop.is_set():
            if cluster.supervisor.check():
                _write_cluster_file(cluster, room, url)
            stop.wait(_POLL_SECONDS)
        return 0
    except (services.ServiceError, RoleError, OSError, CrashLoopError) as exc:
        print(f"studpoker cluster up: error: {exc}", file=sys.stderr)
        return 1
    finally:
        cluster.stop()


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
    if cluster.postgres is not None:
        processes.append(
            {"role": "postgres", "name": "postgres", "pid": None, "address": cluster.postgres.address}
        )
    for service in cluster.services:
        processes.append(
            {"role": service.name, "name": service.name, "pid": service.pid, "address": service.address}
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
    for line in asyncio.run(_status_lines(url)):
        print(line)
    return 0


async def _status_lines(url: str) -> list[str]:
    from studpoker.store import Store

    store = await Store.open(url, migrate_schema=False)
    try:
        leases = await store.leases.owners()
        live = await store.leases.workers()
    finally:
        await store.close()
    owned: dict[str, list[str]] = {worker: [] for worker in live}
    for lease in leases:
        key = lease.owner if lease.owner is not None and lease.live else "(unowned)"
        owned.setdefault(key, []).append(f"{lease.table_id}@{lease.epoch}")
    return [f"{worker}: {len(tables)} tables: {' '.join(tables)}" for worker, tables in sorted(owned.items())]
