"""The table: one actor per table behind typed ports (docs/server.md, "Inside").

- ``actor.py``: :class:`TableActor`, the queue, one handler method per command, the phase.
- ``seating.py``: the seat commands and the seats at a hand's end; ``idle_seats.py``: the timers
  that free the seats of players disconnected and sitting out; ``timeout_notes.py``: what the
  table says of a timeout.
- ``top_up.py``: chips added to a stack (pending through a hand the seat is in) and auto top-ups.
- ``commands.py``: the commands and :class:`TableError`, the refusal answered to the sender.
- ``phase.py``: :class:`TablePhase` and its transitions.
- ``ports.py``: what the actor needs of the world (store, lobby, presence, clock, viewers).
- ``adapters.py``: those ports in one process (the room behind them, the loop's clock).
- ``fanout.py``: the watchers, the versions, the per-viewer encoding, coalesced seat lists.
- ``settlement.py``: the hand writes and their retry; ``hand.py``: the hand being played;
  ``seats.py``: the seats; ``stats.py``: the lobby statistics; ``encoding.py``: engine values
  as JSON.
"""

from .actor import TableActor
from .commands import (
    Act,
    AddChips,
    AutoTopUp,
    ClientSeed,
    ClockExpired,
    Command,
    FreeIdleSeat,
    LeaveAfterHand,
    PostBlind,
    Resync,
    RetrySettle,
    Sit,
    SitIn,
    SitOut,
    StandUp,
    StartHand,
    Stop,
    TableError,
    Unwatch,
    Watch,
)
from .phase import TablePhase
from .ports import TablePorts
from .seats import SeatState
from .stats import table_stats

__all__ = [
    "Act",
    "AddChips",
    "AutoTopUp",
    "ClientSeed",
    "ClockExpired",
    "Command",
    "FreeIdleSeat",
    "LeaveAfterHand",
    "PostBlind",
    "Resync",
    "RetrySettle",
    "SeatState",
    "Sit",
    "SitIn",
    "SitOut",
    "StandUp",
    "StartHand",
    "Stop",
    "TableActor",
    "TableError",
    "TablePhase",
    "TablePorts",
    "Unwatch",
    "Watch",
    "table_stats",
]
