"""Account names' look-alike skeletons, bot accounts, per-address budgets of free play money.

- ``accounts.name_skeleton`` (unique; TR39 look-alike key, see studpoker.store.names), computed
  here for every account. Two older accounts whose names look alike both keep working: the
  older one holds the skeleton, the later one gets NULL (which a unique index allows).
  ``name_key`` is kept as it is: for the names older versions allowed (ASCII) it is already
  the NFKC + case-folded form.
- ``accounts.is_bot``: an account in the bots' namespace (``bot_``/``bot-``) that never had a
  session is one the server made for a bot (a bot never logs in; registration always opened a
  session): it is marked a bot and its password hash replaced by one no password matches. One
  with a session was registered by a person before the namespace was reserved: it stays a
  person's, and the server no longer takes it for a bot.
- ``address_budgets``: new accounts and top-ups per client address per UTC day.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01
"""

from __future__ import annotations

import unicodedata

import sqlalchemy as sa
from alembic import op

from studpoker.store import names

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

# The same value as studpoker.store.core.BOT_PASSWORD_HASH (not an argon2 hash: never matches).
BOT_PASSWORD_HASH = "!bot"


def upgrade() -> None:
    op.add_column("accounts", sa.Column("name_skeleton", sa.String(80)))
    op.add_column("accounts", sa.Column("is_bot", sa.Boolean, nullable=False, server_default=sa.false()))
    op.create_table(
        "address_budgets",
        sa.Column("address", sa.String(64), nullable=False),
        sa.Column("day", sa.String(10), nullable=False),
        sa.Column("accounts", sa.Integer, nullable=False),
        sa.Column("topups", sa.Integer, nullable=False),
        sa.PrimaryKeyConstraint("address", "day", name="pk_address_budgets"),
    )
    _fill_accounts()
    op.create_index("ix_accounts_name_skeleton", "accounts", ["name_skeleton"], unique=True)


def _fill_accounts() -> None:
    conn = op.get_bind()
    accounts = sa.table(
        "accounts",
        sa.column("id", sa.Integer),
        sa.column("name", sa.String),
        sa.column("name_skeleton", sa.String),
        sa.column("is_bot", sa.Boolean),
        sa.column("password_hash", sa.String),
    )
    sessions = sa.table("sessions", sa.column("account_id", sa.Integer))
    with_sessions = set(conn.execute(sa.select(sessions.c.account_id).distinct()).scalars())
    taken: set[str] = set()
    for account_id, name in conn.execute(sa.select(accounts.c.id, accounts.c.name).order_by(accounts.c.id)):
        look_alike = names.skeleton(unicodedata.normalize("NFKC", name))[: names.MAX_SKELETON_LENGTH]
        values: dict[str, object] = {}
        if look_alike not in taken:
            taken.add(look_alike)
            values["name_skeleton"] = look_alike
        if names.is_reserved_skeleton(look_alike) and account_id not in with_sessions:
            values.update(is_bot=True, password_hash=BOT_PASSWORD_HASH)
        if values:
            conn.execute(sa.update(accounts).where(accounts.c.id == account_id).values(**values))


def downgrade() -> None:
    """Back to 0001 (the bots' replaced password hashes stay replaced: they had no known
    password anyway)."""
    op.drop_index("ix_accounts_name_skeleton", table_name="accounts")
    op.drop_table("address_budgets")
    for column in ("is_bot", "name_skeleton"):
        if op.get_bind().dialect.name == "sqlite":
            # SQLite 3.35+ drops a column in place; a batch copy would drop the table that the
            # other tables' foreign keys point to.
            op.execute(f"ALTER TABLE accounts DROP COLUMN {column}")
        else:
            op.drop_column("accounts", column)
