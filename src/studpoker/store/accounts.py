"""Accounts: registration (people and the server's bots), lookups, the daily top-up and the
disconnect-protected all-in allowance. Logins and sessions are :mod:`studpoker.store.sessions`."""

from __future__ import annotations

from sqlalchemy import func, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection

from . import budgets, ledger, names
from .budgets import AddressBudget
from .database import Database, new_id
from .errors import InvalidInputError, NameTakenError, NotFoundError
from .hashing import PasswordHashing
from .models import MAX_PASSWORD, MIN_PASSWORD, Account
from .schema import accounts, seats

DEFAULT_GRANT = 10_000
# A bot account's password hash: not an argon2 hash, so no password ever matches it.
BOT_PASSWORD_HASH = "!bot"


def check_name(name: object) -> str:
    """The name as it will be stored (NFKC), or :class:`InvalidInputError` (see
    :mod:`studpoker.store.names`)."""
    return names.check_name(name).display


def check_password(password: object) -> str:
    if not isinstance(password, str) or not MIN_PASSWORD <= len(password) <= MAX_PASSWORD:
        raise InvalidInputError(f"password must be {MIN_PASSWORD} to {MAX_PASSWORD} characters long")
    return password


async def load_account(conn: AsyncConnection, account_id: int, *, lock: bool = False) -> Account:
    """The account (its row locked with ``lock``); :class:`NotFoundError` if there is none."""
    query = select(accounts.c.id, accounts.c.name, accounts.c.bankroll).where(accounts.c.id == account_id)
    if lock:
        query = query.with_for_update()
    row = (await conn.execute(query)).first()
    if row is None:
        raise NotFoundError(f"no account with id {account_id!r}")
    return Account(int(row.id), str(row.name), int(row.bankroll))


class Accounts:
    """Accounts and their play money off the tables."""

    def __init__(
        self,
        db: Database,
        hashing: PasswordHashing,
        *,
        starting_grant: int = DEFAULT_GRANT,
        topup_threshold: int | None = None,
    ) -> None:
        self.db = db
        self.hashing = hashing
        self.starting_grant = ledger.check_amount(starting_grant, "starting grant")
        self.topup_threshold = starting_grant // 10 if topup_threshold is None else topup_threshold

    async def register(self, name: str, password: str, *, budget: AddressBudget | None = None) -> Account:
        """Open a person's account with the starting grant (a ``grant`` ledger transaction).

        ``budget``: the new accounts the client's address may still open today (the REST API
        always passes one); past it :class:`LimitError` and nothing is written. A name in the
        bots' namespace, or one that looks like a taken name, is refused."""
        checked = names.check_name(name)
        if checked.is_bot_name:
            raise InvalidInputError(
                f"name {name!r} is not allowed: names starting with 'bot_' or 'bot-' (or looking like"
                " it) are kept for the room's bots"
            )
        check_password(password)
        async with self.db.read() as conn:  # spare the hashing for a taken name or a spent budget
            await self.check_name_free(conn, checked)
            if budget is not None:
                await budgets.check_left(conn, budget, "accounts", self.db.now())
        password_hash = await self.hashing.hash(password)
        return await self._create(checked, password_hash, budget=budget)

    async def create_bot_account(self, name: str) -> Account:
        """The account of the server's bot ``name`` (in the bots' namespace, ``bot_...``), made
        with the starting grant if missing. It is marked a bot and has no password: it cannot
        log in. :class:`NameTakenError` if the name, or one like it, is a person's."""
        checked = names.check_name(name)
        if not checked.is_bot_name:
            raise InvalidInputError(f"a bot's name starts with 'bot_' or 'bot-', not {name!r}")
        async with self.db.read() as conn:
            row = (
                await conn.execute(
                    select(accounts.c.id, accounts.c.name, accounts.c.bankroll, accounts.c.is_bot).where(
                        accounts.c.name_key == checked.key
                    )
                )
            ).first()
        if row is not None:
            if not row.is_bot:
                raise NameTakenError(f"the name {row.name!r} belongs to a person, not to a bot")
            return Account(int(row.id), str(row.name), int(row.bankroll))
        return await self._create(checked, BOT_PASSWORD_HASH, is_bot=True)

    async def check_name_free(self, conn: AsyncConnection, checked: names.AccountName) -> None:
        """:class:`NameTakenError` if the name, or a look-alike, is taken (the unique indexes
        refuse them too, should two registrations race)."""
        row = (
            await conn.execute(
                select(accounts.c.name, accounts.c.name_key)
                .where((accounts.c.name_key == checked.key) | (accounts.c.name_skeleton == checked.skeleton))
                .limit(1)
            )
        ).first()
        if row is None:
            return
        if row.name_key == checked.key:
            raise NameTakenError(f"the name {checked.display!r} is taken")
        raise NameTakenError(f"the name {checked.display!r} looks too much like {row.name!r}, which is taken")

    async def _create(
        self,
        checked: names.AccountName,
        password_hash: str,
        *,
        is_bot: bool = False,
        budget: AddressBudget | None = None,
    ) -> Account:
        grant = self.starting_grant
        try:
            async with self.db.write() as conn:
                now = self.db.now()
                await self.check_name_free(conn, checked)
                if budget is not None and not await budgets.claim(
                    conn, budget, "accounts", now.date().isoformat()
                ):
                    raise budgets.spent_error(budget, "accounts", now)
                result = await conn.execute(
                    insert(accounts).values(
                        name=checked.display,
                        name_key=checked.key,
                        name_skeleton=checked.skeleton,
                        password_hash=password_hash,
                        bankroll=grant,
                        created_at=now,
                        protected_count=0,
                        is_bot=is_bot,
                    )
                )
                account_id = new_id(result)
                await ledger.post(
                    conn,
                    now,
                    "grant",
                    [ledger.bank(-grant), ledger.bankroll(account_id, grant)],
                    account_id=account_id,
                    memo="starting grant",
                )
        except IntegrityError:  # the unique indexes: a name (or look-alike) taken in between
            raise NameTakenError(f"the name {checked.display!r} is taken") from None
        return Account(account_id, checked.display, grant)

    async def account(self, account_id: int) -> Account:
        async with self.db.read() as conn:
            return await load_account(conn, account_id)

    async def account_by_name(self, name: str) -> Account:
        async with self.db.read() as conn:
            row = (
                await conn.execute(
                    select(accounts.c.id, accounts.c.name, accounts.c.bankroll).where(
                        accounts.c.name_key == names.lookup_key(str(name))
                    )
                )
            ).first()
        if row is None:
            raise NotFoundError(f"no account named {name!r}")
        return Account(int(row.id), str(row.name), int(row.bankroll))

    async def daily_topup(self, account_id: int, *, budget: AddressBudget | None = None) -> int:
        """Grant a broke player (bankroll + chips on tables below ``topup_threshold``) enough to get
        back to the starting grant, once per UTC day. Returns the amount, 0 if not eligible.

        ``budget``: the top-ups the client's address may still claim today (the REST API always
        passes one; the server's bots none): an eligible top-up past it is :class:`LimitError`
        and nothing is written."""
        today = self.db.today()
        async with self.db.write() as conn:
            query = (
                select(accounts.c.bankroll, accounts.c.last_topup_day)
                .where(accounts.c.id == account_id)
                .with_for_update()
            )
            row = (await conn.execute(query)).first()
            if row is None:
                raise NotFoundError(f"no account with id {account_id!r}")
            if row.last_topup_day == today:
                return 0
            on_tables = await conn.scalar(
                select(func.coalesce(func.sum(seats.c.stack), 0)).where(seats.c.account_id == account_id)
            )
            total = int(row.bankroll) + int(on_tables or 0)
            if total >= self.topup_threshold or total >= self.starting_grant:
                return 0
            if budget is not None and not await budgets.claim(conn, budget, "topups", today):
                raise budgets.spent_error(budget, "topups", self.db.now())
            amount = self.starting_grant - total
            await conn.execute(
                update(accounts)
                .where(accounts.c.id == account_id)
                .values(bankroll=accounts.c.bankroll + amount, last_topup_day=today)
            )
            await ledger.post(
                conn,
                self.db.now(),
                "topup",
                [ledger.bank(-amount), ledger.bankroll(account_id, amount)],
                account_id=account_id,
                memo=f"daily top-up {today}",
            )
        return amount

    async def use_protected_all_in(self, account_id: int, limit_per_day: int = 2) -> bool:
        """Count one disconnect-protected all-in for today; False (nothing counted) past the limit."""
        if limit_per_day <= 0:
            return False
        today = self.db.today()
        async with self.db.write() as conn:
            first = await conn.execute(
                update(accounts)
                .where(
                    accounts.c.id == account_id,
                    (accounts.c.protected_day.is_(None)) | (accounts.c.protected_day != today),
                )
                .values(protected_day=today, protected_count=1)
            )
            if first.rowcount == 1:
                return True
            more = await conn.execute(
                update(accounts)
                .where(
                    accounts.c.id == account_id,
                    accounts.c.protected_day == today,
                    accounts.c.protected_count < limit_per_day,
                )
                .values(protected_count=accounts.c.protected_count + 1)
            )
            if more.rowcount == 1:
                return True
            await load_account(conn, account_id)  # NotFoundError for an unknown id
            return False

    async def protected_all_ins_left(self, account_id: int, limit_per_day: int = 2) -> int:
        async with self.db.read() as conn:
            row = (
                await conn.execute(
                    select(accounts.c.protected_day, accounts.c.protected_count).where(
                        accounts.c.id == account_id
                    )
                )
            ).first()
        if row is None:
            raise NotFoundError(f"no account with id {account_id!r}")
        used = int(row.protected_count) if row.protected_day == self.db.today() else 0
        return max(0, limit_per_day - used)
