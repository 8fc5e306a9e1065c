"""audit log: one row per state change (keys, deletes, prompt labels, online config, promotions,
review decisions), append-only: UPDATE and DELETE are refused by a trigger

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-25 16:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "audit_events",
        sa.Column("id", sa.BigInteger(), primary_key=True, autoincrement=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("key_id", sa.String(36), nullable=True),
        sa.Column("key_name", sa.String(100), nullable=False),
        sa.Column("key_prefix", sa.String(16), nullable=False),
        sa.Column("action", sa.String(40), nullable=False),
        sa.Column("object_kind", sa.String(40), nullable=False),
        sa.Column("object_id", sa.String(300), nullable=False),
        sa.Column("change", postgresql.JSONB(), nullable=False),
    )
    op.create_index("ix_audit_events_at", "audit_events", ["at"])
    op.execute(
        "CREATE FUNCTION audit_events_append_only() RETURNS trigger AS $$ BEGIN "
        "RAISE EXCEPTION 'audit_events is append-only'; END; $$ LANGUAGE plpgsql"
    )
    op.execute(
        "CREATE TRIGGER audit_events_append_only BEFORE UPDATE OR DELETE ON audit_events "
        "FOR EACH ROW EXECUTE FUNCTION audit_events_append_only()"
    )


def downgrade() -> None:
    op.execute("DROP TRIGGER audit_events_append_only ON audit_events")
    op.execute("DROP FUNCTION audit_events_append_only()")
    op.drop_index("ix_audit_events_at", table_name="audit_events")
    op.drop_table("audit_events")
