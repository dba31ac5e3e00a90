"""Tournament ownership in the cluster (studpoker.store.tournament_leases, docs/cluster.md
"Tournament ownership").

- ``tournament_leases``: one row per registering or running tournament once a worker first
  claims: its ``owner`` (a worker id, NULL when unowned), the ``epoch`` every claim raises, and
  ``expires_at`` by the database's clock. The owner runs the tournament's director and all its
  tables; every tournament write under a fence checks owner, epoch and expiry here. The
  heartbeats are the table leases' ``workers`` (0006).

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

Stamp = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "tournament_leases",
        sa.Column("tournament_id", sa.Integer, nullable=False),
        sa.Column("owner", sa.String(64)),
        sa.Column("epoch", sa.BigInteger, nullable=False),
        sa.Column("expires_at", Stamp),
        sa.PrimaryKeyConstraint("tournament_id", name="pk_tournament_leases"),
        sa.ForeignKeyConstraint(
            ["tournament_id"], ["tournaments.id"], name="fk_tournament_leases_tournament_id_tournaments"
        ),
    )


def downgrade() -> None:
    """Back to 0011: the tournament leases are lost (a running cluster must be stopped first: its
    tournament writes would no longer be fenced)."""
    op.drop_table("tournament_leases")
