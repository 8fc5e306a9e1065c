"""Yardstick's Python SDK: evaluate your own application.

- :class:`Client`: the coordinator's HTTP API as typed calls (datasets, experiments, live
  progress, items, reports, comparisons), with ``to_pandas()`` on item and experiment lists;
- :func:`task`: serve a Python function as a target of kind ``python``; :func:`serve` (or the
  ``yardstick worker module:function`` command) runs a task worker, and more processes scale it.

::

    import yardstick

    @yardstick.task("my-app")
    def answer(input: dict) -> str:
        return my_app(input["question"])
"""

from yardstick.client import Client, EvaluatorLike, TargetLike
from yardstick.errors import ApiError, MissingDependency, NotConfigured, TaskLoadError, YardstickError
from yardstick.models import (
    ComparisonOut,
    DatasetItemIn,
    DatasetOut,
    EvaluatorSpec,
    ExperimentAccepted,
    ExperimentEvent,
    ExperimentItemOut,
    ExperimentList,
    ExperimentOut,
    ItemList,
    PythonTarget,
    UpsertResult,
)
from yardstick.serving import serve
from yardstick.task_worker import TaskWorker, TaskWorkerStartError
from yardstick.tasks import TaskFunction, load_tasks, task
from yardstick.worker_settings import TaskWorkerSettings

__all__ = [
    "ApiError",
    "Client",
    "ComparisonOut",
    "DatasetItemIn",
    "DatasetOut",
    "EvaluatorLike",
    "EvaluatorSpec",
    "ExperimentAccepted",
    "ExperimentEvent",
    "ExperimentItemOut",
    "ExperimentList",
    "ExperimentOut",
    "ItemList",
    "MissingDependency",
    "NotConfigured",
    "PythonTarget",
    "TargetLike",
    "TaskFunction",
    "TaskLoadError",
    "TaskWorker",
    "TaskWorkerSettings",
    "TaskWorkerStartError",
    "UpsertResult",
    "YardstickError",
    "load_tasks",
    "serve",
    "task",
]
