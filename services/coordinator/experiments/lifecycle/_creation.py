"""Creating an experiment: a run over a dataset version, or a re-scoring of a finished one; each
step a small function, the two sharing how a new experiment starts and how an empty one fails."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy.ext.asyncio import AsyncSession

from services.coordinator.datasets.store.datasets import resolve_version
from services.coordinator.errors import (
    BaselineNotFound,
    ExperimentNotComplete,
    TooManyTasks,
    UnknownEvaluatorError,
    UnknownItems,
)
from services.coordinator.experiments.lifecycle._transitions import change, either
from services.coordinator.experiments.store import experiments as rows
from services.coordinator.experiments.store.output_cache import attach_cached_outputs
from services.coordinator.experiments.store.rescore import copy_items
from services.coordinator.experiments.submission.evaluator_validation import validate_evaluators
from services.coordinator.experiments.submission.profiles import default_profile
from shared.contracts.evaluator_catalog import WorkerEvaluators
from shared.db.base import utcnow
from shared.db.models import Experiment
from yardstick.api.evaluation import EvaluatorSpec
from yardstick.api.experiment_config import ExperimentConfig, ExperimentSettings
from yardstick.api.experiment_status import INITIAL, ExperimentStatus
from yardstick.api.experiments import ExperimentCreate, RescoreCreate

# ---- creation -------------------------------------------------------------------------------


async def _start(session: AsyncSession, experiment: Experiment) -> Experiment:
    """Store a new experiment in its initial status; its items follow in the same transaction."""
    experiment.status = INITIAL
    experiment.started_at = utcnow()
    return await rows.insert_experiment(session, experiment)


def _fail_if_empty(experiment: Experiment, reason: str) -> None:
    if experiment.total == 0:
        change(experiment, ExperimentStatus.FAILED)
        experiment.error = reason


def _chosen_evaluators(
    body: ExperimentCreate, dataset_kind: str
) -> tuple[list[EvaluatorSpec], list[EvaluatorSpec]]:
    """The body's evaluators, or its dataset's profile where it names none."""
    profile = default_profile(dataset_kind, body.target.kind)
    evaluators = body.evaluators if body.evaluators is not None else profile.item_specs()
    run_evaluators = body.run_evaluators if body.run_evaluators is not None else profile.run_specs()
    if not evaluators:
        raise UnknownEvaluatorError(
            "no evaluators given and the dataset kind has no defaults; pass 'evaluators'"
        )
    return evaluators, run_evaluators


async def _baseline(session: AsyncSession, body: ExperimentCreate) -> str | None:
    if body.baseline_id:
        if await session.get(Experiment, body.baseline_id) is None:
            raise BaselineNotFound(f"baseline experiment {body.baseline_id!r} not found")
        return body.baseline_id
    if body.baseline_name:
        found = await rows.latest_completed_named(session, body.baseline_name)
        if found is None:
            raise BaselineNotFound(f"no completed experiment named {body.baseline_name!r} to use as baseline")
        return found
    return None


async def _interleaved_twin(
    session: AsyncSession,
    body: ExperimentCreate,
    baseline_id: str,
    max_tasks: int | None,
    fleet: Sequence[WorkerEvaluators] | None,
) -> str:
    """With ``interleave``: a new run of the baseline's configuration (target, evaluators, settings)
    over the candidate's items, created beside it so both are dispatched in the same minutes; the
    candidate is compared with it. Returns its id."""
    baseline = await rows.get_experiment(session, baseline_id)
    settings = baseline.config.model_dump(include=set(ExperimentSettings.model_fields))
    twin = ExperimentCreate(
        **settings
        | {
            "item_filter": body.item_filter,
            "item_ids": body.item_ids,
            "repetitions": body.repetitions,
            "interleave": False,
            "max_cost": body.max_cost,
        },
        name=f"{baseline.name}~{body.name}"[:200],
        dataset=body.dataset,
        dataset_version=body.dataset_version,
        evaluators=baseline.config.evaluators,
        run_evaluators=baseline.config.run_evaluators,
    )
    return (await create_experiment(session, twin, max_tasks, fleet)).id


async def _check_item_ids(session: AsyncSession, body: ExperimentCreate, version_id: str) -> None:
    """Every requested id exists in the version (a typo is a 422, not an empty run)."""
    missing = await rows.missing_item_ids(session, version_id, body.item_ids or [])
    if missing:
        shown = ", ".join(repr(i) for i in missing[:5]) + (" …" if len(missing) > 5 else "")
        raise UnknownItems(f"dataset {body.dataset!r} has no item {shown} in this version: check the ids")


async def _check_task_limit(
    session: AsyncSession, body: ExperimentCreate, version_id: str, max_tasks: int
) -> None:
    items = await rows.count_matching_items(session, version_id, body.item_filter, body.item_ids)
    tasks = items * body.repetitions
    if tasks > max_tasks:
        raise TooManyTasks(
            f"{tasks} tasks ({items} items x {body.repetitions} repetitions) is more than this "
            f"coordinator's limit of {max_tasks}: filter the items, use fewer repetitions, "
            "or raise MAX_TASKS_PER_EXPERIMENT"
        )


async def create_experiment(
    session: AsyncSession,
    body: ExperimentCreate,
    max_tasks: int | None = None,
    fleet: Sequence[WorkerEvaluators] | None = None,
) -> Experiment:
    """Validate the references (item-level evaluators against ``fleet``, the running workers'
    evaluators, when given), store the experiment and snapshot its (item, trial) rows; with the
    output cache on, items with a fresh cached output carry it. The caller commits."""
    dataset, version = await resolve_version(session, body.dataset, body.dataset_version)
    evaluators, run_evaluators = _chosen_evaluators(body, dataset.kind)
    metric_specs = validate_evaluators(evaluators, run_evaluators, fleet)
    baseline_id = await _baseline(session, body)
    if body.interleave and baseline_id is not None:  # the body requires a baseline with interleave
        baseline_id = await _interleaved_twin(session, body, baseline_id, max_tasks, fleet)
    if body.item_ids:
        await _check_item_ids(session, body, version.id)
    if max_tasks is not None:
        await _check_task_limit(session, body, version.id, max_tasks)
    config = ExperimentConfig(
        **body.model_dump(include=set(ExperimentSettings.model_fields)),
        evaluators=evaluators,
        run_evaluators=run_evaluators,
        metric_specs=metric_specs,
    )
    experiment = await _start(
        session,
        Experiment(
            name=body.name,
            dataset_id=dataset.id,
            version_id=version.id,
            config=config,
            baseline_id=baseline_id,
        ),
    )
    experiment.total = await rows.snapshot_items(
        session,
        experiment.id,
        version.id,
        item_filter=body.item_filter,
        item_ids=body.item_ids,
        repetitions=body.repetitions,
    )
    _fail_if_empty(
        experiment,
        f"no items matched: dataset {body.dataset!r} v{version.version}, filter {body.item_filter}",
    )
    if experiment.total and config.cache is not None:
        experiment.cache_hits = await attach_cached_outputs(session, experiment.id, config)
    return experiment


async def create_rescore(
    session: AsyncSession,
    source_id: str,
    body: RescoreCreate,
    fleet: Sequence[WorkerEvaluators] | None = None,
) -> Experiment:
    """A new experiment scoring a finished one's stored outputs (``experiments/store/rescore.py`` says how its
    items are copied). The caller commits."""
    source = await rows.get_experiment(session, source_id)
    if not ExperimentStatus(source.status).rescorable:
        finished = either([s for s in ExperimentStatus if s.rescorable])
        raise ExperimentNotComplete(
            f"experiment {source_id!r} is {source.status}: it can be re-scored once it has finished "
            f"({finished})"
        )
    evaluators = body.evaluators if body.evaluators is not None else source.config.evaluators
    run_evaluators = body.run_evaluators if body.run_evaluators is not None else source.config.run_evaluators
    metric_specs = validate_evaluators(evaluators, run_evaluators, fleet)
    config = source.config.model_copy(
        update={
            "evaluators": evaluators,
            "run_evaluators": run_evaluators,
            "metric_specs": metric_specs,
            "rescored_from": source.id,
            "cache": None,
            "judge_cache": body.judge_cache,
        }
    )
    experiment = await _start(
        session,
        Experiment(
            name=body.name or f"{source.name}-rescored",
            dataset_id=source.dataset_id,
            version_id=source.version_id,
            config=config,
        ),
    )
    experiment.total, errors = await copy_items(session, experiment.id, source.id)
    experiment.done = experiment.errors = errors
    _fail_if_empty(experiment, f"source experiment {source_id!r} has no items to re-score")
    return experiment
