"""Table chat over REST (docs/server.md "Table chat"): the players the caller muted for himself,
and reporting a chat line to the operator. The lines themselves come and go over the WebSocket
(docs/protocol.md ``chat``); the rules are :mod:`studpoker.store.moderation`'s.

A muted player's lines still reach the caller's sockets: his client hides them (the list is
kept with the account, so every device hides the same players).
"""

from __future__ import annotations

from datetime import UTC, datetime

from fastapi import APIRouter, Request, Response
from pydantic import BaseModel, Field

from studpoker.server.table import TableError
from studpoker.store.moderation import MutedPlayer

from .deps import RESPONSES, ApiError, CurrentAccount, room_of

router = APIRouter(tags=["chat"])


class MutedOut(BaseModel):
    player: str
    account_id: int = Field(description="the player's account id (as in the chat lines and seat lists)")
    muted_at: datetime


class MutesOut(BaseModel):
    muted: list[MutedOut] = Field(description="the players you muted, by name")
    max_mutes: int = Field(description="the most players an account mutes")


class ReportIn(BaseModel):
    reason: str | None = Field(default=None, max_length=400, description="why (optional)")


class ReportOut(BaseModel):
    id: int = Field(description="the report's number (the same line reported again: the same report)")


def _muted_out(muted: MutedPlayer) -> MutedOut:
    return MutedOut(player=muted.name, account_id=muted.account_id, muted_at=muted.created_at)


@router.get("/api/me/chat/mutes", response_model=MutesOut, responses=RESPONSES)
async def mutes(request: Request, account: CurrentAccount) -> MutesOut:
    """The players whose chat lines you do not see."""
    listed = await room_of(request).store.moderation.chat_mutes(account.id)
    limit = request.app.state.settings.chat_mutes_per_account
    return MutesOut(muted=[_muted_out(m) for m in listed], max_mutes=limit)


@router.put("/api/me/chat/mutes/{player_name}", response_model=MutedOut, responses=RESPONSES)
async def mute(request: Request, player_name: str, account: CurrentAccount) -> MutedOut:
    """Mute a player for yourself (at every table); 404 for an unknown player, 422 for
    yourself, 409 ``too_many_mutes`` past ``chat_mutes_per_account``."""
    limit = request.app.state.settings.chat_mutes_per_account
    muted = await room_of(request).store.moderation.mute_player(account.id, player_name, limit=limit)
    return _muted_out(muted)


@router.delete("/api/me/chat/mutes/{player_name}", status_code=204, responses=RESPONSES)
async def unmute(request: Request, player_name: str, account: CurrentAccount) -> Response:
    """See a player's lines again; 404 if you had not muted him."""
    await room_of(request).store.moderation.unmute_player(account.id, player_name)
    return Response(status_code=204)


@router.post(
    "/api/tables/{table_id}/chat/{line_id}/report",
    status_code=201,
    response_model=ReportOut,
    responses=RESPONSES,
)
async def report(
    request: Request, table_id: int, line_id: int, account: CurrentAccount, body: ReportIn | None = None
) -> ReportOut:
    """Report a chat line to the operator: kept with the text the table had, its table and
    time (``studpoker admin reports``). 404 when the table no longer keeps the line (it keeps
    its last ``chat_history_lines``), 422 for your own line, 429 past ``chat_reports_per_hour``;
    in the cluster 503 ``unavailable`` when the table's owner does not answer in time."""
    room = room_of(request)
    actor = room.actors.get(table_id)
    try:
        line = None if actor is None else await actor.chat.lookup(line_id)
    except TableError as exc:  # in the cluster: the table's owner did not answer in time
        raise ApiError(503, exc.code, exc.message) from None
    if line is None:
        raise ApiError(404, "not_found", f"table {table_id} keeps no chat line {line_id}")
    report_id = await room.store.moderation.report(
        reporter_id=account.id,
        speaker_id=line.account_id,
        table_id=table_id,
        line_id=line.id,
        text=line.text,
        said_at=datetime.fromtimestamp(line.at, UTC),
        reason=None if body is None else body.reason,
        per_hour=request.app.state.settings.chat_reports_per_hour,
    )
    return ReportOut(id=report_id)
