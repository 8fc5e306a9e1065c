"""An experiment's items, a page at a time, with their scores; filters use the one pass rule."""

from __future__ import annotations

from typing import Any, Literal

from sqlalchemy import ColumnElement, String, and_, cast, false, func, or_, select, tuple_
from sqlalchemy.ext.asyncio import AsyncSession

from shared.analysis import PassPolicy
from shared.db.models import ExperimentItem, Score
from shared.db.outcome_rows import stored_evaluation, stored_outcome
from shared.llm.prices import configured_prices, item_usage_rows, spend_of
from yardstick.api.evaluation import Evaluation
from yardstick.api.experiments import ExperimentItemOut, ItemsPage
from yardstick.api.pass_criteria import PassCriterion
from yardstick.api.spend import PriceTable, Spend

ItemStatus = Literal["ok", "error"]


def fails(criterion: PassCriterion, value: Any) -> ColumnElement[bool]:
    """SQL: ``value`` fails ``criterion`` (``PassCriterion.passes`` is False). NULL is not measured,
    not failing; an informational metric never fails."""
    if criterion.threshold is None:
        return false()
    if criterion.direction == "lower_is_better":
        return value > criterion.threshold  # type: ignore[no-any-return]
    return value < criterion.threshold  # type: ignore[no-any-return]


async def items_page(
    session: AsyncSession,
    experiment_id: str,
    *,
    offset: int,
    limit: int,
    category: str | None = None,
    failing: str | None = None,
    status: ItemStatus | None = None,
    policy: PassPolicy,
    metadata: tuple[str, str] | None = None,
    search: str | None = None,
    item_id: str | None = None,
    sort: str | None = None,
    descending: bool = False,
) -> ItemsPage:
    """Items in dataset order, or by the score ``sort`` (unmeasured last). ``failing=METRIC``: ok
    items whose METRIC score fails its pass criterion (an item without a value for it was not
    measured, so it is not listed). ``metadata=(key, value)``: items whose metadata[key] is value;
    ``search``: text found in the item id, input, output or error (case-insensitive)."""
    stmt = select(ExperimentItem).where(ExperimentItem.experiment_id == experiment_id)
    if category:
        stmt = stmt.where(ExperimentItem.item_metadata["category"].astext == category)
    if metadata:
        stmt = stmt.where(ExperimentItem.item_metadata[metadata[0]].astext == metadata[1])
    if item_id is not None:
        stmt = stmt.where(ExperimentItem.item_id == item_id)
    if search:
        pattern = "%" + search.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
        stmt = stmt.where(
            or_(
                ExperimentItem.item_id.ilike(pattern),
                cast(ExperimentItem.input, String).ilike(pattern),
                cast(ExperimentItem.output, String).ilike(pattern),
                ExperimentItem.error.ilike(pattern),
            )
        )
    if status:
        stmt = stmt.where(ExperimentItem.status == status)
    if failing:
        failing_keys = select(Score.item_id, Score.trial).where(
            Score.experiment_id == experiment_id,
            Score.name == failing,
            fails(policy.criterion(failing), Score.value),
        )
        stmt = stmt.where(
            ExperimentItem.status == "ok",
            tuple_(ExperimentItem.item_id, ExperimentItem.trial).in_(failing_keys),
        )
    total = int((await session.execute(select(func.count()).select_from(stmt.subquery()))).scalar_one())
    if sort:
        sort_score = Score.__table__.alias("sort_score")
        stmt = stmt.outerjoin(
            sort_score,
            and_(
                sort_score.c.experiment_id == experiment_id,
                sort_score.c.item_id == ExperimentItem.item_id,
                sort_score.c.trial == ExperimentItem.trial,
                sort_score.c.name == sort,
            ),
        )
        key = sort_score.c.value.desc().nulls_last() if descending else sort_score.c.value.asc().nulls_last()
        stmt = stmt.order_by(key)
    page = stmt.order_by(ExperimentItem.position, ExperimentItem.trial).offset(offset).limit(limit)
    rows = (await session.execute(page)).scalars().all()
    scores: dict[tuple[str, int], list[Evaluation]] = {}
    if rows:
        keys = [(r.item_id, r.trial) for r in rows]
        score_rows = await session.execute(
            select(Score).where(
                Score.experiment_id == experiment_id, tuple_(Score.item_id, Score.trial).in_(keys)
            )
        )
        for s in score_rows.scalars():
            scores.setdefault((s.item_id, s.trial), []).append(stored_evaluation(s))
    prices = configured_prices() if rows else None
    return ItemsPage(
        items=[
            ExperimentItemOut(
                **dict(stored_outcome(r, scores.get((r.item_id, r.trial), []))),
                item_id=r.item_id,
                trial=r.trial,
                status=r.status,
                input=r.input,
                expected_output=r.expected_output,
                metadata=r.item_metadata,
                attempts=r.attempts,
                spend=_item_spend(r, scores.get((r.item_id, r.trial), []), prices),
            )
            for r in rows
        ],
        total=total,
        offset=offset,
        limit=limit,
    )


def _item_spend(row: ExperimentItem, scores: list[Evaluation], prices: PriceTable | None) -> Spend | None:
    """The item's spend; None when it made no LLM call that reported usage."""
    usage_rows = item_usage_rows(row.usage, row.recorded is None, scores)
    if not usage_rows or prices is None:
        return None
    return spend_of(usage_rows, prices)


async def usage_and_worker(
    session: AsyncSession, experiment_id: str, item_id: str, trial: int
) -> tuple[dict[str, Any] | None, str | None]:
    """One item's recorded token usage and the eval worker that ran it."""
    row = (
        await session.execute(
            select(ExperimentItem.usage, ExperimentItem.worker_id).where(
                ExperimentItem.experiment_id == experiment_id,
                ExperimentItem.item_id == item_id,
                ExperimentItem.trial == trial,
            )
        )
    ).one()
    return row.usage, row.worker_id
