"""Experiments in Postgres: the rows of an experiment and its items written (creation's steps, a
status change), looked up and listed. What a creation does and which status changes are allowed is
decided by the ``experiments.lifecycle`` package."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from sqlalchemy import ColumnElement, CursorResult, delete, func, insert, join, literal, select, true, update
from sqlalchemy.ext.asyncio import AsyncSession

from services.coordinator.errors import ExperimentNotFound
from shared.db.models import (
    Comparison,
    Dataset,
    DatasetItem,
    DatasetVersion,
    Experiment,
    ExperimentItem,
)
from yardstick.api.experiment_status import ExperimentStatus
from yardstick.api.experiments import ExperimentOut, Progress


async def latest_completed_named(session: AsyncSession, name: str) -> str | None:
    """The id of the newest completed experiment of this name."""
    stmt = (
        select(Experiment.id)
        .where(Experiment.name == name, Experiment.status == ExperimentStatus.COMPLETED)
        .order_by(Experiment.completed_at.desc())
        .limit(1)
    )
    return (await session.execute(stmt)).scalar_one_or_none()


def _filter_clause(item_filter: dict[str, Any], item_ids: list[str] | None = None) -> list[Any]:
    clauses = []
    for key, wanted in item_filter.items():
        values = wanted if isinstance(wanted, list) else [wanted]
        clauses.append(DatasetItem.item_metadata[key].astext.in_([str(v) for v in values]))
    if item_ids:
        clauses.append(DatasetItem.item_id.in_(item_ids))
    return clauses


async def missing_item_ids(session: AsyncSession, version_id: str, item_ids: list[str]) -> list[str]:
    """The ids in ``item_ids`` that the dataset version does not have, in their order."""
    found = set(
        (
            await session.execute(
                select(DatasetItem.item_id).where(
                    DatasetItem.version_id == version_id, DatasetItem.item_id.in_(item_ids)
                )
            )
        ).scalars()
    )
    return [i for i in item_ids if i not in found]


async def count_matching_items(
    session: AsyncSession, version_id: str, item_filter: dict[str, Any], item_ids: list[str] | None
) -> int:
    matching = select(func.count()).where(
        DatasetItem.version_id == version_id, *_filter_clause(item_filter, item_ids)
    )
    return int((await session.execute(matching)).scalar_one())


async def insert_experiment(session: AsyncSession, experiment: Experiment) -> Experiment:
    """Store the row (its id is set on return)."""
    session.add(experiment)
    await session.flush()
    return experiment


async def snapshot_items(
    session: AsyncSession,
    experiment_id: str,
    version_id: str,
    *,
    item_filter: dict[str, Any],
    item_ids: list[str] | None,
    repetitions: int,
) -> int:
    """Copy the version's matching items into the experiment, once per trial, pending, in one
    statement; returns how many (item, trial) rows it stored."""
    # every item once per trial: an explicit cross join with generate_series(0, repetitions - 1)
    trials = func.generate_series(0, repetitions - 1).table_valued("trial_no").render_derived("trials")
    source = (
        select(
            literal(experiment_id),
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
        .where(DatasetItem.version_id == version_id, *_filter_clause(item_filter, item_ids))
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
    return int(result.rowcount or 0)


async def set_status(
    session: AsyncSession,
    experiment_id: str,
    status: ExperimentStatus,
    *,
    where: Collection[ExperimentStatus],
    only_if: Sequence[ColumnElement[bool]] = (),
    **values: Any,
) -> bool:
    """Change the status (and set ``values``) only while it is one of ``where`` and ``only_if`` holds,
    in one statement, so that of two racing changes one applies; True if it changed."""
    changed = (
        await session.execute(
            update(Experiment)
            .where(Experiment.id == experiment_id, Experiment.status.in_(list(where)), *only_if)
            .values(status=status, **values)
            .returning(Experiment.id)
        )
    ).scalar_one_or_none()
    return changed is not None


async def experiment_ids(
    session: AsyncSession, statuses: Collection[ExperimentStatus], only_if: Sequence[ColumnElement[bool]] = ()
) -> list[str]:
    stmt = select(Experiment.id).where(Experiment.status.in_(list(statuses)), *only_if)
    return list((await session.execute(stmt)).scalars())


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


async def code_fingerprints(session: AsyncSession, experiment_id: str) -> list[str]:
    """The fingerprints of the task code that produced the experiment's outputs (python targets), sorted;
    more than one: its results came from different code."""
    stmt = (
        select(ExperimentItem.code_fingerprint)
        .where(ExperimentItem.experiment_id == experiment_id, ExperimentItem.code_fingerprint.is_not(None))
        .distinct()
    )
    return sorted(str(f) for f in (await session.execute(stmt)).scalars())


async def experiment_out(session: AsyncSession, row: Experiment) -> ExperimentOut:
    dataset = await session.get(Dataset, row.dataset_id)
    version = await session.get(DatasetVersion, row.version_id)
    running = (ExperimentStatus.RUNNING, ExperimentStatus.CANCELLED)  # a cancelled one may have tasks out
    flying = await in_flight(session, row.id) if row.status in running else 0
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
        status=row.status,
        dataset=dataset.name if dataset else "?",
        dataset_version=version.version if version else 0,
        target=row.config.target,
        concurrency=row.config.concurrency,
        max_cost=row.config.max_cost,
        progress=Progress(
            total=row.total,
            done=row.done,
            errors=row.errors,
            in_flight=flying,
            pending=row.total - row.done - flying,
            cache_hits=row.cache_hits,
            judge_cache_hits=row.judge_cache_hits,
            throttled=row.throttled,
            target_concurrency=row.target_concurrency,
        ),
        aggregates=row.aggregates,
        baseline_id=row.baseline_id,
        error=row.error,
        comparison_id=comparison.id if comparison else None,
        regression=comparison.regression if comparison else None,
        metadata=row.config.metadata,
        rescored_from=row.config.rescored_from,
        code_fingerprints=await code_fingerprints(session, row.id),
        created_at=row.created_at,
        started_at=row.started_at,
        completed_at=row.completed_at,
    )


def _experiments_filter(
    stmt: Any,
    name: str | None,
    dataset: str | None,
    status: ExperimentStatus | None,
    name_contains: str | None,
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
    status: ExperimentStatus | None = None,
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
    status: ExperimentStatus | None = None,
    name_contains: str | None = None,
) -> int:
    stmt = _experiments_filter(
        select(func.count()).select_from(Experiment), None, dataset, status, name_contains
    )
    return int((await session.execute(stmt)).scalar_one())


async def delete_experiment_rows(session: AsyncSession, experiment_id: str) -> None:
    """Delete an experiment (its items and scores go with it, ``ON DELETE CASCADE``); an experiment
    that named it as its baseline keeps its scores and loses the link. When is decided by
    ``experiments.lifecycle.delete_experiment``."""
    await session.execute(
        update(Experiment).where(Experiment.baseline_id == experiment_id).values(baseline_id=None)
    )
    await session.execute(delete(Experiment).where(Experiment.id == experiment_id))


async def aggregated_experiments(session: AsyncSession, limit: int) -> list[Experiment]:
    """The newest experiments that have aggregates (what can be compared), newest first."""
    stmt = (
        select(Experiment)
        .where(Experiment.status.in_([s for s in ExperimentStatus if s.aggregated]))
        .order_by(Experiment.created_at.desc())
        .limit(limit)
    )
    return list((await session.execute(stmt)).scalars())
