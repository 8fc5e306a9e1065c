"""Dataset endpoints."""

from __future__ import annotations

from fastapi import APIRouter, Depends

from services.coordinator.api.deps import SessionDep, require_api_key
from services.coordinator.api.problems import ERROR_RESPONSES
from services.coordinator.schemas import (
    DatasetCreate,
    DatasetOut,
    DatasetVersionOut,
    ItemsUpsert,
    UpsertResult,
)
from services.coordinator.store import datasets as dataset_store

router = APIRouter(
    prefix="/datasets",
    tags=["datasets"],
    dependencies=[Depends(require_api_key)],
    responses=ERROR_RESPONSES,
)


@router.post("", status_code=201)
async def create_dataset(body: DatasetCreate, session: SessionDep) -> DatasetOut:
    row = await dataset_store.create_or_get(session, body)
    await session.commit()
    return await dataset_store.dataset_out(session, row)


@router.get("")
async def list_datasets(session: SessionDep) -> list[DatasetOut]:
    return await dataset_store.list_datasets(session)


@router.post("/{name:path}/items")
async def upsert_items(name: str, body: ItemsUpsert, session: SessionDep) -> UpsertResult:
    """Merge (or replace) items; a new version when the content changes. With ``create``, a missing
    dataset is created in the same transaction."""
    if body.create is not None:
        dataset = await dataset_store.create_or_get(
            session, DatasetCreate(name=name, **body.create.model_dump())
        )
    else:
        dataset = await dataset_store.get_dataset(session, name)
    result = await dataset_store.upsert_items(session, dataset, body)
    await session.commit()
    return result


@router.get("/{name:path}/versions")
async def list_versions(name: str, session: SessionDep) -> list[DatasetVersionOut]:
    return await dataset_store.list_versions(session, name)


@router.get("/{name:path}")
async def get_dataset(name: str, session: SessionDep) -> DatasetOut:
    return await dataset_store.dataset_out(session, await dataset_store.get_dataset(session, name))
