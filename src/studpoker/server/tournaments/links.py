"""How a running tournament's tables reach the room around them.

In one process (the embedded room) the tables write through ``store.tournaments``, have no line
in the cash lobby and need nothing when one opens or closes. In the cluster the worker that owns
the tournament (cluster/tournaments.py) gives its own: the writes fenced by its lease, a lobby
port that sends each table's line to the gateways, and the table's command subscription opened
and closed with the table.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .ports import NoLobby

if TYPE_CHECKING:
    from studpoker.store.tournaments import Tournaments

    from ..table import TableActor
    from ..table.ports import LobbyNotifier


def _nothing(actor: TableActor) -> None:
    return None


@dataclass
class TableLinks:
    """``writes``: the tournament store to write through (None: the room's own);
    ``lobby``: each table's lobby port; ``opened`` / ``closed``: told of each table as it opens
    (before it starts) and as it breaks or the tournament ends."""

    writes: Tournaments | None = None
    lobby: LobbyNotifier = field(default_factory=NoLobby)
    opened: Callable[[TableActor], None] = _nothing
    closed: Callable[[TableActor], None] = _nothing
