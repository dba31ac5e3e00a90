"""A room server for load and fault runs: ``python -m studpoker.loadtest.server``.

It is the real application (:func:`studpoker.server.create_app`, one uvicorn process) with two
differences from ``studpoker serve``: it first makes sure the database holds ``--tables`` tables
of one game and stakes (the server itself only creates its 20 default tables), and with
``--fast-hash`` it hashes passwords with cheap Argon2 parameters, so that registering thousands
of load accounts does not dominate the run. ``--profile FILE`` writes a pyinstrument profile
(HTML, or text when FILE ends in .txt) of the whole server when it stops (SIGTERM / SIGINT).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from studpoker.games import GAMES


async def prepare_tables(
    url: str,
    tables: int,
    *,
    game: str = "7S",
    small_bet: int = 100,
    big_bet: int = 200,
    think_seconds: int = 10,
    countdown_seconds: int = 20,
) -> int:
    """Create load tables until the database holds ``tables`` of them; returns how many exist."""
    from studpoker.store import Store, TableConfig

    store = await Store.open(url)
    try:
        existing = [t for t in await store.list_tables() if t.config.name.startswith("load ")]
        for n in range(len(existing), tables):
            await store.create_table(
                TableConfig.derive(
                    f"load {game} {n + 1}",
                    game,
                    small_bet,
                    big_bet,
                    think_seconds=think_seconds,
                    countdown_seconds=countdown_seconds,
                )
            )
        return max(tables, len(existing))
    finally:
        await store.close()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m studpoker.loadtest.server", description=__doc__)
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--tables", type=int, default=16)
    parser.add_argument("--game", default="7S", choices=list(GAMES))
    parser.add_argument("--stakes", default="100/200", help="small/big bet in cents")
    parser.add_argument("--think-seconds", type=float, default=10.0)
    parser.add_argument("--countdown-seconds", type=float, default=20.0)
    parser.add_argument("--hand-pause", type=float, default=0.5)
    parser.add_argument("--protected-all-ins", type=int, default=2)
    parser.add_argument("--fast-hash", action="store_true", help="cheap Argon2 parameters (load runs only)")
    parser.add_argument("--profile", default=None, metavar="FILE", help="pyinstrument profile of the run")
    parser.add_argument("--log-level", default="warning")
    return parser


def main(argv: list[str] | None = None) -> int:
    from studpoker.server import Settings, create_app
    from studpoker.server.gc_policy import apply_thresholds
    from studpoker.server.http import build_server, listening_socket
    from studpoker.store import Store

    args = build_parser().parse_args(argv)
    small, big = (int(x) for x in args.stakes.split("/"))
    asyncio.run(
        prepare_tables(
            args.database_url,
            args.tables,
            game=args.game,
            small_bet=small,
            big_bet=big,
            think_seconds=max(1, round(args.think_seconds)),
            countdown_seconds=max(0, round(args.countdown_seconds)),
        )
    )
    settings = Settings(
        database_url=args.database_url,
        host=args.host,
        port=args.port,
        think_seconds=args.think_seconds,
        countdown_seconds=args.countdown_seconds,
        hand_pause_seconds=args.hand_pause,
        default_tables=False,
        gc_freeze_after_start=True,
        protected_all_ins_per_day=args.protected_all_ins,
        # Load clients send fast at zero think time: keep the per-connection limit out of the way.
        message_rate=50.0,
        message_burst=100.0,
        # Every load client registers from this machine's one address.
        registrations_per_address_per_hour=10**9,
        registrations_per_address_per_day=10**9,
        topups_per_address_per_day=10**9,
        # ... and opens its WebSocket from it (thousands of players: no per-address socket cap).
        max_sockets_per_address=10**9,
        max_connections_per_address=10**9,
        new_connections_per_address_per_second=1e9,
        new_connections_burst_per_address=10**9,
        listen_backlog=4096,
    )
    factory: Any = None
    if args.fast_hash:
        from argon2 import PasswordHasher

        hasher = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)

        async def fast_store(s: Settings) -> Store:
            return await Store.open(s.database_url, password_hasher=hasher)

        factory = fast_store
    logging.basicConfig(
        level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    app = create_app(settings, store_factory=factory)
    # The room's own hardened server (server/http.py), as `studpoker serve` runs it.
    sock = listening_socket(args.host, args.port, settings.listen_backlog)
    port = sock.getsockname()[1]
    print(f"studpoker room on http://{args.host}:{port}/  (database {args.database_url})", flush=True)
    server = build_server(app, settings, log_level=args.log_level, ws_ping=False)
    apply_thresholds(settings)
    if args.profile:
        # uvicorn re-raises SIGTERM after its graceful shutdown, which would end the process
        # before the profile is written: forget the captured signals once shut down.
        original = server.capture_signals

        @contextlib.contextmanager
        def capture() -> Iterator[None]:
            with original():
                yield
                server._captured_signals.clear()

        server.capture_signals = capture  # type: ignore[method-assign]
    profiler: Any = None
    if args.profile:
        from pyinstrument import Profiler

        profiler = Profiler(interval=0.002, async_mode="disabled")
        profiler.start()
    try:
        server.run(sockets=[sock])
    finally:
        if profiler is not None:
            profiler.stop()
            if args.profile.endswith(".txt"):
                text = profiler.output_text(unicode=False, color=False, show_all=False)
                with open(args.profile, "w") as out:
                    out.write(text)
            else:
                profiler.write_html(args.profile)
    return 0


@dataclass
class SpawnedServer:
    """A server subprocess started by :func:`spawn`."""

    process: subprocess.Popen[str]
    base: str  # host:port

    @property
    def ws_url(self) -> str:
        return f"ws://{self.base}"

    @property
    def http_url(self) -> str:
        return f"http://{self.base}"

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs, as in a crash."""
        with contextlib.suppress(ProcessLookupError):
            self.process.send_signal(signal.SIGKILL)
        self.process.wait(15)

    def terminate(self, timeout: float = 30.0) -> int | None:
        with contextlib.suppress(ProcessLookupError):
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            return None


def spawn(
    database_url: str,
    *,
    tables: int,
    port: int = 0,
    think_seconds: float = 10.0,
    countdown_seconds: float = 20.0,
    hand_pause: float = 0.5,
    fast_hash: bool = True,
    profile: str | None = None,
    extra: tuple[str, ...] = (),
    start_timeout: float = 120.0,
) -> SpawnedServer:
    """Start ``python -m studpoker.loadtest.server`` and wait until it listens."""
    argv = [
        sys.executable,
        "-m",
        "studpoker.loadtest.server",
        "--database-url",
        database_url,
        "--tables",
        str(tables),
        "--port",
        str(port),
        "--think-seconds",
        str(think_seconds),
        "--countdown-seconds",
        str(countdown_seconds),
        "--hand-pause",
        str(hand_pause),
        *(["--fast-hash"] if fast_hash else []),
        *(["--profile", profile] if profile else []),
        *extra,
    ]
    process = subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert process.stdout is not None
    deadline = time.monotonic() + start_timeout
    line = process.stdout.readline()
    if "studpoker room on http://" not in line:
        process.kill()
        raise RuntimeError(f"the server did not start: {line!r}")
    base = line.split("http://", 1)[1].split("/", 1)[0]
    # Wait until the lifespan is done (the tables run) and it answers.
    import httpx

    while time.monotonic() < deadline:
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"http://{base}/api/health", timeout=2).status_code == 200:
                return SpawnedServer(process, base)
        if process.poll() is not None:
            raise RuntimeError(f"the server exited with {process.returncode}")
        time.sleep(0.05)
    process.kill()
    raise RuntimeError("the server did not answer in time")


if __name__ == "__main__":
    sys.exit(main())
