"""``studpoker serve``: run the card room (HTTP + WebSocket) with uvicorn."""

from __future__ import annotations

import argparse
import logging
import sys
import types
import typing
from typing import Any


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="run the card room (REST + WebSocket) on http://HOST:PORT",
        description=(
            "Run the studpoker card room: accounts, lobby, tables and hand histories over REST, "
            "table play over the WebSocket /ws (docs/protocol.md). The database defaults to a "
            "SQLite file in the working directory; default tables are created when there are none."
        ),
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 picks a free one)")
    parser.add_argument(
        "--database-url",
        default=None,
        help="SQLAlchemy async URL (default $STUDPOKER_DATABASE_URL or sqlite+aiosqlite:///studpoker.sqlite3;"
        " PostgreSQL: postgresql+asyncpg://user:pw@host/db)",
    )
    parser.add_argument(
        "--bots",
        type=int,
        default=0,
        metavar="N",
        help="keep N bots at each table while the room runs, one seat left for people (a bot that goes"
        " broke is replaced, one gives its seat to a person waiting; default 0)",
    )
    parser.add_argument(
        "--bot-tables",
        type=int,
        default=None,
        metavar="K",
        help="seat the bots at the first K tables only (default: every table)",
    )
    parser.add_argument(
        "--bot-delay",
        type=float,
        nargs=2,
        default=(0.6, 1.8),
        metavar=("MIN", "MAX"),
        help="seconds a bot thinks before acting (default 0.6 1.8)",
    )
    parser.add_argument(
        "--think-seconds",
        type=float,
        default=None,
        help="action clock: think time per decision, for every table (default: each table's, 10 s)",
    )
    parser.add_argument(
        "--countdown-seconds",
        type=float,
        default=None,
        help="action clock: the visible countdown after the think time, also the reconnection extension,"
        " for every table (default: each table's, 20 s)",
    )
    parser.add_argument(
        "--hand-pause", type=float, default=3.0, help="seconds between hands at a table (default 3)"
    )
    parser.add_argument(
        "--shutdown-grace",
        type=float,
        default=5.0,
        metavar="SECONDS",
        help="on SIGTERM, time the hands being played get to finish before they are voided (default 5)",
    )
    parser.add_argument(
        "--no-default-tables",
        action="store_true",
        help="do not create the default tables in an empty database",
    )
    http = parser.add_argument_group("the HTTP layer (docs/server.md)")
    http.add_argument(
        "--trusted-proxy",
        action="append",
        default=[],
        metavar="ADDRESS",
        help="a reverse proxy (address or network, e.g. 10.0.0.0/24) whose X-Forwarded-For gives the"
        " client's address; repeat for more (default: none, the headers are ignored)",
    )
    http.add_argument(
        "--request-timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="a request must arrive whole within this, else its connection is closed (default 10)",
    )
    http.add_argument(
        "--max-head-bytes",
        type=int,
        default=None,
        metavar="BYTES",
        help="the largest request head (request line and headers) (default 65536)",
    )
    http.add_argument(
        "--max-connections-per-address",
        type=int,
        default=None,
        metavar="N",
        help="open connections (HTTP and WebSocket) one client address may hold (default 256)",
    )
    http.add_argument(
        "--keep-alive",
        type=int,
        default=None,
        metavar="SECONDS",
        help="idle seconds before a kept-alive HTTP connection is closed (default 5)",
    )
    http.add_argument("--backlog", type=int, default=None, help="the listen backlog (default 2048)")
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="any other server setting (repeatable), e.g. --set registrations_per_address_per_day=50;"
        " the names and defaults are the fields of studpoker.server.Settings (docs/security.md)",
    )
    parser.add_argument("--log-level", default="info", choices=["debug", "info", "warning", "error"])
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from studpoker.server import Settings, create_app
    from studpoker.server.gc_policy import apply_thresholds
    from studpoker.server.http import build_server, check_settings, listening_socket
    from studpoker.store import database_url

    try:
        extra = parse_settings(args.set)
    except ValueError as exc:
        print(f"studpoker serve: error: {exc}", file=sys.stderr)
        return 2
    settings = Settings(
        database_url=database_url(args.database_url),
        host=args.host,
        port=args.port,
        bots=max(0, args.bots),
        bot_tables=args.bot_tables,
        bot_delay=(min(args.bot_delay), max(args.bot_delay)),
        think_seconds=args.think_seconds,
        countdown_seconds=args.countdown_seconds,
        hand_pause_seconds=args.hand_pause,
        shutdown_grace_seconds=max(0.0, args.shutdown_grace),
        default_tables=not args.no_default_tables,
        trusted_proxies=tuple(args.trusted_proxy),
        **_given(
            http_request_timeout_seconds=args.request_timeout,
            http_max_head_bytes=args.max_head_bytes,
            max_connections_per_address=args.max_connections_per_address,
            http_keep_alive_seconds=args.keep_alive,
            listen_backlog=args.backlog,
        ),
        **{"gc_freeze_after_start": True, **extra},
    )
    try:
        check_settings(settings)
    except ValueError as exc:
        print(f"studpoker serve: error: {exc}", file=sys.stderr)
        return 2
    logging.basicConfig(
        level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    app = create_app(settings)
    sock = listening_socket(args.host, args.port, settings.listen_backlog)
    port = sock.getsockname()[1]
    host = f"[{args.host}]" if ":" in args.host else args.host
    print(f"studpoker room on http://{host}:{port}/  (database {settings.database_url})", flush=True)
    server = build_server(app, settings, log_level=args.log_level)
    apply_thresholds(settings)
    server.run(sockets=[sock])
    return 0


# Settings that --set cannot change: they have flags of their own (or are not plain values).
_NOT_SET = {"database_url", "host", "port", "bot_delay", "trusted_proxies", "web_dir"}


def parse_settings(pairs: list[str]) -> dict[str, Any]:
    """``NAME=VALUE`` pairs as Settings fields, each value converted to the field's declared
    type (``none`` for an optional one); ValueError naming the pair for an unknown name or a
    value of the wrong type."""
    from studpoker.server import Settings

    hints = typing.get_type_hints(Settings)
    out: dict[str, Any] = {}
    for pair in pairs:
        name, sep, text = pair.partition("=")
        name, text = name.strip(), text.strip()
        kinds = _plain_kinds(hints.get(name))
        if not sep or name in _NOT_SET or kinds is None:
            raise ValueError(f"--set {pair!r}: not a setting (see studpoker.server.Settings)")
        out[name] = _convert(pair, name, text, kinds)
    return out


def _plain_kinds(hint: Any) -> tuple[type, ...] | None:
    """The types of a field that --set can take (bool, int, float, str, optionally None)."""
    members = typing.get_args(hint) if isinstance(hint, types.UnionType) else (hint,)
    if not members or not all(m in (bool, int, float, str, type(None)) for m in members):
        return None
    return tuple(members)


def _convert(pair: str, name: str, text: str, kinds: tuple[type, ...]) -> Any:
    if type(None) in kinds and text.lower() == "none":
        return None
    for kind in kinds:
        if kind is bool and text.lower() in ("true", "on", "1", "false", "off", "0"):
            return text.lower() in ("true", "on", "1")
        if kind in (int, float):
            try:
                return kind(text)
            except ValueError:
                continue
        if kind is str:
            return text
    wanted = " or ".join("none" if k is type(None) else k.__name__ for k in kinds)
    raise ValueError(f"--set {pair!r}: {name} takes {wanted}")


def _given(**options: Any) -> dict[str, Any]:
    """The options given on the command line (the others keep the Settings defaults)."""
    return {name: value for name, value in options.items() if value is not None}
