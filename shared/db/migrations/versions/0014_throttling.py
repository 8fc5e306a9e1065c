"""throttling: how often each item's target answered 429/503 (rate limited), and per experiment the
total and the workers' latest adaptive concurrency for its target

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-26 12:10:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "experiment_items",
        sa.Column("throttled", sa.Integer(), nullable=False, server_default=sa.text("0")),
    )
    op.add_column(
        "experiments", sa.Column("throttled", sa.Integer(), nullable=False, server_default=sa.text("0"))
    )
    op.add_column("experiments", sa.Column("target_concurrency", sa.Integer(), nullable=True))


def downgrade() -> None:
    op.drop_column("experiments", "target_concurrency")
    op.drop_column("experiments", "throttled")
    op.drop_column("experiment_items", "throttled")
