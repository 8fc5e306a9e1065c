"""An experiment row (with the dataset and version it needs) for store tests."""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from shared.db.models import Dataset, DatasetVersion, Experiment
from yardstick.api.eval_messages import AgentTarget
from yardstick.api.experiment_config import ExperimentConfig


async def add_experiment(session: AsyncSession, name: str, item_count: int, **fields: Any) -> Experiment:
    """A flushed experiment on the offline agent with no evaluators; ``fields`` set the rest."""
    dataset = Dataset(name=f"{name}-data")
    session.add(dataset)
    await session.flush()
    version = DatasetVersion(
        dataset_id=dataset.id, version=1, content_hash="x", item_count=item_count, source="t"
    )
    session.add(version)
    await session.flush()
    experiment = Experiment(
        name=name,
        dataset_id=dataset.id,
        version_id=version.id,
        config=ExperimentConfig(target=AgentTarget(), evaluators=[]),
        **fields,
    )
    session.add(experiment)
    await session.flush()
    return experiment
