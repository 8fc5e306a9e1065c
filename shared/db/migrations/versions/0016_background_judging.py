"""background pairwise judging and judge cache expiry: comparisons.judging (the judge pass of a
comparison, its progress and status) and an index on judge_cache.created_at (expired verdicts are
found and pruned by age)

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-26 14:40:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("comparisons", sa.Column("judging", postgresql.JSONB(astext_type=sa.Text()), nullable=True))
    op.create_index("ix_judge_cache_created_at", "judge_cache", ["created_at"])


def downgrade() -> None:
    op.drop_index("ix_judge_cache_created_at", table_name="judge_cache")
    op.drop_column("comparisons", "judging")
