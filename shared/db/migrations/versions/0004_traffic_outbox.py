"""traffic outbox: chat turns waiting for NATS

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-24 23:25:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "traffic_outbox",
        sa.Column("msg_id", sa.String(length=300), nullable=False),
        sa.Column("turn", postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("msg_id"),
    )
    op.create_index("ix_traffic_outbox_created_at", "traffic_outbox", ["created_at"])


def downgrade() -> None:
    op.drop_index("ix_traffic_outbox_created_at", table_name="traffic_outbox")
    op.drop_table("traffic_outbox")
