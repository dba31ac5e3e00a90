"""The tournaments as a gateway serves them (docs/cluster.md "Tournaments").

A gateway runs no tournament: each is its owner's (a worker, cluster/tournaments.py).

- A registration or an unregistration (REST) is a request on ``tournament.<id>.cmd``, which the
  owner answers once it has made it (a full sit-and-go starts there, a late entry is seated
  there). With nobody to answer yet (a takeover in progress) it is asked again every
  ``command_retry_seconds``, and refused ``unavailable`` (503) after
  ``tournament_request_seconds``; an answer that does not come in time is refused the same way
  (it may have been made: the lobby says).
- The lobby line is built from the database's record, with what only the owner knows (the level
  and the time to the next, the tables, who sits where, late registration) from its last
  ``lobby.tournament.<id>`` line, the level's times moved on by the line's age.
- The tables are remote tables (cluster/gateway.py) made from their owner's lobby lines and
  kept out of the cash lobby; a player newly shown at a table (the start, a move, a late entry)
  has each of his sockets here watch it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import Any, Protocol

from studpoker.server.api.errors import ApiError
from studpoker.server.tournaments import TournamentRoom
from studpoker.server.tournaments.host import Host
from studpoker.server.tournaments.lobby import lobby_line
from studpoker.store.tournaments import TournamentRecord

from . import subjects
from .bus import Bus, BusError, BusTimeoutError, Message, NoRespondersError
from .remote import WireError, decode_lobby_line
from .tournaments import encode_request

log = logging.getLogger(__name__)

# What only a running tournament's owner knows, taken from its line.
OWNER_FIELDS = ("level", "tables", "late_registration_open", "rotation", "player_tables")


class Gateway(Host, Protocol):
    """The gateway's room (gateway.py), as its tournaments see it: a tournament's room, with
    its name and its bus."""

    name: str
    bus: Bus | None


class GatewayTournaments(TournamentRoom):
    """The tournaments of gateway ``room``'s REST: asked of their owners over the bus."""

    def __init__(self, room: Gateway) -> None:
        super().__init__(room)
        self.gateway = room
        # tournament id -> (the owner's epoch, its line, when it came: monotonic)
        self.lines: dict[int, tuple[int, dict[str, Any], float]] = {}

    async def start(self) -> None:
        return None  # the owners run them

    async def stop(self) -> None:
        return None

    def mine(self, tournament_id: int) -> bool:
        return False

    async def register(self, tournament_id: int, account_id: int) -> TournamentRecord:
        return await self._ask(tournament_id, "register", account_id)

    async def unregister(self, tournament_id: int, account_id: int) -> TournamentRecord:
        return await self._ask(tournament_id, "unregister", account_id)

    async def _ask(self, tournament_id: int, op: str, account_id: int) -> TournamentRecord:
        bus = self.gateway.bus
        if bus is None:
            raise ApiError(503, "unavailable", "the room is starting: try again")
        await self.store.tournaments.get(tournament_id)  # 404 for a tournament there is not
        settings = self.gateway.settings
        deadline = time.monotonic() + settings.tournament_request_seconds
        payload = encode_request(op, account_id)
        subject = subjects.tournament_commands(tournament_id)
        while True:
            try:
                reply = await bus.request(subject, payload, timeout=max(1.0, deadline - time.monotonic()))
                break
            except NoRespondersError:
                if time.monotonic() > deadline:
                    raise ApiError(503, "unavailable", "the tournament is not answering: try again") from None
                await asyncio.sleep(settings.command_retry_seconds)
            except (BusTimeoutError, BusError):
                raise ApiError(
                    503, "unavailable", "the tournament did not answer in time: see the lobby, and try again"
                ) from None
        self._refusal(reply.payload)
        return await self.store.tournaments.get(tournament_id)

    @staticmethod
    def _refusal(reply: bytes) -> None:
        """The owner's refusal, raised as the store's would be (its code, status and words)."""
        try:
            data = json.loads(reply)
        except ValueError:
            raise ApiError(503, "unavailable", "the tournament's answer could not be read") from None
        error = data.get("error") if isinstance(data, dict) else None
        if isinstance(error, dict):
            raise ApiError(int(error.get("status", 409)), str(error.get("code")), str(error.get("message")))

    # -- the lobby --------------------------------------------------------------------------------

    async def heard(self, message: Message) -> None:
        """An owner's line of a tournament (an older owner's, after a newer's, is dropped)."""
        parsed = subjects.parse(message.subject)
        if not isinstance(parsed, subjects.TournamentSummary):
            return
        try:
            _, epoch, line = decode_lobby_line(message.payload)
        except WireError:
            log.warning("gateway %s: dropped a bad tournament line", self.gateway.name)
            return
        known = self.lines.get(parsed.tournament_id)
        if known is None or epoch >= known[0]:
            self.lines[parsed.tournament_id] = (epoch, line, time.monotonic())

    def lobby_line(self, record: TournamentRecord) -> dict[str, Any]:
        line = lobby_line(record, None, self.now())
        line["player_tables"] = {}
        known = self.lines.get(record.id)
        if record.status != "running" or known is None:
            return line
        _, owners, heard_at = known
        for field in OWNER_FIELDS:
            if field in owners:
                line[field] = owners[field]
        level = line.get("level")
        if isinstance(level, dict):  # the level's times as of now, not of the owner's line
            age = max(0.0, time.monotonic() - heard_at)
            level = dict(level)
            if isinstance(level.get("seconds_into"), int | float):
                level["seconds_into"] = level["seconds_into"] + age
            if isinstance(level.get("seconds_left"), int | float):
                level["seconds_left"] = max(0.0, level["seconds_left"] - age)
            line["level"] = level
        return line
