"""Scheduled multi-table tournaments, late registration and re-entry (studpoker.store.tournaments,
docs/tournaments.md "Scheduled tournaments").

- ``tournaments.starts_at``: the start time of a scheduled tournament (NULL: a sit-and-go,
  which starts when full); ``min_players`` (below it at the start time: cancelled, refunded),
  ``late_levels`` (late registration until the end of that level; 0: none), ``reentries`` (how
  many times a busted player may buy in again), ``schedule_key`` (the schedule file's line and
  start time a tournament was created from: unique, so a schedule never creates one twice);
- ``tournament_entries.entry_no``: entries are numbered within their tournament (one account
  may hold several: a re-entry is a new entry); the primary key becomes (tournament, entry).

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


# Columns added in place (``tournaments`` is not rebuilt: on SQLite its rows' entries and hands
# would hold its foreign keys while it is dropped); the key's uniqueness is a unique index.
NEW_COLUMNS = ("starts_at", "min_players", "late_levels", "reentries", "schedule_key")


def upgrade() -> None:
    op.add_column("tournaments", sa.Column("starts_at", sa.DateTime(timezone=True)))
    op.add_column("tournaments", sa.Column("min_players", sa.Integer, nullable=False, server_default="2"))
    op.add_column("tournaments", sa.Column("late_levels", sa.Integer, nullable=False, server_default="0"))
    op.add_column("tournaments", sa.Column("reentries", sa.Integer, nullable=False, server_default="0"))
    op.add_column("tournaments", sa.Column("schedule_key", sa.String(120)))
    op.create_index("uq_tournaments_schedule_key", "tournaments", ["schedule_key"], unique=True)
    op.add_column("tournament_entries", sa.Column("entry_no", sa.Integer, nullable=False, server_default="0"))
    # The entries there are get their numbers in the order they registered (one each).
    entries = sa.table(
        "tournament_entries",
        sa.column("tournament_id", sa.Integer),
        sa.column("account_id", sa.Integer),
        sa.column("registered_at", sa.DateTime),
        sa.column("entry_no", sa.Integer),
    )
    bind = op.get_bind()
    rows = bind.execute(
        sa.select(entries.c.tournament_id, entries.c.account_id).order_by(
            entries.c.tournament_id, entries.c.registered_at, entries.c.account_id
        )
    ).all()
    numbers: dict[int, int] = {}
    for tournament_id, account_id in rows:
        numbers[tournament_id] = numbers.get(tournament_id, 0) + 1
        bind.execute(
            sa.update(entries)
            .where(entries.c.tournament_id == tournament_id, entries.c.account_id == account_id)
            .values(entry_no=numbers[tournament_id])
        )
    with op.batch_alter_table("tournament_entries", recreate="always") as batch:
        batch.alter_column("entry_no", server_default=None)
        batch.drop_constraint("pk_tournament_entries", type_="primary")
        batch.create_primary_key("pk_tournament_entries", ["tournament_id", "entry_no"])
    op.create_index(
        "ix_tournament_entries_tournament_id_account_id",
        "tournament_entries",
        ["tournament_id", "account_id"],
    )


def downgrade() -> None:
    """Back to 0008: the re-entries (every entry after an account's first) and the schedule
    columns are lost; a database that held re-entries no longer balances its audit."""
    op.drop_index("ix_tournament_entries_tournament_id_account_id", "tournament_entries")
    entries = sa.table(
        "tournament_entries",
        sa.column("tournament_id", sa.Integer),
        sa.column("account_id", sa.Integer),
        sa.column("entry_no", sa.Integer),
    )
    bind = op.get_bind()
    seen: set[tuple[int, int]] = set()
    for tournament_id, account_id, entry_no in bind.execute(
        sa.select(entries.c.tournament_id, entries.c.account_id, entries.c.entry_no).order_by(
            entries.c.tournament_id, entries.c.entry_no
        )
    ).all():
        if (tournament_id, account_id) in seen:
            bind.execute(
                sa.delete(entries).where(
                    entries.c.tournament_id == tournament_id, entries.c.entry_no == entry_no
                )
            )
        seen.add((tournament_id, account_id))
    with op.batch_alter_table("tournament_entries", recreate="always") as batch:
        batch.drop_constraint("pk_tournament_entries", type_="primary")
        batch.create_primary_key("pk_tournament_entries", ["tournament_id", "account_id"])
        batch.drop_column("entry_no")
    op.drop_index("uq_tournaments_schedule_key", "tournaments")
    for column in reversed(NEW_COLUMNS):
        if op.get_bind().dialect.name == "sqlite":
            op.execute(f"ALTER TABLE tournaments DROP COLUMN {column}")
        else:
            op.drop_column("tournaments", column)
