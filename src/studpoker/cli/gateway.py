"""``studpoker gateway``: a gateway of a cluster, the room's sockets and REST (docs/cluster.md)."""

from __future__ import annotations

import argparse
import dataclasses
import logging
import sys
from typing import Any


def register(subparsers: Any) -> None:
    from .cluster import add_role_arguments

    parser = subparsers.add_parser(
        "gateway",
        help="run a cluster's gateway: the WebSockets and REST, the tables played by the workers",
        description=(
            "Run a gateway: the room's REST and WebSockets on http://HOST:PORT, with the tables "
            "played by the workers (commands and frames over NATS). Put HAProxy in front of several."
        ),
    )
    add_role_arguments(parser)
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument(
        "--trusted-proxy",
        action="append",
        default=[],
        metavar="ADDRESS",
        help="a reverse proxy (HAProxy) whose X-Forwarded-For gives the client's address; repeatable",
    )
    bots = parser.add_argument_group("bots (run them on ONE gateway of a cluster: each runs its own)")
    bots.add_argument(
        "--bots",
        type=int,
        default=0,
        metavar="N",
        help="keep N bots at each table, as serve --bots does; they play through this gateway (default 0)",
    )
    bots.add_argument("--bot-tables", type=int, default=None, metavar="K", help="the first K tables only")
    bots.add_argument(
        "--bot-delay",
        type=float,
        nargs=2,
        default=None,
        metavar=("MIN", "MAX"),
        help="seconds a bot thinks before acting (default 0.6 1.8)",
    )
    parser.set_defaults(func=run)


def bot_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The bots' Settings fields from the options (none given: the Settings' own)."""
    out: dict[str, Any] = {}
    if args.bots < 0 or (args.bot_tables is not None and args.bot_tables < 0):
        raise ValueError("--bots and --bot-tables take a whole number, 0 or more")
    if args.bots:
        out.update(bots=args.bots, bot_tables=args.bot_tables)
    if args.bot_delay is not None:
        low, high = sorted(args.bot_delay)
        if low < 0:
            raise ValueError("--bot-delay takes seconds, 0 or more")
        out["bot_delay"] = (low, high)
    return out


def run(args: argparse.Namespace) -> int:
    from studpoker.cluster.gateway import create_gateway_app
    from studpoker.cluster.nats_bus import NatsBus
    from studpoker.cluster.nats_config import NatsCredentials, gateway_user
    from studpoker.server.http import build_server, check_settings, listening_socket

    from .cluster import RoleError, role_settings

    try:
        settings = role_settings(
            args, host=args.host, port=args.port, trusted_proxies=tuple(args.trusted_proxy)
        )
        settings = dataclasses.replace(settings, **bot_settings(args))
        check_settings(settings)
        credentials = NatsCredentials.read(args.credentials)
    except (RoleError, ValueError, OSError) as exc:
        print(f"studpoker gateway: error: {exc}", file=sys.stderr)
        return 2
    logging.basicConfig(
        level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )

    async def connect() -> NatsBus:
        return await NatsBus.connect(args.nats, credentials, name=gateway_user(args.name))

    app = create_gateway_app(settings, name=args.name, connect=connect)
    sock = listening_socket(args.host, args.port, settings.listen_backlog)
    print(f"studpoker gateway {args.name} on http://{args.host}:{sock.getsockname()[1]}/", flush=True)
    build_server(app, settings, log_level=args.log_level).run(sockets=[sock])
    return 0
