"""Comparison endpoints: baseline vs candidate, with statistics."""

from __future__ import annotations

import asyncio
from typing import Literal

from fastapi import APIRouter, Depends
from fastapi.responses import PlainTextResponse, Response
from sqlalchemy import select

from services.coordinator.api.deps import SessionDep, require_api_key
from services.coordinator.errors import ExperimentNotComplete, ExperimentNotFound, InvalidComparison
from services.coordinator.schemas import ComparisonCreate, ComparisonOut
from services.coordinator.store import experiments as experiment_store
from services.coordinator.store.full_run import load_run
from shared.analysis.comparison import ComparisonConfig, compare_runs
from shared.analysis.comparison_models import ComparisonReport
from shared.analysis.comparison_rules import ComparisonError
from shared.db.models import Comparison
from shared.reports.json_export import comparison_junit, comparison_markdown

router = APIRouter(prefix="/comparisons", tags=["comparisons"], dependencies=[Depends(require_api_key)])


def _out(row: Comparison) -> ComparisonOut:
    return ComparisonOut(
        id=row.id,
        baseline_id=row.baseline_id,
        candidate_id=row.candidate_id,
        regression=row.regression,
        report=row.report,
        created_at=row.created_at,
    )


@router.post("", status_code=201)
async def create_comparison(body: ComparisonCreate, session: SessionDep) -> ComparisonOut:
    runs = []
    for experiment_id in (body.baseline_id, body.candidate_id):
        experiment = await experiment_store.get_experiment(session, experiment_id)
        if experiment.status != "completed":
            raise ExperimentNotComplete(
                f"experiment {experiment_id} is {experiment.status}; wait until it completes"
            )
        runs.append((await load_run(session, experiment))[0])
    config = ComparisonConfig(metrics=body.metrics, thresholds=body.thresholds, alpha=body.alpha)
    try:
        report = await asyncio.to_thread(compare_runs, runs[0], runs[1], config)
    except ComparisonError as exc:
        raise InvalidComparison(str(exc)) from exc
    row = Comparison(
        baseline_id=body.baseline_id,
        candidate_id=body.candidate_id,
        config=config.model_dump(mode="json"),
        report=report.model_dump(mode="json"),
        regression=report.regression,
    )
    session.add(row)
    await session.commit()
    return _out(row)


@router.get("/{comparison_id}")
async def get_comparison(
    comparison_id: str, session: SessionDep, format: Literal["json", "md", "junit"] = "json"
) -> Response:
    row = (
        await session.execute(select(Comparison).where(Comparison.id == comparison_id))
    ).scalar_one_or_none()
    if row is None:
        raise ExperimentNotFound(f"comparison {comparison_id!r} not found")
    if format == "json":
        return Response(_out(row).model_dump_json(), media_type="application/json")
    report = ComparisonReport.model_validate(row.report)
    if format == "junit":
        return Response(comparison_junit(report), media_type="application/xml")
    return PlainTextResponse(comparison_markdown(report), media_type="text/markdown")
