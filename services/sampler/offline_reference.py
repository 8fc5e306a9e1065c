"""The offline baseline of an evaluator: the last completed experiment whose target model matches."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ValidationError
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from shared.contracts.agent_messages import ModelConfig
from shared.db.models import Experiment

RECENT_EXPERIMENTS = 200


class OfflineReference(BaseModel):
    experiment_id: str
    mean: float
    sd: float | None
    count: int | None


def target_model_identity(config: dict[str, Any]) -> str | None:
    """The agent's model identity (``offline:ask``, ``mistral:<name>``) an experiment config targets."""
    target = config.get("target")
    if not isinstance(target, dict) or target.get("kind", "agent") != "agent":
        return None
    try:
        model = ModelConfig.model_validate(target.get("model") or {})
    except ValidationError:
        return None
    if model.provider == "mistral":
        return f"mistral:{model.name}" if model.name else None
    return model.offline.identity


async def offline_reference(session: AsyncSession, evaluator: str, model: str) -> OfflineReference | None:
    stmt = (
        select(Experiment)
        .where(Experiment.status == "completed", Experiment.aggregates.is_not(None))
        .order_by(Experiment.completed_at.desc().nulls_last())
        .limit(RECENT_EXPERIMENTS)
    )
    for row in (await session.execute(stmt)).scalars():
        if target_model_identity(row.config) != model:
            continue
        metric = ((row.aggregates or {}).get("metrics") or {}).get(evaluator)
        if isinstance(metric, dict) and metric.get("mean") is not None:
            return OfflineReference(
                experiment_id=row.id,
                mean=float(metric["mean"]),
                sd=metric.get("sd"),
                count=metric.get("count"),
            )
    return None
