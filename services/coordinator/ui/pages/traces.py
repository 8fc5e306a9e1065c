"""/ui/traces: sampled traces per application (filters, list with scores), one trace (span tree, each
LLM call's messages, tool calls, scores) and "Add to dataset"."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Annotated, Literal
from urllib.parse import urlencode

from fastapi import APIRouter, Form, Path, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from services.coordinator.access.store import audit
from services.coordinator.datasets.store import datasets as dataset_store
from services.coordinator.http.deps import SessionDep
from services.coordinator.traces.store.traces import (
    TRACE_DATASET_KIND,
    ScoreBelow,
    TraceQuery,
    add_to_dataset,
    applications,
    list_traces,
    trace_detail,
)
from services.coordinator.ui.session import RunnerDep, UiSessionDep
from services.coordinator.ui.templating import render
from services.coordinator.ui.views.traces import trace_page_view

router = APIRouter()

PAGE_SIZE = 50
Window = Literal["any", "1h", "24h", "7d", "30d"]
WINDOWS: dict[str, timedelta] = {
    "1h": timedelta(hours=1),
    "24h": timedelta(days=1),
    "7d": timedelta(days=7),
    "30d": timedelta(days=30),
}
Text = Annotated[str, Query(max_length=200)]
TraceId = Annotated[str, Path(pattern=r"^[0-9a-f]{32}$")]


@router.get("/traces", response_class=HTMLResponse)
async def traces_page(
    request: Request,
    ui: UiSessionDep,
    session: SessionDep,
    service: Text = "",
    model: Text = "",
    window: Window = "any",
    error: Literal["", "true", "false"] = "",
    tool: Text = "",
    below: Text = "",
    page: Annotated[int, Query(ge=1, le=100_000)] = 1,
) -> HTMLResponse:
    query = TraceQuery(
        service=service or None,
        model=model or None,
        since=datetime.now(UTC) - WINDOWS[window] if window in WINDOWS else None,
        error=None if not error else error == "true",
        tool=tool or None,
        below=ScoreBelow.parse(below) if below else None,
        limit=PAGE_SIZE,
        offset=(page - 1) * PAGE_SIZE,
    )
    filters = {
        "service": service,
        "model": model,
        "window": window,
        "error": error,
        "tool": tool,
        "below": below,
    }
    result = await list_traces(session, query)

    def page_url(n: int) -> str:
        return "/ui/traces?" + urlencode({**{k: v for k, v in filters.items() if v}, "page": n})

    evaluators = sorted({name for item in result.items for name in item.scores})
    return render(
        request,
        "traces.html",
        ui=ui,
        section="traces",
        apps=await applications(session),
        result=result,
        filters=filters,
        filtered=window != "any" or any(v for k, v in filters.items() if k != "window"),
        evaluators=evaluators,
        windows=["any", *WINDOWS],
        page=page,
        last_page=max(1, -(-result.total // PAGE_SIZE)),
        page_url=page_url,
    )


@router.get("/traces/{trace_id}", response_class=HTMLResponse)
async def trace_page(
    request: Request,
    trace_id: TraceId,
    ui: UiSessionDep,
    session: SessionDep,
    added: Annotated[str | None, Query(max_length=300)] = None,
) -> HTMLResponse:
    detail = await trace_detail(session, trace_id)
    targets = await dataset_store.dataset_names(session, TRACE_DATASET_KIND)
    return render(
        request,
        "trace.html",
        ui=ui,
        section="traces",
        t=detail,
        view=trace_page_view(detail),
        dataset_targets=list(targets),
        added=added,
    )


@router.post("/traces/{trace_id}/dataset")
async def add_trace_to_dataset(
    trace_id: TraceId,
    ui: RunnerDep,
    session: SessionDep,
    dataset: Annotated[str, Form(min_length=1, max_length=200)],
) -> Response:
    """Add the trace to a generic dataset as a version to review (as the API does)."""
    result = await add_to_dataset(session, trace_id, dataset.strip())
    audit.record_trace_to_dataset(session, ui.actor, trace_id, result)
    await session.commit()
    message = (
        f"trace added to {result.dataset} as version {result.version} (needs review)"
        if result.created_new_version
        else f"{result.dataset} already holds this trace (version {result.version})"
    )
    return RedirectResponse(f"/ui/traces/{trace_id}?" + urlencode({"added": message}), status_code=303)
