"""Two runs paired by (item_id, trial), as compact per-pair columns for the comparison.

Pairs are in the baseline's item order. Per pair: its item id and trial, both statuses, both
latencies and, per
breakdown key, the group (the baseline item's metadata value when it has the key, else the
candidate's). Score values are fetched one metric at a time (``PairedValues``); NaN = missing.
Unmatched items are listed by key (``ItemKey``), on each side in that run's item order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np

from shared.analysis.columns import BoolArray, GroupCoder, GroupColumn, IntArray, float_column
from shared.analysis.errors import ComparisonError
from shared.analysis.stats import FloatArray
from yardstick.api.comparison_report import ItemKey
from yardstick.api.evaluation import Evaluation
from yardstick.api.run_data import RunData, ScoredItem

PairedValues = Callable[[str], tuple[FloatArray, FloatArray]]
"""(baseline, candidate) values of one score metric per pair (NaN = missing), whatever the status."""


@dataclass
class RunSide:
    """What the comparison needs from one whole run (matched or not)."""

    experiment_id: str
    name: str
    error_count: int
    metric_names: set[str]
    has_latency: bool
    """Some item (ok or not) has a latency."""
    run_scores: list[Evaluation] = field(default_factory=list)


@dataclass
class PairedColumns:
    baseline: RunSide
    candidate: RunSide
    baseline_ok: BoolArray
    candidate_ok: BoolArray
    baseline_latency: FloatArray
    candidate_latency: FloatArray
    groups: dict[str, GroupColumn]
    item_ids: list[str] = field(default_factory=list)
    """Each pair's dataset item id (broken items are named by it)."""
    trials: IntArray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    """Each pair's trial number."""
    unmatched_baseline: list[ItemKey] = field(default_factory=list)
    unmatched_candidate: list[ItemKey] = field(default_factory=list)

    @property
    def n_pairs(self) -> int:
        return int(self.baseline_ok.size)


def _index(run: RunData) -> dict[ItemKey, ScoredItem]:
    out: dict[ItemKey, ScoredItem] = {}
    for item in run.items:
        if item.key in out:
            raise ComparisonError(
                f"run {run.experiment_id!r} has item {item.item_id!r} trial {item.trial} twice; "
                "pass one terminal result per (item_id, trial)"
            )
        out[item.key] = item
    return out


def _side(run: RunData) -> RunSide:
    return RunSide(
        experiment_id=run.experiment_id,
        name=run.name,
        error_count=sum(i.status == "error" for i in run.items),
        metric_names={name for item in run.items for name in item.scores},
        has_latency=any(i.latency_ms is not None for i in run.items),
        run_scores=list(run.run_scores),
    )


def pair_runs(
    baseline: RunData, candidate: RunData, breakdown_keys: Iterable[str]
) -> tuple[PairedColumns, PairedValues]:
    """Pair two in-memory runs; raises ``ComparisonError`` when a run repeats an (item_id, trial)."""
    base_idx, cand_idx = _index(baseline), _index(candidate)
    pairs = [(item, cand_idx[key]) for key, item in base_idx.items() if key in cand_idx]
    size = len(pairs)
    coders = {key: GroupCoder(size) for key in breakdown_keys}
    for row, (b, c) in enumerate(pairs):
        for key, coder in coders.items():
            if key in b.metadata:
                coder.set(row, True, b.metadata[key])
            else:
                coder.set(row, key in c.metadata, c.metadata.get(key))

    def values(metric: str) -> tuple[FloatArray, FloatArray]:
        return (
            float_column((b.scores.get(metric) for b, _ in pairs), size),
            float_column((c.scores.get(metric) for _, c in pairs), size),
        )

    paired = PairedColumns(
        baseline=_side(baseline),
        candidate=_side(candidate),
        baseline_ok=np.fromiter((b.status == "ok" for b, _ in pairs), dtype=np.bool_, count=size),
        candidate_ok=np.fromiter((c.status == "ok" for _, c in pairs), dtype=np.bool_, count=size),
        baseline_latency=float_column((b.latency_ms for b, _ in pairs), size),
        candidate_latency=float_column((c.latency_ms for _, c in pairs), size),
        groups={key: coder.column() for key, coder in coders.items()},
        item_ids=[b.item_id for b, _ in pairs],
        trials=np.fromiter((b.trial for b, _ in pairs), dtype=np.int64, count=size),
        unmatched_baseline=[k for k in base_idx if k not in cand_idx],
        unmatched_candidate=[k for k in cand_idx if k not in base_idx],
    )
    return paired, values
