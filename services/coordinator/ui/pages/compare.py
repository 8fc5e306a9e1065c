"""/ui/compare?baseline=A&candidate=B: the verdict, every metric's statistics with its reason,
per-breakdown deltas and the item diff (worst change first), each item expandable side by side."""

from __future__ import annotations

from typing import Annotated, Literal
from urllib.parse import urlencode

from fastapi import APIRouter, Form, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from services.coordinator.comparisons.create import create_comparison
from services.coordinator.comparisons.store.comparisons import latest_comparison
from services.coordinator.comparisons.store.item_diff import item_diff
from services.coordinator.experiments.store import experiments as experiment_store
from services.coordinator.experiments.store import items
from services.coordinator.experiments.store.experiment_refs import experiment_by_ref
from services.coordinator.http.deps import SessionDep
from services.coordinator.ui.session import RunnerDep, UiSessionDep
from services.coordinator.ui.templating import render
from services.coordinator.ui.views.compare import (
    compare_page,
    default_diff_metric,
    diff_metrics,
    lower_is_better,
)
from services.coordinator.ui.views.experiments import Pager
from services.coordinator.ui.views.item import item_page
from shared.analysis import policy_for
from yardstick.api.comparison_config import ComparisonConfig
from yardstick.api.limits import INT4_MAX

router = APIRouter()

PER_PAGE = 50
PICKER_LIMIT = 200


async def _picker(request: Request, ui: UiSessionDep, session: SessionDep) -> HTMLResponse:
    experiments = await experiment_store.aggregated_experiments(session, PICKER_LIMIT)
    return render(request, "compare_pick.html", ui=ui, section="compare", experiments=experiments)


@router.get("/compare", response_class=HTMLResponse)
async def compare(
    request: Request,
    ui: UiSessionDep,
    session: SessionDep,
    baseline: Annotated[str | None, Query(max_length=100)] = None,
    candidate: Annotated[str | None, Query(max_length=100)] = None,
    metric: Annotated[str | None, Query(max_length=100)] = None,
    changed: Literal["", "1"] = "",
    page: Annotated[int, Query(ge=1, le=INT4_MAX // PER_PAGE)] = 1,
) -> HTMLResponse:
    if not baseline or not candidate:
        return await _picker(request, ui, session)
    base = await experiment_by_ref(session, baseline, completed=True)
    cand = await experiment_by_ref(session, candidate, completed=True)
    row = await latest_comparison(session, base.id, cand.id)
    if row is None:
        return render(
            request, "compare_missing.html", ui=ui, section="compare", baseline=base, candidate=cand
        )
    view = compare_page(row.report)
    metrics = diff_metrics(row.report)
    chosen = metric if metric in metrics else default_diff_metric(row.report, metrics)
    pager = Pager(page=page, per_page=PER_PAGE, total=0)
    diff = None
    if chosen:
        diff = await item_diff(
            session,
            base.id,
            cand.id,
            chosen,
            lower_is_better=lower_is_better(row.report, chosen),
            offset=pager.offset,
            limit=PER_PAGE,
            only_changed=changed == "1",
        )
        pager = Pager(page=page, per_page=PER_PAGE, total=diff.total)

    def url(page_number: int) -> str:
        query = {"baseline": base.id, "candidate": cand.id, "metric": chosen or "", "changed": changed}
        if page_number > 1:
            query["page"] = str(page_number)
        return "/ui/compare?" + urlencode({k: v for k, v in query.items() if v})

    return render(
        request,
        "compare.html",
        ui=ui,
        section="compare",
        view=view,
        comparison=row,
        baseline=base,
        candidate=cand,
        diff=diff,
        metric=chosen,
        metrics=metrics,
        changed=changed,
        pager_state=pager,
        page_url=url,
        lower_is_better=lower_is_better(row.report, chosen) if chosen else False,
    )


@router.post("/compare")
async def run_compare(
    ui: RunnerDep,
    session: SessionDep,
    baseline: Annotated[str, Form(max_length=100)],
    candidate: Annotated[str, Form(max_length=100)],
    alpha: Annotated[float, Form(gt=0, lt=1)] = 0.05,
    gate: Annotated[Literal["point", "ci"], Form()] = "point",
) -> Response:
    """Compute (and store) the comparison of two completed experiments, then show it."""
    base = await experiment_by_ref(session, baseline, completed=True)
    cand = await experiment_by_ref(session, candidate, completed=True)
    await create_comparison(session, base.id, cand.id, ComparisonConfig(alpha=alpha, gate=gate))
    await session.commit()
    return RedirectResponse(
        "/ui/compare?" + urlencode({"baseline": base.id, "candidate": cand.id}), status_code=303
    )


@router.get("/compare/item", response_class=HTMLResponse)
async def compare_item(
    request: Request,
    ui: UiSessionDep,
    session: SessionDep,
    baseline: Annotated[str, Query(max_length=100)],
    candidate: Annotated[str, Query(max_length=100)],
    item: Annotated[str, Query(max_length=200)],
    trial: Annotated[int, Query(ge=0, le=INT4_MAX)] = 0,
) -> HTMLResponse:
    """Both sides of one item, side by side (loaded when a row of the item diff is opened)."""
    sides = []
    for ref in (baseline, candidate):
        experiment = await experiment_by_ref(session, ref, completed=True)
        policy = policy_for(experiment.config)
        found = await items.items_page(
            session, experiment.id, offset=0, limit=1000, item_id=item, policy=policy
        )
        match = [i for i in found.items if i.trial == trial]
        sides.append((experiment, item_page(match[0], policy, None, None) if match else None))
    return render(request, "compare_item.html", ui=ui, sides=sides)
