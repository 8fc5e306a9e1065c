"""review over traces: a review item may point at a sampled trace (``review_items.trace_pk``); each
item points at exactly one of an experiment's item, a sampled turn or a trace

Going down deletes the review items of traces (with their labels): 0014 cannot hold them.

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-26 14:40:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

CHECK = "ck_review_items_one_source"  # as 0011 named it (the naming convention prefixes it again)


def upgrade() -> None:
    op.add_column("review_items", sa.Column("trace_pk", sa.BigInteger(), nullable=True))
    op.create_foreign_key(
        "fk_review_items_trace_pk_traces", "review_items", "traces", ["trace_pk"], ["id"], ondelete="CASCADE"
    )
    op.create_index("ix_review_items_trace_pk", "review_items", ["trace_pk"])
    op.drop_constraint(CHECK, "review_items", type_="check")
    op.create_check_constraint(CHECK, "review_items", "num_nonnulls(experiment_id, sample_id, trace_pk) = 1")


def downgrade() -> None:
    op.execute("DELETE FROM review_items WHERE trace_pk IS NOT NULL")
    op.drop_constraint(CHECK, "review_items", type_="check")
    op.create_check_constraint(CHECK, "review_items", "(sample_id IS NULL) <> (experiment_id IS NULL)")
    op.drop_index("ix_review_items_trace_pk", table_name="review_items")
    op.drop_constraint("fk_review_items_trace_pk_traces", "review_items", type_="foreignkey")
    op.drop_column("review_items", "trace_pk")
