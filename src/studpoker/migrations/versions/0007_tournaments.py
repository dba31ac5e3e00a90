"""Sit-and-go tournaments (studpoker.store.tournaments, docs/tournaments.md).

- ``tournaments``: each tournament (game or rotation, structure, buy-in, fee, seats, status,
  the stored clock);
- ``tournament_entries``: who registered, his table and seat, his tournament chips as of the
  last finished hand, his place and prize;
- ``tournament_hands``: the hands of the tournament tables, with their histories;
- ``ledger_entries.tournament_id``: the tournament of the new ``pool`` and ``house`` books.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

Stamp = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "tournaments",
        sa.Column("id", sa.Integer, nullable=False, autoincrement=True),
        sa.Column("name", sa.String(60), nullable=False),
        sa.Column("game", sa.String(16), nullable=False),
        sa.Column("structure", sa.String(20), nullable=False),
        sa.Column("buy_in", sa.BigInteger, nullable=False),
        sa.Column("fee", sa.BigInteger, nullable=False),
        sa.Column("seats", sa.Integer, nullable=False),
        sa.Column("status", sa.String(12), nullable=False),
        sa.Column("starting_stack", sa.BigInteger, nullable=False),
        sa.Column("clock", sa.Text),
        sa.Column("hands_played", sa.Integer, nullable=False),
        sa.Column("created_at", Stamp, nullable=False),
        sa.Column("started_at", Stamp),
        sa.Column("finished_at", Stamp),
        sa.PrimaryKeyConstraint("id", name="pk_tournaments"),
        sa.UniqueConstraint("name", name="uq_tournaments_name"),
    )
    op.create_table(
        "tournament_entries",
        sa.Column("tournament_id", sa.Integer, nullable=False),
        sa.Column("account_id", sa.Integer, nullable=False),
        sa.Column("registered_at", Stamp, nullable=False),
        sa.Column("table_no", sa.Integer),
        sa.Column("seat", sa.Integer),
        sa.Column("stack", sa.BigInteger, nullable=False),
        sa.Column("place", sa.Integer),
        sa.Column("tied", sa.Integer),
        sa.Column("prize", sa.BigInteger, nullable=False),
        sa.PrimaryKeyConstraint("tournament_id", "account_id", name="pk_tournament_entries"),
        sa.ForeignKeyConstraint(
            ["tournament_id"], ["tournaments.id"], name="fk_tournament_entries_tournament_id_tournaments"
        ),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name="fk_tournament_entries_account_id_accounts"
        ),
    )
    op.create_table(
        "tournament_hands",
        sa.Column("id", sa.String(64), nullable=False),
        sa.Column("tournament_id", sa.Integer, nullable=False),
        sa.Column("table_no", sa.Integer, nullable=False),
        sa.Column("status", sa.String(12), nullable=False),
        sa.Column("level", sa.Integer, nullable=False),
        sa.Column("started_at", Stamp, nullable=False),
        sa.Column("finished_at", Stamp),
        sa.Column("phh", sa.Text),
        sa.Column("text", sa.Text),
        sa.Column("void_reason", sa.String(400)),
        sa.PrimaryKeyConstraint("id", name="pk_tournament_hands"),
        sa.ForeignKeyConstraint(
            ["tournament_id"], ["tournaments.id"], name="fk_tournament_hands_tournament_id_tournaments"
        ),
    )
    op.create_index("ix_tournament_hands_tournament_id", "tournament_hands", ["tournament_id"])
    # A plain column (no foreign key constraint added in place: SQLite cannot alter one in).
    op.add_column("ledger_entries", sa.Column("tournament_id", sa.Integer))


def downgrade() -> None:
    """Back to 0006: the tournaments, their entries and hands are lost (their pools and fees
    with them, so the audit of a database that held any no longer balances)."""
    if op.get_bind().dialect.name == "sqlite":
        op.execute("ALTER TABLE ledger_entries DROP COLUMN tournament_id")
    else:
        op.drop_column("ledger_entries", "tournament_id")
    op.drop_index("ix_tournament_hands_tournament_id", "tournament_hands")
    op.drop_table("tournament_hands")
    op.drop_table("tournament_entries")
    op.drop_table("tournaments")
