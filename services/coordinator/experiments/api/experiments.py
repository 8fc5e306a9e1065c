"""Experiment endpoints: create (202), list, status, cancel, items, failures, live events (SSE), report."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Depends, Query
from fastapi.responses import PlainTextResponse, Response, StreamingResponse

from services.coordinator.access.store import audit
from services.coordinator.experiments.dispatch.capacity import capacity_warnings, fleet_capacity
from services.coordinator.experiments.events import event_stream, publish_event
from services.coordinator.experiments.lifecycle import cancel_experiment, delete_experiment
from services.coordinator.experiments.lifecycle import create_experiment as create
from services.coordinator.experiments.report import render_experiment_report
from services.coordinator.experiments.store import experiments as experiment_store
from services.coordinator.experiments.store import failures, items
from services.coordinator.experiments.store.items import ItemStatus
from services.coordinator.experiments.submission.evaluator_fleet import fleet_evaluators
from services.coordinator.experiments.submission.target_addresses import require_allowed_address
from services.coordinator.experiments.submission.task_workers import require_task_worker
from services.coordinator.http.deps import CallerDep, RuntimeDep, SessionDep, needs, require_api_key
from services.coordinator.http.problems import CONFLICT_RESPONSES, ERROR_RESPONSES, report_responses
from services.coordinator.runtime import Runtime
from shared.analysis import policy_for
from shared.db.models import Experiment
from yardstick.api.audit import AuditAction
from yardstick.api.experiment_document import ExperimentDocument
from yardstick.api.experiment_status import ExperimentStatus
from yardstick.api.experiments import (
    ExperimentAccepted,
    ExperimentCreate,
    ExperimentFailures,
    ExperimentOut,
    ItemsPage,
)
from yardstick.api.limits import INT4_MAX
from yardstick.api.roles import Role

router = APIRouter(
    prefix="/experiments",
    tags=["experiments"],
    dependencies=[Depends(require_api_key)],
    responses=ERROR_RESPONSES,
)


@router.post("", status_code=202, **needs(Role.RUNNER))
async def create_experiment(
    body: ExperimentCreate, session: SessionDep, runtime: RuntimeDep
) -> ExperimentAccepted:
    await require_task_worker(runtime.nc, runtime.topology, body.target)  # 422 if none serves it
    await require_allowed_address(runtime.settings.outbound_policy, body.target)  # 422 if refused
    experiment = await create(
        session,
        body,
        max_tasks=runtime.settings.max_tasks_per_experiment,
        fleet=await fleet_evaluators(runtime.nc, runtime.topology),
    )
    await session.commit()
    runtime.dispatcher.poke()
    return await accepted(runtime, experiment)


async def accepted(runtime: Runtime, experiment: Experiment, **links: str) -> ExperimentAccepted:
    """The answer to a new experiment: its links, and a warning when the running workers cannot
    hold its concurrency."""
    base = f"/experiments/{experiment.id}"
    return ExperimentAccepted(
        id=experiment.id,
        status=experiment.status,
        total=experiment.total,
        links={
            "self": base,
            "items": f"{base}/items",
            "events": f"{base}/events",
            "report": f"{base}/report",
            **links,
        },
        warnings=capacity_warnings(
            experiment.config.concurrency, await fleet_capacity(runtime.nc, runtime.topology)
        ),
    )


@router.get("", **needs(Role.VIEWER))
async def list_experiments(
    session: SessionDep,
    name: str | None = Query(None, description="Only experiments of this name"),
    dataset: str | None = Query(None, description="Only experiments on this dataset"),
    status: ExperimentStatus | None = Query(None, description="Only experiments in this state"),
    offset: int = Query(0, ge=0, le=INT4_MAX),
    limit: int = Query(50, ge=1, le=500),
) -> list[ExperimentOut]:
    """Newest first."""
    rows = await experiment_store.list_experiments(
        session, name, limit, dataset=dataset, status=status, offset=offset
    )
    return [await experiment_store.experiment_out(session, row) for row in rows]


@router.get("/{experiment_id}", **needs(Role.VIEWER))
async def get_experiment(experiment_id: str, session: SessionDep) -> ExperimentOut:
    return await experiment_store.experiment_out(
        session, await experiment_store.get_experiment(session, experiment_id)
    )


@router.delete("/{experiment_id}", status_code=204, responses=CONFLICT_RESPONSES, **needs(Role.ADMIN))
async def delete(experiment_id: str, session: SessionDep, caller: CallerDep) -> Response:
    """Delete a finished experiment with its items, scores and comparisons (409 while it runs:
    cancel it first). Experiments that used it as their baseline keep their results."""
    await delete_experiment(session, experiment_id)
    audit.record(session, audit.actor(caller), AuditAction.EXPERIMENT_DELETE, "experiment", experiment_id)
    await session.commit()
    return Response(status_code=204)


@router.post("/{experiment_id}/cancel", responses=CONFLICT_RESPONSES, **needs(Role.RUNNER))
async def cancel(experiment_id: str, session: SessionDep, runtime: RuntimeDep) -> ExperimentOut:
    """Stop dispatching the experiment's items; tasks already running finish and are stored.
    409 if it is no longer running (finalizing or finished); cancelling twice is harmless."""
    experiment = await cancel_experiment(session, experiment_id)
    runtime.dispatcher.forget(experiment_id)
    await publish_event(
        runtime.nc, runtime.topology, experiment_id, "cancelled", ExperimentStatus.CANCELLED, experiment
    )
    return await experiment_store.experiment_out(session, experiment)


@router.get("/{experiment_id}/items", **needs(Role.VIEWER))
async def list_items(
    experiment_id: str,
    session: SessionDep,
    offset: int = Query(0, ge=0, le=INT4_MAX),
    limit: int = Query(50, ge=1, le=1000),
    category: str | None = Query(None, description="Only items whose metadata.category is this"),
    failing: str | None = Query(
        None,
        description="Only ok items whose score of this evaluator fails its pass criterion "
        "(items it did not measure are not listed)",
    ),
    status: ItemStatus | None = Query(None, description="Only items with this status"),
) -> ItemsPage:
    experiment = await experiment_store.get_experiment(session, experiment_id)
    return await items.items_page(
        session,
        experiment_id,
        offset=offset,
        limit=limit,
        category=category,
        failing=failing,
        status=status,
        policy=policy_for(experiment.config),
    )


@router.get("/{experiment_id}/failures", **needs(Role.VIEWER))
async def list_failures(
    experiment_id: str,
    session: SessionDep,
    limit: int = Query(10, ge=1, le=200, description="At most this many error groups and failing scores"),
) -> ExperimentFailures:
    """Target errors grouped by message (largest first), then the scores of ok items that fail
    their pass criterion, worst first: what `yardstick run` prints after a run."""
    experiment = await experiment_store.get_experiment(session, experiment_id)
    return await failures.experiment_failures(session, experiment_id, policy_for(experiment.config), limit)


@router.get("/{experiment_id}/events", response_class=StreamingResponse, **needs(Role.VIEWER))
async def events(experiment_id: str, session: SessionDep, runtime: RuntimeDep) -> StreamingResponse:
    """Server-sent events: one `progress` event per batch of results, then `completed`, `failed`
    or `cancelled`."""
    await experiment_store.get_experiment(session, experiment_id)  # 404 before the stream starts
    return StreamingResponse(
        event_stream(runtime.nc, runtime.topology, experiment_id, runtime.sessions),
        media_type="text/event-stream",
    )


@router.get(
    "/{experiment_id}/report",
    response_class=Response,
    responses=report_responses(ExperimentDocument),
    **needs(Role.VIEWER),
)
async def report(
    experiment_id: str, session: SessionDep, format: Literal["json", "md", "junit"] = "json"
) -> Response:
    experiment = await experiment_store.get_experiment(session, experiment_id)
    body = await render_experiment_report(session, experiment, format)
    if format == "json":
        return Response(body, media_type="application/json")
    if format == "junit":
        return Response(body, media_type="application/xml")
    return PlainTextResponse(body, media_type="text/markdown")
