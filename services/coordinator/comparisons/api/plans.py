"""Planning: how many items a comparison needs to detect a change of a metric (``POST /plans``)."""

from __future__ import annotations

from fastapi import APIRouter, Depends

from services.coordinator.errors import ExperimentNotComplete, InvalidPlan
from services.coordinator.experiments.store import experiments as experiment_store
from services.coordinator.http.deps import SessionDep, needs, require_api_key
from services.coordinator.http.problems import ERROR_RESPONSES
from shared.analysis import PlanningError, plan_for
from yardstick.api.planning import PlanCreate, PowerPlan
from yardstick.api.roles import Role

router = APIRouter(
    prefix="/plans", tags=["plans"], dependencies=[Depends(require_api_key)], responses=ERROR_RESPONSES
)


@router.post("", **needs(Role.VIEWER))
async def create_plan(body: PlanCreate, session: SessionDep) -> PowerPlan:
    """Pairs needed to detect a change of ``drop`` on ``metric``, from the run's SD (or pass rate for
    0/1 scores) and an assumed correlation between runs; also what the run's own size can detect."""
    row = await experiment_store.get_experiment(session, body.experiment_id)
    aggregates = row.aggregates
    if aggregates is None:
        raise ExperimentNotComplete(f"experiment {body.experiment_id!r} has no results yet ({row.status})")
    aggregate = aggregates.metrics.get(body.metric)
    if aggregate is None:
        raise InvalidPlan(
            f"metric {body.metric!r} is not scored in this run; scored: {sorted(aggregates.metrics)}"
        )
    family = body.family_size or len(aggregates.metrics) + 1 + (aggregates.latency.count > 0)
    try:
        return plan_for(
            body.metric,
            aggregate,
            body.drop,
            alpha=body.alpha,
            power=body.power,
            family_size=family,
            correlation=body.correlation,
        )
    except PlanningError as exc:
        raise InvalidPlan(str(exc)) from exc
