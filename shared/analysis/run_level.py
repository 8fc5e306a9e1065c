"""Run-level evaluators over compact per-item columns, in bounded memory.

A run-level evaluator keeps the Langfuse signature ``fn(*, item_results, **args)``. Those that only
need per-item scores and a few metadata values (means, breakdowns) are written once, in columnar
form (:class:`ColumnarRunEvaluator`: fed one metric's values at a time), and registered with it
(``register(..., columnar=factory)``); their ``item_results`` function is that same code run over
columns built from the item results (:func:`evaluate_items`). The finalizer feeds the columnar
form from Postgres, so no run evaluator of that kind ever holds the whole run. Any other run
evaluator gets the full item results, loaded only then (``FullResults``).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Protocol

from shared.analysis.columns import RunColumns, columns_from_items, item_metric_values
from shared.analysis.stats import FloatArray
from shared.evaluators.arguments import validate_arguments
from shared.evaluators.item_results import ItemResult, as_item_results
from shared.evaluators.registry import EvaluatorRegistry
from shared.evaluators.running import failure, run_run_evaluators
from yardstick.api.evaluation import Evaluation, EvaluatorSpec
from yardstick.api.run_data import ScoredItem

log = logging.getLogger(__name__)

FullResults = Callable[[], Awaitable[list[ItemResult]]]
SCORE_BREAKDOWN_KEYS = ("category", "difficulty")
"""Metadata keys a breakdown uses when it is given none (those that some item has)."""


class ColumnarRunEvaluator(Protocol):
    """One run evaluator fed a metric at a time: ``add`` each of ``metrics(...)``, then ``result``."""

    def metrics(self, available: Sequence[str]) -> list[str]:
        """Which of the run's scored metrics it needs."""
        ...

    def add(self, metric: str, values: FloatArray) -> None:
        """``values``: the metric for every item in item order (NaN = no value)."""
        ...

    def result(self) -> list[Evaluation]: ...


ColumnarFactory = Callable[..., ColumnarRunEvaluator]
"""``factory(columns, **args)``; raises ``TypeError``/``ValueError`` for arguments it cannot take."""


def metadata_keys(specs: Sequence[EvaluatorSpec]) -> set[str]:
    """Metadata keys whose columns the run evaluators need: the defaults plus any ``keys`` argument."""
    keys = set(SCORE_BREAKDOWN_KEYS)
    for spec in specs:
        named = spec.args.get("keys")
        if isinstance(named, list):
            keys.update(k for k in named if isinstance(k, str))
    return keys


def run_columnar(
    evaluator: ColumnarRunEvaluator, columns: RunColumns, values: Callable[[str], FloatArray]
) -> None:
    for metric in evaluator.metrics(columns.metric_names):
        evaluator.add(metric, values(metric))


def evaluate_items(
    factory: ColumnarFactory, item_results: list[Any], args: dict[str, Any]
) -> list[Evaluation]:
    """A columnar evaluator over in-memory item results (the ``item_results`` signature)."""
    items = [
        ScoredItem(
            item_id=r.item_id or str(index),  # results from other tools may carry no id
            trial=r.trial,
            status=r.status,
            metadata=r.metadata,
            scores={e.name: e.numeric for e in r.evaluations},
        )
        for index, r in enumerate(as_item_results(item_results))
    ]
    keys = metadata_keys([EvaluatorSpec(name="_", args=args)])
    columns = columns_from_items("", "", items, sorted(keys))
    evaluator = factory(columns, **args)
    run_columnar(evaluator, columns, item_metric_values(items))
    return evaluator.result()


class _Failed:
    """A columnar evaluator whose arguments were refused: its failure record, as the registry makes it."""

    def __init__(self, evaluation: Evaluation) -> None:
        self.evaluation = evaluation

    def metrics(self, available: Sequence[str]) -> list[str]:
        return []

    def add(self, metric: str, values: FloatArray) -> None:
        raise AssertionError("a failed evaluator takes no metric")

    def result(self) -> list[Evaluation]:
        return [self.evaluation]


def _columnar(
    registry: EvaluatorRegistry, spec: EvaluatorSpec, columns: RunColumns
) -> ColumnarRunEvaluator | None:
    try:
        entry = registry.get(spec.name, "run")
    except LookupError:
        return None
    if entry.columnar is None:
        return None
    try:
        args = validate_arguments(spec.name, entry.arguments, spec.args)
        evaluator: ColumnarRunEvaluator = entry.columnar(columns, **args)
    except Exception as exc:  # the registry records a failing evaluator the same way
        return _Failed(failure(spec.name, exc, entry.version))
    return evaluator


class RunLevelEvaluation:
    """The run-level evaluators of one run: ``add_metric`` for each of ``columns.metric_names``
    (any order), then ``await results(full_results)``."""

    def __init__(
        self, registry: EvaluatorRegistry, specs: Sequence[EvaluatorSpec], columns: RunColumns
    ) -> None:
        self.registry = registry
        self.specs = list(specs)
        self.columns = columns
        self._columnar = [_columnar(registry, spec, columns) for spec in self.specs]

    def add_metric(self, name: str, values: FloatArray) -> None:
        for evaluator in self._columnar:
            if evaluator is not None and name in evaluator.metrics(self.columns.metric_names):
                evaluator.add(name, values)

    async def results(self, full_results: FullResults) -> list[Evaluation]:
        """Every spec's evaluations, in spec order; failures recorded as the registry does."""
        out: list[Evaluation] = []
        loaded: list[ItemResult] | None = None
        for spec, evaluator in zip(self.specs, self._columnar, strict=True):
            if evaluator is not None:
                entry = self.registry.find(spec.name)
                stamp = {"evaluator_version": entry.version if entry else None}
                out.extend(e if e.failure else e.model_copy(update=stamp) for e in evaluator.result())
                continue
            if loaded is None:
                log.info(
                    "run evaluator %s needs every item result; loading %d items", spec.name, self.columns.size
                )
                loaded = await full_results()
            out.extend(await run_run_evaluators(self.registry, [spec], item_results=loaded))
        return out


__all__ = [
    "SCORE_BREAKDOWN_KEYS",
    "ColumnarFactory",
    "ColumnarRunEvaluator",
    "FullResults",
    "RunLevelEvaluation",
    "evaluate_items",
    "metadata_keys",
]
