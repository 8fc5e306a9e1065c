"""The offline baseline of an evaluator: the last completed experiment whose target model matches."""

from __future__ import annotations

from pydantic import BaseModel
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from shared.db.models import Experiment
from yardstick.api.eval_messages import AgentTarget
from yardstick.api.experiment_config import ExperimentConfig
from yardstick.api.experiment_status import ExperimentStatus

RECENT_EXPERIMENTS = 200


class OfflineReference(BaseModel):
    experiment_id: str
    mean: float
    sd: float | None
    count: int | None


def target_model_identity(config: ExperimentConfig) -> str | None:
    """The agent's model identity (``offline:ask``, ``mistral:<name>``, ``openai:<name>``) an
    experiment config targets."""
    target = config.target
    if not isinstance(target, AgentTarget):
        return None
    if target.model.provider != "offline":
        return f"{target.model.provider}:{target.model.name}" if target.model.name else None
    return target.model.offline.identity


async def offline_reference(session: AsyncSession, evaluator: str, model: str) -> OfflineReference | None:
    stmt = (
        select(Experiment)
        .where(Experiment.status == ExperimentStatus.COMPLETED, Experiment.aggregates.is_not(None))
        .order_by(Experiment.completed_at.desc().nulls_last())
        .limit(RECENT_EXPERIMENTS)
    )
    for row in (await session.execute(stmt)).scalars():
        if target_model_identity(row.config) != model:
            continue
        metric = row.aggregates.metrics.get(evaluator) if row.aggregates else None
        if metric is not None and metric.mean is not None:
            return OfflineReference(experiment_id=row.id, mean=metric.mean, sd=metric.sd, count=metric.count)
    return None
