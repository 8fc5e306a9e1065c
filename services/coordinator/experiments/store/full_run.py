"""Load a finished experiment's rows as the inputs of aggregation, run evaluators and comparison:
each item's stored outcome (``shared.db.outcome_rows``) as the statistics' :class:`ScoredItem` and
the run-level evaluators' :class:`ItemResult`."""

from __future__ import annotations

from typing import Literal

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from shared.db.models import Experiment, ExperimentItem, Score
from shared.db.outcome_rows import stored_evaluation, stored_outcome
from shared.evaluators.item_results import ItemResult
from yardstick.api.evaluation import Evaluation
from yardstick.api.run_data import RunData, ScoredItem


async def load_run(session: AsyncSession, experiment: Experiment) -> tuple[RunData, list[ItemResult]]:
    items = (
        (
            await session.execute(
                select(ExperimentItem)
                .where(ExperimentItem.experiment_id == experiment.id)
                .order_by(ExperimentItem.position, ExperimentItem.trial)
            )
        )
        .scalars()
        .all()
    )
    scores: dict[tuple[str, int], list[Evaluation]] = {}
    for row in (await session.execute(select(Score).where(Score.experiment_id == experiment.id))).scalars():
        scores.setdefault((row.item_id, row.trial), []).append(stored_evaluation(row))
    scored: list[ScoredItem] = []
    results: list[ItemResult] = []
    for item in items:
        outcome = stored_outcome(item, scores.get((item.item_id, item.trial), []))
        status: Literal["ok", "error"] = "ok" if item.status == "ok" else "error"
        scored.append(ScoredItem.of(item.item_id, item.trial, status, item.item_metadata, outcome))
        results.append(
            ItemResult(
                item_id=item.item_id,
                trial=item.trial,
                input=item.input,
                output=item.output,
                expected_output=item.expected_output,
                metadata=item.item_metadata,
                evaluations=outcome.scores,
                status=status,
            )
        )
    run_scores = list(experiment.aggregates.run_scores) if experiment.aggregates else []
    fingerprints = sorted({item.code_fingerprint for item in items if item.code_fingerprint})
    return RunData(
        experiment_id=experiment.id,
        name=experiment.name,
        items=scored,
        run_scores=run_scores,
        code_fingerprints=fingerprints,
    ), results
