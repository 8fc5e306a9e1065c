"""/ui/online: sampling configuration, online quality over time, drift alerts to review."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Literal

from fastapi import APIRouter, Path, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from services.coordinator.access.store import audit
from services.coordinator.http.deps import SessionDep
from services.coordinator.review.store import alert_queue, create_queue
from services.coordinator.traces.store.drift_alerts import first_scored_since, recent_alerts
from services.coordinator.ui.session import RunnerDep, UiSessionDep
from services.coordinator.ui.templating import render
from services.coordinator.ui.views.online import AUTO_LOOKBACK, WINDOWS, auto_window, evaluator_charts
from shared.online.metrics import online_metrics
from shared.online.sampling_config import load_config
from yardstick.api.durations import parse_duration

router = APIRouter()

Window = Literal["auto", "15m", "1h", "6h", "24h", "7d"]


@router.get("/online", response_class=HTMLResponse)
async def online_page(
    request: Request,
    ui: UiSessionDep,
    session: SessionDep,
    window: Window = "auto",
) -> HTMLResponse:
    now = datetime.now(UTC)
    if window == "auto":
        since = now - AUTO_LOOKBACK
        span, bucket = auto_window(await first_scored_since(session, since), now)
    else:
        span, bucket = parse_duration(window), parse_duration(WINDOWS[window])
    metrics = await online_metrics(session, window=span, bucket=bucket, now=now)
    alerts = await recent_alerts(session, 20)
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
    )


@router.post("/online/alerts/{alert_id}/review")
async def review_alert(
    alert_id: Annotated[str, Path(max_length=36)], ui: RunnerDep, session: SessionDep
) -> Response:
    """One action from a drift alert to a review queue over its window: its application's traces."""
    body = await alert_queue(session, alert_id)
    queue = await create_queue(session, body, ui.key_name)
    audit.record_queue_created(session, ui.actor, queue.id, body)
    await session.commit()
    return RedirectResponse(f"/ui/review/{queue.id}", status_code=303)
