"""``POST /experiments/{id}/rescore``: a new experiment scoring a finished one's stored outputs."""

from __future__ import annotations

from fastapi import APIRouter, Depends

from services.coordinator.experiments.api.experiments import accepted
from services.coordinator.experiments.lifecycle import create_rescore
from services.coordinator.experiments.submission.evaluator_fleet import fleet_evaluators
from services.coordinator.http.deps import RuntimeDep, SessionDep, needs, require_api_key
from services.coordinator.http.problems import CONFLICT_RESPONSES, ERROR_RESPONSES
from yardstick.api.experiments import ExperimentAccepted, RescoreCreate
from yardstick.api.roles import Role

router = APIRouter(
    prefix="/experiments",
    tags=["experiments"],
    dependencies=[Depends(require_api_key)],
    responses=ERROR_RESPONSES,
)


@router.post("/{experiment_id}/rescore", status_code=202, responses=CONFLICT_RESPONSES, **needs(Role.RUNNER))
async def rescore(
    experiment_id: str, body: RescoreCreate, session: SessionDep, runtime: RuntimeDep
) -> ExperimentAccepted:
    """Score the stored outputs of a finished experiment again, with these evaluators (default: the
    source's), without calling its target. The new experiment has the same items and trials (compare
    it with its source: `POST /comparisons`) and shows `rescored_from`; items that errored in the
    source stay errors. 409 while the source still runs; 422 for an evaluator a worker lacks."""
    fleet = await fleet_evaluators(runtime.nc, runtime.topology)
    experiment = await create_rescore(session, experiment_id, body, fleet)
    await session.commit()
    runtime.dispatcher.poke()
    return await accepted(runtime, experiment, source=f"/experiments/{experiment_id}")
