"""code fingerprints: ``experiment_items.code_fingerprint``, the fingerprint of the task worker's code
that produced the item's output (python targets; sdk/src/yardstick/code_fingerprint.py says what is hashed)

An experiment's fingerprints are the distinct values of its items; reports and comparisons show them.
Rows written before stay NULL (unknown). Going down drops the column.

Revision ID: 0022
Revises: 0021
Create Date: 2026-11-28 12:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0022"
down_revision: str | None = "0021"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("experiment_items", sa.Column("code_fingerprint", sa.String(length=64), nullable=True))


def downgrade() -> None:
    op.drop_column("experiment_items", "code_fingerprint")
