"""Tournaments that play a rotation (issue 16; docs/tournaments.md "Mixed games").

- ``tournaments.hands_per_game``: the hands of each game of the tournament's rotation, counted
  at each table (default 8; a tournament of one game never changes game). ``tournaments.game``
  keeps the rotation's name as :func:`studpoker.tournament.rotation.find_rotation` reads it: a
  game's code (``7S``), ``HORSE``, ``HOSE`` or codes joined by commas (``7S,RZ``).

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Added in place (``tournaments`` is not rebuilt: see 0009); the tournaments there keep 8.
    op.add_column("tournaments", sa.Column("hands_per_game", sa.Integer, nullable=False, server_default="8"))


def downgrade() -> None:
    """Back to 0009: a rotation's hand count is lost (its tournaments would play 8 hands a game
    again, were 0009's code able to play a rotation: it is not, it reads one game)."""
    if op.get_bind().dialect.name == "sqlite":
        op.execute("ALTER TABLE tournaments DROP COLUMN hands_per_game")
    else:
        op.drop_column("tournaments", "hands_per_game")
