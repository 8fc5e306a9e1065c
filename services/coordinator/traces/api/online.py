"""Online (production traffic) endpoints: sampling config, metrics, drift alerts (their review queue is
made by ``review.api.review``)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

from fastapi import APIRouter, Depends, Query

from services.coordinator.access.store import audit
from services.coordinator.access.store.projects import current_project
from services.coordinator.errors import CoordinatorError
from services.coordinator.http.deps import CallerDep, SessionDep, needs, require_api_key
from services.coordinator.http.problems import ERROR_RESPONSES
from services.coordinator.traces.store.drift_alerts import recent_alerts
from shared.online.metrics import online_metrics
from shared.online.sampling_config import SamplingSettings, load_config, save_config
from yardstick.api.audit import AuditAction
from yardstick.api.durations import InvalidDuration, parse_duration
from yardstick.api.online import DriftAlertOut, OnlineMetrics
from yardstick.api.roles import Role

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
        for r in await recent_alerts(session, limit)
    ]
