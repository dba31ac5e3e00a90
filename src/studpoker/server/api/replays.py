"""The replayer's routes (docs/histories.md "The replayer"): a hand you played replayed from your
seat, a finished hand's public view, a dropped PHH or PokerStars file replayed, and one hand of
yours as PokerStars text. The replays themselves are built by :mod:`studpoker.server.replays`."""

from __future__ import annotations

import asyncio
from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response
from pydantic import BaseModel, Field

from studpoker.server.replays import (
    FileReplay,
    PublicHand,
    Replay,
    ReplayBusyError,
    ReplayFileError,
    ReplayService,
    file_text,
)
from studpoker.store.exports import table_of
from studpoker.store.models import HandRecord, TableRecord

from .deps import RESPONSES, ApiError, CurrentAccount, room_of

router = APIRouter(tags=["replays"])

# The responses are the replayer's records (server/replays/models.py), serialized by pydantic as
# they are: those records are the one definition of this JSON and of its OpenAPI schema.


class ReplayFileIn(BaseModel):
    text: str = Field(description="the PHH (.phh, .phhs) or PokerStars hand-history file")


# ----------------------------------------------------------------------------- helpers


def service_of(request: Request) -> ReplayService:
    """The app's replayer, made on first use (its slots belong to the running event loop)."""
    state = request.app.state
    service: ReplayService | None = getattr(state, "replays", None)
    if service is None:
        service = state.replays = ReplayService(state.settings)
    return service


async def finished_hand(request: Request, hand_id: str) -> tuple[HandRecord, TableRecord]:
    """The stored hand and its table; 404 for no such hand (or a voided one), 403 while it is on."""
    if not 0 < len(hand_id) <= 64:
        raise ApiError(404, "not_found", "no such hand")
    store = room_of(request).store
    record = await store.hand(hand_id)
    if record.status == "void":
        raise ApiError(404, "not_found", f"hand {hand_id} was voided: there is nothing to replay")
    if record.status != "finished":
        raise ApiError(403, "forbidden", f"hand {hand_id} is not over")
    try:
        return record, await table_of(store, record)
    except ValueError as exc:  # a tournament hand without a usable history
        raise unreplayable(hand_id) from exc


def seat_of(record: HandRecord, account_id: int) -> int:
    seat = next((s.seat for s in record.seats.values() if s.account_id == account_id), None)
    if seat is None:
        raise ApiError(403, "forbidden", "only a player of this hand may replay it from his seat")
    return seat


def busy() -> ApiError:
    return ApiError(503, "busy", "the replayer is busy: try again shortly", {"Retry-After": "2"})


def unreplayable(hand_id: str) -> ApiError:
    return ApiError(409, "conflict", f"hand {hand_id}: its stored history does not replay")


_BODY = {
    "required": True,
    "content": {
        "text/plain": {"schema": {"type": "string"}},
        "application/json": {"schema": ReplayFileIn.model_json_schema()},
    },
}

# ----------------------------------------------------------------------------- routes


@router.get("/api/hands/{hand_id}/replay", response_model=Replay, responses=RESPONSES)
async def hand_replay(hand_id: str, request: Request, account: CurrentAccount) -> Replay:
    """A hand you played, step by step as your seat saw it, with each street's equity from the
    cards you saw."""
    record, table = await finished_hand(request, hand_id)
    seat = seat_of(record, account.id)
    try:
        built = await service_of(request).stored(record, table, seat)
    except ReplayBusyError:
        raise busy() from None
    if built is None:
        raise unreplayable(hand_id)
    return built


@router.get("/api/hands/{hand_id}/public", response_model=PublicHand, responses=RESPONSES)
async def hand_public(hand_id: str, request: Request) -> PublicHand:
    """A finished hand as a watcher saw it (no login): the up cards, the board and the hands
    shown; its PHH with the other down cards unknown, its text and its replay."""
    record, table = await finished_hand(request, hand_id)
    try:
        built = await service_of(request).public(record, table)
    except ReplayBusyError:
        raise busy() from None
    if built is None:
        raise unreplayable(hand_id)
    return built


@router.post(
    "/api/replay",
    response_model=FileReplay,
    responses={**RESPONSES, 413: RESPONSES[422]},
    openapi_extra={"requestBody": _BODY},
)
async def replay_dropped_file(
    request: Request,
    hand: Annotated[
        int | None, Query(ge=1, le=100_000, description="replay only the file's Nth hand")
    ] = None,
) -> FileReplay:
    """A PHH or PokerStars file (the body: the file as text/plain, or JSON {"text": ...}) replayed
    hand by hand from its hero's point of view (the player whose down cards it gives; every card
    when it gives several players'). Hands that cannot be replayed are listed in ``problems``;
    422 when none can, 413 over the size limit."""
    service = service_of(request)
    limit = service.settings.replay_max_bytes
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise ApiError(413, "too_large", f"the file is over {limit} bytes")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise ApiError(413, "too_large", f"the file is over {limit} bytes")
        chunks.append(chunk)
    try:
        text = file_text(b"".join(chunks), request.headers.get("content-type", ""))
        return await service.dropped(text, hand)
    except ReplayFileError as exc:
        raise ApiError(422, "invalid", str(exc)) from None
    except ReplayBusyError:
        raise busy() from None


@router.get(
    "/api/hands/{hand_id}/pokerstars",
    response_class=Response,
    responses={**RESPONSES, 200: {"content": {"text/plain": {}}}},
)
async def hand_pokerstars(hand_id: str, request: Request, account: CurrentAccount) -> Response:
    """One hand you played as PokerStars hand-history text (you are the hero), as a download."""
    from studpoker.store.exports import write_hand

    record, table = await finished_hand(request, hand_id)
    seat_of(record, account.id)
    try:
        # Replaying the stored hand is CPU work: off the event loop.
        text = await asyncio.to_thread(write_hand, record, table, "pokerstars", account.id)
    except ValueError as exc:
        raise ApiError(409, "conflict", f"hand {hand_id} cannot be written: {exc}") from None
    return Response(
        text,
        media_type="text/plain; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="hand-{record.id}.txt"'},
    )
