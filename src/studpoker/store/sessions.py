"""Logins and sessions. A session token is 256 random bits; the database keeps only its
SHA-256, with an expiry and a revoked flag. Bots never log in and never hold a session."""

from __future__ import annotations

import asyncio
import hashlib
import secrets
from datetime import datetime, timedelta

from sqlalchemy import insert, select, update

from . import names
from .database import Database
from .errors import AuthError
from .hashing import PasswordHashing
from .models import MAX_PASSWORD, Account, Session
from .moderation import banned_error
from .schema import account_moderation, accounts, sessions

AUTH_FAILED = "wrong name or password"


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class Sessions:
    """Password checks and the sessions they open."""

    def __init__(
        self, db: Database, hashing: PasswordHashing, *, session_ttl: timedelta = timedelta(days=1)
    ) -> None:
        self.db = db
        self.hashing = hashing
        self.session_ttl = session_ttl
        self._dummy_hash: str | None = None
        self._dummy_lock = asyncio.Lock()

    async def login(self, name: str, password: str) -> Session:
        """Check the password and open a session. Same :class:`AuthError` for a wrong name or
        password, and for a bot's account (bots never log in); a banned account with the right
        password gets :class:`~.moderation.BannedError`."""
        if not isinstance(name, str) or not isinstance(password, str) or len(password) > MAX_PASSWORD:
            raise AuthError(AUTH_FAILED)
        async with self.db.read() as conn:
            row = (
                await conn.execute(
                    select(
                        accounts.c.id,
                        accounts.c.password_hash,
                        accounts.c.is_bot,
                        account_moderation.c.banned,
                    )
                    .select_from(accounts.outerjoin(account_moderation))
                    .where(accounts.c.name_key == names.lookup_key(name))
                )
            ).first()
        if row is None or row.is_bot:
            # Spend the same time as for a real account, so names cannot be probed.
            await self.hashing.verify(await self._dummy(), password)
            raise AuthError(AUTH_FAILED)
        account_id, stored = int(row.id), str(row.password_hash)
        if not await self.hashing.verify(stored, password):
            raise AuthError(AUTH_FAILED)
        if row.banned:  # said only to whoever knows the password
            raise banned_error()
        new_hash = await self.hashing.hash(password) if self.hashing.needs_rehash(stored) else None
        return await self._open(account_id, new_hash=new_hash)

    async def _dummy(self) -> str:
        """A hash of a random password, made once (under a lock: many unknown names at once
        make one hash, not one each)."""
        async with self._dummy_lock:
            if self._dummy_hash is None:
                self._dummy_hash = await self.hashing.hash(secrets.token_hex(8))
            return self._dummy_hash

    async def open_session(self, account_id: int) -> Session:
        """A session for a person's account without a password check: for the account that was
        just registered with that password (which spares a second argon2 run). :class:`AuthError`
        for a bot's or an unknown account."""
        return await self._open(account_id)

    async def _open(self, account_id: int, *, new_hash: str | None = None) -> Session:
        token = secrets.token_urlsafe(32)
        now = self.db.now()
        expires = now + self.session_ttl
        async with self.db.write() as conn:
            is_bot = await conn.scalar(select(accounts.c.is_bot).where(accounts.c.id == account_id))
            if is_bot is None or is_bot:
                raise AuthError(AUTH_FAILED)
            await conn.execute(
                insert(sessions).values(
                    token_hash=hash_token(token),
                    account_id=account_id,
                    created_at=now,
                    expires_at=expires,
                    revoked=False,
                )
            )
            if new_hash is not None:
                await conn.execute(
                    update(accounts).where(accounts.c.id == account_id).values(password_hash=new_hash)
                )
        return Session(token, account_id, expires)

    async def authenticate(self, token: str) -> Account:
        """The account of a live session; :class:`AuthError` if unknown, expired or revoked."""
        if not isinstance(token, str) or not 0 < len(token) <= 200:
            raise AuthError("unknown session: log in again")
        async with self.db.read() as conn:
            row = (
                await conn.execute(
                    select(
                        sessions.c.expires_at,
                        sessions.c.revoked,
                        accounts.c.id,
                        accounts.c.name,
                        accounts.c.bankroll,
                        accounts.c.is_bot,
                        account_moderation.c.banned,
                    )
                    .join(accounts, accounts.c.id == sessions.c.account_id)
                    .outerjoin(account_moderation, account_moderation.c.account_id == accounts.c.id)
                    .where(sessions.c.token_hash == hash_token(token))
                )
            ).first()
        if row is None or row.is_bot:  # a bot never has a session: none is ever believed
            raise AuthError("unknown session: log in again")
        if row.banned:  # before "logged out": a ban revokes the sessions too
            raise banned_error()
        if row.revoked:
            raise AuthError("this session was logged out: log in again")
        if row.expires_at <= self.db.now():
            raise AuthError("this session has expired: log in again")
        return Account(int(row.id), str(row.name), int(row.bankroll))

    async def revoke(self, token: str) -> None:
        """Log a session out (no error if the token is unknown)."""
        async with self.db.write() as conn:
            await conn.execute(
                update(sessions).where(sessions.c.token_hash == hash_token(token)).values(revoked=True)
            )

    async def revoke_all(self, account_id: int) -> int:
        """Log out every session of an account; returns how many were live."""
        async with self.db.write() as conn:
            result = await conn.execute(
                update(sessions)
                .where(sessions.c.account_id == account_id, sessions.c.revoked.is_(False))
                .values(revoked=True)
            )
        return int(result.rowcount)

    async def session_expires_at(self, token: str) -> datetime | None:
        """When the session of ``token`` expires (None if there is no such session); the room
        closes a socket when its session expires."""
        async with self.db.read() as conn:
            expires = (
                await conn.execute(
                    select(sessions.c.expires_at).where(sessions.c.token_hash == hash_token(token))
                )
            ).scalar()
        return expires if isinstance(expires, datetime) else None
