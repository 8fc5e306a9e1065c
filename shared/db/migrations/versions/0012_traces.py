"""traces: sampled OpenTelemetry traces of any application (one row per trace, its spans, its
online scores); per-application sampling settings; drift alerts name their application

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-26 12:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "traces",
        sa.Column("id", sa.BigInteger(), autoincrement=True, nullable=False),
        sa.Column("project_id", sa.String(64), nullable=False),
        sa.Column("trace_id", sa.String(32), nullable=False),
        sa.Column("application", sa.String(200), nullable=False),
        sa.Column("conversation_id", sa.String(200), nullable=True),
        sa.Column("model", sa.String(200), nullable=True),
        sa.Column("provider", sa.String(100), nullable=True),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ended_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("latency_ms", sa.Float(), nullable=False),
        sa.Column("input_tokens", sa.Integer(), nullable=True),
        sa.Column("output_tokens", sa.Integer(), nullable=True),
        sa.Column("total_tokens", sa.Integer(), nullable=True),
        sa.Column("error", sa.Boolean(), nullable=False),
        sa.Column("tool_names", postgresql.ARRAY(sa.String(200)), nullable=False),
        sa.Column("span_count", sa.Integer(), nullable=False),
        sa.Column("completeness", sa.String(30), nullable=False),
        sa.Column("record", postgresql.JSONB(), nullable=False),
        sa.Column("stored_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_traces"),
        sa.ForeignKeyConstraint(
            ["project_id"], ["projects.id"], name="fk_traces_project_id_projects", ondelete="RESTRICT"
        ),
        sa.UniqueConstraint("project_id", "trace_id", name="uq_traces_project_id_trace_id"),
    )
    op.create_index("ix_traces_project_app_started", "traces", ["project_id", "application", "started_at"])
    op.create_index("ix_traces_started_at", "traces", ["started_at"])
    op.create_table(
        "trace_spans",
        sa.Column("id", sa.BigInteger(), autoincrement=True, nullable=False),
        sa.Column("trace_pk", sa.BigInteger(), nullable=False),
        sa.Column("span_id", sa.String(16), nullable=False),
        sa.Column("span", postgresql.JSONB(), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_trace_spans"),
        sa.ForeignKeyConstraint(
            ["trace_pk"], ["traces.id"], name="fk_trace_spans_trace_pk_traces", ondelete="CASCADE"
        ),
        sa.UniqueConstraint("trace_pk", "span_id", name="uq_trace_spans_trace_pk_span_id"),
    )
    op.create_table(
        "trace_scores",
        sa.Column("id", sa.BigInteger(), autoincrement=True, nullable=False),
        sa.Column("project_id", sa.String(64), nullable=False),
        sa.Column("trace_pk", sa.BigInteger(), nullable=False),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("value", sa.Float(), nullable=True),
        sa.Column("comment", sa.Text(), nullable=True),
        sa.Column("metadata", postgresql.JSONB(), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("evaluator_version", sa.String(40), nullable=False),
        sa.Column("application", sa.String(200), nullable=False),
        sa.Column("model", sa.String(200), nullable=False),
        sa.Column("trace_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_trace_scores"),
        sa.ForeignKeyConstraint(
            ["project_id"], ["projects.id"], name="fk_trace_scores_project_id_projects", ondelete="RESTRICT"
        ),
        sa.ForeignKeyConstraint(
            ["trace_pk"], ["traces.id"], name="fk_trace_scores_trace_pk_traces", ondelete="CASCADE"
        ),
        sa.UniqueConstraint("trace_pk", "name", name="uq_trace_scores_trace_pk_name"),
    )
    op.create_index(
        "ix_trace_scores_project_app_name_at",
        "trace_scores",
        ["project_id", "application", "name", "trace_at"],
    )
    op.add_column(
        "sampling_config",
        sa.Column("applications", postgresql.JSONB(), nullable=False, server_default=sa.text("'{}'::jsonb")),
    )
    op.add_column("drift_alerts", sa.Column("application", sa.String(200), nullable=True))


def downgrade() -> None:
    op.drop_column("drift_alerts", "application")
    op.drop_column("sampling_config", "applications")
    op.drop_index("ix_trace_scores_project_app_name_at", table_name="trace_scores")
    op.drop_table("trace_scores")
    op.drop_table("trace_spans")
    op.drop_index("ix_traces_started_at", table_name="traces")
    op.drop_index("ix_traces_project_app_started", table_name="traces")
    op.drop_table("traces")
