"""typed failures: a JSONB ``failure`` on ``experiment_items``, ``scores`` and ``trace_scores``

Each holds an ``ItemFailure`` (source, type, message, traceback, and the evaluator's name and version
for an evaluator's failure). The ``error`` text columns stay, kept filled with the failure's
``'Type: message'`` for readers of the previous version.

Going up fills ``failure`` from every stored ``error`` (with no traceback): the type is what precedes
the first ``': '`` when that is a class name or ``not run``, or the whole text when it is a bare
class name; else the type is ``Error`` and the whole text the message. An item's source is
``target``, or ``platform`` for the items the coordinator stopped or never ran (text starting
``not run``); a score's is ``evaluator``, named by the score. Going down drops the columns;
``error`` still holds what they said.

Revision ID: 0023
Revises: 0022
Create Date: 2026-11-28 12:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0023"
down_revision: str | None = "0022"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLES = ("experiment_items", "scores", "trace_scores")
_TYPED = r"'^[A-Za-z_][A-Za-z0-9_.]*: '"


_BARE = r"'^[A-Za-z_][A-Za-z0-9_.]*$'"
_NOT_RUN = "error LIKE 'not run: %'"


def _failure_sql(source: str, evaluator: str) -> str:
    """The ``failure`` document of a row's ``error`` (SQL)."""
    typed = f"error ~ {_TYPED} OR {_NOT_RUN}"
    return f"""jsonb_strip_nulls(jsonb_build_object(
        'source', {source},
        'type', CASE WHEN {typed} THEN split_part(error, ': ', 1) WHEN error ~ {_BARE} THEN error
                     ELSE 'Error' END,
        'message', CASE WHEN {typed} THEN substr(error, strpos(error, ': ') + 2) WHEN error ~ {_BARE} THEN ''
                        ELSE error END,
        'traceback', '',
        'evaluator', {evaluator}))"""


def upgrade() -> None:
    for table in TABLES:
        op.add_column(table, sa.Column("failure", postgresql.JSONB(astext_type=sa.Text()), nullable=True))
    item_source = f"CASE WHEN {_NOT_RUN} OR error LIKE 'not run in source%' THEN 'platform' ELSE 'target' END"
    item_failure = _failure_sql(item_source, "NULL")
    op.execute(
        f"UPDATE experiment_items SET failure = {item_failure} WHERE error IS NOT NULL AND status = 'error'"
    )
    score_failure = _failure_sql("'evaluator'", "name")
    for table in ("scores", "trace_scores"):
        op.execute(f"UPDATE {table} SET failure = {score_failure} WHERE error IS NOT NULL")


def downgrade() -> None:
    for table in TABLES:
        op.drop_column(table, "failure")
