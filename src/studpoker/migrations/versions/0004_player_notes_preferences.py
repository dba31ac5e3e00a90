"""Player notes and colour tags, and per-account preferences (studpoker.store.notes).

- ``player_notes``: one row per (writer, player): the note's ``text`` (may be empty), its
  ``colour`` tag (one of the palette, or NULL) and when it was last written. Only the writer
  reads it.
- ``account_preferences``: an account's keyboard shortcuts, JSON ``{action: key}`` (only the
  bindings it changed from the defaults).

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-10
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

Stamp = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "player_notes",
        sa.Column("account_id", sa.Integer, nullable=False),
        sa.Column("player_id", sa.Integer, nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("colour", sa.String(16)),
        sa.Column("updated_at", Stamp, nullable=False),
        sa.PrimaryKeyConstraint("account_id", "player_id", name="pk_player_notes"),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], name="fk_player_notes_account_id_accounts"),
        sa.ForeignKeyConstraint(["player_id"], ["accounts.id"], name="fk_player_notes_player_id_accounts"),
    )
    op.create_table(
        "account_preferences",
        sa.Column("account_id", sa.Integer, nullable=False),
        sa.Column("shortcuts", sa.Text, nullable=False),
        sa.Column("updated_at", Stamp, nullable=False),
        sa.PrimaryKeyConstraint("account_id", name="pk_account_preferences"),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name="fk_account_preferences_account_id_accounts"
        ),
    )


def downgrade() -> None:
    """Back to 0003: every note, tag and shortcut is lost."""
    op.drop_table("account_preferences")
    op.drop_table("player_notes")
