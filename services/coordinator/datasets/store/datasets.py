"""Datasets, their versions and items in Postgres. A push that changes content makes a new version.

A version is ``accepted`` (pushed by people) or ``needs_review`` (promoted production turns):
experiments that name no version use the latest accepted one, so a promoted turn is never run by
default until someone has looked at it and accepted its version."""

from __future__ import annotations

from sqlalchemy import delete, func, insert, select
from sqlalchemy.ext.asyncio import AsyncSession

from services.coordinator.errors import DatasetNotFound, DatasetVersionNotFound, DeletionRefused, InvalidItems
from shared.datasets.conversations import ConversationFileError, check_conversation_items
from shared.datasets.files import content_hash
from shared.db.models import Dataset, DatasetItem, DatasetVersion, Experiment
from yardstick.api.datasets import (
    DatasetCreate,
    DatasetItemIn,
    DatasetOut,
    DatasetVersionOut,
    ItemsUpsert,
    UpsertResult,
)


def _version_out(row: DatasetVersion) -> DatasetVersionOut:
    return DatasetVersionOut(
        version=row.version,
        content_hash=row.content_hash,
        item_count=row.item_count,
        source=row.source,
        status=row.status,  # type: ignore[arg-type]
        created_at=row.created_at,
    )


async def latest_version(
    session: AsyncSession, dataset_id: str, *, accepted: bool = False
) -> DatasetVersion | None:
    """The newest version (the newest accepted one with ``accepted``)."""
    stmt = (
        select(DatasetVersion)
        .where(DatasetVersion.dataset_id == dataset_id)
        .order_by(DatasetVersion.version.desc())
        .limit(1)
    )
    if accepted:
        stmt = stmt.where(DatasetVersion.status == "accepted")
    return (await session.execute(stmt)).scalar_one_or_none()


async def dataset_out(session: AsyncSession, row: Dataset) -> DatasetOut:
    latest = await latest_version(session, row.id)
    return DatasetOut(
        id=row.id,
        name=row.name,
        description=row.description,
        kind=row.kind,
        created_at=row.created_at,
        latest_version=_version_out(latest) if latest else None,
    )


async def find_dataset(session: AsyncSession, name: str) -> Dataset | None:
    return (await session.execute(select(Dataset).where(Dataset.name == name))).scalar_one_or_none()


async def get_dataset(session: AsyncSession, name: str) -> Dataset:
    row = await find_dataset(session, name)
    if row is None:
        raise DatasetNotFound(
            f"dataset {name!r} not found; push it first with `yardstick datasets push FILE`"
        )
    return row


async def create_or_get(session: AsyncSession, body: DatasetCreate) -> Dataset:
    row = (await session.execute(select(Dataset).where(Dataset.name == body.name))).scalar_one_or_none()
    if row is None:
        row = Dataset(name=body.name, description=body.description, kind=body.kind)
        session.add(row)
        await session.flush()
    elif body.description and body.description != row.description:
        row.description = body.description
    return row


async def list_datasets(session: AsyncSession) -> list[DatasetOut]:
    rows = (await session.execute(select(Dataset).order_by(Dataset.name))).scalars().all()
    return [await dataset_out(session, row) for row in rows]


async def list_versions(session: AsyncSession, name: str) -> list[DatasetVersionOut]:
    dataset = await get_dataset(session, name)
    stmt = (
        select(DatasetVersion).where(DatasetVersion.dataset_id == dataset.id).order_by(DatasetVersion.version)
    )
    return [_version_out(v) for v in (await session.execute(stmt)).scalars().all()]


async def resolve_version(
    session: AsyncSession, name: str, version: int | None
) -> tuple[Dataset, DatasetVersion]:
    dataset = await get_dataset(session, name)
    if version is None:
        row = await latest_version(session, dataset.id, accepted=True)
        if row is None:
            pending = await latest_version(session, dataset.id)
            if pending is not None:
                raise DatasetVersionNotFound(
                    f"dataset {name!r} has only versions awaiting review: accept one "
                    f"(`yardstick datasets accept {name} {pending.version}`) or name a version"
                )
            raise DatasetVersionNotFound(f"dataset {name!r} has no items yet; push some first")
        return dataset, row
    stmt = select(DatasetVersion).where(
        DatasetVersion.dataset_id == dataset.id, DatasetVersion.version == version
    )
    found = (await session.execute(stmt)).scalar_one_or_none()
    if found is None:
        raise DatasetVersionNotFound(f"dataset {name!r} has no version {version}")
    return dataset, found


async def version_items(session: AsyncSession, version_id: str) -> list[DatasetItemIn]:
    stmt = select(DatasetItem).where(DatasetItem.version_id == version_id).order_by(DatasetItem.position)
    return [
        DatasetItemIn(
            id=r.item_id, input=r.input, expected_output=r.expected_output, metadata=r.item_metadata
        )
        for r in (await session.execute(stmt)).scalars().all()
    ]


async def accept_version(session: AsyncSession, name: str, version: int) -> DatasetVersionOut:
    """Mark a version reviewed: experiments that name no version use it from now on (if newest)."""
    _, row = await resolve_version(session, name, version)
    row.status = "accepted"
    return _version_out(row)


async def upsert_items(
    session: AsyncSession, dataset: Dataset, body: ItemsUpsert, status: str = "accepted"
) -> UpsertResult:
    """Merge (or replace) items; write a new version only when the content hash changes.
    Items of a ``conversation`` dataset must be conversations (422 naming the first that is not)."""
    if dataset.kind == "conversation":
        try:
            check_conversation_items(
                [item.model_dump(exclude_none=True) for item in body.items], f"dataset {dataset.name!r}"
            )
        except ConversationFileError as exc:
            raise InvalidItems(f"{exc}; see datasets/drive-thru/conversations-v1.yaml for the shape") from exc
    latest = await latest_version(session, dataset.id)
    current = await version_items(session, latest.id) if latest else []
    by_id = {item.id: item for item in current}
    incoming = {item.id: item for item in body.items}
    added = sum(1 for i in incoming if i not in by_id)
    changed = sum(
        1 for i, item in incoming.items() if i in by_id and by_id[i].content_hash() != item.content_hash()
    )
    unchanged = len(incoming) - added - changed
    if body.replace:
        merged = list(body.items)
        removed = sum(1 for i in by_id if i not in incoming)
    else:
        merged = [incoming.get(item.id, item) for item in current] + [
            i for i in body.items if i.id not in by_id
        ]
        removed = 0
    digest = content_hash(merged)
    if latest is not None and latest.content_hash == digest:
        return UpsertResult(
            dataset=dataset.name,
            version=latest.version,
            created_new_version=False,
            item_count=len(merged),
            added=0,
            changed=0,
            unchanged=len(incoming),
            removed=0,
        )
    version = DatasetVersion(
        dataset_id=dataset.id,
        version=(latest.version + 1) if latest else 1,
        content_hash=digest,
        item_count=len(merged),
        source=body.source,
        status=status,
    )
    session.add(version)
    await session.flush()
    rows = [
        {
            "version_id": version.id,
            "item_id": item.id,
            "position": position,
            "input": item.input,
            "expected_output": item.expected_output,
            "item_metadata": item.metadata,
            "content_hash": item.content_hash(),
        }
        for position, item in enumerate(merged)
    ]
    for start in range(0, len(rows), 5000):
        await session.execute(insert(DatasetItem), rows[start : start + 5000])
    return UpsertResult(
        dataset=dataset.name,
        version=version.version,
        created_new_version=True,
        item_count=len(merged),
        added=added,
        changed=changed,
        unchanged=unchanged,
        removed=removed,
    )


async def delete_dataset(session: AsyncSession, name: str) -> None:
    """Delete a dataset with its versions and items, refused while an experiment uses it."""
    dataset = await get_dataset(session, name)
    used = int(
        (await session.execute(select(func.count()).where(Experiment.dataset_id == dataset.id))).scalar_one()
    )
    if used:
        raise DeletionRefused(
            f"dataset {name!r} is used by {used} experiment(s): delete them first "
            f"(`yardstick experiments list --dataset {name}`)"
        )
    await session.execute(delete(Dataset).where(Dataset.id == dataset.id))


async def dataset_names(session: AsyncSession, kind: str | None = None) -> list[str]:
    """Every dataset's name (of one ``kind`` when given), in order."""
    stmt = select(Dataset.name).order_by(Dataset.name)
    if kind is not None:
        stmt = stmt.where(Dataset.kind == kind)
    return list((await session.execute(stmt)).scalars())
