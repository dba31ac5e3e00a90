"""What the tournaments need of the room (so that they import no room: no import cycle)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from studpoker.store import Store

    from ..connections import Connection
    from ..settings import Settings
    from ..table import TableActor
    from ..table.ports import HandEnd


class Host(Protocol):
    """The room, as its tournaments see it."""

    @property
    def store(self) -> Store: ...

    @property
    def settings(self) -> Settings: ...

    @property
    def connections(self) -> dict[int, dict[int, Connection]]: ...

    def is_connected(self, account_id: int, table_id: int) -> bool: ...

    def rejoin(self, conn: Connection, actor: TableActor) -> None: ...


class TournamentHands(Protocol):
    """A running tournament, as its table's store port sees it."""

    @property
    def store(self) -> Store: ...

    async def hand_started(self, table_no: int, hand_id: str) -> None: ...

    async def hand_voided(self, table_no: int, hand_id: str, reason: str) -> None: ...

    async def hand_finished(self, table_no: int, end: HandEnd) -> None: ...
