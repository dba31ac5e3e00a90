"""A stored hand as one of its players may read it (``GET /api/hands/{id}``, docs/fairness.md).

The database keeps the operator's complete record (every card in the PHH and the text). A player
gets the hand replayed from it and written again as his seat saw it: opponents' down cards he was
not shown are ``????`` in the PHH (which still replays) and absent from the text; with it come
the openings of every card he was shown, checkable against the hand's deck root. The time bank
each decision used, noted in the stored PHH, is read back and written in his copy too.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from studpoker.engine import Hand
from studpoker.games import HouseRules, get_game
from studpoker.history.phh import HandWithTimeBanks, dump_hand, loads, replay_with_time_banks
from studpoker.history.text import text_history
from studpoker.store.models import HandRecord, TableConfig

from .deals import DealInPlay, PendingDeal

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class PlayerCopy:
    phh: str | None
    text: str | None
    openings: list[dict[str, Any]]


def _house(config: TableConfig, game: str) -> HouseRules:
    """The house rules of a hand of ``game`` at the table: its game's defaults (a mixed table's
    config names one game of its rotation, not the hand's), then the table's switches."""
    house = get_game(game).default_house
    if config.house.strip():
        house = house.with_overrides(config.house.split())
    assert isinstance(house, HouseRules)
    return house


def replayed_hand(record: HandRecord, config: TableConfig) -> Hand | None:
    replayed = replayed_with_time_banks(record, config)
    return None if replayed is None else replayed.hand


def replayed_with_time_banks(record: HandRecord, config: TableConfig) -> HandWithTimeBanks | None:
    """A finished stored hand replayed from its PHH, with the time bank each decision used (the
    notes its PHH keeps, R-TIME-BANK); None when it is not finished or does not replay."""
    if record.status != "finished" or not record.phh:
        return None
    try:
        (phh,) = loads(record.phh, source=f"hand {record.id}")
        return replay_with_time_banks(phh, house=_house(config, phh.game_code))
    except Exception:
        # Never the full record instead: the player gets no history rather than every card.
        log.exception("hand %s: the stored PHH does not replay; no player copy", record.id)
        return None


def player_copy(record: HandRecord, seat: int, config: TableConfig) -> PlayerCopy:
    """Seat ``seat``'s copy of a stored hand (nothing but the openings-free empty copy while it
    is in progress: during the hand the openings come over the table socket)."""
    replayed = replayed_with_time_banks(record, config)
    if replayed is None:
        return PlayerCopy(phh=None, text=None, openings=[])
    hand, banks = replayed.hand, replayed.time_banks
    names = {s.seat: s.name for s in record.seats.values()}
    table = config.name
    held = record.tournament  # a tournament hand: its amounts are chips
    event = None if held is None else f"{held.name} (tournament {held.id}, level {held.level})"
    # The time bank notes are public (everyone saw the clock): his copy keeps them.
    phh = dump_hand(
        hand,
        players=names,
        hand_id=record.id,
        table=table,
        event=event,
        seen_by=seat,
        time_banks=banks,
        protected_counts=replayed.protected_counts,
    )
    text = text_history(
        hand,
        viewer=seat,
        players=names,
        hand_id=record.id,
        table=table,
        chips=held is not None,
        time_banks=banks,
        protected_counts=replayed.protected_counts,
    )
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
