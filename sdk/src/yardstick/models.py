"""The typed objects the :class:`~yardstick.Client` returns: the coordinator's own HTTP models
(``yardstick.api``, which imports nothing of the server), plus two lists that turn into pandas data
frames."""

from __future__ import annotations

from typing import TYPE_CHECKING

from yardstick.api.comparison_report import ComparisonReport
from yardstick.api.comparisons import ComparisonOut
from yardstick.api.datasets import DatasetItemIn, DatasetOut, DatasetVersionOut, UpsertResult
from yardstick.api.eval_messages import (
    AgentTarget,
    AnswerTarget,
    HttpTarget,
    PythonTarget,
    SearchTarget,
    TargetSpec,
)
from yardstick.api.evaluation import Evaluation, EvaluatorSpec
from yardstick.api.experiment_document import ExperimentDocument
from yardstick.api.experiment_events import ExperimentEvent
from yardstick.api.experiment_status import TERMINAL_STATUSES, ExperimentStatus
from yardstick.api.experiments import (
    ExperimentAccepted,
    ExperimentFailures,
    ExperimentItemOut,
    ExperimentOut,
    ItemsPage,
    Progress,
)
from yardstick.api.run_aggregates import ExperimentAggregates
from yardstick.frames import experiments_frame, items_frame

if TYPE_CHECKING:
    import pandas as pd


class ItemList(list[ExperimentItemOut]):
    """An experiment's items (every page); ``to_pandas()`` gives one row per (item, trial)."""

    def to_pandas(self) -> pd.DataFrame:
        """A ``pandas.DataFrame``: item_id, trial, status, error, latency_ms, attempts, input, output,
        expected_output, metadata, then one column per score (its value). Needs pandas."""
        return items_frame(self)


class ExperimentList(list[ExperimentOut]):
    """Experiments, newest first; ``to_pandas()`` gives one row per experiment."""

    def to_pandas(self) -> pd.DataFrame:
        """A ``pandas.DataFrame``: id, name, status, dataset, target, counts, pass_rate and the mean
        of every metric (``mean.<metric>``). Needs pandas."""
        return experiments_frame(self)


__all__ = [
    "TERMINAL_STATUSES",
    "AgentTarget",
    "AnswerTarget",
    "ComparisonOut",
    "ComparisonReport",
    "DatasetItemIn",
    "DatasetOut",
    "DatasetVersionOut",
    "Evaluation",
    "EvaluatorSpec",
    "ExperimentAccepted",
    "ExperimentAggregates",
    "ExperimentDocument",
    "ExperimentEvent",
    "ExperimentFailures",
    "ExperimentItemOut",
    "ExperimentList",
    "ExperimentOut",
    "ExperimentStatus",
    "HttpTarget",
    "ItemList",
    "ItemsPage",
    "Progress",
    "PythonTarget",
    "SearchTarget",
    "TargetSpec",
    "UpsertResult",
]
