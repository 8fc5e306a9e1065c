"""api keys carry a role: owner, admin, runner, viewer or ingest; existing keys (all-powerful
until now) become owner keys

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-25 16:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# frozen here: a later change to the roles comes with its own migration
ROLES = ("owner", "admin", "runner", "viewer", "ingest")
CONSTRAINT = "ck_api_keys_api_key_role"


def upgrade() -> None:
    op.add_column("api_keys", sa.Column("role", sa.String(20), nullable=False, server_default="owner"))
    op.alter_column("api_keys", "role", server_default=None)
    allowed = ", ".join(f"'{r}'" for r in ROLES)
    op.create_check_constraint(op.f(CONSTRAINT), "api_keys", f"role IN ({allowed})")


def downgrade() -> None:
    op.drop_constraint(op.f(CONSTRAINT), "api_keys", type_="check")
    op.drop_column("api_keys", "role")
