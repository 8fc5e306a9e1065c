"""A finished run as compact per-item columns (NumPy arrays), without item ids, inputs or outputs.

What aggregation and the run-level evaluators need, in item order (position, trial): status,
latency, the metadata values of a few keys, token totals and the names of the scored metrics.
Metric values are fetched one metric at a time (``MetricValues``), so a run costs a few bytes
per item instead of full objects. ``NaN`` stands for a missing score or latency (a score that is
None, or not reported, is treated the same way everywhere).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from shared.analysis.stats import FloatArray
from yardstick.api.agent_messages import TokenUsage
from yardstick.api.evaluation import Evaluation
from yardstick.api.run_data import ScoredItem

BoolArray = npt.NDArray[np.bool_]
CodeArray = npt.NDArray[np.int32]
IndexArray = npt.NDArray[np.intp]
IntArray = npt.NDArray[np.int64]
MetricValues = Callable[[str], FloatArray]
"""Values of one metric for every item of the run, in item order (NaN = missing)."""

ABSENT = -1
"""Group code: the item's metadata does not have the key."""
NULL = -2
"""Group code: the item's metadata has the key with the value None."""


@dataclass
class GroupColumn:
    """One metadata key over the items: ``labels[codes[i]]`` is ``str(metadata[key])`` of item i."""

    codes: CodeArray
    labels: list[str]

    def present(self) -> BoolArray:
        """Items whose metadata has a non-None value for the key."""
        mask: BoolArray = self.codes >= 0
        return mask

    def partition(self) -> list[tuple[str, IndexArray]]:
        """(label, indices of its items in item order) for every label, sorted by label."""
        present = np.flatnonzero(self.codes >= 0)
        order = present[np.argsort(self.codes[present], kind="stable")]
        bounds = np.searchsorted(self.codes[order], np.arange(len(self.labels) + 1))
        parts = [(label, order[bounds[c] : bounds[c + 1]]) for c, label in enumerate(self.labels)]
        return sorted(parts, key=lambda part: part[0])


class GroupCoder:
    """Builds a :class:`GroupColumn` item by item into a preallocated code array."""

    def __init__(self, size: int) -> None:
        self.codes: CodeArray = np.full(size, ABSENT, dtype=np.int32)
        self._index: dict[str, int] = {}
        self._by_json: dict[str | None, int] = {}
        self.labels: list[str] = []

    def code(self, present: bool, value: Any) -> int:
        if not present:
            return ABSENT
        if value is None:
            return NULL
        label = str(value)
        code = self._index.get(label)
        if code is None:
            code = self._index[label] = len(self.labels)
            self.labels.append(label)
        return code

    def set(self, row: int, present: bool, value: Any) -> None:
        self.codes[row] = self.code(present, value)

    def set_json(self, row: int, present: bool, encoded: str | None) -> None:
        """``set`` for a value given as JSON text (as Postgres prints a jsonb value), decoded once
        per distinct text: a key has a few values over thousands of items."""
        self.codes[row] = self._json_code(encoded) if present else ABSENT

    def set_json_column(self, present: BoolArray, encoded: Sequence[str | None]) -> None:
        """``set_json`` of every row at once, rows 0..len-1 in order (labels are numbered in the
        order they first appear, as row by row): each distinct text is decoded once."""
        codes = {text: self._json_code(text) for text, has in zip(encoded, present, strict=True) if has}
        self.codes[: len(encoded)] = [
            codes[text] if has else ABSENT for text, has in zip(encoded, present, strict=True)
        ]

    def _json_code(self, encoded: str | None) -> int:
        code = self._by_json.get(encoded)
        if code is None:
            value = None if encoded is None else json.loads(encoded)
            code = self._by_json[encoded] = self.code(True, value)
        return code

    def column(self) -> GroupColumn:
        return GroupColumn(codes=self.codes, labels=self.labels)


@dataclass
class UsageTotals:
    """Token usage summed over the items whose target reported it."""

    items_reporting: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0

    def add(self, usage: TokenUsage) -> None:
        self.items_reporting += 1
        self.input_tokens += usage.input_tokens
        self.output_tokens += usage.output_tokens
        self.total_tokens += usage.total_tokens


@dataclass
class RunColumns:
    """Per-item columns of one run; see the module docstring."""

    experiment_id: str
    name: str
    ok: BoolArray
    latency: FloatArray
    groups: dict[str, GroupColumn]
    metric_names: list[str] = field(default_factory=list)
    """Sorted names of every score reported for any item."""
    usage: UsageTotals = field(default_factory=UsageTotals)
    run_scores: list[Evaluation] = field(default_factory=list)

    @property
    def size(self) -> int:
        return int(self.ok.size)

    @property
    def error_count(self) -> int:
        return int(self.size - np.count_nonzero(self.ok))

    @property
    def has_latency(self) -> bool:
        """Some item (ok or not) has a latency."""
        return bool(np.any(~np.isnan(self.latency)))


def float_column(values: Iterable[float | None], size: int) -> FloatArray:
    """A float64 array of ``size`` values; None becomes NaN."""
    return np.fromiter((np.nan if v is None else v for v in values), dtype=np.float64, count=size)


def columns_from_items(
    experiment_id: str,
    name: str,
    items: Sequence[ScoredItem],
    keys: Iterable[str],
    run_scores: Sequence[Evaluation] = (),
) -> RunColumns:
    """The columns of an in-memory run (``RunData.items``)."""
    size = len(items)
    coders = {key: GroupCoder(size) for key in keys}
    usage = UsageTotals()
    for row, item in enumerate(items):
        for key, coder in coders.items():
            coder.set(row, key in item.metadata, item.metadata.get(key))
        if item.usage is not None:
            usage.add(item.usage)
    return RunColumns(
        experiment_id=experiment_id,
        name=name,
        ok=np.fromiter((i.status == "ok" for i in items), dtype=np.bool_, count=size),
        latency=float_column((i.latency_ms for i in items), size),
        groups={key: coder.column() for key, coder in coders.items()},
        metric_names=sorted({metric for item in items for metric in item.scores}),
        usage=usage,
        run_scores=list(run_scores),
    )


def item_metric_values(items: Sequence[ScoredItem]) -> MetricValues:
    """``MetricValues`` over in-memory items."""
    return lambda metric: float_column((i.scores.get(metric) for i in items), len(items))
