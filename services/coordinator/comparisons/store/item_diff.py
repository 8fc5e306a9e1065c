"""The item-level diff of two experiments on one metric: pairs by (item_id, trial), ordered so
the worst changes come first. Computed in PostgreSQL, one page at a time."""

from __future__ import annotations

from pydantic import BaseModel
from sqlalchemy import and_, func, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased

from shared.db.models import ExperimentItem, Score


class ItemChange(BaseModel):
    item_id: str
    trial: int
    baseline: float | None
    candidate: float | None
    delta: float | None
    baseline_status: str
    candidate_status: str
    baseline_error: str | None
    candidate_error: str | None


class ItemDiffPage(BaseModel):
    metric: str
    changes: list[ItemChange]
    total: int
    changed: int


async def item_diff(
    session: AsyncSession,
    baseline_id: str,
    candidate_id: str,
    metric: str,
    *,
    lower_is_better: bool,
    offset: int,
    limit: int,
    only_changed: bool = False,
) -> ItemDiffPage:
    """Matched items with both values of ``metric``; worst change first (a drop for higher-is-better
    metrics, a rise for lower-is-better), then items where either side errored or was not measured."""
    b, c = aliased(ExperimentItem), aliased(ExperimentItem)
    bs, cs = Score.__table__.alias("bs"), Score.__table__.alias("cs")
    delta = cs.c.value - bs.c.value
    stmt = (
        select(b.item_id, b.trial, bs.c.value, cs.c.value, delta, b.status, c.status, b.error, c.error)
        .select_from(b)
        .join(c, and_(c.experiment_id == candidate_id, c.item_id == b.item_id, c.trial == b.trial))
        .outerjoin(
            bs,
            and_(
                bs.c.experiment_id == baseline_id,
                bs.c.item_id == b.item_id,
                bs.c.trial == b.trial,
                bs.c.name == metric,
            ),
        )
        .outerjoin(
            cs,
            and_(
                cs.c.experiment_id == candidate_id,
                cs.c.item_id == c.item_id,
                cs.c.trial == c.trial,
                cs.c.name == metric,
            ),
        )
        .where(b.experiment_id == baseline_id)
    )
    if only_changed:
        stmt = stmt.where(func.coalesce(delta, 1.0) != 0)
    counts = stmt.subquery()
    total = int((await session.execute(select(func.count()).select_from(counts))).scalar_one())
    changed_stmt = select(func.count()).select_from(counts).where(counts.c[4] != 0)
    changed = int((await session.execute(changed_stmt)).scalar_one())
    worst_first = delta.desc().nulls_last() if lower_is_better else delta.asc().nulls_last()
    rows = (
        await session.execute(stmt.order_by(worst_first, b.position, b.trial).offset(offset).limit(limit))
    ).all()
    return ItemDiffPage(
        metric=metric,
        total=total,
        changed=changed,
        changes=[
            ItemChange(
                item_id=r[0],
                trial=r[1],
                baseline=r[2],
                candidate=r[3],
                delta=r[4],
                baseline_status=r[5],
                candidate_status=r[6],
                baseline_error=r[7],
                candidate_error=r[8],
            )
            for r in rows
        ],
    )
