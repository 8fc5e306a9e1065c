"""/ui/experiments/{id}/items/{item_id}: one item's transcript, outputs and scores (with a trial selector)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse

from services.coordinator.errors import CoordinatorError
from services.coordinator.experiments.store import items
from services.coordinator.experiments.store.experiment_refs import experiment_by_ref
from services.coordinator.http.deps import SessionDep
from services.coordinator.ui.session import UiSessionDep
from services.coordinator.ui.templating import render
from services.coordinator.ui.views.item import item_page
from services.coordinator.ui.views.items_table import scored_item
from shared.analysis import policy_for
from yardstick.api.limits import INT4_MAX

router = APIRouter()


class ItemNotFound(CoordinatorError):
    status_code = 404


@router.get("/experiments/{experiment_id}/items/{item_id:path}", response_class=HTMLResponse)
async def item_detail(
    experiment_id: str,
    item_id: str,
    request: Request,
    ui: UiSessionDep,
    session: SessionDep,
    trial: Annotated[int, Query(ge=0, le=INT4_MAX)] = 0,
) -> HTMLResponse:
    experiment = await experiment_by_ref(session, experiment_id)
    experiment_id = experiment.id  # a name resolved to its newest run
    policy = policy_for(experiment.config)
    found = await items.items_page(
        session, experiment_id, offset=0, limit=1000, item_id=item_id, policy=policy
    )
    by_trial = {i.trial: i for i in found.items}
    if trial not in by_trial:
        raise ItemNotFound(
            f"Experiment {experiment.name!r} has no item {item_id!r} (trial {trial}). Its page lists its "
            f"items: /ui/experiments/{experiment.id}"
        )
    usage, worker = await items.usage_and_worker(session, experiment_id, item_id, trial)
    item = by_trial[trial]
    scored = scored_item(item)
    return render(
        request,
        "item.html",
        ui=ui,
        section="experiments",
        experiment=experiment,
        page=item_page(item, policy, usage, worker),
        trials=sorted(by_trial),
        trial=trial,
        outcome=policy.outcome(scored),
        reasons=policy.reasons(scored),
    )
