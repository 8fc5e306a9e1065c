"""An experiment's report, loaded from Postgres and rendered as JSON, markdown or JUnit."""

from __future__ import annotations

from typing import Literal

from sqlalchemy.ext.asyncio import AsyncSession

from services.coordinator.errors import ExperimentNotComplete
from services.coordinator.experiments.store.full_run import load_run
from shared.analysis import experiment_json, experiment_junit, experiment_markdown
from shared.db.models import Experiment
from yardstick.api.experiment_status import ExperimentStatus


async def render_experiment_report(
    session: AsyncSession, experiment: Experiment, fmt: Literal["json", "md", "junit"]
) -> str:
    if not ExperimentStatus(experiment.status).aggregated or experiment.aggregates is None:
        raise ExperimentNotComplete(
            f"experiment {experiment.id} is {experiment.status}; a report exists once it has completed"
        )
    run, _ = await load_run(session, experiment)
    aggregates = experiment.aggregates
    if fmt == "md":
        return experiment_markdown(run, aggregates)
    if fmt == "junit":
        return experiment_junit(run, aggregates)
    return experiment_json(run, aggregates).model_dump_json(indent=2)
