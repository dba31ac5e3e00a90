"""The lobby over REST: the tables with their seats (the lines the WebSocket lobby push sends
too), one table, and the room's health."""

from __future__ import annotations

import time
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request

from ..protocol import PROTOCOL_VERSION
from .deps import room_of
from .errors import RESPONSES, ApiError
from .models import TableOut

router = APIRouter(tags=["lobby"])


@router.get("/api/tables", response_model=list[TableOut])
async def tables(
    request: Request,
    game: Annotated[str | None, Query(description="7S, 7S8, RZ or O8")] = None,
    stakes: Annotated[str | None, Query(description="small/big bet in cents, e.g. 100/200")] = None,
) -> list[dict[str, Any]]:
    """The tables, with their seats; filter by game and stakes."""
    out = []
    for actor in room_of(request).tables():
        cfg = actor.config
        if game is not None and cfg.game.upper() != game.upper():
            continue
        if stakes is not None and stakes.replace(" ", "") != f"{cfg.small_bet}/{cfg.big_bet}":
            continue
        out.append(actor.summary())
    return out


@router.get("/api/tables/{table_id}", response_model=TableOut, responses=RESPONSES)
async def table(table_id: int, request: Request) -> dict[str, Any]:
    """One table with its seats and the hand in progress."""
    actor = room_of(request).table(table_id)
    if actor is None:
        raise ApiError(404, "not_found", f"no table {table_id}")
    return actor.summary()


@router.get("/api/health")
async def health(request: Request) -> dict[str, Any]:
    room = room_of(request)
    return {
        "ok": True,
        "tables": room.table_count,
        "protocol": PROTOCOL_VERSION,
        "guests": room.guest_count,
        "time": time.time(),
        # CPU seconds this process has used (every thread): load runs read it before and
        # after their measured window to report the server's CPU per action.
        "cpu_seconds": time.process_time(),
    }
