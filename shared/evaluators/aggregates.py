"""Run-level evaluators: averages and per-slice breakdowns of item-level scores.

Each is written once, in columnar form (one metric's values for every item at a time; see
``shared.analysis.run_level``), and registered with it; its Langfuse-signature function
``fn(*, item_results, **args)`` runs the same code over the given item results.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from shared.analysis import (
    ABSENT,
    NULL,
    SCORE_BREAKDOWN_KEYS,
    ColumnarFactory,
    FloatArray,
    GroupColumn,
    RunColumns,
    evaluate_items,
)
from shared.evaluators.registry import EvaluatorFn, register
from yardstick.api.evaluation import Evaluation

MISSING_GROUP = "unspecified"
"""Breakdown group of the items whose metadata lacks the key (or has it as None)."""


def _sum_count(values: FloatArray) -> tuple[float, int]:
    """Python's ``sum`` over the present values in item order, and how many there are."""
    present = values[~np.isnan(values)].tolist()
    return sum(present), len(present)


class _Mean:
    """The mean of one score over all items, rounded to 3 places, with the count."""

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
    """Group name → the codes in it (None or absent: ``MISSING_GROUP``)."""
    out: dict[str, list[int]] = {}
    for code, label in enumerate(column.labels):
        out.setdefault(label, []).append(code)
    out.setdefault(MISSING_GROUP, []).extend((ABSENT, NULL))
    return out


class _Breakdown:
    """The mean of every score per metadata value."""

    def __init__(self, columns: RunColumns, keys: list[str] | None, scores: list[str] | None) -> None:
        if keys is None:  # the default keys that at least one item has
            keys = [
                k
                for k in SCORE_BREAKDOWN_KEYS
                if k in columns.groups and bool(np.any(columns.groups[k].codes != ABSENT))
            ]
        self.scores = scores
        self.groups = {key: columns.groups[key] for key in dict.fromkeys(keys)}
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


def _register(name: str, factory: ColumnarFactory, doc: str, *, single: bool = False) -> EvaluatorFn:
    """Register ``factory`` and its ``item_results`` function (one Evaluation when ``single``)."""

    def evaluate(*, item_results: list[Any], **args: Any) -> Evaluation | list[Evaluation]:
        results = evaluate_items(factory, item_results, args)
        return results[0] if single else results

    evaluate.__name__ = evaluate.__qualname__ = name
    evaluate.__doc__ = doc
    return register(name, level="run", columnar=factory)(evaluate)


def _avg_order_correctness(columns: RunColumns, **_: Any) -> _Mean:
    return _Mean(
        "avg_order_correctness",
        "order_correctness",
        lambda avg, n: f"Average order correctness: {avg:.1%} across {n} items",
    )


def _avg_score(columns: RunColumns, *, score: str, **_: Any) -> _Mean:
    if not isinstance(score, str):
        raise TypeError(f"avg_score: 'score' must be a score name, got {score!r}")
    return _Mean(f"avg_{score}", score, lambda avg, n: f"Average {score}: {avg:.3f} across {n} items")


def _score_breakdown(
    columns: RunColumns, *, keys: list[str] | None = None, scores: list[str] | None = None, **_: Any
) -> _Breakdown:
    if keys is not None and not (isinstance(keys, list) and all(isinstance(k, str) for k in keys)):
        raise TypeError(f"score_breakdown: 'keys' must be a list of metadata keys, got {keys!r}")
    if scores is not None and not (isinstance(scores, list) and all(isinstance(s, str) for s in scores)):
        raise TypeError(f"score_breakdown: 'scores' must be a list of score names, got {scores!r}")
    return _Breakdown(columns, keys, scores)


avg_order_correctness = _register(
    "avg_order_correctness",
    _avg_order_correctness,
    "Mean order_correctness over all items (rounded to 3 places), with the count.",
    single=True,
)
avg_score = _register(
    "avg_score",
    _avg_score,
    'Mean of any item-level score (``args: {"score": "mrr"}``) → ``avg_<score>``.',
    single=True,
)
score_breakdown = _register(
    "score_breakdown",
    _score_breakdown,
    "Mean of every item-level score per metadata value (default keys: category, difficulty).\n\n"
    'One Evaluation per (key, value, score), named ``"<score>[<key>=<value>]"``, with the count in\n'
    "metadata. Items without the key are grouped as ``unspecified``; a default key that no item has\n"
    "is left out. ``scores`` limits the breakdown to those score names.",
)
