"""Online (production traffic) endpoints: sampling config, metrics, drift alerts and their review."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

from fastapi import APIRouter, Depends, Path, Query
from sqlalchemy import select

from services.coordinator.api.deps import CallerDep, SessionDep, needs, require_api_key
from services.coordinator.api.problems import CONFLICT_RESPONSES, ERROR_RESPONSES
from services.coordinator.errors import CoordinatorError
from services.coordinator.schemas import DriftAlertOut
from services.coordinator.store import audit, review
from services.coordinator.store.projects import current_project
from shared.contracts.audit import AuditAction
from shared.contracts.review import QueueOut
from shared.contracts.roles import Role
from shared.db.models import DriftAlertRow
from shared.online.durations import InvalidDuration, parse_duration
from shared.online.metrics import OnlineMetrics, online_metrics
from shared.online.sampling_config import SamplingSettings, load_config, save_config

router = APIRouter(
    prefix="/online",
    tags=["online"],
    dependencies=[Depends(require_api_key)],
    responses=ERROR_RESPONSES,
)


class InvalidOnlineQuery(CoordinatorError):
    status_code = 422


@router.get("/config", **needs(Role.VIEWER))
async def get_config(session: SessionDep) -> SamplingSettings:
    return await load_config(session, current_project(session))


@router.put("/config", **needs(Role.ADMIN))
async def put_config(body: SamplingSettings, session: SessionDep, caller: CallerDep) -> SamplingSettings:
    project = current_project(session)
    before = await load_config(session, project)
    saved = await save_config(session, project, body)
    audit.record(
        session,
        audit.actor(caller),
        AuditAction.ONLINE_CONFIG_CHANGE,
        "online_config",
        "sampling",
        before=before.model_dump(mode="json", exclude={"updated_at"}),
        after=saved.model_dump(mode="json", exclude={"updated_at"}),
    )
    await session.commit()
    return saved


@router.get("/metrics", **needs(Role.VIEWER))
async def get_metrics(
    session: SessionDep,
    window: Annotated[str, Query(description="e.g. 1h, 30m, 7d")] = "1h",
    bucket: Annotated[str, Query(description="e.g. 5m")] = "5m",
) -> OnlineMetrics:
    try:
        window_td, bucket_td = parse_duration(window), parse_duration(bucket)
    except InvalidDuration as exc:
        raise InvalidOnlineQuery(str(exc)) from exc
    if bucket_td > window_td:
        raise InvalidOnlineQuery(f"bucket {bucket} is longer than window {window}: use a smaller bucket")
    return await online_metrics(session, window=window_td, bucket=bucket_td, now=datetime.now(UTC))


@router.get("/alerts", **needs(Role.VIEWER))
async def list_alerts(
    session: SessionDep, limit: Annotated[int, Query(ge=1, le=1000)] = 100
) -> list[DriftAlertOut]:
    stmt = select(DriftAlertRow).order_by(DriftAlertRow.created_at.desc()).limit(limit)
    return [
        DriftAlertOut(
            id=r.id,
            evaluator=r.evaluator,
            model=r.model,
            prompt_version=r.prompt_version,
            application=r.application,
            reference=r.reference,
            detail=r.detail,
            created_at=r.created_at,
        )
        for r in (await session.execute(stmt)).scalars()
    ]


@router.post("/alerts/{alert_id}/review", status_code=201, responses=CONFLICT_RESPONSES, **needs(Role.RUNNER))
async def review_alert(
    alert_id: Annotated[str, Path(min_length=1, max_length=36)], session: SessionDep, caller: CallerDep
) -> QueueOut:
    """One action from a drift alert to a review queue over its window, with a pass/fail rubric: the
    application's sampled traces. The queue is named ``drift-<first 8 characters of the alert id>``; a
    second call is 409, as is an alert on the agent's turns from before traces (nothing to review)."""
    body = await review.alert_queue(session, alert_id)
    queue = await review.create_queue(session, body, caller.name)
    audit.record_queue_created(session, audit.actor(caller), queue.id, body)
    await session.commit()
    return await review.queue_out(session, queue)
