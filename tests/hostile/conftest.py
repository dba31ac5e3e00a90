"""A live room in a background thread, for synchronous fuzzers (hypothesis drives plain functions).

The server runs uvicorn in its own event loop on a thread; tests talk to it over real sockets
(``websockets.sync`` and ``httpx``) and read its state through :meth:`LiveRoom.call`, which runs
a coroutine in the server's loop. :meth:`LiveRoom.fingerprint` is everything a rejected input
must leave unchanged: the database rows that hold money, accounts, sessions and hands, and each
table actor's seating and version.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Coroutine, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import text

from studpoker.server import create_app
from studpoker.server.http import build_server, listening_socket
from studpoker.server.table import TableActor

# The async harness of the server tests (uvicorn in the test's loop), for the security tests.
from tests.server.conftest import (
    AppRoom,
    fast_store,
    harness,  # noqa: F401
    make_settings,
)

FINGERPRINT_SQL = {
    "accounts": "select count(*), coalesce(sum(bankroll), 0) from accounts",
    "sessions": "select count(*), coalesce(sum(case when revoked then 1 else 0 end), 0) from sessions",
    "ledger": "select count(*) from ledger_transactions",
    "entries": "select count(*), coalesce(sum(amount), 0) from ledger_entries",
    "hands": "select count(*) from hands",
    "seats": "select table_id, seat, account_id, stack from seats order by table_id, seat",
}


class LiveRoom(AppRoom):
    def __init__(self, tmp_path: Path, **overrides: Any) -> None:
        # No rate limit in the way of the fuzzers, and no heartbeat drop of a silent client (that
        # would change a table's state while a fuzzer checks that nothing changes).
        values: dict[str, Any] = {
            "message_rate": 10_000.0,
            "message_burst": 10_000.0,
            "heartbeat_timeout_seconds": 3600.0,
        }
        values.update(overrides)
        self.settings = make_settings(tmp_path, **values)
        self.app = create_app(self.settings, store_factory=fast_store)
        self.loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._main, name="live-room", daemon=True)
        self._sock = listening_socket("127.0.0.1", 0, self.settings.listen_backlog)
        self.base = f"127.0.0.1:{self._sock.getsockname()[1]}"
        # The server of ``studpoker serve`` (same builder, same protocol hardening).
        self.server = build_server(
            self.app, self.settings, log_level="critical", ws_ping=False, graceful_shutdown_seconds=None
        )
        self.http = httpx.Client(base_url=f"http://{self.base}", timeout=20)

    def _main(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_until_complete(self.server.serve(sockets=[self._sock]))

    def start(self) -> None:
        self._thread.start()
        for _ in range(1000):
            if self.server.started:
                return
            threading.Event().wait(0.01)
        raise RuntimeError("the live room did not start")

    def stop(self) -> None:
        self.http.close()
        self.server.should_exit = True
        self._thread.join(20)

    def call(self, coro: Coroutine[Any, Any, Any], timeout: float = 30.0) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def add_table(self, game: str = "7S", small: int = 100, big: int = 200) -> int:
        actor: TableActor = self.call(self.open_table(game, small, big))
        return actor.table_id

    def register(self, name: str, password: str = "password123") -> tuple[str, int]:
        response = self.http.post("/api/register", json={"name": name, "password": password})
        assert response.status_code == 201, response.text
        body = response.json()
        return str(body["token"]), int(body["account"]["id"])

    def fingerprint(self) -> dict[str, Any]:
        async def read() -> dict[str, Any]:
            out: dict[str, Any] = {}
            async with self.store.engine.connect() as conn:
                for key, sql in FINGERPRINT_SQL.items():
                    out[key] = [tuple(r) for r in (await conn.execute(text(sql))).all()]
            for actor in self.room.tables():
                out[f"table {actor.table_id}"] = (
                    actor.version,
                    actor.hand_id,
                    sorted((s.seat, s.account_id, s.stack, s.sitting_out) for s in actor.seats.values()),
                )
            return out

        result: dict[str, Any] = self.call(read())
        return result

    def actors_alive(self) -> bool:
        """Every table actor's task still runs (none crashed on bad input)."""
        return self.room.tables_alive()

    def audit_balanced(self) -> bool:
        async def run() -> bool:
            return bool((await self.store.audit()).balanced)

        ok: bool = self.call(run())
        return ok


@contextlib.contextmanager
def live_room(tmp_path: Path, **overrides: Any) -> Iterator[LiveRoom]:
    room = LiveRoom(tmp_path, **overrides)
    room.start()
    try:
        yield room
        assert room.audit_balanced()
    finally:
        room.stop()


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveRoom]:
    with live_room(tmp_path_factory.mktemp("live")) as room:
        yield room
