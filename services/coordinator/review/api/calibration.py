"""``GET /calibration``: an evaluator against people's labels on one rubric field of a review queue,
beside the people's agreement with each other; optionally a second evaluator compared with it."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query

from services.coordinator.http.deps import RuntimeDep, SessionDep, needs, require_api_key
from services.coordinator.http.problems import ERROR_RESPONSES
from services.coordinator.review.calibration import calibration_report
from yardstick.api.calibration import CalibrationReport
from yardstick.api.roles import Role

router = APIRouter(
    prefix="/calibration", tags=["review"], dependencies=[Depends(require_api_key)], responses=ERROR_RESPONSES
)

Name = Annotated[str | None, Query(min_length=1, max_length=100)]


@router.get("", **needs(Role.VIEWER))
async def calibration(
    session: SessionDep,
    runtime: RuntimeDep,
    queue: Annotated[str, Query(min_length=1, max_length=200, description="The review queue (name or id)")],
    evaluator: Name = None,
    field: Annotated[
        str | None,
        Query(max_length=40, description="The rubric field (default: the first pass/fail or scale)"),
    ] = None,
    against: Annotated[
        str | None,
        Query(max_length=100, description="A second evaluator, compared with the first on the same items"),
    ] = None,
) -> CalibrationReport:
    """κ with its interval, agreement, true-positive and true-negative rates (pass/fail) or weighted κ
    and Spearman's rho (scales), the confusion matrix and the disagreements, worst first."""
    return await calibration_report(session, runtime.registry, queue, field, evaluator, against)
