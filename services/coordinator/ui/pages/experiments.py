"""/ui/experiments: every experiment, filtered, paginated, with live progress."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated
from urllib.parse import urlencode

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse

from services.coordinator.datasets.store import datasets as dataset_store
from services.coordinator.experiments.store import experiments as experiment_store
from services.coordinator.http.deps import SessionDep
from services.coordinator.ui.session import UiSessionDep
from services.coordinator.ui.templating import render
from services.coordinator.ui.views.experiments import Pager, experiment_row
from yardstick.api.experiment_status import ExperimentStatus
from yardstick.api.limits import INT4_MAX

router = APIRouter()

PER_PAGE = 25
STATUSES = list(ExperimentStatus)


def page_link(name: str | None, dataset: str | None, status: str | None) -> Callable[[int], str]:
    def url(page: int) -> str:
        query = {k: v for k, v in {"name": name, "dataset": dataset, "status": status}.items() if v}
        if page > 1:
            query["page"] = str(page)
        return "/ui/experiments" + (f"?{urlencode(query)}" if query else "")

    return url


@router.get("/experiments", response_class=HTMLResponse)
async def experiments_page(
    request: Request,
    ui: UiSessionDep,
    session: SessionDep,
    name: Annotated[str | None, Query(max_length=200)] = None,
    dataset: Annotated[str | None, Query(max_length=200)] = None,
    status: ExperimentStatus | None = None,
    page: Annotated[int, Query(ge=1, le=INT4_MAX // PER_PAGE)] = 1,
) -> HTMLResponse:
    name, dataset = name or None, dataset or None
    total = await experiment_store.count_experiments(
        session, dataset=dataset, status=status, name_contains=name
    )
    pager = Pager(page=page, per_page=PER_PAGE, total=total)
    rows = await experiment_store.list_experiments(
        session, None, PER_PAGE, dataset=dataset, status=status, offset=pager.offset, name_contains=name
    )
    out = [experiment_row(await experiment_store.experiment_out(session, r)) for r in rows]
    datasets = await dataset_store.dataset_names(session)
    url = page_link(name, dataset, status)
    return render(
        request,
        "experiments.html",
        ui=ui,
        section="experiments",
        rows=out,
        pager_state=pager,
        page_url=url,
        self_url=url(page),
        any_running=any(r.status.active for r in out),
        filters={"name": name, "dataset": dataset, "status": status},
        filtered=bool(name or dataset or status),
        datasets=datasets,
        statuses=STATUSES,
    )
