"""Replays of hands the room stored: from a player's seat, and what a watcher saw."""

from __future__ import annotations

from studpoker.history.phh import hand_to_phh
from studpoker.history.text import text_history
from studpoker.server.hand_views import replayed_with_time_banks
from studpoker.store.models import HandRecord, TableRecord

from .equity import EquityBudget, EquitySolver
from .models import PublicHand, Replay, Units
from .steps import build_replay


def _names(record: HandRecord) -> dict[int, str]:
    return {s.seat: s.name for s in record.seats.values()}


def _units(record: HandRecord) -> Units:
    """A tournament hand is played in chips, a cash hand in money (cents)."""
    return "cents" if record.tournament is None else "chips"


def stored_replay(
    record: HandRecord, table: TableRecord, viewer: int | None, solver: EquitySolver, budget: EquityBudget
) -> Replay | None:
    """A finished stored hand's replay from ``viewer``'s seat (None: a watcher); None when its
    stored history does not replay."""
    replayed = replayed_with_time_banks(record, table.config)
    if replayed is None:
        return None
    return build_replay(
        replayed.hand,
        viewer,
        solver,
        budget,
        label=record.id,
        names=_names(record),
        table=table.name,
        units=_units(record),
        max_seats=table.config.max_seats,
        time_banks=replayed.time_banks,
        protected_counts=replayed.protected_counts,
    )


def public_hand(
    record: HandRecord, table: TableRecord, solver: EquitySolver, budget: EquityBudget
) -> PublicHand | None:
    """What a watcher saw of a finished stored hand: up cards, board, shown cards, and the time
    bank each decision used (everyone saw the clock)."""
    replayed = replayed_with_time_banks(record, table.config)
    if replayed is None:
        return None
    hand, banks, counts = replayed.hand, replayed.time_banks, replayed.protected_counts
    names = _names(record)
    phh = hand_to_phh(
        hand,
        players=names,
        hand_id=record.id,
        table=table.name,
        time=record.started_at,
        seen_by=None,
        time_banks=banks,
        protected_counts=counts,
    ).dumps()
    text = text_history(
        hand,
        viewer=None,
        players=names,
        hand_id=record.id,
        table=table.name,
        chips=record.tournament is not None,
        time_banks=banks,
        protected_counts=counts,
    )
    return PublicHand(
        id=record.id,
        table_id=record.table_id,
        table=table.name,
        started_at=record.started_at.isoformat(),
        finished_at=None if record.finished_at is None else record.finished_at.isoformat(),
        phh=phh,
        text=text,
        replay=build_replay(
            hand,
            None,
            solver,
            budget,
            label=record.id,
            names=names,
            table=table.name,
            units=_units(record),
            max_seats=table.config.max_seats,
            time_banks=banks,
            protected_counts=counts,
        ),
    )
