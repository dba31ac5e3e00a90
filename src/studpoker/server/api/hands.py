"""Hand histories over REST: the hands you played, one of them as your seat saw it, a finished
hand's server seed once the house publishes it, and all your hands as one download
(docs/server.md, docs/fairness.md). Your tournament hands are among them, in tournament chips
(``units``, ``tournament``), the voided ones too (no history, every chip back), as your voided
cash hands are. The download writes each hand with its time bank and timeout notes, as your
copy of one hand has them. Replays of stored hands run off the event loop."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import StreamingResponse

from studpoker.store import Store
from studpoker.store.exports import Format, Kind, join, table_of, written_hands

from ..hand_views import PlayerCopy, player_copy
from .deps import CurrentAccount, room_of
from .errors import RESPONSES, ApiError
from .models import HandOut, HandSeedOut, HandSummaryOut, client_seeds, hand_summary
from .state import DownloadSlots, api_state

log = logging.getLogger(__name__)

router = APIRouter(tags=["hands"])

# Hand ids are short; anything longer (or empty) is no hand, answered before the database.
_MAX_HAND_ID = 64


def _check_hand_id(hand_id: str) -> None:
    if not 0 < len(hand_id) <= _MAX_HAND_ID:
        raise ApiError(404, "not_found", "no such hand")


@router.get(
    "/api/me/hands",
    response_class=StreamingResponse,
    responses={**RESPONSES, 200: {"content": {"text/plain": {}}}},
)
async def my_hands_download(
    request: Request,
    account: CurrentAccount,
    fmt: Annotated[
        Format,
        Query(alias="format", description="phh (a .phhs file) or pokerstars (text for trackers)"),
    ] = "phh",
    since: Annotated[
        datetime | None,
        Query(description="only hands started at or after (ISO 8601; UTC without a zone)"),
    ] = None,
    kind: Annotated[Kind, Query(description="cash, tournament or all (cash first)")] = "all",
) -> StreamingResponse:
    """All your finished hands (``kind``: cash or tournament ones only), oldest first by table
    (your tournament hands after the cash ones, by tournament and table, in chips), streamed as
    one file; each hand as your seat saw it (opponents' unseen down cards unknown), with its
    time bank and timeout notes. One download at a time per account and
    ``max_concurrent_exports`` in the room: past them 503 busy."""
    downloads = api_state(request).downloads
    if downloads.busy(account.id):
        raise ApiError(503, "busy", "a download is already running: try again shortly", {"Retry-After": "5"})
    start = since if since is None or since.tzinfo is not None else since.replace(tzinfo=UTC)
    suffix = "txt" if fmt == "pokerstars" else "phhs"
    return StreamingResponse(
        _downloaded_hands(room_of(request).store, downloads, account.id, fmt, start, kind=kind),
        media_type="text/plain; charset=utf-8",
        headers={"Content-Disposition": f'attachment; filename="studpoker-hands-{account.id}.{suffix}"'},
    )


async def _downloaded_hands(
    store: Store,
    downloads: DownloadSlots,
    account_id: int,
    fmt: Format,
    start: datetime | None,
    *,
    kind: Kind = "all",
) -> AsyncIterator[str]:
    """The download's text, a hand at a time, holding a download slot while it runs."""
    async with downloads.hold(account_id):
        written = 0
        # Cash hands first, then tournament ones; each replayed off the event loop.
        async for hand in written_hands(store, fmt, account_id, start, kind):
            if hand.text is None:
                log.warning("download of %s: hand %s left out: %s", account_id, hand.record.id, hand.error)
                continue
            yield join(fmt, written, hand.text)
            written += 1


@router.get("/api/hands", response_model=list[HandSummaryOut], responses=RESPONSES)
async def my_hands(
    request: Request,
    account: CurrentAccount,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    offset: Annotated[int, Query(ge=0, le=10**9)] = 0,
) -> list[dict[str, Any]]:
    """The hands you were dealt into, newest first."""
    records = await room_of(request).store.hands_for_account(account.id, limit=limit, offset=offset)
    return [hand_summary(r) for r in records]


@router.get("/api/hands/{hand_id}", response_model=HandOut, responses=RESPONSES)
async def hand(hand_id: str, request: Request, account: CurrentAccount) -> dict[str, Any]:
    """One of your hands as your seat saw it: PHH and readable text once it is over (the
    cards you were not shown unknown), the openings of the cards you were shown."""
    _check_hand_id(hand_id)
    store = room_of(request).store
    record = await store.hand(hand_id)
    seat = next((s.seat for s in record.seats.values() if s.account_id == account.id), None)
    if seat is None:
        raise ApiError(403, "forbidden", "only a player of this hand may read its history")
    if record.tournament is not None and record.status != "finished":
        # voided (or in play): no history to write, as for a cash hand, only its seats
        copy = PlayerCopy(phh=None, text=None, openings=[])
    else:
        try:
            config = (await table_of(store, record)).config
        except ValueError as exc:  # a tournament hand without a usable history
            raise ApiError(409, "conflict", f"hand {hand_id} cannot be read: {exc}") from None
        # Replaying the stored hand takes a few milliseconds: off the event loop the tables share.
        copy = await asyncio.to_thread(player_copy, record, seat, config)
    return {
        **hand_summary(record),
        "phh": copy.phh,
        "text": copy.text,
        "void_reason": record.void_reason,
        "deck_root": record.deck_root,
        "seed_commitment": record.seed_commitment,
        "client_seeds": client_seeds(record),
        "openings": copy.openings,
    }


@router.get("/api/hands/{hand_id}/seed", response_model=HandSeedOut, responses=RESPONSES)
async def hand_seed(hand_id: str, request: Request) -> dict[str, Any]:
    """A finished hand's server seed, to anyone, once the house's delay
    (``server_seed_public_after_seconds``) has passed since it ended; 403 before (and
    always when the house publishes no seeds), 404 for a hand with no seed."""
    delay = api_state(request).settings.server_seed_public_after_seconds
    if delay is None:
        raise ApiError(403, "forbidden", "this room does not publish server seeds")
    _check_hand_id(hand_id)
    record = await room_of(request).store.hand(hand_id)
    if record.server_seed is None or record.seed_commitment is None or record.deck_root is None:
        raise ApiError(404, "not_found", f"hand {hand_id} was not dealt from seeds")
    if record.finished_at is None:
        raise ApiError(403, "forbidden", f"hand {hand_id} is not over")
    wait = record.finished_at.timestamp() + delay - time.time()
    if wait > 0:
        raise ApiError(403, "forbidden", f"the seed of hand {hand_id} is published in {int(wait) + 1} s")
    return {
        "hand_id": record.id,
        "server_seed": record.server_seed,
        "seed_commitment": record.seed_commitment,
        "deck_root": record.deck_root,
        "client_seeds": client_seeds(record),
    }
