"""Load a finished experiment's rows as the inputs of aggregation, run evaluators and comparison."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from shared.db.models import Experiment, ExperimentItem, Score
from shared.evaluators.item_results import ItemResult
from yardstick.api.agent_messages import TokenUsage
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
        scores.setdefault((row.item_id, row.trial), []).append(
            Evaluation(
                name=row.name,
                value=row.value,
                comment=row.comment,
                metadata=row.score_metadata,
                error=row.error,
            )
        )
    scored: list[ScoredItem] = []
    results: list[ItemResult] = []
    for item in items:
        evaluations = scores.get((item.item_id, item.trial), [])
        status = "ok" if item.status == "ok" else "error"
        scored.append(
            ScoredItem(
                item_id=item.item_id,
                trial=item.trial,
                status=status,
                metadata=item.item_metadata,
                scores={e.name: e.numeric for e in evaluations},
                latency_ms=item.latency_ms,
                usage=TokenUsage.model_validate(item.usage) if item.usage else None,
                error=item.error,
                evaluations=evaluations,
                output=item.output,
            )
        )
        results.append(
            ItemResult(
                item_id=item.item_id,
                trial=item.trial,
                input=item.input,
                output=item.output,
                expected_output=item.expected_output,
                metadata=item.item_metadata,
                evaluations=evaluations,
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
