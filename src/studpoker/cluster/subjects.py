"""The bus subjects of the room on many machines (issue 15), built and parsed in this one place.

- ``table.<id>.cmd``: a gateway's commands for a table, to the worker that owns it;
- ``gw.<gateway>.out``: a worker's frames (already encoded, with their connection ids) for the
  sockets one gateway holds;
- ``lobby.table.<id>``: a worker's summary of a table it owns, for every gateway's lobby;
- ``account.<id>.out``: a worker's wait-list messages for one account, to whichever gateway holds
  his sockets (every gateway listens; no cards ever go there);
- ``room.<kind>``: broadcasts every gateway and worker hears (``room.logout``, ``room.presence``);
- ``tournament.<id>.cmd``: a gateway's requests for a tournament (a registration), to the worker
  that owns it; ``lobby.tournament.<id>``: that owner's line of it (level, tables, seats), for
  every gateway's tournament lobby.

Each gateway's NATS user is allowed only its own ``gw.<gateway>.out`` (:mod:`.nats_config`), so
the patterns every role subscribes to are here too. Gateway names are subject tokens (letters,
digits, ``_`` and ``-``), table ids whole numbers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

# What every owner subscribes to, what a gateway must never see, what every lobby hears.
TABLE_COMMANDS: Final = "table.*.cmd"
ALL_GATEWAYS_OUT: Final = "gw.*.out"
LOBBY_SUMMARIES: Final = "lobby.table.*"
BROADCASTS: Final = "room.*"
ALL_ACCOUNTS_OUT: Final = "account.*.out"
TOURNAMENT_COMMANDS: Final = "tournament.*.cmd"
TOURNAMENT_SUMMARIES: Final = "lobby.tournament.*"

# The broadcasts there are; adding one here is enough (permissions name ``room.*``).
BROADCAST_KINDS: Final = ("logout", "presence")

_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
_INBOX_ROOT: Final = "_INBOX"


def check_name(name: str, what: str = "gateway name") -> str:
    """``name`` when it can be one subject token; ValueError otherwise."""
    if not isinstance(name, str) or _NAME.fullmatch(name) is None:
        raise ValueError(f"bad {what} {name!r}: 1 to 64 letters, digits, '_' or '-'")
    return name


def _check_table(table_id: int) -> int:
    if isinstance(table_id, bool) or not isinstance(table_id, int) or table_id < 0:
        raise ValueError(f"bad table id {table_id!r}: a whole number, 0 or more")
    return table_id


def table_commands(table_id: int) -> str:
    return f"table.{_check_table(table_id)}.cmd"


def gateway_out(gateway: str) -> str:
    return f"gw.{check_name(gateway)}.out"


def lobby_summary(table_id: int) -> str:
    return f"lobby.table.{_check_table(table_id)}"


def tournament_commands(tournament_id: int) -> str:
    return f"tournament.{_check_table(tournament_id)}.cmd"


def tournament_summary(tournament_id: int) -> str:
    return f"lobby.tournament.{_check_table(tournament_id)}"


def account_out(account_id: int) -> str:
    """The wait-list messages of one account (any of his sockets, on any gateway)."""
    if isinstance(account_id, bool) or not isinstance(account_id, int) or account_id <= 0:
        raise ValueError(f"bad account id {account_id!r}: a whole number, 1 or more")
    return f"account.{account_id}.out"


def broadcast(kind: str) -> str:
    if kind not in BROADCAST_KINDS:
        raise ValueError(f"unknown broadcast {kind!r}: one of {', '.join(BROADCAST_KINDS)}")
    return f"room.{kind}"


def inbox_prefix(user: str) -> str:
    """The reply subjects of one NATS user's requests: its own, so no one else may read them."""
    return f"{_INBOX_ROOT}.{check_name(user, 'user name')}"


@dataclass(frozen=True, slots=True)
class TableCommand:
    table_id: int


@dataclass(frozen=True, slots=True)
class GatewayOut:
    gateway: str


@dataclass(frozen=True, slots=True)
class LobbySummary:
    table_id: int


@dataclass(frozen=True, slots=True)
class Broadcast:
    kind: str


@dataclass(frozen=True, slots=True)
class AccountOut:
    account_id: int


@dataclass(frozen=True, slots=True)
class TournamentCommand:
    tournament_id: int


@dataclass(frozen=True, slots=True)
class TournamentSummary:
    tournament_id: int


Parsed = (
    TableCommand | GatewayOut | LobbySummary | Broadcast | AccountOut | TournamentCommand | TournamentSummary
)


def _table_token(token: str, subject: str) -> int:
    # int() alone would take "+1", " 1" or "١"; a subject's id is plain ASCII digits.
    if not (token.isascii() and token.isdigit()):
        raise ValueError(f"bad table id in subject {subject!r}")
    return int(token)


def parse(subject: str) -> Parsed:
    """What a received message's subject names; ValueError for a subject that is none of ours."""
    tokens = subject.split(".")
    match tokens:
        case ["table", table, "cmd"]:
            return TableCommand(_table_token(table, subject))
        case ["gw", gateway, "out"] if _NAME.fullmatch(gateway):
            return GatewayOut(gateway)
        case ["lobby", "table", table]:
            return LobbySummary(_table_token(table, subject))
        case ["room", kind] if kind in BROADCAST_KINDS:
            return Broadcast(kind)
        case ["account", account, "out"] if _table_token(account, subject) > 0:
            return AccountOut(int(account))
        case ["tournament", tournament, "cmd"]:
            return TournamentCommand(_table_token(tournament, subject))
        case ["lobby", "tournament", tournament]:
            return TournamentSummary(_table_token(tournament, subject))
    raise ValueError(f"not a room subject: {subject!r}")
