"""Verifiable deals (docs/fairness.md): the seeds and the deck root of every hand.

- ``hands.server_seed``: the server's secret seed (hex), for the operator and the auditor only.
- ``hands.seed_commitment``: SHA-256 of it, published before any client seed was taken.
- ``hands.deck_root``: the Merkle root over the per-card commitments (also in ``commitment``).
- ``hands.client_seeds``: the players' seeds that went into the deck, JSON
  ``[{"seat": S, "seed": HEX}, ...]`` in seat order.

Hands recorded before this revision keep NULL here: they were dealt under the whole-deck
commitment (``commitment`` and ``salt``), which ``studpoker verify`` still checks.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-08
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

COLUMNS = ("server_seed", "seed_commitment", "deck_root", "client_seeds")


def upgrade() -> None:
    op.add_column("hands", sa.Column("server_seed", sa.String(64)))
    op.add_column("hands", sa.Column("seed_commitment", sa.String(64)))
    op.add_column("hands", sa.Column("deck_root", sa.String(64)))
    op.add_column("hands", sa.Column("client_seeds", sa.Text))


def downgrade() -> None:
    """Back to 0002 (the hands dealt since lose their seeds: ``studpoker verify`` cannot check
    them any more)."""
    for column in reversed(COLUMNS):
        if op.get_bind().dialect.name == "sqlite":
            # SQLite 3.35+ drops a column in place; a batch copy would drop the table that the
            # other tables' foreign keys point to.
            op.execute(f"ALTER TABLE hands DROP COLUMN {column}")
        else:
            op.drop_column("hands", column)
