"""Re-scoring: a new experiment over the stored outputs of a finished one, with other (or the same)
evaluators, and no target call.

The new experiment has the source's items and trials (so ``POST /comparisons`` pairs them), its
dataset version and settings, and ``config.rescored_from`` = the source. An item that was ok in the
source is pending with its output recorded (``experiment_items.recorded``, source 'rescore'): the
eval workers score it exactly as they score a fresh output, under the same delivery rules. An item
that errored in the source (or never ran: a cancelled source) is an error at once, with the
source's message.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import CursorResult, func, select, text
from sqlalchemy.ext.asyncio import AsyncSession

from services.coordinator.errors import ExperimentNotComplete
from services.coordinator.schemas import RescoreCreate
from services.coordinator.store.evaluator_validation import validate_evaluators
from services.coordinator.store.experiments import get_experiment
from shared.contracts.evaluator_catalog import WorkerEvaluators
from shared.db.base import utcnow
from shared.db.models import Experiment, ExperimentItem

RESCORABLE = frozenset({"completed", "cancelled", "failed"})

_COPY_ITEMS = text(
    """
    INSERT INTO experiment_items (
        experiment_id, item_id, trial, position, status, input, expected_output, metadata,
        error, latency_ms, total_ms, attempts, worker_id, finished_at, recorded)
    SELECT :experiment_id, item_id, trial, position,
           CASE WHEN status = 'ok' THEN 'pending' ELSE 'error' END,
           input, expected_output, metadata,
           CASE WHEN status = 'ok' THEN NULL
                WHEN status = 'error' THEN error
                ELSE 'not run in source experiment ' || CAST(:source_id AS text) || ' (' || status || ')'
           END,
           CASE WHEN status = 'error' THEN latency_ms END,
           CASE WHEN status = 'error' THEN total_ms END,
           CASE WHEN status = 'error' THEN attempts ELSE 0 END,
           CASE WHEN status = 'error' THEN worker_id END,
           CASE WHEN status = 'ok' THEN NULL ELSE now() END,
           CASE WHEN status = 'ok' THEN jsonb_build_object(
               'source', 'rescore', 'output', output, 'latency_ms', latency_ms, 'usage', usage)
           END
    FROM experiment_items
    WHERE experiment_id = :source_id
    """
)


async def create_rescore(
    session: AsyncSession,
    source_id: str,
    body: RescoreCreate,
    fleet: Sequence[WorkerEvaluators] | None = None,
) -> Experiment:
    """Store the re-scoring experiment and its items; the caller commits and wakes the dispatcher."""
    source = await get_experiment(session, source_id)
    if source.status not in RESCORABLE:
        raise ExperimentNotComplete(
            f"experiment {source_id!r} is {source.status}: it can be re-scored once it has finished "
            "(completed, cancelled or failed)"
        )
    evaluators = body.evaluators if body.evaluators is not None else source.config.evaluators
    run_evaluators = body.run_evaluators if body.run_evaluators is not None else source.config.run_evaluators
    metric_specs = validate_evaluators(evaluators, run_evaluators, fleet)
    config = source.config.model_copy(
        update={
            "evaluators": evaluators,
            "run_evaluators": run_evaluators,
            "metric_specs": metric_specs,
            "rescored_from": source.id,
            "cache": None,
        }
    )
    experiment = Experiment(
        name=body.name or f"{source.name}-rescored",
        dataset_id=source.dataset_id,
        version_id=source.version_id,
        status="running",
        config=config,
        started_at=utcnow(),
    )
    session.add(experiment)
    await session.flush()
    result: CursorResult[Any] = await session.execute(  # type: ignore[assignment]
        _COPY_ITEMS, {"experiment_id": experiment.id, "source_id": source.id}
    )
    experiment.total = int(result.rowcount or 0)
    errors = (
        await session.execute(
            select(func.count()).where(
                ExperimentItem.experiment_id == experiment.id, ExperimentItem.status == "error"
            )
        )
    ).scalar_one()
    experiment.done = experiment.errors = int(errors)
    if experiment.total == 0:
        experiment.status = "failed"
        experiment.error = f"source experiment {source_id!r} has no items to re-score"
    return experiment
