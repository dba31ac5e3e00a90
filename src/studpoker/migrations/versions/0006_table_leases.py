"""Table ownership in the cluster (studpoker.store.leases, docs/cluster.md "Ownership").

- ``table_leases``: one row per table once a worker first claims: its ``owner`` (a worker id,
  NULL when unowned), the ``epoch`` every claim raises, and ``expires_at`` by the database's
  clock. Every chip-moving write under a fence checks owner, epoch and expiry here.
- ``workers``: each worker's heartbeat, extended by its claims and renewals; the live ones
  divide the tables between them (the fair share).
- ``hands.epoch``: the epoch of the lease the hand was started under (NULL for the hands of the
  one-process room, and for every hand before this revision).

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-14
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

Stamp = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "table_leases",
        sa.Column("table_id", sa.Integer, nullable=False),
        sa.Column("owner", sa.String(64)),
        sa.Column("epoch", sa.BigInteger, nullable=False),
        sa.Column("expires_at", Stamp),
        sa.PrimaryKeyConstraint("table_id", name="pk_table_leases"),
        sa.ForeignKeyConstraint(["table_id"], ["tables.id"], name="fk_table_leases_table_id_tables"),
    )
    op.create_table(
        "workers",
        sa.Column("id", sa.String(64), nullable=False),
        sa.Column("started_at", Stamp, nullable=False),
        sa.Column("expires_at", Stamp, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_workers"),
    )
    op.add_column("hands", sa.Column("epoch", sa.BigInteger))


def downgrade() -> None:
    """Back to 0005: the leases, the heartbeats and the hands' epochs are lost (a running cluster
    must be stopped first: its writes would no longer be fenced)."""
    if op.get_bind().dialect.name == "sqlite":
        # SQLite 3.35+ drops a column in place; a batch copy would drop the table that the other
        # tables' foreign keys point to.
        op.execute("ALTER TABLE hands DROP COLUMN epoch")
    else:
        op.drop_column("hands", "epoch")
    op.drop_table("workers")
    op.drop_table("table_leases")
