"""judge cache and budget: the judge_cache table (one project's measured verdicts by key),
experiments.judge_cache_hits, experiments.budget_exhausted_at and the status 'budget_exhausted' in
the status CHECK constraint

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-26 12:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# frozen here (see 0007): a later change to the enum comes with its own migration
OLD_STATUSES = ("running", "finalizing", "completed", "failed", "cancelled")
STATUSES = (*OLD_STATUSES, "budget_exhausted")
CONSTRAINT = "ck_experiments_experiment_status"


def _check(statuses: Sequence[str]) -> None:
    op.drop_constraint(op.f(CONSTRAINT), "experiments", type_="check")
    allowed = ", ".join(f"'{s}'" for s in statuses)
    op.create_check_constraint(op.f(CONSTRAINT), "experiments", f"status IN ({allowed})")


def upgrade() -> None:
    op.create_table(
        "judge_cache",
        sa.Column("project_id", sa.String(length=64), nullable=False),
        sa.Column("key", sa.String(length=64), nullable=False),
        sa.Column("judge", sa.String(length=200), nullable=False),
        sa.Column("verdict", postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["project_id"], ["projects.id"], name="fk_judge_cache_project_id_projects", ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("project_id", "key", name="pk_judge_cache"),
    )
    op.add_column(
        "experiments",
        sa.Column("judge_cache_hits", sa.Integer(), nullable=False, server_default=sa.text("0")),
    )
    op.add_column("experiments", sa.Column("budget_exhausted_at", sa.DateTime(timezone=True), nullable=True))
    _check(STATUSES)


def downgrade() -> None:
    # Before 0013 a run stopped by its budget has no status of its own: it finished with aggregates,
    # so it becomes 'completed'; its error text still says the budget stopped it.
    op.execute(sa.text("UPDATE experiments SET status = 'completed' WHERE status = 'budget_exhausted'"))
    _check(OLD_STATUSES)
    op.drop_column("experiments", "budget_exhausted_at")
    op.drop_column("experiments", "judge_cache_hits")
    op.drop_table("judge_cache")
