"""What went wrong in an experiment: failures grouped by source (target, evaluator, platform) and
type, an evaluator's also by name and version, each with its most frequent message; then the items
whose scores fail their pass criterion, worst first (the one pass rule decides what fails)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, Select, String, cast, func, null, select, union_all
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import QueryableAttribute

from services.coordinator.experiments.store.items import fails
from shared.analysis import PassPolicy
from shared.db.models import ExperimentItem, Score
from yardstick.api.experiments import ErrorGroup, ExperimentFailures, FailingScore

EXAMPLES_PER_GROUP = 3
NO_MESSAGE = "(no message)"


def _field(failure: QueryableAttribute[Any], key: str) -> ColumnElement[str | None]:
    return func.jsonb_extract_path_text(failure, key)


def _grouped(
    failed: Select[str, str | None],
    failure: QueryableAttribute[Any],
    error: QueryableAttribute[Any],
    default: str,
) -> Select[Any]:
    """The ``failed`` rows (selecting ``item_id`` and ``evaluator``) grouped by source, type and
    evaluator (with its version), each group with its most frequent message. A row of the previous
    version (an ``error``, no ``failure``) counts as source ``default`` with type ``Error``."""
    rows = failed.add_columns(
        func.coalesce(_field(failure, "source"), default).label("source"),
        func.coalesce(_field(failure, "type"), "Error").label("type"),
        _field(failure, "evaluator_version").label("evaluator_version"),
        func.coalesce(_field(failure, "message"), error, NO_MESSAGE).label("message"),
    ).subquery()
    return select(
        rows.c.source,
        rows.c.type,
        rows.c.evaluator,
        rows.c.evaluator_version,
        func.mode().within_group(rows.c.message).label("message"),
        func.count().label("count"),
        func.array_agg(rows.c.item_id.distinct()).label("item_ids"),
    ).group_by(rows.c.source, rows.c.type, rows.c.evaluator, rows.c.evaluator_version)


async def error_groups(session: AsyncSession, experiment_id: str, limit: int) -> list[ErrorGroup]:
    """Every failure, grouped by source and type (an evaluator's also by name and version), largest
    group first: the items whose target call failed or the platform did not run, and every score an
    evaluator failed to give."""
    failed_items = select(ExperimentItem.item_id, cast(null(), String).label("evaluator")).where(
        ExperimentItem.experiment_id == experiment_id, ExperimentItem.status == "error"
    )
    items = _grouped(failed_items, ExperimentItem.failure, ExperimentItem.error, "target")
    failed_scores = select(
        Score.item_id, func.coalesce(_field(Score.failure, "evaluator"), Score.name).label("evaluator")
    ).where(Score.experiment_id == experiment_id, Score.failure.is_not(None) | Score.error.is_not(None))
    scores = _grouped(failed_scores, Score.failure, Score.error, "evaluator")
    both = union_all(items, scores).subquery()
    rows = await session.execute(
        select(both).order_by(both.c.count.desc(), both.c.source, both.c.type, both.c.evaluator).limit(limit)
    )
    return [
        ErrorGroup(
            source=r.source,
            type=r.type,
            evaluator=r.evaluator,
            evaluator_version=r.evaluator_version,
            message=r.message,
            count=r.count,
            example_item_ids=sorted(r.item_ids)[:EXAMPLES_PER_GROUP],
        )
        for r in rows
    ]


async def failing_scores(
    session: AsyncSession, experiment_id: str, policy: PassPolicy, limit: int
) -> list[FailingScore]:
    """Scores of ok items that fail their metric's criterion, worst first within each metric."""
    metrics = (
        await session.execute(
            select(Score.name).where(Score.experiment_id == experiment_id).distinct().order_by(Score.name)
        )
    ).scalars()
    out: list[FailingScore] = []
    for metric in metrics:
        criterion = policy.criterion(metric)
        if not criterion.gates or len(out) >= limit:
            continue
        worst_first = Score.value.desc() if criterion.direction == "lower_is_better" else Score.value.asc()
        rows = await session.execute(
            select(Score.item_id, Score.trial, Score.value, Score.comment)
            .join(
                ExperimentItem,
                (ExperimentItem.experiment_id == Score.experiment_id)
                & (ExperimentItem.item_id == Score.item_id)
                & (ExperimentItem.trial == Score.trial),
            )
            .where(
                Score.experiment_id == experiment_id,
                Score.name == metric,
                ExperimentItem.status == "ok",
                fails(criterion, Score.value),
            )
            .order_by(worst_first, ExperimentItem.position, Score.trial)
            .limit(limit - len(out))
        )
        out += [
            FailingScore(
                item_id=r.item_id,
                trial=r.trial,
                metric=metric,
                value=r.value,
                criterion=criterion.describe(),
                comment=r.comment,
            )
            for r in rows
        ]
    return out


async def experiment_failures(
    session: AsyncSession, experiment_id: str, policy: PassPolicy, limit: int
) -> ExperimentFailures:
    return ExperimentFailures(
        errors=await error_groups(session, experiment_id, limit),
        failing=await failing_scores(session, experiment_id, policy, limit),
    )
