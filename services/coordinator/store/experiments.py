"""Experiments in Postgres: creation (with the dataset snapshot), lookup, listing, item pages."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import CursorResult, func, insert, join, literal, select, true
from sqlalchemy.ext.asyncio import AsyncSession

from services.coordinator.errors import (
    BaselineNotFound,
    ExperimentNotFound,
    TooManyTasks,
    UnknownEvaluatorError,
    UnknownItems,
)
from services.coordinator.schemas import (
    ExperimentCreate,
    ExperimentOut,
    Progress,
)
from services.coordinator.store.datasets import resolve_version
from services.coordinator.store.evaluator_validation import validate_evaluators
from services.coordinator.store.output_cache import attach_cached_outputs
from shared.contracts.evaluation import EvaluatorSpec
from shared.contracts.evaluator_catalog import WorkerEvaluators
from shared.contracts.experiment_config import ExperimentConfig, ExperimentSettings
from shared.db.base import utcnow
from shared.db.models import (
    Comparison,
    Dataset,
    DatasetItem,
    DatasetVersion,
    Experiment,
    ExperimentItem,
)

DEFAULT_EVALUATORS: dict[str, tuple[list[str], list[str]]] = {
    # The reference-free ones are those the sampler scores live traffic with, so the last offline
    # experiment is a drift reference for each of them.
    "drive_thru": (
        [
            "order_correctness",
            "tool_call_accuracy",
            "no_hallucinated_items",
            "tool_call_protocol",
            "finalize_after_confirmation",
        ],
        ["avg_order_correctness", "score_breakdown"],
    ),
    "retrieval": (["retrieval"], ["score_breakdown"]),
    "conversation": (
        [
            "final_order_correctness",
            "turn_order_accuracy",
            "finalized_as_expected",
            "readback_before_finalize",
            "tool_call_protocol",
            "no_hallucinated_items",
        ],
        ["score_breakdown"],
    ),
    "rag": (
        [
            "citation_recall",
            "hallucination_rate",
            "entity_recall",
            "faithfulness",
            "citation_precision",
            "answer_relevancy",
        ],
        ["score_breakdown"],
    ),
    "trajectory": (
        [
            "trajectory_match",
            "mandatory_tools_check",
            "forbidden_tools_check",
            "trajectory_pass",
            "trajectory_similarity",
        ],
        ["score_breakdown"],
    ),
}


_BY_TARGET = {"agent": "drive_thru", "search": "retrieval", "answer": "rag"}
_GOLDEN_KINDS = ("retrieval", "rag")


def _defaults(kind: str, target_kind: str) -> tuple[list[EvaluatorSpec], list[EvaluatorSpec]]:
    """The dataset kind's defaults; a golden set (retrieval or rag) serves both the search and the
    answer target, so there the target decides: ranking metrics for search, answer metrics for answer."""
    if kind in _GOLDEN_KINDS and target_kind in ("search", "answer"):
        key = _BY_TARGET[target_kind]
    else:
        key = kind if kind in DEFAULT_EVALUATORS else _BY_TARGET.get(target_kind, "")
    items, runs = DEFAULT_EVALUATORS.get(key, ([], []))
    return [EvaluatorSpec(name=n) for n in items], [EvaluatorSpec(name=n) for n in runs]


async def _resolve_baseline(session: AsyncSession, body: ExperimentCreate) -> str | None:
    if body.baseline_id:
        if await session.get(Experiment, body.baseline_id) is None:
            raise BaselineNotFound(f"baseline experiment {body.baseline_id!r} not found")
        return body.baseline_id
    if body.baseline_name:
        stmt = (
            select(Experiment.id)
            .where(Experiment.name == body.baseline_name, Experiment.status == "completed")
            .order_by(Experiment.completed_at.desc())
            .limit(1)
        )
        found = (await session.execute(stmt)).scalar_one_or_none()
        if found is None:
            raise BaselineNotFound(f"no completed experiment named {body.baseline_name!r} to use as baseline")
        return found
    return None


def _filter_clause(item_filter: dict[str, Any], item_ids: list[str] | None = None) -> list[Any]:
    clauses = []
    for key, wanted in item_filter.items():
        values = wanted if isinstance(wanted, list) else [wanted]
        clauses.append(DatasetItem.item_metadata[key].astext.in_([str(v) for v in values]))
    if item_ids:
        clauses.append(DatasetItem.item_id.in_(item_ids))
    return clauses


async def _check_item_ids(session: AsyncSession, version_id: str, item_ids: list[str], dataset: str) -> None:
    """Every requested id exists in the version (a typo is a 422, not an empty run)."""
    found = set(
        (
            await session.execute(
                select(DatasetItem.item_id).where(
                    DatasetItem.version_id == version_id, DatasetItem.item_id.in_(item_ids)
                )
            )
        ).scalars()
    )
    missing = [i for i in item_ids if i not in found]
    if missing:
        shown = ", ".join(repr(i) for i in missing[:5]) + (" …" if len(missing) > 5 else "")
        raise UnknownItems(f"dataset {dataset!r} has no item {shown} in this version: check the ids")


async def create_experiment(
    session: AsyncSession,
    body: ExperimentCreate,
    max_tasks: int | None = None,
    fleet: Sequence[WorkerEvaluators] | None = None,
) -> Experiment:
    """Validate references (item-level evaluators against ``fleet``, the running workers' evaluators,
    when given), store the experiment and snapshot its (item, trial) rows in one statement; with
    the output cache on, items with a fresh cached output carry it (their target is not called)."""
    dataset, version = await resolve_version(session, body.dataset, body.dataset_version)
    default_items, default_runs = _defaults(dataset.kind, body.target.kind)
    evaluators = body.evaluators if body.evaluators is not None else default_items
    run_evaluators = body.run_evaluators if body.run_evaluators is not None else default_runs
    if not evaluators:
        raise UnknownEvaluatorError(
            "no evaluators given and the dataset kind has no defaults; pass 'evaluators'"
        )
    metric_specs = validate_evaluators(evaluators, run_evaluators, fleet)
    baseline_id = await _resolve_baseline(session, body)
    if body.item_ids:
        await _check_item_ids(session, version.id, body.item_ids, body.dataset)
    if max_tasks is not None:
        matching = select(func.count()).where(
            DatasetItem.version_id == version.id, *_filter_clause(body.item_filter, body.item_ids)
        )
        tasks = int((await session.execute(matching)).scalar_one()) * body.repetitions
        if tasks > max_tasks:
            raise TooManyTasks(
                f"{tasks} tasks ({tasks // body.repetitions} items x {body.repetitions} repetitions) is more "
                f"than this coordinator's limit of {max_tasks}: filter the items, use fewer repetitions, "
                "or raise MAX_TASKS_PER_EXPERIMENT"
            )
    config = ExperimentConfig(
        **body.model_dump(include=set(ExperimentSettings.model_fields)),
        evaluators=evaluators,
        run_evaluators=run_evaluators,
        metric_specs=metric_specs,
    )
    experiment = Experiment(
        name=body.name,
        dataset_id=dataset.id,
        version_id=version.id,
        status="running",
        config=config,
        baseline_id=baseline_id,
        started_at=utcnow(),
    )
    session.add(experiment)
    await session.flush()
    # every item once per trial: an explicit cross join with generate_series(0, repetitions - 1)
    trials = func.generate_series(0, body.repetitions - 1).table_valued("trial_no").render_derived("trials")
    source = (
        select(
            literal(experiment.id),
            DatasetItem.item_id,
            trials.c.trial_no,
            DatasetItem.position,
            literal("pending"),
            DatasetItem.input,
            DatasetItem.expected_output,
            DatasetItem.item_metadata,
            literal(0),
        )
        .select_from(join(DatasetItem, trials, true()))
        .where(DatasetItem.version_id == version.id, *_filter_clause(body.item_filter, body.item_ids))
    )
    insert_stmt = insert(ExperimentItem).from_select(
        [
            "experiment_id",
            "item_id",
            "trial",
            "position",
            "status",
            "input",
            "expected_output",
            "metadata",
            "attempts",
        ],
        source,
    )
    result: CursorResult[Any] = await session.execute(insert_stmt)  # type: ignore[assignment]
    experiment.total = int(result.rowcount or 0)
    if experiment.total == 0:
        experiment.status = "failed"
        experiment.error = (
            f"no items matched: dataset {body.dataset!r} v{version.version}, filter {body.item_filter}"
        )
    elif config.cache is not None:
        experiment.cache_hits = await attach_cached_outputs(session, experiment.id, config)
    return experiment


async def get_experiment(session: AsyncSession, experiment_id: str) -> Experiment:
    row = await session.get(Experiment, experiment_id)
    if row is None:
        raise ExperimentNotFound(f"experiment {experiment_id!r} not found")
    return row


async def in_flight(session: AsyncSession, experiment_id: str) -> int:
    stmt = select(func.count()).where(
        ExperimentItem.experiment_id == experiment_id, ExperimentItem.status == "dispatched"
    )
    return int((await session.execute(stmt)).scalar_one())


async def experiment_out(session: AsyncSession, row: Experiment) -> ExperimentOut:
    dataset = await session.get(Dataset, row.dataset_id)
    version = await session.get(DatasetVersion, row.version_id)
    flying = await in_flight(session, row.id) if row.status in ("running", "cancelled") else 0
    comparison = (
        await session.execute(
            select(Comparison)
            .where(Comparison.candidate_id == row.id)
            .order_by(Comparison.created_at.desc())
            .limit(1)
        )
    ).scalar_one_or_none()
    return ExperimentOut(
        id=row.id,
        name=row.name,
        status=row.status,  # type: ignore[arg-type]
        dataset=dataset.name if dataset else "?",
        dataset_version=version.version if version else 0,
        target=row.config.target,
        concurrency=row.config.concurrency,
        progress=Progress(
            total=row.total,
            done=row.done,
            errors=row.errors,
            in_flight=flying,
            pending=row.total - row.done - flying,
            cache_hits=row.cache_hits,
        ),
        aggregates=row.aggregates,
        baseline_id=row.baseline_id,
        error=row.error,
        comparison_id=comparison.id if comparison else None,
        regression=comparison.regression if comparison else None,
        metadata=row.config.metadata,
        rescored_from=row.config.rescored_from,
        created_at=row.created_at,
        started_at=row.started_at,
        completed_at=row.completed_at,
    )


def _experiments_filter(
    stmt: Any, name: str | None, dataset: str | None, status: str | None, name_contains: str | None
) -> Any:
    if name:
        stmt = stmt.where(Experiment.name == name)
    if name_contains:
        escaped = name_contains.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        stmt = stmt.where(Experiment.name.ilike(f"%{escaped}%"))
    if dataset:
        stmt = stmt.join(Dataset, Dataset.id == Experiment.dataset_id).where(Dataset.name == dataset)
    if status:
        stmt = stmt.where(Experiment.status == status)
    return stmt


async def list_experiments(
    session: AsyncSession,
    name: str | None,
    limit: int,
    *,
    dataset: str | None = None,
    status: str | None = None,
    offset: int = 0,
    name_contains: str | None = None,
) -> list[Experiment]:
    """Newest first; ``name`` and ``dataset`` match exactly, ``name_contains`` any part of the name."""
    stmt = (
        select(Experiment).order_by(Experiment.created_at.desc(), Experiment.id).offset(offset).limit(limit)
    )
    stmt = _experiments_filter(stmt, name, dataset, status, name_contains)
    return list((await session.execute(stmt)).scalars().all())


async def count_experiments(
    session: AsyncSession,
    *,
    dataset: str | None = None,
    status: str | None = None,
    name_contains: str | None = None,
) -> int:
    stmt = _experiments_filter(
        select(func.count()).select_from(Experiment), None, dataset, status, name_contains
    )
    return int((await session.execute(stmt)).scalar_one())
