"""Promote a sampled production turn into a drive-thru dataset, as a version to review."""

from __future__ import annotations

import re

from sqlalchemy.ext.asyncio import AsyncSession

from services.coordinator.errors import CoordinatorError
from services.coordinator.schemas import DatasetCreate, ItemsUpsert, UpsertResult
from services.coordinator.store import datasets as dataset_store
from shared.datasets.files import DatasetItemIn
from shared.db.models import OnlineSample

PROMOTED_KIND = "drive_thru"
_UNSAFE_ID_CHARS = re.compile(r"[^A-Za-z0-9._:/-]")


class SampleNotFound(CoordinatorError):
    status_code = 404


class PromoteRefused(CoordinatorError):
    status_code = 409


def promoted_item(sample: OnlineSample) -> DatasetItemIn:
    """The sampled turn as a dataset item to review: the agent's order becomes the draft expectation."""
    turn = sample.turn
    item_id = _UNSAFE_ID_CHARS.sub("-", f"production:{sample.conversation_id}:{sample.turn_index}")
    return DatasetItemIn(
        id=item_id[:200],
        input={"customer_utterance": turn.get("utterance", "")},
        expected_output={"expected_items": turn.get("order_items", [])},
        metadata={
            "source": "production",
            "review_status": "needs_review",
            "conversation_id": sample.conversation_id,
            "turn_index": sample.turn_index,
            "model": sample.model,
            "prompt_version": sample.prompt_version,
        },
    )


async def promote(session: AsyncSession, sample_id: int, dataset_name: str) -> UpsertResult:
    """Add the sampled turn to a drive-thru dataset as a new version marked ``needs_review``: runs that
    name no version keep using the latest accepted one until it is accepted. A dataset of another
    kind is refused (409); an existing dataset's description is left alone. The caller commits."""
    sample = await session.get(OnlineSample, sample_id)
    if sample is None:
        raise SampleNotFound(f"online sample {sample_id} not found; list sampled turns: GET /online/samples")
    dataset = await dataset_store.find_dataset(session, dataset_name)
    if dataset is None:
        dataset = await dataset_store.create_or_get(
            session,
            DatasetCreate(name=dataset_name, description="Promoted production turns", kind=PROMOTED_KIND),
        )
    elif dataset.kind != PROMOTED_KIND:
        raise PromoteRefused(
            f"dataset {dataset_name!r} holds {dataset.kind} items, not drive-thru turns: promote into a "
            f"{PROMOTED_KIND} dataset or a new name"
        )
    result = await dataset_store.upsert_items(
        session,
        dataset,
        ItemsUpsert(items=[promoted_item(sample)], source="production"),
        status="needs_review",
    )
    return result
