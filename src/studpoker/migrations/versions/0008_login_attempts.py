"""Login attempts counted in the database (studpoker.store.login_attempts, docs/cluster.md
"Shared state"): one row per attempt, ``key`` the SHA-256 of what it counts (a name and an
address, or an address), ``at`` by the database's clock. The gateways of a cluster share these
counts, so a brute force split over several gateways is limited as on one.

On PostgreSQL also the sequence ``guest_blocks``: each gateway run takes the next number and
numbers its guests within that block (``store.login_attempts.reserve_guest_block``), so guest
ids are unique across gateways. (The cluster refuses SQLite, which gets no sequence.)

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "login_attempts",
        sa.Column("id", sa.Integer, nullable=False, autoincrement=True),
        sa.Column("key", sa.String(64), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_login_attempts"),
    )
    op.create_index("ix_login_attempts_key_at", "login_attempts", ["key", "at"])
    if op.get_bind().dialect.name == "postgresql":
        op.execute("CREATE SEQUENCE guest_blocks START 1")


def downgrade() -> None:
    """Back to 0007: the counted attempts are lost (each gateway counts its own again)."""
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP SEQUENCE guest_blocks")
    op.drop_index("ix_login_attempts_key_at", table_name="login_attempts")
    op.drop_table("login_attempts")
