"""Online (production traffic) endpoints: sampling config, metrics, drift alerts, promotion."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Query
from pydantic import BaseModel, Field
from sqlalchemy import select

from services.coordinator.api.deps import SessionDep, require_api_key
from services.coordinator.api.problems import CONFLICT_RESPONSES, ERROR_RESPONSES
from services.coordinator.errors import CoordinatorError
from services.coordinator.schemas import INT4_MAX, DatasetCreate, ItemsUpsert, UpsertResult
from services.coordinator.store import datasets as dataset_store
from shared.contracts.agent_messages import TrajectoryMessage
from shared.datasets.files import DatasetItemIn
from shared.db.models import DriftAlertRow, OnlineSample
from shared.online.durations import InvalidDuration, parse_duration
from shared.online.metrics import OnlineMetrics, online_metrics
from shared.online.sampling_config import SamplingSettings, load_config, save_config

router = APIRouter(
    prefix="/online",
    tags=["online"],
    dependencies=[Depends(require_api_key)],
    responses=ERROR_RESPONSES,
)

_UNSAFE_ID_CHARS = re.compile(r"[^A-Za-z0-9._:/-]")


class SampleNotFound(CoordinatorError):
    status_code = 404


class InvalidOnlineQuery(CoordinatorError):
    status_code = 422


class PromoteRefused(CoordinatorError):
    status_code = 409


PROMOTED_KIND = "drive_thru"


class DriftAlertOut(BaseModel):
    id: str
    evaluator: str
    model: str
    prompt_version: str
    reference: str = Field(description="'offline' or 'previous_window'")
    detail: dict[str, Any] = Field(description="Means, delta, p-value, window, test")
    created_at: datetime


class PromoteRequest(BaseModel):
    dataset: str = Field(
        min_length=1, max_length=200, description="Dataset to add the turn to (created if missing)"
    )


class SampleOut(BaseModel):
    id: int
    conversation_id: str
    turn_index: int
    model: str
    prompt_version: str
    turn_at: datetime
    utterance: str
    response: str


@router.get("/config")
async def get_config(session: SessionDep) -> SamplingSettings:
    return await load_config(session)


@router.put("/config")
async def put_config(body: SamplingSettings, session: SessionDep) -> SamplingSettings:
    saved = await save_config(session, body)
    await session.commit()
    return saved


@router.get("/metrics")
async def get_metrics(
    session: SessionDep,
    window: Annotated[str, Query(description="e.g. 1h, 30m, 7d")] = "1h",
    bucket: Annotated[str, Query(description="e.g. 5m")] = "5m",
) -> OnlineMetrics:
    try:
        window_td, bucket_td = parse_duration(window), parse_duration(bucket)
    except InvalidDuration as exc:
        raise InvalidOnlineQuery(str(exc)) from exc
    if bucket_td > window_td:
        raise InvalidOnlineQuery(f"bucket {bucket} is longer than window {window}: use a smaller bucket")
    return await online_metrics(session, window=window_td, bucket=bucket_td, now=datetime.now(UTC))


@router.get("/alerts")
async def list_alerts(
    session: SessionDep, limit: Annotated[int, Query(ge=1, le=1000)] = 100
) -> list[DriftAlertOut]:
    stmt = select(DriftAlertRow).order_by(DriftAlertRow.created_at.desc()).limit(limit)
    return [
        DriftAlertOut(
            id=r.id,
            evaluator=r.evaluator,
            model=r.model,
            prompt_version=r.prompt_version,
            reference=r.reference,
            detail=r.detail,
            created_at=r.created_at,
        )
        for r in (await session.execute(stmt)).scalars()
    ]


@router.get("/samples")
async def list_samples(
    session: SessionDep, limit: Annotated[int, Query(ge=1, le=1000)] = 50
) -> list[SampleOut]:
    """The most recent sampled turns (newest first), e.g. to pick one to promote."""
    stmt = select(OnlineSample).order_by(OnlineSample.turn_at.desc(), OnlineSample.id.desc()).limit(limit)
    return [
        SampleOut(
            id=r.id,
            conversation_id=r.conversation_id,
            turn_index=r.turn_index,
            model=r.model,
            prompt_version=r.prompt_version,
            turn_at=r.turn_at,
            utterance=str(r.turn.get("utterance", "")),
            response=str(r.turn.get("response", "")),
        )
        for r in (await session.execute(stmt)).scalars()
    ]


async def earlier_turns(session: SessionDep, sample: OnlineSample) -> list[OnlineSample]:
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


@router.post("/samples/{sample_id}/promote", responses=CONFLICT_RESPONSES)
async def promote_sample(
    sample_id: Annotated[int, Path(ge=1, le=INT4_MAX)], body: PromoteRequest, session: SessionDep
) -> UpsertResult:
    """Add a sampled turn to a drive-thru dataset as a new version marked ``needs_review``: runs that
    name no version keep using the latest accepted one until it is accepted. A dataset of another
    kind is refused (409); an existing dataset's description is left alone."""
    sample = await session.get(OnlineSample, sample_id)
    if sample is None:
        raise SampleNotFound(f"online sample {sample_id} not found; list sampled turns: GET /online/samples")
    dataset = await dataset_store.find_dataset(session, body.dataset)
    if dataset is None:
        dataset = await dataset_store.create_or_get(
            session,
            DatasetCreate(name=body.dataset, description="Promoted production turns", kind=PROMOTED_KIND),
        )
    elif dataset.kind != PROMOTED_KIND:
        raise PromoteRefused(
            f"dataset {body.dataset!r} holds {dataset.kind} items, not drive-thru turns: promote into a "
            f"{PROMOTED_KIND} dataset or a new name"
        )
    result = await dataset_store.upsert_items(
        session,
        dataset,
        ItemsUpsert(items=[promoted_item(sample, await earlier_turns(session, sample))], source="production"),
        status="needs_review",
    )
    await session.commit()
    return result
