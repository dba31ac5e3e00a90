"""The REST response models of accounts, the lobby and hand histories, one per concept: where
the WebSocket protocol already has the model (a seat, a client seed), the REST answer uses the
protocol's (:mod:`studpoker.server.protocol`), so that the two cannot drift apart."""

from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal, get_type_hints

from pydantic import BaseModel, Field, create_model

from studpoker.store import Account
from studpoker.store.models import HandRecord, TableConfig

from ..protocol import ClientSeedInfo, SeatInfo
from ..tournaments.tables import table_id_of


class AccountOut(BaseModel):
    id: int
    name: str
    bankroll: int


class SessionOut(BaseModel):
    token: str
    expires_at: datetime
    account: AccountOut


class TopupOut(BaseModel):
    granted: int
    account: AccountOut


def _table_settings() -> dict[str, Any]:
    """A lobby line's table settings: the fields of the store's TableConfig, in its order, so that
    the two cannot drift apart; but the clock's seconds are the running table's, which Settings
    may give in fractions."""
    hints = get_type_hints(TableConfig)
    fields: dict[str, Any] = {f.name: (hints[f.name], ...) for f in dataclasses.fields(TableConfig)}
    fields["think_seconds"] = fields["countdown_seconds"] = (float, ...)
    return fields


class _TableId(BaseModel):
    id: int


if TYPE_CHECKING:  # the settings' fields are made at run time; mypy sees a plain model
    _TableLine = _TableId
else:
    _TableLine = create_model("TableLine", __base__=_TableId, **_table_settings())


class RotationOut(BaseModel):
    """A mixed-game table's rotation (``MixedSchedule.info``): its games and the game now."""

    rotation: str
    games: list[str]
    game_now: str
    hands_left: int = Field(description="hands of the game now still to play, the one in play included")
    hands_per_game: int


# Its id, its settings (TableConfig's fields, from _TableLine) and what is happening at it.
class TableOut(_TableLine):
    """A table's lobby line (``TableActor.summary``), as the lobby push sends it too."""

    seated: int
    bots: int
    seats: list[SeatInfo]
    hand_id: str | None
    hands_played: int
    average_pot: int | None = Field(
        description="the average pot (cents) of the hands finished in the last hour; null when none"
    )
    hands_per_hour: int = Field(
        description="hands finished in the last hour (extrapolated after a fresh start)"
    )
    waiting: int = Field(default=0, description="players on the table's wait list (protocol 1.6)")
    rotation: RotationOut | None = Field(
        default=None, description="a mixed-game table's rotation (protocol 1.6); null: one game"
    )


class HandSeatOut(BaseModel):
    seat: int
    account_id: int
    name: str
    starting_stack: int
    contribution: int
    award: int
    net: int


class HandTournamentOut(BaseModel):
    """Where a tournament hand was dealt: its amounts are tournament chips, not money."""

    id: int
    name: str
    table_no: int
    level: int


class HandSummaryOut(BaseModel):
    id: str
    table_id: int
    status: str
    started_at: datetime
    finished_at: datetime | None
    commitment: str
    seats: list[HandSeatOut]
    units: Literal["cents", "chips"] = Field(
        default="cents", description="the amounts: money in cents, or a tournament's chips"
    )
    tournament: HandTournamentOut | None = Field(
        default=None, description="a tournament hand's tournament and table; null: a cash hand"
    )


class HandOut(HandSummaryOut):
    """A hand as its player reads it (docs/fairness.md): the PHH and text as his seat saw it,
    the openings of the cards he was shown, and what the deck was committed to."""

    phh: str | None
    text: str | None
    void_reason: str | None
    deck_root: str | None
    seed_commitment: str | None
    client_seeds: list[ClientSeedInfo]
    openings: list[dict[str, Any]]


class HandSeedOut(BaseModel):
    """A hand's server seed, published after the house's delay: with the client seeds it
    rebuilds the whole deck (``studpoker.fairness.verify_deal``)."""

    hand_id: str
    server_seed: str
    seed_commitment: str
    deck_root: str
    client_seeds: list[ClientSeedInfo]


def account_out(account: Account) -> AccountOut:
    return AccountOut(id=account.id, name=account.name, bankroll=account.bankroll)


def hand_summary(record: HandRecord) -> dict[str, Any]:
    """The fields of :class:`HandSummaryOut` (a dict, so that :class:`HandOut` can extend it)."""
    held = record.tournament
    return {
        "id": record.id,
        # a tournament hand: the id its table had in the room
        "table_id": record.table_id if held is None else table_id_of(held.id, held.table_no),
        "units": "cents" if held is None else "chips",
        "tournament": None
        if held is None
        else HandTournamentOut(id=held.id, name=held.name, table_no=held.table_no, level=held.level),
        "status": record.status,
        "started_at": record.started_at,
        "finished_at": record.finished_at,
        "commitment": record.commitment,
        "seats": [
            HandSeatOut(
                seat=s.seat,
                account_id=s.account_id,
                name=s.name,
                starting_stack=s.starting_stack,
                contribution=s.contribution,
                award=s.award,
                net=s.net,
            )
            for _, s in sorted(record.seats.items())
        ],
    }


def client_seeds(record: HandRecord) -> list[dict[str, Any]]:
    """The seeds the players sent into a hand's deck, by seat (``ClientSeedInfo``'s fields)."""
    return [{"seat": seat, "seed": seed} for seat, seed in record.client_seeds]
