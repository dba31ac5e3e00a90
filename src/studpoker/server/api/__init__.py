"""The REST API by area: each module holds an ``APIRouter`` for one concern; ``create_app``
includes every router of :data:`ROUTERS`. The dependencies they share (the room, the caller's
account) live in :mod:`.deps`, the error type and its JSON in :mod:`.errors`, the response
models of accounts, the lobby and hands in :mod:`.models`, the process's limiters in :mod:`.state`."""

from fastapi import APIRouter

from .accounts import router as accounts_router
from .chat import router as chat_router
from .games import router as games_router
from .hand_stats import router as hand_stats_router
from .hands import router as hands_router
from .lobby import router as lobby_router
from .notes import router as notes_router
from .replays import router as replays_router
from .tournaments import router as tournaments_router
from .ws import router as ws_router

ROUTERS: tuple[APIRouter, ...] = (
    replays_router,
    hand_stats_router,
    games_router,
    notes_router,
    chat_router,
    accounts_router,
    lobby_router,
    hands_router,
    tournaments_router,
    ws_router,
)
