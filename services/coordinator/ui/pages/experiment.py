"""/ui/experiments/{id}: configuration, live progress, aggregates, charts, errors and the item table."""

from __future__ import annotations

from typing import Annotated, Literal
from urllib.parse import urlencode

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, StreamingResponse

from services.coordinator.errors import CoordinatorError
from services.coordinator.experiments.events import event_stream
from services.coordinator.experiments.store import experiments as experiment_store
from services.coordinator.experiments.store import failures, items
from services.coordinator.experiments.store.distributions import latency_histogram
from services.coordinator.experiments.store.experiment_refs import experiment_by_ref
from services.coordinator.http.deps import RuntimeDep, SessionDep
from services.coordinator.ui.session import UiSessionDep
from services.coordinator.ui.templating import render
from services.coordinator.ui.views.experiment import experiment_page
from services.coordinator.ui.views.experiments import Pager
from services.coordinator.ui.views.items_table import item_row
from shared.analysis import policy_for
from yardstick.api.limits import INT4_MAX

router = APIRouter()

PER_PAGE = 50


class InvalidFilter(CoordinatorError):
    status_code = 422


def _group_filter(group: str | None) -> tuple[str, str] | None:
    if not group:
        return None
    key, sep, value = group.partition("=")
    if not sep or not key:
        raise InvalidFilter(f"group filter {group!r} must look like key=value, e.g. category=modifiers")
    return key, value


@router.get("/experiments/{experiment_id}", response_class=HTMLResponse)
async def experiment_detail(
    experiment_id: str,
    request: Request,
    ui: UiSessionDep,
    session: SessionDep,
    page: Annotated[int, Query(ge=1, le=INT4_MAX // PER_PAGE)] = 1,
    sort: Annotated[str | None, Query(max_length=100)] = None,
    order: Literal["asc", "desc"] = "asc",
    group: Annotated[str | None, Query(max_length=300)] = None,
    failing: Annotated[str | None, Query(max_length=100)] = None,
    status: Literal["ok", "error", ""] = "",
    q: Annotated[str | None, Query(max_length=200)] = None,
) -> HTMLResponse:
    experiment = await experiment_by_ref(session, experiment_id)
    experiment_id = experiment.id  # a name resolved to its newest run
    out = await experiment_store.experiment_out(session, experiment)
    policy = policy_for(experiment.config)
    view = experiment_page(out, experiment.config, await latency_histogram(session, experiment_id))
    metric_names = [m.name for m in view.metrics] or sorted({e.name for e in experiment.config.evaluators})
    pager = Pager(page=page, per_page=PER_PAGE, total=0)
    items_page = await items.items_page(
        session,
        experiment_id,
        offset=pager.offset,
        limit=PER_PAGE,
        failing=failing or None,
        status=status or None,
        policy=policy,
        metadata=_group_filter(group),
        search=q or None,
        sort=sort or None,
        descending=order == "desc",
    )
    pager = Pager(page=page, per_page=PER_PAGE, total=items_page.total)
    filters = {
        "sort": sort,
        "order": order if sort else None,
        "group": group,
        "failing": failing,
        "status": status,
        "q": q,
    }

    def url(page_number: int | None = None, **changes: str | None) -> str:
        query = {k: v for k, v in {**filters, **changes}.items() if v}
        if page_number and page_number > 1:
            query["page"] = str(page_number)
        return f"/ui/experiments/{experiment_id}" + (f"?{urlencode(query)}" if query else "")

    def sort_url(metric: str) -> str:
        flip = "desc" if sort == metric and order == "asc" else "asc"
        return url(sort=metric, order=flip)

    groups = [f"{chart.key}={g.value}" for chart in view.breakdowns for g in chart.groups]
    return render(
        request,
        "experiment.html",
        ui=ui,
        section="experiments",
        page=view,
        errors=await failures.error_groups(session, experiment_id, 10),
        rows=[item_row(i, policy) for i in items_page.items],
        metric_names=metric_names,
        pager_state=pager,
        page_url=lambda n: url(n),
        sort_url=sort_url,
        filters=filters,
        filtered=any(filters[k] for k in ("group", "failing", "status", "q")),
        groups=groups,
        criteria={name: policy.criterion(name).describe() for name in metric_names},
    )


@router.get("/experiments/{experiment_id}/events")
async def experiment_events(
    experiment_id: str, ui: UiSessionDep, session: SessionDep, runtime: RuntimeDep
) -> StreamingResponse:
    """The same server-sent events as the API's /experiments/{id}/events, for the signed-in page."""
    experiment = await experiment_by_ref(session, experiment_id)  # 404 before the stream starts
    return StreamingResponse(
        event_stream(runtime.nc, runtime.topology, experiment.id, runtime.sessions),
        media_type="text/event-stream",
    )
