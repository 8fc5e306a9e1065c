"""Sampled traces of any application: list with filters, one trace whole, add one to a dataset.

Every route reads the caller's project only: another project's trace is 404."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Depends, Path, Query

from services.coordinator.access.store import audit
from services.coordinator.http.deps import CallerDep, SessionDep, needs, require_api_key
from services.coordinator.http.problems import CONFLICT_RESPONSES, ERROR_RESPONSES
from services.coordinator.traces.store.traces import (
    ScoreBelow,
    TraceQuery,
    add_to_dataset,
    applications,
    list_traces,
    trace_detail,
)
from yardstick.api.datasets import UpsertResult
from yardstick.api.roles import Role
from yardstick.api.traces import AddTraceToDataset, ApplicationOut, TraceDetail, TracePage

router = APIRouter(
    prefix="/traces",
    tags=["traces"],
    dependencies=[Depends(require_api_key)],
    responses=ERROR_RESPONSES,
)

TraceId = Annotated[str, Path(pattern=r"^[0-9a-f]{32}$", description="32 lower-case hex digits")]
Name = Annotated[str | None, Query(min_length=1, max_length=200)]


@router.get("", **needs(Role.VIEWER))
async def get_traces(
    session: SessionDep,
    service: Annotated[str | None, Query(min_length=1, max_length=200, description="Application")] = None,
    model: Name = None,
    since: Annotated[datetime | None, Query(description="Started at or after (ISO 8601)")] = None,
    until: Annotated[datetime | None, Query(description="Started before (ISO 8601)")] = None,
    error: Annotated[bool | None, Query(description="Only failed (true) / clean (false) traces")] = None,
    tool: Annotated[str | None, Query(min_length=1, max_length=200, description="Called this tool")] = None,
    below: Annotated[
        str | None, Query(max_length=200, description="EVALUATOR=VALUE: a score under VALUE")
    ] = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
    offset: Annotated[int, Query(ge=0, le=10_000_000)] = 0,
) -> TracePage:
    """The sampled traces of this project, newest first, with their online scores."""
    query = TraceQuery(
        service=service,
        model=model,
        since=since,
        until=until,
        error=error,
        tool=tool,
        below=None if below is None else ScoreBelow.parse(below),
        limit=limit,
        offset=offset,
    )
    return await list_traces(session, query)


@router.get("/applications", **needs(Role.VIEWER))
async def get_applications(session: SessionDep) -> list[ApplicationOut]:
    """The applications (``service.name``) with sampled traces in this project."""
    return await applications(session)


@router.get("/{trace_id}", **needs(Role.VIEWER))
async def get_trace(trace_id: TraceId, session: SessionDep) -> TraceDetail:
    """One trace: messages, tool calls with arguments and results, LLM calls, span tree, scores."""
    return await trace_detail(session, trace_id)


@router.post("/{trace_id}/dataset", responses=CONFLICT_RESPONSES, **needs(Role.RUNNER))
async def post_trace_to_dataset(
    trace_id: TraceId, body: AddTraceToDataset, session: SessionDep, caller: CallerDep
) -> UpsertResult:
    """Add the trace to a generic dataset as a new version marked ``needs_review``; its own output is
    the draft expectation. A dataset of another kind is refused (409); a trace with no readable input
    (no message with content: see its record's notes) is refused (422)."""
    result = await add_to_dataset(session, trace_id, body.dataset)
    audit.record_trace_to_dataset(session, audit.actor(caller), trace_id, result)
    await session.commit()
    return result
