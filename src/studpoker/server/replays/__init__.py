"""A finished hand as replay steps, seen from one seat (or a watcher), with each street's equity.

The replayer (``GET /api/hands/{id}/replay``, ``GET /api/hands/{id}/public``, ``POST /api/replay``;
docs/histories.md) walks the engine's event log of a replayed :class:`~studpoker.engine.Hand` as
the viewer may read it (``Hand.events_for``: other players' down cards are unknown unless turned
up or shown) and groups it into steps: the forced bets, each street's deal, each decision, each
show, muck, returned bet and the awards. Every step carries the table after it: stacks, bets,
pots, each seat's cards as the viewer knows them and the board.

After each street's cards and when hands are turned up for an all-in run-out, the step has each
live player's equity (``studpoker.equity``: exact when it can be, else sampled) from what the
viewer has seen only: his own cards, the up cards, the board and the cards shown; the cards he
saw of players out of the hand are dead. Equity is the share of one pot all of them contest (hi/lo:
both halves; side pots are not weighed). The last step has what each player actually won, as a
share of all the pots. Equity work is bounded per position and per request
(``Settings.replay_equity_*``); a position past the request's budget, or one the calculator cannot
take, gets a note instead.

The package: ``models`` (the records), ``table`` (the table after each event), ``steps`` (steps
and the replay), ``equity`` (bounded equity per position), ``cache``, ``stored`` (stored hands),
``files`` (dropped files) and ``service`` (the app's replayer).
"""

from .equity import EquityBudget, EquityLimits, EquitySolver
from .files import file_format, file_text, file_viewer, known_players, replay_file
from .models import (
    FileReplay,
    PlayerEquity,
    PotState,
    PublicHand,
    Replay,
    ReplayBusyError,
    ReplayFileError,
    ReplayPlayer,
    ReplayStakes,
    ReplayStep,
    SeatState,
    Sees,
    StepEquity,
    StepEvent,
    Units,
    Viewer,
)
from .service import ReplayService
from .steps import build_replay, replay_steps, viewer_events
from .stored import public_hand, stored_replay

__all__ = [
    "EquityBudget",
    "EquityLimits",
    "EquitySolver",
    "FileReplay",
    "PlayerEquity",
    "PotState",
    "PublicHand",
    "Replay",
    "ReplayBusyError",
    "ReplayFileError",
    "ReplayPlayer",
    "ReplayService",
    "ReplayStakes",
    "ReplayStep",
    "SeatState",
    "Sees",
    "StepEquity",
    "StepEvent",
    "Units",
    "Viewer",
    "build_replay",
    "file_format",
    "file_text",
    "file_viewer",
    "known_players",
    "public_hand",
    "replay_file",
    "replay_steps",
    "stored_replay",
    "viewer_events",
]
