"""Run-level evaluators over compact columns, one metric at a time, in bounded memory.

The registry's run-level evaluators take every item result as an object (``ItemResult``: about
9 KB per item with 14 scores), which for 100,000 items is most of a gigabyte. The built-in ones
(``shared.evaluators.aggregates``) only need, per item, the scores and a few metadata values, and
they are means: this module computes them from per-item columns instead, with the same results
(values, names, comments, metadata; kept equal by tests that run both). Any other run-level
evaluator, or a built-in one given arguments of an unexpected shape, still gets the full item
results, loaded only then (``full_results``), in the same order as before.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable, Sequence

import numpy as np
from pydantic import BaseModel, ConfigDict, ValidationError

from shared.analysis.columns import ABSENT, NULL, GroupColumn, RunColumns
from shared.contracts.evaluation import Evaluation, EvaluatorSpec
from shared.evaluators import aggregates as builtin
from shared.evaluators import get, run_run_evaluators
from shared.evaluators.item_results import ItemResult
from shared.evaluators.registry import failure
from shared.stats import FloatArray

log = logging.getLogger(__name__)

FullResults = Callable[[], Awaitable[list[ItemResult]]]


class _MeanArgs(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)
    score: str


class _BreakdownArgs(BaseModel):
    model_config = ConfigDict(extra="allow", strict=True)
    keys: list[str] | None = None
    scores: list[str] | None = None


def _sum_count(values: FloatArray) -> tuple[float, int]:
    """Python's ``sum`` over the present values in item order, as the registry evaluators do."""
    present = values[~np.isnan(values)].tolist()
    return sum(present), len(present)


class _Mean:
    """``avg_order_correctness`` and ``avg_score``: the mean of one score over all items."""

    def __init__(self, name: str, score: str, describe: Callable[[float, int], str]) -> None:
        self.name, self.score, self.describe = name, score, describe
        self.total, self.count = 0.0, 0

    def metrics(self, available: Sequence[str]) -> list[str]:
        return [self.score] if self.score in available else []

    def add(self, metric: str, values: FloatArray) -> None:
        self.total, self.count = _sum_count(values)

    def result(self) -> list[Evaluation]:
        if not self.count:
            return [Evaluation(name=self.name, value=None, comment=f"no {self.score} scores")]
        avg = self.total / self.count
        return [
            Evaluation(
                name=self.name,
                value=round(avg, 3),
                comment=self.describe(avg, self.count),
                metadata={"count": self.count},
            )
        ]


def _groups(column: GroupColumn) -> dict[str, list[int]]:
    """score_breakdown's group name → the codes in it (None or absent: ``MISSING_GROUP``)."""
    out: dict[str, list[int]] = {}
    for code, label in enumerate(column.labels):
        out.setdefault(label, []).append(code)
    out.setdefault(builtin.MISSING_GROUP, []).extend((ABSENT, NULL))
    return out


class _Breakdown:
    """``score_breakdown``: the mean of every score per metadata value."""

    def __init__(self, columns: RunColumns, keys: list[str] | None, scores: list[str] | None) -> None:
        if keys is None:
            keys = [
                k
                for k in builtin.DEFAULT_BREAKDOWN_KEYS
                if k in columns.groups and bool(np.any(columns.groups[k].codes != ABSENT))
            ]
        self.keys, self.scores = keys, scores
        self.groups = {key: columns.groups[key] for key in keys}
        self.sums: dict[tuple[str, str, str], tuple[float, int]] = {}

    def metrics(self, available: Sequence[str]) -> list[str]:
        return [m for m in available if self.scores is None or m in self.scores]

    def add(self, metric: str, values: FloatArray) -> None:
        for key, column in self.groups.items():
            for group, codes in _groups(column).items():
                total, count = _sum_count(values[np.isin(column.codes, codes)])
                if count:
                    self.sums[(key, group, metric)] = (total, count)

    def result(self) -> list[Evaluation]:
        out = [
            Evaluation(
                name=f"{score}[{key}={group}]",
                value=round(total / count, 3),
                comment=f"{score} mean over {count} item(s) with {key}={group}",
                metadata={"key": key, "group": group, "score": score, "count": count},
            )
            for (key, group, score), (total, count) in sorted(self.sums.items())
        ]
        if not out:
            return [Evaluation(name="score_breakdown", value=None, comment="no numeric item-level scores")]
        return out


class _Failing:
    """A built-in called with arguments its signature rejects: the registry's failure record."""

    def __init__(self, spec: EvaluatorSpec, exc: Exception) -> None:
        self.evaluation = failure(spec.name, exc)

    def metrics(self, available: Sequence[str]) -> list[str]:
        return []

    def add(self, metric: str, values: FloatArray) -> None:
        raise AssertionError("a failing evaluator takes no metric")

    def result(self) -> list[Evaluation]:
        return [self.evaluation]


_Streamed = _Mean | _Breakdown | _Failing
_BUILTINS = (builtin.avg_order_correctness, builtin.avg_score, builtin.score_breakdown)


def _streamed(spec: EvaluatorSpec, columns: RunColumns) -> _Streamed | None:
    """The column-based twin of a built-in run evaluator, or None when it must see full items."""
    try:
        fn = get(spec.name, "run").fn
    except LookupError:
        return None
    if fn not in _BUILTINS or "item_results" in spec.args:  # the registry lets args override it
        return None
    try:
        inspect.signature(fn).bind(item_results=[], **spec.args)
    except TypeError:
        try:  # the registry's call fails the same way, before looking at any item
            fn(item_results=[], **spec.args)
        except Exception as exc:
            return _Failing(spec, exc)
        return None
    try:
        if fn is builtin.avg_order_correctness:
            return _Mean(
                "avg_order_correctness",
                "order_correctness",
                lambda avg, n: f"Average order correctness: {avg:.1%} across {n} items",
            )
        if fn is builtin.avg_score:
            score = _MeanArgs.model_validate(spec.args).score
            return _Mean(f"avg_{score}", score, lambda avg, n: f"Average {score}: {avg:.3f} across {n} items")
        if fn is builtin.score_breakdown:
            args = _BreakdownArgs.model_validate(spec.args)
            if args.keys is not None and (
                len(set(args.keys)) != len(args.keys) or not set(args.keys) <= set(columns.groups)
            ):  # a repeated key counts its items once more in the registry's breakdown
                return None
            return _Breakdown(columns, args.keys, args.scores)
    except ValidationError:
        return None
    return None


def metadata_keys(specs: Sequence[EvaluatorSpec]) -> set[str]:
    """Metadata keys whose columns the column-based run evaluators need."""
    keys = set(builtin.DEFAULT_BREAKDOWN_KEYS)
    for spec in specs:
        if spec.name == "score_breakdown":
            with_keys = spec.args.get("keys")
            if isinstance(with_keys, list):
                keys.update(k for k in with_keys if isinstance(k, str))
    return keys


class RunLevelEvaluation:
    """The run-level evaluators of one run: ``add_metric`` for each of ``columns.metric_names``
    (any order), then ``await results(full_results)``."""

    def __init__(self, specs: Sequence[EvaluatorSpec], columns: RunColumns) -> None:
        self.specs = list(specs)
        self.columns = columns
        self._streamed = [_streamed(spec, columns) for spec in self.specs]

    def add_metric(self, name: str, values: FloatArray) -> None:
        for evaluator in self._streamed:
            if evaluator is not None and name in evaluator.metrics(self.columns.metric_names):
                evaluator.add(name, values)

    async def results(self, full_results: FullResults) -> list[Evaluation]:
        """Every spec's evaluations, in spec order; failures recorded as the registry does."""
        out: list[Evaluation] = []
        loaded: list[ItemResult] | None = None
        for spec, evaluator in zip(self.specs, self._streamed, strict=True):
            if evaluator is not None:
                out.extend(evaluator.result())
                continue
            if loaded is None:
                log.info(
                    "run evaluator %s needs every item result; loading %d items",
                    spec.name,
                    self.columns.size,
                )
                loaded = await full_results()
            out.extend(await run_run_evaluators([spec], item_results=loaded))
        return out


__all__ = ["FullResults", "RunLevelEvaluation", "metadata_keys"]
