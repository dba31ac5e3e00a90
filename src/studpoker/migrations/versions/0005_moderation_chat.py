"""Chat moderation (studpoker.store.moderation).

- ``account_moderation``: the operator's mute (chat refused) or ban (no login, no connection) of
  an account, with the reason given.
- ``moderation_log``: every such decision in order; a running server reads the entries after the
  last one it saw to learn what changed (``studpoker admin`` runs in another process).
- ``chat_mutes``: the players each account muted for itself.
- ``chat_reports``: chat lines reported to the operator, with their text, table and time.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-12
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
Stamp = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "account_moderation",
        sa.Column("account_id", sa.Integer, nullable=False),
        sa.Column("muted", sa.Boolean, nullable=False),
        sa.Column("banned", sa.Boolean, nullable=False),
        sa.Column("reason", sa.String(400)),
        sa.Column("updated_at", Stamp, nullable=False),
        sa.PrimaryKeyConstraint("account_id", name="pk_account_moderation"),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name="fk_account_moderation_account_id_accounts"
        ),
    )
    op.create_table(
        "moderation_log",
        sa.Column("id", BigId, autoincrement=True),
        sa.Column("account_id", sa.Integer, nullable=False),
        sa.Column("action", sa.String(8), nullable=False),
        sa.Column("reason", sa.String(400)),
        sa.Column("created_at", Stamp, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_moderation_log"),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name="fk_moderation_log_account_id_accounts"
        ),
    )
    op.create_table(
        "chat_mutes",
        sa.Column("account_id", sa.Integer, nullable=False),
        sa.Column("muted_id", sa.Integer, nullable=False),
        sa.Column("created_at", Stamp, nullable=False),
        sa.PrimaryKeyConstraint("account_id", "muted_id", name="pk_chat_mutes"),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], name="fk_chat_mutes_account_id_accounts"),
        sa.ForeignKeyConstraint(["muted_id"], ["accounts.id"], name="fk_chat_mutes_muted_id_accounts"),
    )
    op.create_table(
        "chat_reports",
        sa.Column("id", BigId, autoincrement=True),
        sa.Column("reporter_id", sa.Integer, nullable=False),
        sa.Column("speaker_id", sa.Integer, nullable=False),
        sa.Column("table_id", sa.Integer, nullable=False),
        sa.Column("line_id", sa.Integer, nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("said_at", Stamp, nullable=False),
        sa.Column("reason", sa.String(400)),
        sa.Column("created_at", Stamp, nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_chat_reports"),
        sa.ForeignKeyConstraint(
            ["reporter_id"], ["accounts.id"], name="fk_chat_reports_reporter_id_accounts"
        ),
        sa.ForeignKeyConstraint(["speaker_id"], ["accounts.id"], name="fk_chat_reports_speaker_id_accounts"),
        sa.ForeignKeyConstraint(["table_id"], ["tables.id"], name="fk_chat_reports_table_id_tables"),
    )
    op.create_index("ix_chat_reports_created_at", "chat_reports", ["created_at"])


def downgrade() -> None:
    """Back to 0004: every mute, ban, report and the moderation log are lost."""
    op.drop_index("ix_chat_reports_created_at", table_name="chat_reports")
    op.drop_table("chat_reports")
    op.drop_table("chat_mutes")
    op.drop_table("moderation_log")
    op.drop_table("account_moderation")
