"""An experiment row (with the dataset and version it needs) for store tests."""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from shared.db.models import Dataset, DatasetVersion, Experiment, ExperimentItem
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


async def running_experiment(
    sessions: async_sessionmaker[AsyncSession], name: str, item_ids: list[str]
) -> str:
    """A committed running experiment whose items (trial 0, in this order) are all dispatched."""
    async with sessions() as session:
        experiment = await add_experiment(session, name, len(item_ids), status="running", total=len(item_ids))
        for position, item_id in enumerate(item_ids):
            session.add(
                ExperimentItem(
                    experiment_id=experiment.id,
                    item_id=item_id,
                    trial=0,
                    position=position,
                    status="dispatched",
                    input={},
                    item_metadata={},
                )
            )
        await session.commit()
        return experiment.id
