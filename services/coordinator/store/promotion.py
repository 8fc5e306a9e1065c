"""Promote a sampled production turn into a drive-thru dataset, as a version to review."""

from __future__ import annotations

import re
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from services.coordinator.errors import CoordinatorError
from services.coordinator.schemas import DatasetCreate, ItemsUpsert, UpsertResult
from services.coordinator.store import datasets as dataset_store
from shared.contracts.agent_messages import TrajectoryMessage
from shared.datasets.files import DatasetItemIn
from shared.db.models import OnlineSample

PROMOTED_KIND = "drive_thru"
_UNSAFE_ID_CHARS = re.compile(r"[^A-Za-z0-9._:/-]")


class SampleNotFound(CoordinatorError):
    status_code = 404


class PromoteRefused(CoordinatorError):
    status_code = 409


async def earlier_turns(session: AsyncSession, sample: OnlineSample) -> list[OnlineSample]:
    """The stored turns of the sample's conversation before it, in order."""
    stmt = (
        select(OnlineSample)
        .where(
            OnlineSample.conversation_id == sample.conversation_id,
            OnlineSample.turn_index < sample.turn_index,
        )
        .order_by(OnlineSample.turn_index)
    )
    return list((await session.execute(stmt)).scalars())


def promoted_item(sample: OnlineSample, earlier: list[OnlineSample] | None = None) -> DatasetItemIn:
    """The sampled turn as a dataset item to review: the agent's order becomes the draft expectation.

    The conversation's earlier turns come along as ``input.messages`` (their messages in order), so
    a replay answers the turn where it was said, with the order as it stood; ``context_complete``
    says whether every earlier turn was stored."""
    turn = sample.turn
    item_id = _UNSAFE_ID_CHARS.sub("-", f"production:{sample.conversation_id}:{sample.turn_index}")
    earlier = earlier or []
    messages = [
        TrajectoryMessage.model_validate(m).model_dump(mode="json")
        for row in earlier
        for m in row.turn.get("trajectory", [])
    ]
    item_input: dict[str, Any] = {"customer_utterance": turn.get("utterance", "")}
    if messages:
        item_input["messages"] = messages
    return DatasetItemIn(
        id=item_id[:200],
        input=item_input,
        expected_output={"expected_items": turn.get("order_items", [])},
        metadata={
            "source": "production",
            "review_status": "needs_review",
            "conversation_id": sample.conversation_id,
            "turn_index": sample.turn_index,
            "model": sample.model,
            "prompt_version": sample.prompt_version,
            "context_turns": len(earlier),
            "context_complete": [row.turn_index for row in earlier] == list(range(sample.turn_index)),
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
        ItemsUpsert(items=[promoted_item(sample, await earlier_turns(session, sample))], source="production"),
        status="needs_review",
    )
    return result
