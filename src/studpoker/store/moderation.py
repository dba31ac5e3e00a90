"""Chat moderation: the operator's mutes and bans, each account's own mutes, reported lines.

- The **operator** mutes an account (its chat is refused at every table) or bans it (it cannot
  log in, its sessions are revoked and its sockets closed): :meth:`Moderation.moderate`, called
  by ``studpoker admin``. Every decision is also logged (``moderation_log``). A running server
  learns of them by reading :meth:`Moderation.moderated` again (the CLI is another process).
- An **account** mutes players for itself (:meth:`Moderation.mute_player`): its client hides
  their lines. Nobody else reads that list.
- A **report** keeps a chat line for the operator with the text the server had, its table and
  time (:meth:`Moderation.report`, :meth:`Moderation.reports`).

Every refusal is raised before anything is written (docs/store.md, "Refusals").
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from . import names
from .database import Database
from .errors import AuthError, InvalidInputError, LimitError, NotFoundError, StoreError
from .schema import (
    account_moderation,
    accounts,
    chat_mutes,
    chat_reports,
    moderation_log,
    sessions,
    tables,
)

# What the operator can do to an account.
ACTIONS: tuple[str, ...] = ("mute", "unmute", "ban", "unban")
# The longest reason the operator or a reporter may give.
MAX_REASON = 400
# Names longer than this are no account's (names are at most 20 characters): not looked up.
_MAX_LOOKUP = 40


class BannedError(AuthError):
    """The account is banned by the operator: no login, no session, no connection."""

    code = "banned"
    status = 403


class MuteLimitError(StoreError):
    """The account already mutes its ``limit`` players: muting one more is refused."""

    code = "too_many_mutes"
    status = 409


@dataclass(frozen=True, slots=True)
class ModerationStatus:
    """What the operator decided about one account (both False: nothing, or lifted)."""

    account_id: int
    name: str
    muted: bool
    banned: bool
    reason: str | None
    updated_at: datetime | None


@dataclass(frozen=True, slots=True)
class ModerationEntry:
    """One decision of the operator, as logged."""

    id: int
    action: str
    reason: str | None
    created_at: datetime


@dataclass(frozen=True, slots=True)
class Moderated:
    """Every account the operator mutes or bans now (what a server holds in memory)."""

    muted: frozenset[int]
    banned: frozenset[int]


@dataclass(frozen=True, slots=True)
class MutedPlayer:
    account_id: int
    name: str
    created_at: datetime


@dataclass(frozen=True, slots=True)
class ChatReport:
    id: int
    reporter: str
    speaker: str
    speaker_id: int
    table_id: int
    table: str
    line_id: int
    text: str
    said_at: datetime
    reason: str | None
    created_at: datetime


def check_reason(reason: object) -> str | None:
    """A reason as stored (stripped; None when empty), or :class:`InvalidInputError`."""
    if reason is None:
        return None
    if not isinstance(reason, str):
        raise InvalidInputError("a reason must be text")
    reason = reason.strip()
    if len(reason) > MAX_REASON:
        raise InvalidInputError(f"a reason is at most {MAX_REASON} characters, not {len(reason)}")
    if any(unicodedata.category(char) in ("Cc", "Cs") for char in reason):
        raise InvalidInputError("a reason may not hold control characters")
    return reason or None


async def _account(conn: AsyncConnection, name: str) -> tuple[int, str]:
    """The id and shown name of the account named ``name``; :class:`NotFoundError` if none."""
    if not isinstance(name, str) or not 0 < len(name) <= _MAX_LOOKUP:
        raise NotFoundError(f"no player named {name!r}")
    row = (
        await conn.execute(
            select(accounts.c.id, accounts.c.name).where(accounts.c.name_key == names.lookup_key(name))
        )
    ).first()
    if row is None:
        raise NotFoundError(f"no player named {name!r}")
    return int(row.id), str(row.name)


async def is_banned(conn: AsyncConnection, account_id: int) -> bool:
    """Whether the operator bans the account now (the sessions' check)."""
    banned = await conn.scalar(
        select(account_moderation.c.banned).where(account_moderation.c.account_id == account_id)
    )
    return bool(banned)


def banned_error(name: str | None = None) -> BannedError:
    who = "this account" if name is None else name
    return BannedError(f"{who} is banned from this room")


class Moderation:
    """The operator's decisions, the accounts' own mutes and the reports, on one database."""

    def __init__(self, db: Database) -> None:
        self.db = db

    # -- the operator -------------------------------------------------------------------------

    async def moderate(self, name: str, action: str, *, reason: object = None) -> ModerationStatus:
        """Mute, unmute, ban or unban the account named ``name`` (logged, with ``reason``). A
        ban also revokes every session of the account, in the same transaction."""
        if action not in ACTIONS:
            raise InvalidInputError(f"unknown action {action!r}; the actions are {', '.join(ACTIONS)}")
        checked = check_reason(reason)
        async with self.db.write() as conn:
            account_id, shown = await _account(conn, name)
            now = self.db.now()
            current = (
                await conn.execute(
                    select(account_moderation).where(account_moderation.c.account_id == account_id)
                )
            ).first()
            muted = bool(current.muted) if current is not None else False
            banned = bool(current.banned) if current is not None else False
            if action in ("mute", "unmute"):
                muted = action == "mute"
            else:
                banned = action == "ban"
            values = {"muted": muted, "banned": banned, "reason": checked, "updated_at": now}
            if current is None:
                await conn.execute(insert(account_moderation).values(account_id=account_id, **values))
            else:
                await conn.execute(
                    update(account_moderation)
                    .where(account_moderation.c.account_id == account_id)
                    .values(**values)
                )
            await conn.execute(
                insert(moderation_log).values(
                    account_id=account_id, action=action, reason=checked, created_at=now
                )
            )
            if action == "ban":
                await conn.execute(
                    update(sessions)
                    .where(sessions.c.account_id == account_id, sessions.c.revoked.is_(False))
                    .values(revoked=True)
                )
        return ModerationStatus(account_id, shown, muted, banned, checked, now)

    async def status(self, name: str) -> tuple[ModerationStatus, list[ModerationEntry]]:
        """The account's status now and every decision about it, oldest first."""
        async with self.db.read() as conn:
            account_id, shown = await _account(conn, name)
            row = (
                await conn.execute(
                    select(account_moderation).where(account_moderation.c.account_id == account_id)
                )
            ).first()
            log = (
                await conn.execute(
                    select(moderation_log)
                    .where(moderation_log.c.account_id == account_id)
                    .order_by(moderation_log.c.id)
                )
            ).all()
        status = ModerationStatus(
            account_id,
            shown,
            bool(row.muted) if row is not None else False,
            bool(row.banned) if row is not None else False,
            row.reason if row is not None else None,
            row.updated_at if row is not None else None,
        )
        return status, [ModerationEntry(int(r.id), str(r.action), r.reason, r.created_at) for r in log]

    async def moderated(self) -> Moderated:
        """Every account muted or banned now: a handful of rows, read again by the server every
        ``moderation_refresh_seconds``."""
        query = select(
            account_moderation.c.account_id, account_moderation.c.muted, account_moderation.c.banned
        ).where(account_moderation.c.muted.is_(True) | account_moderation.c.banned.is_(True))
        async with self.db.read() as conn:
            rows = (await conn.execute(query)).all()
        return Moderated(
            muted=frozenset(int(r.account_id) for r in rows if r.muted),
            banned=frozenset(int(r.account_id) for r in rows if r.banned),
        )

    # -- an account's own mutes ---------------------------------------------------------------

    async def chat_mutes(self, account_id: int) -> list[MutedPlayer]:
        """The players the account muted, by name."""
        query = (
            select(chat_mutes.c.muted_id, chat_mutes.c.created_at, accounts.c.name)
            .join(accounts, accounts.c.id == chat_mutes.c.muted_id)
            .where(chat_mutes.c.account_id == account_id)
            .order_by(accounts.c.name_key)
        )
        async with self.db.read() as conn:
            rows = (await conn.execute(query)).all()
        return [MutedPlayer(int(r.muted_id), str(r.name), r.created_at) for r in rows]

    async def mute_player(self, account_id: int, name: str, *, limit: int) -> MutedPlayer:
        """The account mutes the player named ``name`` (again: nothing changes). At most
        ``limit`` players per account (:class:`MuteLimitError`)."""
        async with self.db.write() as conn:
            muted_id, shown = await _account(conn, name)
            if muted_id == account_id:
                raise InvalidInputError("you cannot mute yourself")
            # The account's row locked: two mutes of one account are counted one after the other.
            owner = await conn.scalar(
                select(accounts.c.id).where(accounts.c.id == account_id).with_for_update()
            )
            if owner is None:
                raise NotFoundError(f"no account with id {account_id!r}")
            since = await conn.scalar(
                select(chat_mutes.c.created_at).where(
                    chat_mutes.c.account_id == account_id, chat_mutes.c.muted_id == muted_id
                )
            )
            if since is not None:
                return MutedPlayer(muted_id, shown, since)
            held = await conn.scalar(
                select(func.count()).select_from(chat_mutes).where(chat_mutes.c.account_id == account_id)
            )
            if int(held or 0) >= limit:
                raise MuteLimitError(f"you already mute {limit} players: unmute one to mute {shown}")
            now = self.db.now()
            await conn.execute(
                insert(chat_mutes).values(account_id=account_id, muted_id=muted_id, created_at=now)
            )
        return MutedPlayer(muted_id, shown, now)

    async def unmute_player(self, account_id: int, name: str) -> None:
        """The account hears the player again; :class:`NotFoundError` if it did not mute him."""
        async with self.db.write() as conn:
            muted_id, shown = await _account(conn, name)
            removed = await conn.execute(
                delete(chat_mutes).where(
                    chat_mutes.c.account_id == account_id, chat_mutes.c.muted_id == muted_id
                )
            )
        if removed.rowcount == 0:
            raise NotFoundError(f"you have not muted {shown}")

    # -- reports ------------------------------------------------------------------------------

    async def report(
        self,
        *,
        reporter_id: int,
        speaker_id: int,
        table_id: int,
        line_id: int,
        text: str,
        said_at: datetime,
        reason: object = None,
        per_hour: int,
    ) -> int:
        """Keep a chat line for the operator; returns the report's id. The same line reported
        again by the same account is the same report. At most ``per_hour`` reports per account
        in any hour (:class:`LimitError`)."""
        checked = check_reason(reason)
        if reporter_id == speaker_id:
            raise InvalidInputError("you cannot report your own line")
        async with self.db.write() as conn:
            existing = await conn.scalar(
                select(chat_reports.c.id).where(
                    chat_reports.c.reporter_id == reporter_id,
                    chat_reports.c.table_id == table_id,
                    chat_reports.c.line_id == line_id,
                    chat_reports.c.said_at == said_at,
                )
            )
            if existing is not None:
                return int(existing)
            now = self.db.now()
            recent = await conn.scalar(
                select(func.count())
                .select_from(chat_reports)
                .where(
                    chat_reports.c.reporter_id == reporter_id,
                    chat_reports.c.created_at > now - timedelta(hours=1),
                )
            )
            if int(recent or 0) >= per_hour:
                raise LimitError(f"you reported {per_hour} lines in the last hour: try again later", 3600)
            result = await conn.execute(
                insert(chat_reports)
                .values(
                    reporter_id=reporter_id,
                    speaker_id=speaker_id,
                    table_id=table_id,
                    line_id=line_id,
                    text=text,
                    said_at=said_at,
                    reason=checked,
                    created_at=now,
                )
                .returning(chat_reports.c.id)
            )
            return int(result.scalar_one())

    async def reports(self, limit: int = 50) -> list[ChatReport]:
        """The newest reports first (the operator's list)."""
        reporter = accounts.alias("reporter")
        speaker = accounts.alias("speaker")
        query = (
            select(
                chat_reports,
                reporter.c.name.label("reporter_name"),
                speaker.c.name.label("speaker_name"),
                tables.c.name.label("table_name"),
            )
            .join(reporter, reporter.c.id == chat_reports.c.reporter_id)
            .join(speaker, speaker.c.id == chat_reports.c.speaker_id)
            .join(tables, tables.c.id == chat_reports.c.table_id)
            .order_by(chat_reports.c.id.desc())
            .limit(max(1, limit))
        )
        async with self.db.read() as conn:
            rows = (await conn.execute(query)).all()
        return [
            ChatReport(
                id=int(r.id),
                reporter=str(r.reporter_name),
                speaker=str(r.speaker_name),
                speaker_id=int(r.speaker_id),
                table_id=int(r.table_id),
                table=str(r.table_name),
                line_id=int(r.line_id),
                text=str(r.text),
                said_at=r.said_at,
                reason=r.reason,
                created_at=r.created_at,
            )
            for r in rows
        ]
