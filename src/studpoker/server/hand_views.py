"""A stored hand as one of its players may read it (``GET /api/hands/{id}``, docs/fairness.md).

The database keeps the operator's complete record (every card in the PHH and the text). A player
gets the hand replayed from it and written again as his seat saw it: opponents' down cards he was
not shown are ``????`` in the PHH (which still replays) and absent from the text; with it come
the openings of every card he was shown, checkable against the hand's deck root.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from studpoker.engine import Hand
from studpoker.games import HouseRules, get_game
from studpoker.history.phh import dump_hand, loads, replay
from studpoker.history.text import text_history
from studpoker.store.models import HandRecord, TableConfig

from .deals import DealInPlay, PendingDeal

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class PlayerCopy:
    phh: str | None
    text: str | None
    openings: list[dict[str, Any]]


def _house(config: TableConfig) -> HouseRules:
    house = get_game(config.game).default_house
    if config.house.strip():
        house = house.with_overrides(config.house.split())
    assert isinstance(house, HouseRules)
    return house


def replayed_hand(record: HandRecord, config: TableConfig) -> Hand | None:
    if record.status != "finished" or not record.phh:
        return None
    try:
        (phh,) = loads(record.phh, source=f"hand {record.id}")
        return replay(phh, house=_house(config))
    except Exception:
        # Never the full record instead: the player gets no history rather than every card.
        log.exception("hand %s: the stored PHH does not replay; no player copy", record.id)
        return None


def player_copy(record: HandRecord, seat: int, config: TableConfig) -> PlayerCopy:
    """Seat ``seat``'s copy of a stored hand (nothing but the openings-free empty copy while it
    is in progress: during the hand the openings come over the table socket)."""
    hand = replayed_hand(record, config)
    if hand is None:
        return PlayerCopy(phh=None, text=None, openings=[])
    names = {s.seat: s.name for s in record.seats.values()}
    table = config.name
    phh = dump_hand(hand, players=names, hand_id=record.id, table=table, seen_by=seat)
    text = text_history(hand, viewer=seat, players=names, hand_id=record.id, table=table)
    openings: list[dict[str, Any]] = []
    if record.server_seed is not None and record.seed_commitment is not None:
        pending = PendingDeal(
            hand_id=record.id,
            server_seed=bytes.fromhex(record.server_seed),
            seed_commitment=record.seed_commitment,
        )
        deal = DealInPlay(pending, tuple((s, bytes.fromhex(seed)) for s, seed in record.client_seeds))
        openings = deal.openings(hand.view(seat))
    return PlayerCopy(phh=phh, text=text, openings=openings)
