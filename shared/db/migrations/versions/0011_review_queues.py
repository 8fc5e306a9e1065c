"""review queues: queues (per project) of experiment items or sampled turns, and the labels people
give them; review decisions are audited

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-26 11:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "review_queues",
        sa.Column("id", sa.String(36), nullable=False),
        sa.Column("project_id", sa.String(64), nullable=False),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("definition", postgresql.JSONB(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("created_by", sa.String(100), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_review_queues"),
        sa.ForeignKeyConstraint(
            ["project_id"], ["projects.id"], name="fk_review_queues_project_id_projects", ondelete="RESTRICT"
        ),
        sa.UniqueConstraint("project_id", "name", name="uq_review_queues_project_id_name"),
    )
    op.create_table(
        "review_items",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("queue_id", sa.String(36), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("experiment_id", sa.String(36), nullable=True),
        sa.Column("item_id", sa.String(200), nullable=True),
        sa.Column("trial", sa.Integer(), nullable=True),
        sa.Column("sample_id", sa.Integer(), nullable=True),
        sa.Column("assigned_to", sa.String(100), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_review_items"),
        sa.ForeignKeyConstraint(
            ["queue_id"],
            ["review_queues.id"],
            name="fk_review_items_queue_id_review_queues",
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["experiment_id"],
            ["experiments.id"],
            name="fk_review_items_experiment_id_experiments",
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["sample_id"],
            ["online_samples.id"],
            name="fk_review_items_sample_id_online_samples",
            ondelete="CASCADE",
        ),
        sa.UniqueConstraint("queue_id", "position", name="uq_review_items_queue_id_position"),
        sa.CheckConstraint(
            "(sample_id IS NULL) <> (experiment_id IS NULL)", name="ck_review_items_one_source"
        ),
    )
    op.create_index("ix_review_items_queue_id", "review_items", ["queue_id"])
    op.create_table(
        "review_labels",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("review_item_id", sa.Integer(), nullable=False),
        sa.Column("reviewer", sa.String(100), nullable=False),
        sa.Column("values", postgresql.JSONB(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_review_labels"),
        sa.ForeignKeyConstraint(
            ["review_item_id"],
            ["review_items.id"],
            name="fk_review_labels_review_item_id_review_items",
            ondelete="CASCADE",
        ),
        sa.UniqueConstraint("review_item_id", "reviewer", name="uq_review_labels_review_item_id_reviewer"),
    )
    op.create_index("ix_review_labels_review_item_id", "review_labels", ["review_item_id"])


def downgrade() -> None:
    op.drop_table("review_labels")
    op.drop_table("review_items")
    op.drop_table("review_queues")
