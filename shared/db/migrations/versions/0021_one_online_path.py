"""one online path: the old turn path's tables go (``online_samples``, ``online_scores``,
``traffic_outbox``) with ``review_items.sample_id``; production traffic lives in ``traces``

What they held is dropped, not moved: no service has written them since the agent reports its turns
as OpenTelemetry traces, and a stored turn holds neither the spans nor the record a trace is made of.
Dropped with them: the review queues made from sampled turns (``"kind": "online"``, their items and
labels). Drift alerts raised on those turns (no application) stay listed as history.

Going down recreates the tables and the column empty, as 0020 left them.

Revision ID: 0021
Revises: 0020
Create Date: 2026-11-28 12:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0021"
down_revision: str | None = "0020"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

CHECK = "ck_review_items_one_source"  # as 0011 named it (see 0015)
SAMPLE_FK = "fk_review_items_sample_id_online_samples"


def upgrade() -> None:
    op.execute("DELETE FROM review_queues WHERE definition -> 'source' ->> 'kind' = 'online'")
    op.execute("DELETE FROM review_items WHERE sample_id IS NOT NULL")
    op.drop_constraint(CHECK, "review_items", type_="check")
    op.create_check_constraint(CHECK, "review_items", "num_nonnulls(experiment_id, trace_pk) = 1")
    op.drop_constraint(SAMPLE_FK, "review_items", type_="foreignkey")
    op.drop_column("review_items", "sample_id")
    op.drop_table("online_scores")  # its indexes and constraints go with it
    op.drop_table("online_samples")
    op.drop_table("traffic_outbox")


def _project_id() -> sa.Column[str]:
    return sa.Column("project_id", sa.String(64), nullable=False)


def _project_fk(table: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        ["project_id"], ["projects.id"], name=f"fk_{table}_project_id_projects", ondelete="RESTRICT"
    )


def downgrade() -> None:
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
    op.create_table(
        "online_samples",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("conversation_id", sa.String(length=100), nullable=False),
        sa.Column("turn_index", sa.Integer(), nullable=False),
        sa.Column("model", sa.String(length=100), nullable=False),
        sa.Column("prompt_version", sa.String(length=100), nullable=False),
        sa.Column("turn", postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column("turn_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("sampled_at", sa.DateTime(timezone=True), nullable=False),
        _project_id(),
        sa.PrimaryKeyConstraint("id", name="pk_online_samples"),
        sa.UniqueConstraint(
            "project_id",
            "conversation_id",
            "turn_index",
            name="uq_online_samples_project_id_conversation_id_turn_index",
        ),
        _project_fk("online_samples"),
    )
    op.create_index("ix_online_samples_conversation_id", "online_samples", ["conversation_id"])
    op.create_index("ix_online_samples_turn_at", "online_samples", ["turn_at"])
    op.create_table(
        "online_scores",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("sample_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("value", sa.Float(), nullable=True),
        sa.Column("comment", sa.Text(), nullable=True),
        sa.Column("metadata", postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("evaluator_version", sa.String(length=40), nullable=False),
        sa.Column("model", sa.String(length=100), nullable=False),
        sa.Column("prompt_version", sa.String(length=100), nullable=False),
        sa.Column("turn_at", sa.DateTime(timezone=True), nullable=False),
        _project_id(),
        sa.ForeignKeyConstraint(
            ["sample_id"],
            ["online_samples.id"],
            name="fk_online_scores_sample_id_online_samples",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name="pk_online_scores"),
        sa.UniqueConstraint("sample_id", "name", name="uq_online_scores_sample_id_name"),
        _project_fk("online_scores"),
    )
    op.create_index("ix_online_scores_project_name_at", "online_scores", ["project_id", "name", "turn_at"])
    op.add_column("review_items", sa.Column("sample_id", sa.Integer(), nullable=True))
    op.create_foreign_key(
        SAMPLE_FK, "review_items", "online_samples", ["sample_id"], ["id"], ondelete="CASCADE"
    )
    op.drop_constraint(CHECK, "review_items", type_="check")
    op.create_check_constraint(CHECK, "review_items", "num_nonnulls(experiment_id, sample_id, trace_pk) = 1")
