"""The players of a tournament hand, from its start (issue 16; docs/tournaments.md "Hand
histories").

- ``tournament_hands.players``: who was dealt in, as the hand started: a JSON object, account id
  -> ``[seat, stack]``. A finished hand's players are its PHH's; a voided one has no PHH, so
  without these it was in no one's history. NULL for the hands stored before.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("tournament_hands", sa.Column("players", sa.Text, nullable=True))


def downgrade() -> None:
    """Back to 0010: a voided tournament hand names nobody again."""
    if op.get_bind().dialect.name == "sqlite":
        op.execute("ALTER TABLE tournament_hands DROP COLUMN players")
    else:
        op.drop_column("tournament_hands", "players")
