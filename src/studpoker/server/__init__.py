"""The real-time card room: REST + WebSocket (FastAPI / Starlette), one actor per table.

    from studpoker.server import Settings, create_app
    app = create_app(Settings(database_url="sqlite+aiosqlite:///room.sqlite3", bots=2))

See docs/server.md for running the room and docs/protocol.md for the WebSocket protocol.
"""

from __future__ import annotations

from .app import create_app
from .protocol import PROTOCOL_VERSION
from .settings import Settings

__all__ = ["PROTOCOL_VERSION", "Settings", "create_app"]
