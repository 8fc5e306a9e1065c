"""output cache and re-scoring: the output_cache table, recorded outputs on experiment items,
cache hits on experiments

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-25 06:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "output_cache",
        sa.Column("key", sa.String(length=64), nullable=False),
        sa.Column("output", postgresql.JSONB(astext_type=sa.Text()), nullable=True),
        sa.Column("latency_ms", sa.Float(), nullable=True),
        sa.Column("usage", postgresql.JSONB(astext_type=sa.Text()), nullable=True),
        sa.Column("experiment_id", sa.String(length=36), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("key"),
    )
    op.create_index("ix_output_cache_expires_at", "output_cache", ["expires_at"])
    op.add_column("experiment_items", sa.Column("cache_key", sa.String(length=64), nullable=True))
    op.add_column(
        "experiment_items", sa.Column("recorded", postgresql.JSONB(astext_type=sa.Text()), nullable=True)
    )
    op.add_column(
        "experiments", sa.Column("cache_hits", sa.Integer(), nullable=False, server_default=sa.text("0"))
    )


def downgrade() -> None:
    op.drop_column("experiments", "cache_hits")
    op.drop_column("experiment_items", "recorded")
    op.drop_column("experiment_items", "cache_key")
    op.drop_index("ix_output_cache_expires_at", table_name="output_cache")
    op.drop_table("output_cache")
