"""Comparison endpoints: baseline vs candidate, with statistics."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Depends
from fastapi.responses import PlainTextResponse, Response
from sqlalchemy import select

from services.coordinator.access.store import audit
from services.coordinator.comparisons import create as comparisons
from services.coordinator.comparisons.store import comparisons as comparison_store
from services.coordinator.errors import ComparisonNotFound
from services.coordinator.http.deps import CallerDep, RuntimeDep, SessionDep, needs, require_api_key
from services.coordinator.http.problems import CONFLICT_RESPONSES, ERROR_RESPONSES, report_responses
from shared.analysis import comparison_junit, comparison_markdown
from shared.db.models import Comparison
from yardstick.api.audit import AuditAction
from yardstick.api.comparison_config import ComparisonConfig
from yardstick.api.comparisons import ComparisonCreate, ComparisonOut
from yardstick.api.roles import Role

router = APIRouter(
    prefix="/comparisons",
    tags=["comparisons"],
    dependencies=[Depends(require_api_key)],
    responses=ERROR_RESPONSES,
)


def _out(row: Comparison) -> ComparisonOut:
    return ComparisonOut(
        id=row.id,
        baseline_id=row.baseline_id,
        candidate_id=row.candidate_id,
        regression=row.regression,
        report=row.report,
        judging=row.judging,
        created_at=row.created_at,
    )


@router.post(
    "",
    status_code=201,
    responses={
        **CONFLICT_RESPONSES,
        202: {"model": ComparisonOut, "description": "Judging in the background"},
    },
    **needs(Role.RUNNER),
)
async def create_comparison(
    body: ComparisonCreate, session: SessionDep, runtime: RuntimeDep, response: Response
) -> ComparisonOut:
    """Compare two completed experiments, streaming their scores from Postgres one metric at a time
    (memory bounded like the finalizer's): 201 with the report. With ``judge``, 202: the statistics
    are in the report already, the pairs are judged in the background (``judging`` says how far;
    GET the comparison until its status is ``done``, when ``report.pairwise`` holds the result)."""
    config = ComparisonConfig(
        metrics=body.metrics,
        thresholds=body.thresholds,
        primary=body.primary,
        multiplicity=body.multiplicity,
        must_pass_categories=body.must_pass_categories,
        alpha=body.alpha,
        gates=body.gates,
        gate=body.gate,
    )
    row = await comparisons.create_comparison(
        session, body.baseline_id, body.candidate_id, config, judge=body.judge
    )
    await session.commit()
    if row.judging is not None:
        runtime.pairwise_jobs.submit(row.id)
        response.status_code = 202
    return _out(row)


@router.get(
    "/{comparison_id}",
    response_class=Response,
    responses=report_responses(ComparisonOut),
    **needs(Role.VIEWER),
)
async def get_comparison(
    comparison_id: str, session: SessionDep, format: Literal["json", "md", "junit"] = "json"
) -> Response:
    row = (
        await session.execute(select(Comparison).where(Comparison.id == comparison_id))
    ).scalar_one_or_none()
    if row is None:
        raise ComparisonNotFound(f"comparison {comparison_id!r} not found")
    if format == "json":
        return Response(_out(row).model_dump_json(), media_type="application/json")
    if format == "junit":
        return Response(comparison_junit(row.report), media_type="application/xml")
    return PlainTextResponse(comparison_markdown(row.report), media_type="text/markdown")


@router.delete("/{comparison_id}", status_code=204, **needs(Role.ADMIN))
async def delete_comparison(comparison_id: str, session: SessionDep, caller: CallerDep) -> Response:
    await comparison_store.delete_comparison(session, comparison_id)
    audit.record(session, audit.actor(caller), AuditAction.COMPARISON_DELETE, "comparison", comparison_id)
    await session.commit()
    return Response(status_code=204)
