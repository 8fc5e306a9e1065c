"""Review queues from Python: ``Client().review``."""

from __future__ import annotations

from typing import Any

from yardstick.api.calibration import CalibrationReport
from yardstick.api.datasets import UpsertResult
from yardstick.api.review import (
    Assignment,
    LabelIn,
    LabelOut,
    LabelValue,
    NextItem,
    QueueCreate,
    QueueOut,
    QueueToDataset,
    ReviewItemOut,
)
from yardstick.transport import Transport, segment


class Review:
    """Make review queues, read their items, label them, turn them into datasets."""

    def __init__(self, api: Transport) -> None:
        self._api = api

    def create(self, name: str, source: dict[str, Any], rubric: dict[str, Any], **options: Any) -> QueueOut:
        """A queue over what ``source`` selects (``{"kind": "experiment", "experiment_id": …}``
        or ``{"kind": "traces", "application": …}``), labelled with
        ``rubric`` (``{"fields": [{"name", "kind", …}]}``)."""
        body = QueueCreate.model_validate({"name": name, "source": source, "rubric": rubric, **options})
        return self._api.post(QueueOut, "/review/queues", body)

    def from_alert(self, alert_id: str) -> QueueOut:
        """A queue over a drift alert's window (its application's traces, or the agent's turns), with
        a pass/fail rubric: what the alert's button in the web UI makes."""
        return self._api.post(QueueOut, f"/online/alerts/{segment(alert_id)}/review")

    def list(self) -> list[QueueOut]:
        return self._api.get_list(QueueOut, "/review/queues")

    def get(self, queue: str) -> QueueOut:
        return self._api.get(QueueOut, f"/review/queues/{segment(queue)}")

    def next(self, queue: str, *, after: int = 0, reviewer: str | None = None) -> int | None:
        """The next item for ``reviewer`` (default: the key's name); None when none is left."""
        path = f"/review/queues/{segment(queue)}/next"
        return self._api.get(NextItem, path, after=after, reviewer=reviewer).position

    def item(self, queue: str, position: int, *, reviewer: str | None = None) -> ReviewItemOut:
        return self._api.get(
            ReviewItemOut, f"/review/queues/{segment(queue)}/items/{position}", reviewer=reviewer
        )

    def label(
        self, queue: str, position: int, values: dict[str, LabelValue], *, reviewer: str | None = None
    ) -> LabelOut:
        """Label the item (replacing this reviewer's earlier label)."""
        path = f"/review/queues/{segment(queue)}/items/{position}/label"
        return self._api.put(LabelOut, path, LabelIn(values=values, reviewer=reviewer))

    def assign(self, queue: str, position: int, reviewer: str | None) -> None:
        """Ask ``reviewer`` (None: anyone) to label the item; they are offered it first."""
        self._api.put(
            Assignment,
            f"/review/queues/{segment(queue)}/items/{position}/assignee",
            Assignment(reviewer=reviewer),
        )

    def to_dataset(self, queue: str, dataset: str) -> UpsertResult:
        """The fully labelled items as a new version of ``dataset``."""
        return self._api.post(
            UpsertResult, f"/review/queues/{segment(queue)}/dataset", QueueToDataset(dataset=dataset)
        )

    def calibration(
        self,
        queue: str,
        *,
        evaluator: str | None = None,
        field: str | None = None,
        against: str | None = None,
    ) -> CalibrationReport:
        """``evaluator`` against the queue's labels on ``field`` (default: its first pass/fail or scale
        field), the reviewers' own agreement, and ``against`` compared with ``evaluator``."""
        return self._api.get(
            CalibrationReport, "/calibration", queue=queue, evaluator=evaluator, field=field, against=against
        )
