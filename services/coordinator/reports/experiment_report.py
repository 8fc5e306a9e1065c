"""An experiment's report in JSON (exportable, with seed 003's shape), markdown or JUnit."""

from __future__ import annotations

import json
from typing import Literal

from sqlalchemy.ext.asyncio import AsyncSession

from services.coordinator.errors import ExperimentNotComplete
from services.coordinator.store.full_run import load_run
from shared.analysis.aggregates import ExperimentAggregates
from shared.contracts.evaluation import Evaluation
from shared.db.models import Experiment
from shared.reports.json_export import experiment_json, experiment_junit, experiment_markdown


async def render_experiment_report(
    session: AsyncSession, experiment: Experiment, fmt: Literal["json", "md", "junit"]
) -> str:
    if experiment.status != "completed" or experiment.aggregates is None:
        raise ExperimentNotComplete(
            f"experiment {experiment.id} is {experiment.status}; a report exists once it has completed"
        )
    run, _ = await load_run(session, experiment)
    aggregates = ExperimentAggregates.model_validate(experiment.aggregates)
    run.run_scores = [Evaluation.model_validate(e) for e in aggregates.run_scores]
    if fmt == "md":
        return experiment_markdown(run, aggregates)
    if fmt == "junit":
        return experiment_junit(run, aggregates)
    payload = experiment_json(run, aggregates) | {"run": run.model_dump(mode="json")}
    return json.dumps(payload, indent=2, default=str)
