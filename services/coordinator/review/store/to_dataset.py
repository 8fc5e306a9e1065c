"""Closing the loop: a queue's fully labelled items become a new dataset version.

Each item keeps its input; its expected output is the one it had (an experiment's item) or the
trace's reply and tool names (a trace, as ``POST /traces/{id}/dataset`` makes it: same builder),
with the reviewers' labels under ``expected_output.human`` (one value per field when the reviewers
agree, else every reviewer's); ``metadata.source`` is ``review`` with the queue and the reviewers.
The version is ``accepted``: people have looked at it."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from services.coordinator.datasets.store import datasets as dataset_store
from services.coordinator.errors import CoordinatorError
from services.coordinator.review.store.labels import labels_of
from services.coordinator.traces.store.traces import TRACE_DATASET_KIND, trace_by_pk, trace_item
from shared.db.models import Dataset, Experiment, ExperimentItem
from shared.db.review_models import ReviewItem, ReviewQueue
from yardstick.api.datasets import DatasetCreate, DatasetItemIn, ItemsUpsert, UpsertResult
from yardstick.api.review import LabelOut


class NothingReviewed(CoordinatorError):
    status_code = 409


def _human(labels: list[LabelOut]) -> dict[str, Any]:
    fields = sorted({name for label in labels for name in label.values})
    out: dict[str, Any] = {}
    for name in fields:
        given = [label.values[name] for label in labels if name in label.values]
        out[name] = given[0] if all(v == given[0] for v in given) else given
    return out


async def _item(session: AsyncSession, item: ReviewItem) -> tuple[DatasetItemIn, str] | None:
    """The dataset item a queue item stands for, and the dataset kind it belongs in."""
    if item.trace_pk is not None:
        trace = await trace_by_pk(session, item.trace_pk)
        return None if trace is None else (trace_item(trace), TRACE_DATASET_KIND)
    row = (
        await session.execute(
            select(ExperimentItem, Dataset.kind)
            .join(Experiment, Experiment.id == ExperimentItem.experiment_id)
            .join(Dataset, Dataset.id == Experiment.dataset_id)
            .where(
                ExperimentItem.experiment_id == item.experiment_id,
                ExperimentItem.item_id == item.item_id,
                ExperimentItem.trial == item.trial,
            )
        )
    ).first()
    if row is None:
        return None
    source, kind = row
    return (
        DatasetItemIn(
            id=source.item_id,
            input=source.input,
            expected_output=source.expected_output,
            metadata=source.item_metadata,
        ),
        kind,
    )


async def queue_to_dataset(session: AsyncSession, queue: ReviewQueue, dataset_name: str) -> UpsertResult:
    """A new version of ``dataset_name`` (created if missing) with the queue's fully labelled items,
    merged into its latest version. The caller commits."""
    items = (
        await session.execute(
            select(ReviewItem).where(ReviewItem.queue_id == queue.id).order_by(ReviewItem.position)
        )
    ).scalars()
    reviewed: list[DatasetItemIn] = []
    kinds: set[str] = set()
    for item in items:
        labels = await labels_of(session, item.id)
        if len(labels) < queue.definition.reviewers_per_item:
            continue
        made = await _item(session, item)
        if made is None:
            continue
        base, kind = made
        kinds.add(kind)
        reviewed.append(
            base.model_copy(
                update={
                    "expected_output": {**(base.expected_output or {}), "human": _human(labels)},
                    "metadata": {
                        **base.metadata,
                        "source": "review",
                        "review_queue": queue.name,
                        "reviewers": [label.reviewer for label in labels],
                        "review_status": "accepted",
                    },
                }
            )
        )
    if not reviewed:
        raise NothingReviewed(f"queue {queue.name!r} has no fully labelled item yet: label some first")
    kind = kinds.pop() if len(kinds) == 1 else "generic"
    dataset = await dataset_store.find_dataset(session, dataset_name)
    if dataset is None:
        dataset = await dataset_store.create_or_get(
            session,
            DatasetCreate(name=dataset_name, description=f"Reviewed in queue {queue.name}", kind=kind),
        )
    elif dataset.kind != kind:
        raise NothingReviewed(
            f"dataset {dataset_name!r} holds {dataset.kind} items and the reviewed ones are {kind}: "
            "choose a new dataset name"
        )
    return await dataset_store.upsert_items(session, dataset, ItemsUpsert(items=reviewed, source="review"))
