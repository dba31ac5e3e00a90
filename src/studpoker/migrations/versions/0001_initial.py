"""The initial schema: accounts, sessions, tables, seats, hands, the double-entry ledger.

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
Stamp = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("name", sa.String(20), nullable=False),
        sa.Column("name_key", sa.String(20), nullable=False),
        sa.Column("password_hash", sa.String(200), nullable=False),
        sa.Column("bankroll", sa.BigInteger, nullable=False),
        sa.Column("created_at", Stamp, nullable=False),
        sa.Column("last_topup_day", sa.String(10)),
        sa.Column("protected_day", sa.String(10)),
        sa.Column("protected_count", sa.Integer, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_accounts"),
        sa.UniqueConstraint("name_key", name="uq_accounts_name_key"),
    )
    op.create_table(
        "sessions",
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("account_id", sa.Integer, nullable=False),
        sa.Column("created_at", Stamp, nullable=False),
        sa.Column("expires_at", Stamp, nullable=False),
        sa.Column("revoked", sa.Boolean, nullable=False),
        sa.PrimaryKeyConstraint("token_hash", name="pk_sessions"),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], name="fk_sessions_account_id_accounts"),
    )
    op.create_index("ix_sessions_account_id", "sessions", ["account_id"])
    op.create_table(
        "tables",
        sa.Column("id", sa.Integer, autoincrement=True),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("game", sa.String(8), nullable=False),
        *(
            sa.Column(key, sa.BigInteger, nullable=False)
            for key in ("small_bet", "big_bet", "ante", "bring_in", "small_blind", "big_blind")
        ),
        sa.Column("max_seats", sa.Integer, nullable=False),
        sa.Column("min_buy_in", sa.BigInteger, nullable=False),
        sa.Column("max_buy_in", sa.BigInteger, nullable=False),
        sa.Column("think_seconds", sa.Integer, nullable=False),
        sa.Column("countdown_seconds", sa.Integer, nullable=False),
        sa.Column("house", sa.String(400), nullable=False),
        sa.Column("created_at", Stamp, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_tables"),
        sa.UniqueConstraint("name", name="uq_tables_name"),
    )
    op.create_table(
        "seats",
        sa.Column("table_id", sa.Integer, nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("account_id", sa.Integer),
        sa.Column("stack", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint("table_id", "seat", name="pk_seats"),
        sa.ForeignKeyConstraint(["table_id"], ["tables.id"], name="fk_seats_table_id_tables"),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], name="fk_seats_account_id_accounts"),
        sa.UniqueConstraint("table_id", "account_id", name="uq_seats_table_account"),
    )
    op.create_table(
        "hands",
        sa.Column("id", sa.String(64), nullable=False),
        sa.Column("table_id", sa.Integer, nullable=False),
        sa.Column("status", sa.String(12), nullable=False),
        sa.Column("commitment", sa.String(64), nullable=False),
        sa.Column("started_at", Stamp, nullable=False),
        sa.Column("finished_at", Stamp),
        sa.Column("phh", sa.Text),
        sa.Column("text", sa.Text),
        sa.Column("deck_order", sa.String(200)),
        sa.Column("salt", sa.String(200)),
        sa.Column("void_reason", sa.String(400)),
        sa.PrimaryKeyConstraint("id", name="pk_hands"),
        sa.ForeignKeyConstraint(["table_id"], ["tables.id"], name="fk_hands_table_id_tables"),
    )
    op.create_index("ix_hands_status", "hands", ["status"])
    op.create_index("ix_hands_table_started", "hands", ["table_id", "started_at"])
    op.create_table(
        "hand_seats",
        sa.Column("hand_id", sa.String(64), nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("account_id", sa.Integer, nullable=False),
        sa.Column("starting_stack", sa.BigInteger, nullable=False),
        sa.Column("contribution", sa.BigInteger, nullable=False),
        sa.Column("award", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint("hand_id", "seat", name="pk_hand_seats"),
        sa.ForeignKeyConstraint(["hand_id"], ["hands.id"], name="fk_hand_seats_hand_id_hands"),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], name="fk_hand_seats_account_id_accounts"),
    )
    op.create_index("ix_hand_seats_account", "hand_seats", ["account_id", "hand_id"])
    op.create_table(
        "ledger_transactions",
        sa.Column("id", BigId, autoincrement=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("created_at", Stamp, nullable=False),
        sa.Column("account_id", sa.Integer),
        sa.Column("table_id", sa.Integer),
        sa.Column("hand_id", sa.String(64)),
        sa.Column("memo", sa.String(400)),
        sa.PrimaryKeyConstraint("id", name="pk_ledger_transactions"),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name="fk_ledger_transactions_account_id_accounts"
        ),
        sa.ForeignKeyConstraint(["table_id"], ["tables.id"], name="fk_ledger_transactions_table_id_tables"),
        sa.ForeignKeyConstraint(["hand_id"], ["hands.id"], name="fk_ledger_transactions_hand_id_hands"),
    )
    op.create_table(
        "ledger_entries",
        sa.Column("id", BigId, autoincrement=True),
        sa.Column("txn_id", BigId, nullable=False),
        sa.Column("book", sa.String(10), nullable=False),
        sa.Column("account_id", sa.Integer),
        sa.Column("table_id", sa.Integer),
        sa.Column("seat", sa.Integer),
        sa.Column("hand_id", sa.String(64)),
        sa.Column("amount", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_ledger_entries"),
        sa.ForeignKeyConstraint(
            ["txn_id"], ["ledger_transactions.id"], name="fk_ledger_entries_txn_id_ledger_transactions"
        ),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name="fk_ledger_entries_account_id_accounts"
        ),
        sa.ForeignKeyConstraint(["table_id"], ["tables.id"], name="fk_ledger_entries_table_id_tables"),
        sa.ForeignKeyConstraint(["hand_id"], ["hands.id"], name="fk_ledger_entries_hand_id_hands"),
    )
    op.create_index("ix_ledger_entries_txn_id", "ledger_entries", ["txn_id"])
    op.create_index("ix_ledger_entries_book_account", "ledger_entries", ["book", "account_id"])
    op.create_index("ix_ledger_entries_hand", "ledger_entries", ["hand_id"])


def downgrade() -> None:
    for name in (
        "ledger_entries", "ledger_transactions", "hand_seats", "hands", "seats", "tables",
        "sessions", "accounts",
    ):  # fmt: skip
        op.drop_table(name)
