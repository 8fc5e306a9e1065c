"""/ui/datasets and /ui/datasets/{name}: datasets, their versions, a version's items, two versions' diff."""

from __future__ import annotations

import json
from typing import Annotated
from urllib.parse import urlencode

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse

from services.coordinator.datasets.store import datasets as dataset_store
from services.coordinator.datasets.store.dataset_browsing import version_diff, version_items_page
from services.coordinator.http.deps import SessionDep
from services.coordinator.ui.session import UiSessionDep
from services.coordinator.ui.templating import render
from services.coordinator.ui.views.experiments import Pager
from yardstick.api.limits import INT4_MAX

router = APIRouter()

PER_PAGE = 50


@router.get("/datasets", response_class=HTMLResponse)
async def datasets_page(request: Request, ui: UiSessionDep, session: SessionDep) -> HTMLResponse:
    return render(
        request,
        "datasets.html",
        ui=ui,
        section="datasets",
        datasets=await dataset_store.list_datasets(session),
    )


@router.get("/datasets/{name:path}", response_class=HTMLResponse)
async def dataset_page(
    name: str,
    request: Request,
    ui: UiSessionDep,
    session: SessionDep,
    version: Annotated[int | None, Query(ge=1, le=INT4_MAX)] = None,
    diff: Annotated[int | None, Query(ge=1, le=INT4_MAX)] = None,
    page: Annotated[int, Query(ge=1, le=INT4_MAX // PER_PAGE)] = 1,
) -> HTMLResponse:
    dataset = await dataset_store.get_dataset(session, name)
    versions = await dataset_store.list_versions(session, name)
    shown = version or (versions[-1].version if versions else None)
    items_page, changes, pager = None, None, Pager(page=page, per_page=PER_PAGE, total=0)
    if shown is not None:
        _, row = await dataset_store.resolve_version(session, name, shown)
        items_page = await version_items_page(session, row, pager.offset, PER_PAGE)
        pager = Pager(page=page, per_page=PER_PAGE, total=items_page.total)
        if diff is not None and diff != shown:
            _, other = await dataset_store.resolve_version(session, name, diff)
            old, new = (other, row) if other.version < row.version else (row, other)
            changes = (old.version, new.version, await version_diff(session, old, new))

    def url(page_number: int) -> str:
        query = {"version": str(shown) if shown else "", "diff": str(diff) if diff else ""}
        if page_number > 1:
            query["page"] = str(page_number)
        filled = {k: v for k, v in query.items() if v}
        return f"/ui/datasets/{name}" + (f"?{urlencode(filled)}" if filled else "")

    return render(
        request,
        "dataset.html",
        ui=ui,
        section="datasets",
        dataset=dataset,
        versions=versions,
        shown=shown,
        diff=diff,
        items=items_page.items if items_page else [],
        pager_state=pager,
        page_url=url,
        changes=changes,
        compact=lambda value: json.dumps(value, ensure_ascii=False, sort_keys=True)[:160],
    )
