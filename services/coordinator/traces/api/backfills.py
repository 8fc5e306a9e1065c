"""``POST /traces/backfill``: score the stored traces of a time window with evaluators (a background
job); ``GET /traces/backfill/{id}``: its progress. Idempotent: a score already present is kept."""

from __future__ import annotations

from datetime import datetime

from fastapi import APIRouter, Depends

from services.coordinator.access.store.projects import current_project
from services.coordinator.errors import CoordinatorError
from services.coordinator.experiments.submission.evaluator_validation import validate_evaluators
from services.coordinator.http.deps import RuntimeDep, SessionDep, needs, require_api_key
from services.coordinator.http.problems import ERROR_RESPONSES
from services.coordinator.traces.store.backfills import create_backfill, find_backfill
from shared.db.base import utcnow
from shared.db.trace_models import TraceBackfill
from shared.online.backfill_spec import BackfillSpec
from yardstick.api.durations import InvalidDuration, parse_moment
from yardstick.api.roles import Role
from yardstick.api.traces import BackfillCreate, BackfillOut

router = APIRouter(
    prefix="/traces/backfill",
    tags=["traces"],
    dependencies=[Depends(require_api_key)],
    responses=ERROR_RESPONSES,
)


class InvalidWindow(CoordinatorError):
    status_code = 422


def _moment(field: str, text: str, now: datetime) -> datetime:
    try:
        return parse_moment(text, now)
    except InvalidDuration as exc:
        raise InvalidWindow(f"{field}: {exc}") from None


def backfill_spec(body: BackfillCreate, now: datetime) -> BackfillSpec:
    """The window resolved against ``now``; 422 naming the field for a bad time or an empty window."""
    since = _moment("since", body.since, now)
    until = now if body.until is None else _moment("until", body.until, now)
    if since >= until:
        raise InvalidWindow(f"since ({since.isoformat()}) is not before until ({until.isoformat()})")
    return BackfillSpec(application=body.application, since=since, until=until, evaluators=body.evaluators)


def backfill_out(job: TraceBackfill) -> BackfillOut:
    spec = job.spec
    return BackfillOut(
        id=job.id,
        status=job.status,  # type: ignore[arg-type]
        application=spec.application,
        since=spec.since,
        until=spec.until,
        evaluators=spec.evaluators,
        total=job.total,
        done=job.done,
        written=job.written,
        kept=job.kept,
        not_measured=job.not_measured,
        not_measured_reasons=spec.not_measured,
        error=job.error,
        created_at=job.created_at,
        finished_at=job.finished_at,
    )


@router.post("", status_code=202, **needs(Role.RUNNER))
async def post_backfill(body: BackfillCreate, session: SessionDep, runtime: RuntimeDep) -> BackfillOut:
    """Run evaluators over the stored traces started in ``[since, until)`` (one application, or all),
    in the background; follow it with ``GET /traces/backfill/{id}``. A score already present for a
    trace and metric is kept, so running it again writes nothing new. 422 for an unknown evaluator
    (named) or a bad window."""
    spec = backfill_spec(body, utcnow())
    validate_evaluators(spec.evaluators, [], registry=runtime.registry)
    job = await create_backfill(session, current_project(session), spec)
    await session.commit()
    if job.status == "running":
        runtime.backfills.submit(job.id)
    return backfill_out(job)


@router.get("/{backfill_id}", **needs(Role.VIEWER))
async def get_backfill(backfill_id: str, session: SessionDep) -> BackfillOut:
    """A backfill's progress: traces done of the total, scores written and kept, what was not measured."""
    return backfill_out(await find_backfill(session, backfill_id))
