"""/ui/online: sampling configuration, online quality over time, drift alerts, sampled turns to promote."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Literal
from urllib.parse import urlencode

from fastapi import APIRouter, Form, Path, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from sqlalchemy import func, select

from services.coordinator.api.deps import SessionDep
from services.coordinator.schemas import INT4_MAX
from services.coordinator.store import audit
from services.coordinator.store.promotion import PROMOTED_KIND, promote
from services.coordinator.store.review import alert_queue, create_queue
from services.coordinator.ui.session import RunnerDep, UiSessionDep
from services.coordinator.ui.templating import render
from services.coordinator.ui.views.online import AUTO_LOOKBACK, WINDOWS, auto_window, evaluator_charts
from shared.db.models import Dataset, DriftAlertRow, OnlineSample, OnlineScore
from shared.db.trace_models import TraceScore
from shared.online.durations import parse_duration
from shared.online.metrics import online_metrics
from shared.online.sampling_config import load_config

router = APIRouter()

Window = Literal["auto", "15m", "1h", "6h", "24h", "7d"]


@router.get("/online", response_class=HTMLResponse)
async def online_page(
    request: Request,
    ui: UiSessionDep,
    session: SessionDep,
    window: Window = "auto",
    promoted: Annotated[str | None, Query(max_length=300)] = None,
) -> HTMLResponse:
    now = datetime.now(UTC)
    if window == "auto":
        since = now - AUTO_LOOKBACK
        turns = select(func.min(OnlineScore.turn_at)).where(OnlineScore.turn_at >= since)
        traces = select(func.min(TraceScore.trace_at)).where(TraceScore.trace_at >= since)
        found = [(await session.execute(q)).scalar_one() for q in (turns, traces)]
        earliest = min((t for t in found if t is not None), default=None)
        span, bucket = auto_window(earliest, now)
    else:
        span, bucket = parse_duration(window), parse_duration(WINDOWS[window])
    metrics = await online_metrics(session, window=span, bucket=bucket, now=now)
    alerts = (
        await session.execute(select(DriftAlertRow).order_by(DriftAlertRow.created_at.desc()).limit(20))
    ).scalars()
    samples = (
        await session.execute(
            select(OnlineSample).order_by(OnlineSample.turn_at.desc(), OnlineSample.id.desc()).limit(25)
        )
    ).scalars()
    targets = (
        await session.execute(
            select(Dataset.name).where(Dataset.kind == PROMOTED_KIND).order_by(Dataset.name)
        )
    ).scalars()
    return render(
        request,
        "online.html",
        ui=ui,
        section="online",
        config=await load_config(session, ui.project),
        charts=evaluator_charts(metrics),
        bucket_seconds=bucket.total_seconds(),
        window=window,
        windows=["auto", *WINDOWS],
        alerts=list(alerts),
        samples=list(samples),
        promote_targets=list(targets),
        promoted=promoted,
    )


@router.post("/online/samples/{sample_id}/promote")
async def promote_sample(
    sample_id: Annotated[int, Path(ge=1, le=INT4_MAX)],
    ui: RunnerDep,
    session: SessionDep,
    dataset: Annotated[str, Form(min_length=1, max_length=200)],
) -> Response:
    """Add the sampled turn to a drive-thru dataset as a version to review (as the API does)."""
    result = await promote(session, sample_id, dataset.strip())
    audit.record_promotion(session, ui.actor, sample_id, result)
    await session.commit()
    message = f"turn added to {result.dataset} as version {result.version} (needs review)"
    return RedirectResponse("/ui/online?" + urlencode({"promoted": message}), status_code=303)


@router.post("/online/alerts/{alert_id}/review")
async def review_alert(
    alert_id: Annotated[str, Path(max_length=36)], ui: RunnerDep, session: SessionDep
) -> Response:
    """One action from a drift alert to a review queue over its window (its application's traces, or
    its model's sampled turns)."""
    body = await alert_queue(session, alert_id)
    queue = await create_queue(session, body, ui.key_name)
    audit.record_queue_created(session, ui.actor, queue.id, body)
    await session.commit()
    return RedirectResponse(f"/ui/review/{queue.id}", status_code=303)
