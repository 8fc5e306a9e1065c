"""Dataset endpoints."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path, Response

from services.coordinator.access.store import audit
from services.coordinator.datasets.store import datasets as dataset_store
from services.coordinator.http.deps import CallerDep, SessionDep, needs, require_api_key
from services.coordinator.http.problems import CONFLICT_RESPONSES, ERROR_RESPONSES
from yardstick.api.audit import AuditAction
from yardstick.api.datasets import DatasetCreate, DatasetOut, DatasetVersionOut, ItemsUpsert, UpsertResult
from yardstick.api.limits import INT4_MAX
from yardstick.api.roles import Role

router = APIRouter(
    prefix="/datasets",
    tags=["datasets"],
    dependencies=[Depends(require_api_key)],
    responses=ERROR_RESPONSES,
)


@router.post("", status_code=201, **needs(Role.RUNNER))
async def create_dataset(body: DatasetCreate, session: SessionDep) -> DatasetOut:
    row = await dataset_store.create_or_get(session, body)
    await session.commit()
    return await dataset_store.dataset_out(session, row)


@router.get("", **needs(Role.VIEWER))
async def list_datasets(session: SessionDep) -> list[DatasetOut]:
    return await dataset_store.list_datasets(session)


@router.post("/{name:path}/items", **needs(Role.RUNNER))
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


@router.post("/{name:path}/versions/{version}/accept", **needs(Role.RUNNER))
async def accept_version(
    name: str, version: Annotated[int, Path(ge=1, le=INT4_MAX)], session: SessionDep, caller: CallerDep
) -> DatasetVersionOut:
    """Mark a version (promoted turns awaiting review) accepted: the newest accepted version is the
    one experiments use when they name none."""
    out = await dataset_store.accept_version(session, name, version)
    audit.record(
        session, audit.actor(caller), AuditAction.DATASET_ACCEPT, "dataset", name, after={"version": version}
    )
    await session.commit()
    return out


@router.delete("/{name:path}", status_code=204, responses=CONFLICT_RESPONSES, **needs(Role.ADMIN))
async def delete_dataset(name: str, session: SessionDep, caller: CallerDep) -> Response:
    """Delete a dataset with all its versions (409 while an experiment uses it)."""
    await dataset_store.delete_dataset(session, name)
    audit.record(session, audit.actor(caller), AuditAction.DATASET_DELETE, "dataset", name)
    await session.commit()
    return Response(status_code=204)


@router.get("/{name:path}/versions", **needs(Role.VIEWER))
async def list_versions(name: str, session: SessionDep) -> list[DatasetVersionOut]:
    return await dataset_store.list_versions(session, name)


@router.get("/{name:path}", **needs(Role.VIEWER))
async def get_dataset(name: str, session: SessionDep) -> DatasetOut:
    return await dataset_store.dataset_out(session, await dataset_store.get_dataset(session, name))
