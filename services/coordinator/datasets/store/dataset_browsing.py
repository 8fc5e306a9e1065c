"""Reading a dataset version a page at a time, and the diff of two versions (by item id and content)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel
from sqlalchemy import case, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from shared.db.models import DatasetItem, DatasetVersion
from yardstick.api.datasets import DatasetItemIn

Change = Literal["added", "changed", "removed"]


class VersionItemsPage(BaseModel):
    items: list[DatasetItemIn]
    total: int


class ItemChangeRow(BaseModel):
    item_id: str
    change: Change


class VersionDiff(BaseModel):
    added: int
    changed: int
    removed: int
    rows: list[ItemChangeRow]


async def version_items_page(
    session: AsyncSession, version: DatasetVersion, offset: int, limit: int
) -> VersionItemsPage:
    stmt = select(DatasetItem).where(DatasetItem.version_id == version.id)
    total = int((await session.execute(select(func.count()).select_from(stmt.subquery()))).scalar_one())
    rows = (await session.execute(stmt.order_by(DatasetItem.position).offset(offset).limit(limit))).scalars()
    return VersionItemsPage(
        items=[
            DatasetItemIn(
                id=r.item_id, input=r.input, expected_output=r.expected_output, metadata=r.item_metadata
            )
            for r in rows
        ],
        total=total,
    )


async def version_diff(
    session: AsyncSession, old: DatasetVersion, new: DatasetVersion, limit: int = 500
) -> VersionDiff:
    """Items added, changed (same id, other content) and removed from ``old`` to ``new``; counts of
    each, and the first ``limit`` rows (added, changed, removed, each by item id)."""
    # Each side filtered to its version before the full join, so unmatched items stay on both sides.
    old_items = (
        select(DatasetItem.item_id, DatasetItem.content_hash)
        .where(DatasetItem.version_id == old.id)
        .subquery()
    )
    new_items = (
        select(DatasetItem.item_id, DatasetItem.content_hash)
        .where(DatasetItem.version_id == new.id)
        .subquery()
    )
    joined = (
        select(
            func.coalesce(old_items.c.item_id, new_items.c.item_id).label("item_id"),
            old_items.c.content_hash.label("old_hash"),
            new_items.c.content_hash.label("new_hash"),
        )
        .select_from(old_items)
        .join(new_items, new_items.c.item_id == old_items.c.item_id, full=True)
        .subquery()
    )
    change = case(
        (joined.c.old_hash.is_(None), "added"),
        (joined.c.new_hash.is_(None), "removed"),
        else_="changed",
    )
    differing = select(joined.c.item_id, change.label("change")).where(
        joined.c.old_hash.is_distinct_from(joined.c.new_hash)
    )
    counts: dict[str, int] = dict(
        (
            await session.execute(
                select(change, func.count())
                .where(joined.c.old_hash.is_distinct_from(joined.c.new_hash))
                .group_by(change)
            )
        ).all()
    )
    rows = (await session.execute(differing.order_by(change, joined.c.item_id).limit(limit))).all()
    return VersionDiff(
        added=int(counts.get("added", 0)),
        changed=int(counts.get("changed", 0)),
        removed=int(counts.get("removed", 0)),
        rows=[ItemChangeRow(item_id=r[0], change=r[1]) for r in rows],
    )
