"""What went wrong in an experiment: target errors grouped by message, then the items whose scores
fail their pass criterion, worst first (the one pass rule decides what fails)."""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from services.coordinator.experiments.store.items import fails
from shared.analysis import PassPolicy
from shared.db.models import ExperimentItem, Score
from yardstick.api.experiments import ErrorGroup, ExperimentFailures, FailingScore

EXAMPLES_PER_GROUP = 3


async def error_groups(session: AsyncSession, experiment_id: str, limit: int) -> list[ErrorGroup]:
    """Items whose target call failed, grouped by their error message, largest group first."""
    rows = await session.execute(
        select(
            func.coalesce(ExperimentItem.error, "(no message)").label("message"),
            func.count().label("count"),
            func.array_agg(ExperimentItem.item_id).label("item_ids"),
        )
        .where(ExperimentItem.experiment_id == experiment_id, ExperimentItem.status == "error")
        .group_by("message")
        .order_by(func.count().desc(), "message")
        .limit(limit)
    )
    return [
        ErrorGroup(message=r.message, count=r.count, example_item_ids=sorted(r.item_ids)[:EXAMPLES_PER_GROUP])
        for r in rows
    ]


async def failing_scores(
    session: AsyncSession, experiment_id: str, policy: PassPolicy, limit: int
) -> list[FailingScore]:
    """Scores of ok items that fail their metric's criterion, worst first within each metric."""
    metrics = (
        await session.execute(
            select(Score.name).where(Score.experiment_id == experiment_id).distinct().order_by(Score.name)
        )
    ).scalars()
    out: list[FailingScore] = []
    for metric in metrics:
        criterion = policy.criterion(metric)
        if not criterion.gates or len(out) >= limit:
            continue
        worst_first = Score.value.desc() if criterion.direction == "lower_is_better" else Score.value.asc()
        rows = await session.execute(
            select(Score.item_id, Score.trial, Score.value, Score.comment)
            .join(
                ExperimentItem,
                (ExperimentItem.experiment_id == Score.experiment_id)
                & (ExperimentItem.item_id == Score.item_id)
                & (ExperimentItem.trial == Score.trial),
            )
            .where(
                Score.experiment_id == experiment_id,
                Score.name == metric,
                ExperimentItem.status == "ok",
                fails(criterion, Score.value),
            )
            .order_by(worst_first, ExperimentItem.position, Score.trial)
            .limit(limit - len(out))
        )
        out += [
            FailingScore(
                item_id=r.item_id,
                trial=r.trial,
                metric=metric,
                value=r.value,
                criterion=criterion.describe(),
                comment=r.comment,
            )
            for r in rows
        ]
    return out


async def experiment_failures(
    session: AsyncSession, experiment_id: str, policy: PassPolicy, limit: int
) -> ExperimentFailures:
    return ExperimentFailures(
        errors=await error_groups(session, experiment_id, limit),
        failing=await failing_scores(session, experiment_id, policy, limit),
    )
