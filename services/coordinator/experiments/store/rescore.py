"""Re-scoring's rows: the items of a new experiment copied from a finished one's stored outputs, to
score them with other (or the same) evaluators and no target call
(``experiments.lifecycle.create_rescore`` creates the experiment).

The new experiment has the source's items and trials (so ``POST /comparisons`` pairs them), its
dataset version and settings, and ``config.rescored_from`` = the source. An item that was ok in the
source is pending with its output recorded (``experiment_items.recorded``, source 'rescore'): the
eval workers score it exactly as they score a fresh output, under the same delivery rules. An item
that errored in the source is an error at once, with the source's failure; one that never ran (a
cancelled source) is a platform failure of type ``not run``.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import CursorResult, func, select, text
from sqlalchemy.ext.asyncio import AsyncSession

from shared.db.models import ExperimentItem
from yardstick.api.item_failure import NOT_RUN

_COPY_ITEMS = text(
    """
    INSERT INTO experiment_items (
        experiment_id, item_id, trial, position, status, input, expected_output, metadata,
        error, failure, latency_ms, total_ms, attempts, worker_id, finished_at, recorded, code_fingerprint)
    SELECT :experiment_id, item_id, trial, position,
           CASE WHEN status = 'ok' THEN 'pending' ELSE 'error' END,
           input, expected_output, metadata,
           CASE WHEN status = 'ok' THEN NULL
                WHEN status = 'error' THEN error
                ELSE :not_run || ': ' || never_ran.message
           END,
           CASE WHEN status = 'ok' THEN NULL
                WHEN status = 'error' THEN failure
                ELSE jsonb_build_object(
                    'source', 'platform', 'type', :not_run, 'message', never_ran.message, 'traceback', '')
           END,
           CASE WHEN status = 'error' THEN latency_ms END,
           CASE WHEN status = 'error' THEN total_ms END,
           CASE WHEN status = 'error' THEN attempts ELSE 0 END,
           CASE WHEN status = 'error' THEN worker_id END,
           CASE WHEN status = 'ok' THEN NULL ELSE now() END,
           CASE WHEN status = 'ok' THEN jsonb_build_object(
               'source', 'rescore', 'output', output, 'latency_ms', latency_ms, 'usage', usage)
           END,
           code_fingerprint
    FROM experiment_items,
         LATERAL (SELECT 'in source experiment ' || CAST(:source_id AS text) || ' (' || status || ')'
                  AS message) AS never_ran
    WHERE experiment_id = :source_id
    """
)


async def copy_items(session: AsyncSession, experiment_id: str, source_id: str) -> tuple[int, int]:
    """Copy the source's items into the experiment; returns (items, of which errors)."""
    result: CursorResult[Any] = await session.execute(  # type: ignore[assignment]
        _COPY_ITEMS, {"experiment_id": experiment_id, "source_id": source_id, "not_run": NOT_RUN}
    )
    errors = (
        await session.execute(
            select(func.count()).where(
                ExperimentItem.experiment_id == experiment_id, ExperimentItem.status == "error"
            )
        )
    ).scalar_one()
    return int(result.rowcount or 0), int(errors)
