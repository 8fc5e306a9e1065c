"""/ui/experiments/{id}/items/{item_id}: one item's transcript, outputs and scores (with a trial selector)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse
from sqlalchemy import select

from services.coordinator.api.deps import SessionDep
from services.coordinator.errors import CoordinatorError
from services.coordinator.schemas import INT4_MAX
from services.coordinator.store import items
from services.coordinator.ui.experiment_refs import experiment_by_ref
from services.coordinator.ui.session import UiSessionDep
from services.coordinator.ui.templating import render
from services.coordinator.ui.views.item import item_page
from services.coordinator.ui.views.items_table import scored_item
from shared.analysis.pass_rule import policy_for
from shared.db.models import ExperimentItem

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
    row = (
        await session.execute(
            select(ExperimentItem.usage, ExperimentItem.worker_id).where(
                ExperimentItem.experiment_id == experiment_id,
                ExperimentItem.item_id == item_id,
                ExperimentItem.trial == trial,
            )
        )
    ).one()
    item = by_trial[trial]
    scored = scored_item(item)
    return render(
        request,
        "item.html",
        ui=ui,
        section="experiments",
        experiment=experiment,
        page=item_page(item, policy, row.usage, row.worker_id),
        trials=sorted(by_trial),
        trial=trial,
        outcome=policy.outcome(scored),
        reasons=policy.reasons(scored),
    )
