"""experiment status: a CHECK constraint holds experiments.status to the ExperimentStatus values;
the never-set 'pending' is gone

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-26 09:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# frozen here: a later change to the enum comes with its own migration
STATUSES = ("running", "finalizing", "completed", "failed", "cancelled")
CONSTRAINT = "ck_experiments_experiment_status"


def upgrade() -> None:
    # No code ever stored another status ('pending' was a column default that creation always
    # overrode); a row that has one anyway never started, and is recorded as such.
    op.execute(
        sa.text(
            "UPDATE experiments SET status = 'failed', completed_at = coalesce(completed_at, now()), "
            "error = coalesce(error, 'never started (status ' || status || ', removed by migration 0007)') "
            "WHERE status NOT IN :statuses"
        ).bindparams(sa.bindparam("statuses", STATUSES, expanding=True))
    )
    allowed = ", ".join(f"'{s}'" for s in STATUSES)
    op.create_check_constraint(op.f(CONSTRAINT), "experiments", f"status IN ({allowed})")


def downgrade() -> None:
    op.drop_constraint(op.f(CONSTRAINT), "experiments", type_="check")
