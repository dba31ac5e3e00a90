"""The broadcast attack of issue 10, point 2, measured: ``python -m bench.fanout``.

One account opens ``--watchers`` sockets that all watch the attacked tables, while
``--togglers`` other accounts, seated there, toggle ``sit_out`` / ``sit_in`` as fast as their
socket's rate limit allows (``--toggle-rate`` per second, under the 10 messages/s default).
Meanwhile two bots play at an unrelated table. Measured without the attack, as it starts
(the sockets opening, the togglers sitting down) and in its steady state (toggling): the
unrelated table's event rate as a guest watching it receives it (events, hand_started,
hand_finished per second), and the latency of ``GET /api/tables/1`` polled every 50 ms.

Three processes, so that the load client does not share a core with the measurement: the
server (``serve``), the attack (``attack``), and this driver. ``--src DIR`` runs the server from
another source tree (e.g. ``git archive HEAD src | tar -x -C /tmp/before``: the code before a
change); ``--no-caps`` lifts the socket, watcher and seat-command caps (the coalescing of seat
updates alone). The goal (issue 10): under the attack the unrelated table keeps 80 % of its
event rate and the REST p99 stays under 200 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

TABLE_SEATS = 8


# ----------------------------------------------------------------------------- the server


async def prepare(url: str, tables: int, togglers: int, tokens_file: str) -> None:
    """Tables and accounts straight in the store (no registration limit in the way)."""
    from argon2 import PasswordHasher

    from studpoker.store import Store, TableConfig

    store = await Store.open(url, password_hasher=PasswordHasher(time_cost=1, memory_cost=8, parallelism=1))
    try:
        for n in range(tables + 1):
            await store.create_table(TableConfig.derive(f"fanout {n + 1}", "7S", 100, 200))
        tokens: dict[str, Any] = {"togglers": []}
        names = ["attacker", *(f"toggler{n}" for n in range(togglers))]
        for name in names:
            await store.register(name, "password123")
            token = (await store.login(name, "password123")).token
            if name == "attacker":
                tokens["attacker"] = token
            else:
                tokens["togglers"].append(token)
        Path(tokens_file).write_text(json.dumps(tokens))
    finally:
        await store.close()


def serve(args: argparse.Namespace) -> None:
    import socket

    import uvicorn
    from argon2 import PasswordHasher

    from studpoker.server import Settings, create_app
    from studpoker.store import Store

    asyncio.run(prepare(args.database_url, args.tables, args.togglers, args.tokens))
    values: dict[str, Any] = {
        "database_url": args.database_url,
        "default_tables": False,
        "bots": 2,
        "bot_tables": 1,
        "bot_delay": (0.05, 0.15),
        "hand_pause_seconds": 0.5,
    }
    if args.no_caps:
        values.update(
            max_sockets_per_account=10**6,
            max_sockets_per_address=10**6,
            max_watchers_per_table=10**6,
            seat_commands_per_window=10**6,
        )
    known = {f.name for f in dataclasses.fields(Settings)}
    settings = Settings(**{k: v for k, v in values.items() if k in known})
    hasher = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)

    async def fast_store(s: Settings) -> Store:
        return await Store.open(s.database_url, password_hasher=hasher)

    app = create_app(settings, store_factory=fast_store)
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    print(f"listening 127.0.0.1:{sock.getsockname()[1]}", flush=True)
    try:  # the room's own hardened server, as `studpoker serve` runs it
        from studpoker.server.http import build_server
    except ImportError:  # --src: a tree from before server/http.py
        config = uvicorn.Config(
            app, log_level="error", ws_ping_interval=None, ws_max_size=64 * 1024, backlog=4096
        )
        uvicorn.Server(config).run(sockets=[sock])
        return
    build_server(app, settings, log_level="error", ws_ping=False).run(sockets=[sock])


# ----------------------------------------------------------------------------- the attack


@dataclasses.dataclass
class AttackCounts:
    watchers_open: int = 0
    watchers_refused: int = 0
    frames_received: int = 0
    toggles_sent: int = 0
    toggles_refused: int = 0
    errors: dict[str, int] = dataclasses.field(default_factory=dict)


async def attack(args: argparse.Namespace) -> None:
    import websockets

    tokens = json.loads(Path(args.tokens).read_text())
    attacked = list(range(2, args.tables + 2))
    counts = AttackCounts()

    async def reader(ws: Any, count_errors: bool) -> None:
        with contextlib.suppress(websockets.ConnectionClosed):
            async for text in ws:
                counts.frames_received += 1
                if count_errors and '"error"' in text:
                    code = json.loads(text).get("code", "?")
                    counts.errors[code] = counts.errors.get(code, 0) + 1
                    if code == "seat_rate_limited":
                        counts.toggles_refused += 1

    async def watcher() -> None:
        try:
            # The attacker's sockets come from an address of their own (all of 127.0.0.0/8 is
            # loopback), as they would from his machine; the togglers and the measurement from
            # 127.0.0.1.
            ws = await websockets.connect(
                f"ws://{args.base}/ws?token={tokens['attacker']}",
                max_size=2**22,
                open_timeout=30,
                local_addr=("127.0.0.2", 0),
            )
        except Exception:
            counts.watchers_refused += 1
            return
        first = json.loads(await ws.recv())
        if first["type"] != "welcome":
            counts.watchers_refused += 1
            await ws.close()
            return
        counts.watchers_open += 1
        for table_id in attacked:
            await ws.send(json.dumps({"type": "join_table", "table_id": table_id}))
        await reader(ws, count_errors=False)

    async def toggler(n: int, token: str) -> None:
        table_id = attacked[n % len(attacked)]
        seat = n // len(attacked) + 1
        ws = await websockets.connect(f"ws://{args.base}/ws?token={token}", max_size=2**22, open_timeout=30)
        await ws.recv()
        await ws.send(json.dumps({"type": "sit", "table_id": table_id, "seat": seat, "buy_in": 4000}))
        task = asyncio.get_running_loop().create_task(reader(ws, count_errors=True))
        await asyncio.sleep(1.0)
        kinds = ("sit_out", "sit_in")
        i = 0
        with contextlib.suppress(websockets.ConnectionClosed):
            while True:
                await ws.send(json.dumps({"type": kinds[i % 2], "table_id": table_id}))
                counts.toggles_sent += 1
                i += 1
                await asyncio.sleep(1.0 / args.toggle_rate)
        await task

    tasks = [asyncio.create_task(watcher()) for _ in range(args.watchers)]
    await asyncio.sleep(2.0)
    tasks += [asyncio.create_task(toggler(n, t)) for n, t in enumerate(tokens["togglers"])]
    deadline = time.monotonic() + args.seconds
    while time.monotonic() < deadline:
        await asyncio.sleep(0.5)
    print(json.dumps(dataclasses.asdict(counts)), flush=True)
    os._exit(0)  # thousands of sockets: no orderly close needed


# ----------------------------------------------------------------------------- the measurement


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process so far (Linux /proc)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure(base: str, seconds: float, pids: dict[str, int]) -> dict[str, Any]:
    """:func:`measure_traffic`, with the CPU share each process in ``pids`` used meanwhile."""
    before = {name: cpu_seconds(pid) for name, pid in pids.items()}
    load = os.getloadavg()[0]
    result = asyncio.run(measure_traffic(base, seconds))
    for name, pid in pids.items():
        result[f"{name}_cpu_percent"] = round(100 * (cpu_seconds(pid) - before[name]) / seconds)
    result["load_average"] = round(max(load, os.getloadavg()[0]), 1)
    return result


async def measure_traffic(base: str, seconds: float) -> dict[str, Any]:
    import httpx
    import websockets

    events = 0
    latencies: list[float] = []
    began = time.monotonic()
    stop = began + seconds
    # Events and the slowest REST call of each second, to see a stall.
    per_second = [0] * (int(seconds) + 1)
    slowest = [0.0] * (int(seconds) + 1)

    async def watch() -> None:
        nonlocal events
        async with websockets.connect(f"ws://{base}/ws?guest=1", max_size=2**22) as ws:
            await ws.recv()
            await ws.send(json.dumps({"type": "join_table", "table_id": 1}))
            while time.monotonic() < stop:
                try:
                    text = await asyncio.wait_for(ws.recv(), max(0.01, stop - time.monotonic()))
                except TimeoutError:
                    break
                kind = json.loads(text)["type"]
                if kind in ("event", "hand_started", "hand_finished"):
                    events += 1
                    per_second[min(len(per_second) - 1, int(time.monotonic() - began))] += 1

    async def poll() -> None:
        async with httpx.AsyncClient(base_url=f"http://{base}", timeout=60) as http:
            while time.monotonic() < stop:
                sent = time.monotonic()
                response = await http.get("/api/tables/1")
                response.raise_for_status()
                latency = (time.monotonic() - sent) * 1000
                latencies.append(latency)
                second = min(len(slowest) - 1, int(sent - began))
                slowest[second] = max(slowest[second], round(latency))
                await asyncio.sleep(0.05)

    await asyncio.gather(watch(), poll())
    latencies.sort()
    return {
        "events_per_second": round(events / seconds, 2),
        "rest_calls": len(latencies),
        "rest_p50_ms": round(statistics.median(latencies), 1) if latencies else None,
        "rest_p99_ms": round(latencies[int(0.99 * (len(latencies) - 1))], 1) if latencies else None,
        "rest_max_ms": round(latencies[-1], 1) if latencies else None,
        "events_each_second": per_second,
        "slowest_rest_each_second_ms": slowest,
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    src = os.path.abspath(args.src) if args.src else None
    with tempfile.TemporaryDirectory(prefix="studpoker-fanout-") as tmp:
        tokens = os.path.join(tmp, "tokens.json")
        url = f"sqlite+aiosqlite:///{tmp}/fanout.sqlite3"
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        if src:
            env["PYTHONPATH"] = os.pathsep.join([src, os.getcwd()])
        common = ["--tables", str(args.tables), "--togglers", str(args.togglers), "--tokens", tokens]
        serve_argv = [sys.executable, "-m", "bench.fanout", "serve", "--database-url", url, *common]
        server = subprocess.Popen(
            [*serve_argv, *(["--no-caps"] if args.no_caps else [])],
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        try:
            assert server.stdout is not None
            line = server.stdout.readline()
            if not line.startswith("listening "):
                raise RuntimeError(f"the server did not start: {line!r}")
            base = line.split()[1]
            time.sleep(3.0)  # the bots sit and start playing
            quiet = measure(base, args.seconds, {"server": server.pid})
            print(f"without the attack: {quiet}", flush=True)
            # The attack: its start (the sockets opening, the togglers sitting down) and its steady
            # state are measured one after the other.
            # --nice-attack: the attack yields the CPU to the server, as if from another machine.
            attacker = subprocess.Popen(
                [
                    *(["nice", "-n", "19"] if args.nice_attack else []),
                    sys.executable,
                    "-m",
                    "bench.fanout",
                    "attack",
                    "--base",
                    base,
                    "--watchers",
                    str(args.watchers),
                    "--toggle-rate",
                    str(args.toggle_rate),
                    "--seconds",
                    str(2 * args.seconds + 10),
                    *common,
                ],
                stdout=subprocess.PIPE,
                text=True,
                env={**os.environ, "PYTHONUNBUFFERED": "1"},
            )
            assert attacker.stdout is not None
            pids = {"server": server.pid, "attack": attacker.pid}
            starting = measure(base, args.seconds, pids)
            print(f"as the attack starts: {starting}", flush=True)
            loud = measure(base, args.seconds, pids)
            print(f"under the attack: {loud}", flush=True)
            counts = json.loads(attacker.stdout.readline() or "{}")
            attacker.wait(60)
        finally:
            server.terminate()
            server.wait(60)
    kept = loud["events_per_second"] / quiet["events_per_second"] if quiet["events_per_second"] else 0.0
    kept_at_start = starting["events_per_second"] / max(quiet["events_per_second"], 1e-9)
    return {
        "server": src or "this tree",
        "caps": not args.no_caps,
        "attack_niced": args.nice_attack,
        "watchers": args.watchers,
        "togglers": args.togglers,
        "quiet": quiet,
        "attack_start": starting,
        "attack": loud,
        "attack_counts": counts,
        "event_rate_kept": round(kept, 2),
        "event_rate_kept_at_start": round(kept_at_start, 2),
        "goal_met": kept >= 0.8 and (loud["rest_p99_ms"] or 1e9) < 200,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.fanout", description=__doc__)
    parser.add_argument("role", nargs="?", default="run", choices=["run", "serve", "attack"])
    parser.add_argument(
        "--tables", type=int, default=9, help="attacked tables (table 1 is the unrelated one)"
    )
    parser.add_argument("--togglers", type=int, default=60)
    parser.add_argument("--watchers", type=int, default=1000)
    parser.add_argument("--toggle-rate", type=float, default=9.0, help="toggles per second per toggler")
    parser.add_argument("--seconds", type=float, default=20.0, help="each measurement")
    parser.add_argument("--src", default=None, help="run the server from this source tree")
    parser.add_argument("--no-caps", action="store_true", help="lift the socket / watcher / seat caps")
    parser.add_argument("--nice-attack", action="store_true", help="run the attack at nice 19")
    parser.add_argument("--json", default=None, help="append the result to this JSON file")
    parser.add_argument("--database-url", default=None)
    parser.add_argument("--tokens", default=None)
    parser.add_argument("--base", default=None)
    args = parser.parse_args(argv if argv is not None else [])
    if args.togglers > args.tables * (TABLE_SEATS - 1):
        parser.error(f"at most {TABLE_SEATS - 1} togglers per attacked table")
    if args.role == "serve":
        serve(args)
        return
    if args.role == "attack":
        asyncio.run(attack(args))
        return
    result = run(args)
    print(json.dumps(result, indent=2))
    if args.json:
        existing: list[Any] = json.loads(Path(args.json).read_text()) if os.path.exists(args.json) else []
        Path(args.json).write_text(json.dumps([*existing, result], indent=2))


if __name__ == "__main__":
    main(sys.argv[1:])
