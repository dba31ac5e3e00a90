"""The tournament lobby over REST: the sit-and-goes and scheduled tournaments (registering,
running, finished, cancelled) with their entrants, prize pool, payouts, start time and countdown,
late registration and re-entries, level and time to the next, tables and results; register
(before the start, as a late entry, or a re-entry), unregister (the buy-in and fee through the
ledger: studpoker.store.tournaments).

Tournaments are created by the operator with ``studpoker tournament create`` or ``schedule``:
the API has no operator role (no account is an administrator), so there is no REST create."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request

from .deps import RESPONSES, CurrentAccount, room_of

router = APIRouter(tags=["tournaments"])


def _line(room: Any, record: Any) -> dict[str, Any]:
    """The lobby line, with ``player_tables`` (server/tournaments ``lobby_line``)."""
    line: dict[str, Any] = room.tournaments.lobby_line(record)
    return line


@router.get("/api/tournaments")
async def tournaments(
    request: Request,
    status: Annotated[str | None, Query(description="registering, running, finished or cancelled")] = None,
) -> list[dict[str, Any]]:
    """Every tournament (or those of one status), newest last."""
    room = room_of(request)
    return [_line(room, r) for r in await room.store.tournaments.list(status)]


@router.get("/api/tournaments/{tournament_id}", responses=RESPONSES)
async def tournament(tournament_id: int, request: Request) -> dict[str, Any]:
    """One tournament; once finished, its ``results`` (place, ties, prize of each entrant)."""
    room = room_of(request)
    return _line(room, await room.store.tournaments.get(tournament_id))


@router.post("/api/tournaments/{tournament_id}/register", responses=RESPONSES)
async def register(tournament_id: int, request: Request, account: CurrentAccount) -> dict[str, Any]:
    """Buy in (buy-in + fee from the bankroll): before the start a registration (a sit-and-go
    starts when this fills it); while a scheduled tournament's late registration is open a late
    entry, or for a player whose entry is out a re-entry (a new entry, within the re-entries
    allowed), seated at once at the table with the fewest players."""
    room = room_of(request)
    return _line(room, await room.tournaments.register(tournament_id, account.id))


@router.post("/api/tournaments/{tournament_id}/unregister", responses=RESPONSES)
async def unregister(tournament_id: int, request: Request, account: CurrentAccount) -> dict[str, Any]:
    """Before the start: the buy-in and the fee go back to the bankroll."""
    room = room_of(request)
    return _line(room, await room.tournaments.unregister(tournament_id, account.id))
