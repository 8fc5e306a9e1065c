"""Review queues: made from a source, labelled by people, turned into human scores and datasets."""

from services.coordinator.review.store.alerts import AlertNotFound
from services.coordinator.review.store.items import item_view, next_position
from services.coordinator.review.store.labels import InvalidLabel, ReviewItemNotFound, put_label, review_item
from services.coordinator.review.store.queues import (
    QueueExists,
    QueueNotFound,
    alert_queue,
    create_queue,
    get_queue,
    list_queues,
    queue_out,
)
from services.coordinator.review.store.selection import EmptyQueue
from services.coordinator.review.store.to_dataset import NothingReviewed, queue_to_dataset
from services.coordinator.review.store.trace_selection import InvalidSource

__all__ = [
    "AlertNotFound",
    "EmptyQueue",
    "InvalidLabel",
    "InvalidSource",
    "NothingReviewed",
    "QueueExists",
    "QueueNotFound",
    "ReviewItemNotFound",
    "alert_queue",
    "create_queue",
    "get_queue",
    "item_view",
    "list_queues",
    "next_position",
    "put_label",
    "queue_out",
    "queue_to_dataset",
    "review_item",
]
