"""span outbox: OTLP trace exports the agent could not deliver yet (ingest or NATS away)

Revision ID: 0020
Revises: 0018
Create Date: 2026-11-26 15:40:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0020"
down_revision: str | None = "0018"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "span_outbox",
        sa.Column("id", sa.BigInteger(), autoincrement=True, nullable=False),
        sa.Column("body", sa.LargeBinary(), nullable=False),
        sa.Column("spans", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_span_outbox_created_at", "span_outbox", ["created_at"])


def downgrade() -> None:
    op.drop_index("ix_span_outbox_created_at", table_name="span_outbox")
    op.drop_table("span_outbox")
