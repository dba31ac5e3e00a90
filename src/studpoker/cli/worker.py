"""``studpoker worker``: a table worker of a cluster (docs/cluster.md "Roles")."""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys
from typing import Any


def register(subparsers: Any) -> None:
    from .cluster import add_role_arguments

    parser = subparsers.add_parser(
        "worker",
        help="run a cluster's table worker: owns tables by lease in PostgreSQL, talks over NATS",
        description=(
            "Run a table worker: it claims its fair share of the tables (a lease in PostgreSQL), "
            "plays them, and sends their frames to the gateways over NATS. SIGTERM drains it: the "
            "hands in play finish (--set shutdown_grace_seconds=S), then its tables are released."
        ),
    )
    add_role_arguments(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from .cluster import RoleError, role_settings

    try:
        settings = role_settings(args)
    except (RoleError, ValueError) as exc:
        print(f"studpoker worker: error: {exc}", file=sys.stderr)
        return 2
    logging.basicConfig(
        level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    return asyncio.run(_serve(args, settings))


async def _serve(args: argparse.Namespace, settings: Any) -> int:
    from studpoker.cluster.nats_bus import NatsBus
    from studpoker.cluster.nats_config import NatsCredentials, worker_user
    from studpoker.cluster.worker import Worker
    from studpoker.store import Store

    store = await Store.open(settings.database_url, migrate_schema=False)
    user = worker_user(args.name)
    bus = await NatsBus.connect(args.nats, NatsCredentials.read(args.credentials), name=user)
    worker = Worker(user, store, bus, settings)
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, worker.request_stop)
    print(f"studpoker worker {user} running", flush=True)
    try:
        await worker.run()
    finally:
        await bus.close()
        await store.close()
    return 0
