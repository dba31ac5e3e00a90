"""The ASGI application: REST for accounts, the lobby, tables and hand histories, and the
table WebSocket. Build it with :func:`create_app`; ``studpoker serve`` runs it with uvicorn.

The routes are the routers of :mod:`studpoker.server.api`, one per area; the refusals they
raise become JSON in one place (:mod:`studpoker.server.api.errors`).
"""

import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from importlib import resources
from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import HTMLResponse
from starlette.staticfiles import StaticFiles

from studpoker.store import Store

from .api import ROUTERS
from .api.errors import EXCEPTION_HANDLERS
from .api.state import ApiState
from .gc_policy import freeze_after_start
from .protocol import PROTOCOL_VERSION
from .room import Room
from .settings import Settings

log = logging.getLogger(__name__)

StoreFactory = Callable[[Settings], Awaitable[Store]]
# Builds the room over the open store (a cluster gateway's room: studpoker.cluster.gateway).
RoomFactory = Callable[[Store, Settings], Room]

_PLACEHOLDER = """<!doctype html>
<html><head><meta charset="utf-8"><title>studpoker</title></head>
<body style="font-family: sans-serif; max-width: 40em; margin: 3em auto">
<h1>studpoker</h1>
<p>The card room is running. The browser client is not installed in this build.</p>
<ul>
<li><a href="/docs">API documentation</a> (OpenAPI at <a href="/openapi.json">/openapi.json</a>)</li>
<li><a href="/api/tables">Tables</a></li>
<li>WebSocket: <code>/ws</code>, then a first message
<code>{"type": "auth", "token": ...}</code> (see docs/protocol.md)</li>
</ul>
</body></html>
"""


def create_app(
    settings: Settings | None = None,
    *,
    store_factory: StoreFactory | None = None,
    room_factory: RoomFactory | None = None,
) -> FastAPI:
    """The room as an ASGI app. The store opens and the tables start in the lifespan."""
    settings = settings or Settings()
    factory = store_factory or _default_store

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        store = await factory(settings)
        room = (room_factory or Room)(store, settings)
        app.state.store = store
        app.state.room = room
        try:
            await room.start()
            freeze_after_start(settings)
            log.info("studpoker room open: %s tables", room.table_count)
            yield
        finally:
            await room.stop()
            await store.close()

    app = FastAPI(
        title="studpoker",
        version=f"protocol {PROTOCOL_VERSION}",
        description=(
            "Seven Card Stud card room: accounts, lobby, tables and hand histories. "
            "Table play goes over the WebSocket at /ws (docs/protocol.md). Amounts are integer cents."
        ),
        lifespan=lifespan,
        exception_handlers=EXCEPTION_HANDLERS,
    )
    app.state.settings = settings
    # The limiters, budgets and download slots outlive a restart of the lifespan, as the app does.
    app.state.api = ApiState.from_settings(settings)
    for router in ROUTERS:
        app.include_router(router)

    web = _web_dir(settings)
    if web is not None:
        app.mount("/", StaticFiles(directory=web, html=True), name="web")
    else:

        @app.get("/", response_class=HTMLResponse, include_in_schema=False)
        async def index() -> str:
            return _PLACEHOLDER

    return app


def _web_dir(settings: Settings) -> Path | None:
    if settings.web_dir is not None:
        path = Path(settings.web_dir)
        return path if path.is_dir() else None
    try:
        path = Path(str(resources.files("studpoker") / "web"))
    except Exception:
        return None
    return path if (path / "index.html").is_file() else None


async def _default_store(settings: Settings) -> Store:
    return await Store.open(
        settings.database_url,
        hash_workers=settings.password_hash_workers,
        hash_max_waiting=settings.password_hash_max_waiting,
    )
