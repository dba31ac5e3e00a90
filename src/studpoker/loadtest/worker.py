"""One process of a load run with several (``studpoker loadtest --processes N``):
``python -m studpoker.loadtest.worker``, driven by :mod:`.processes` over its standard streams.

It reads its share of the run (a :class:`~.config.LoadConfig` naming its tables and the number
of its first player) as one JSON line, registers and seats its players, says ``ready``, plays
from the ``go`` line for the seconds it gives, stands its players up at the ``stop`` line
(sent once the window's CPU is read), and answers with what it measured (``result``:
:meth:`~.report.Metrics.to_json`). Every line it writes on stdout is one JSON object; its logs
go to stderr.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from collections.abc import Coroutine
from typing import Any, TextIO

from studpoker.server.gc_policy import tune_load_client

from .client import LoadRun
from .config import LoadConfig

# Seconds a worker waits for the coordinator's ``stop`` after its window (then stops anyway).
_STOP_WAIT = 30.0


def say(out: TextIO, **message: Any) -> None:
    out.write(json.dumps(message) + "\n")
    out.flush()


async def work(config: LoadConfig, commands: TextIO, out: TextIO) -> None:
    async with LoadRun(config) as run:
        tune_load_client(config.tune_gc, after_setup=False)
        await run.setup()
        tune_load_client(config.tune_gc, after_setup=True)
        say(
            out,
            ready=True,
            players=len(run.players),
            seated=sum(p.ready.is_set() for p in run.players),
            tables_available=run.tables_available,
            setup_seconds=run.setup_seconds,
            notes=run.notes,
        )
        line = await asyncio.to_thread(commands.readline)
        if not line:  # the coordinator is gone: stand everyone up and stop
            return
        # Its players stand up once the coordinator has read the CPU at the window's end (its
        # ``stop`` line, or its pipe closing).
        await run.play(float(json.loads(line)["go"]), release=lambda: _stop_line(commands))
        say(out, result=run.metrics.to_json(), seconds=run.report().seconds)


async def _stop_line(commands: TextIO) -> None:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(asyncio.to_thread(commands.readline), _STOP_WAIT)


def run_fast(main: Coroutine[Any, Any, None]) -> None:
    """Run ``main`` on uvloop where it is installed (it comes with uvicorn[standard]): the load
    client's cost is mostly the event loop's."""
    try:
        import uvloop
    except ImportError:  # pragma: no cover - uvloop is there on Linux
        asyncio.run(main)
        return
    uvloop.run(main)


def main() -> int:
    job = json.loads(sys.stdin.readline())
    run_fast(work(LoadConfig(**job["config"]), sys.stdin, sys.stdout))
    return 0


if __name__ == "__main__":
    sys.exit(main())
