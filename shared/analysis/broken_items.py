"""Which items broke: pairs whose pass verdict on a gating metric went from pass to fail (or back).

The question a comparison's user brings is "did my change break something?". A mean can hold still
while named cases that worked stop working, and on 25 items a 2-item drop is never significant; the
items themselves are the answer. Rules:

- An item passes a metric when its value meets the metric's pass criterion (``MetricSpec.passes``)
  and the item ran without error; "not measured" is never a pass. Only metrics whose criterion
  gates are looked at, and only the comparison's gating (primary) metrics.
- Without repetitions (one trial per item in both runs): passed in the baseline and fails in the
  candidate is *broken*, the reverse *fixed*; no statistics needed.
- With trials (some item ran more than once): an item whose pass count fell (``k`` of ``n`` in the
  baseline, ``k'`` of ``n`` in the candidate, ``k' < k``) is listed; it is a *significant item
  regression* when the one-sided Fisher's exact test of the 2x2 table rejects after Holm with
  Tarone's refinement over the items (a flaky item's single unlucky trial does not). Fixed items
  mirror it.
- Must-pass items: marked in the dataset (item metadata ``must_pass: true``) or in a must-pass
  category (``ComparisonConfig.must_pass_categories``). A must-pass item that broke (with trials:
  significantly, the family being the must-pass items) fails the comparison, whatever the means say.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.stats import hypergeom

from shared.analysis.columns import BoolArray, IntArray
from shared.analysis.paired_columns import PairedColumns
from shared.analysis.stats import FloatArray
from shared.analysis.stats.multiple_testing import holm_tarone_adjust
from yardstick.api.comparison_report import MAX_LISTED_CHANGES, ItemChange
from yardstick.api.datasets import MUST_PASS_KEY
from yardstick.api.metric_spec import MetricSpec

CATEGORY_KEY = "category"
ITEM_KEYS = (MUST_PASS_KEY, CATEGORY_KEY)
"""Metadata keys the comparison reads per pair besides the breakdown keys."""
_TRUE_LABELS = frozenset({"True", "true", "1", "yes"})


def must_pass_mask(paired: PairedColumns, categories: Sequence[str]) -> BoolArray:
    """Pairs whose item is must-pass: marked so in its metadata, or in one of ``categories``."""
    mask = np.zeros(paired.n_pairs, dtype=np.bool_)
    marked = paired.groups.get(MUST_PASS_KEY)
    if marked is not None:
        codes = np.array([label in _TRUE_LABELS for label in marked.labels], dtype=np.bool_)
        present = marked.codes >= 0
        mask[present] = codes[marked.codes[present]]
    category = paired.groups.get(CATEGORY_KEY)
    if category is not None and categories:
        wanted = np.array([label in set(categories) for label in category.labels], dtype=np.bool_)
        present = category.codes >= 0
        mask[present] |= wanted[category.codes[present]]
    return mask


def passes(spec: MetricSpec, values: FloatArray, ok: BoolArray) -> BoolArray:
    """Per pair: the value meets the spec's pass criterion on an item that ran (NaN never passes)."""
    criterion = spec.criterion
    threshold = criterion.threshold
    out = np.zeros(values.shape, dtype=np.bool_)
    if threshold is None:
        return out
    finite = ok & np.isfinite(values)
    if criterion.direction == "lower_is_better":
        out[finite] = values[finite] <= threshold
    else:
        out[finite] = values[finite] >= threshold
    return out


@dataclass(frozen=True)
class _Items:
    """Pairs grouped by item id, in the order of each item's first pair."""

    ids: list[str]
    index: IntArray  # pair -> item
    trials: IntArray  # item -> paired trials

    @classmethod
    def of(cls, item_ids: Sequence[str]) -> _Items:
        positions: dict[str, int] = {}
        index = np.fromiter(
            (positions.setdefault(item_id, len(positions)) for item_id in item_ids),
            dtype=np.int64,
            count=len(item_ids),
        )
        return cls(list(positions), index, np.bincount(index, minlength=len(positions)).astype(np.int64))

    def count(self, flags: BoolArray) -> IntArray:
        return np.bincount(self.index, weights=flags, minlength=len(self.ids)).astype(np.int64)

    def mean(self, values: FloatArray) -> FloatArray:
        finite = np.isfinite(values)
        sums = np.bincount(self.index, weights=np.where(finite, values, 0.0), minlength=len(self.ids))
        counts = np.bincount(self.index, weights=finite, minlength=len(self.ids))
        with np.errstate(invalid="ignore", divide="ignore"):
            out: FloatArray = np.where(counts > 0, sums / np.maximum(counts, 1), np.nan)
        return out


def _fisher(k_from: IntArray, k_to: IntArray, n: IntArray) -> tuple[FloatArray, FloatArray]:
    """One-sided Fisher's exact p that the pass rate fell from ``k_from`` of n to ``k_to`` of n, and
    the smallest p any table with the same margins could give (for Tarone's refinement)."""
    total = k_from + k_to
    p = hypergeom.sf(k_from - 1, 2 * n, total, n)
    floor = hypergeom.pmf(np.minimum(total, n), 2 * n, total, n)
    return np.clip(p, 0.0, 1.0), np.clip(floor, 0.0, 1.0)


def _adjust(p: FloatArray, floor: FloatArray, members: BoolArray, alpha: float) -> FloatArray:
    """Holm-Tarone over ``members``; NaN elsewhere."""
    out = np.full(p.shape, np.nan)
    chosen = np.flatnonzero(members)
    if chosen.size:
        adjusted = holm_tarone_adjust(p[chosen].tolist(), floor[chosen].tolist(), alpha)
        out[chosen] = [1.0 if a is None else a for a in adjusted]
    return out


@dataclass
class ItemChanges:
    broken: list[ItemChange]
    fixed: list[ItemChange]
    broken_total: int
    fixed_total: int
    must_pass_broken: list[str]
    must_pass_items: int
    trials: bool


def _value(x: float) -> float | None:
    return None if not np.isfinite(x) else float(x)


@dataclass(frozen=True)
class _Moved:
    """One metric's items that moved one way, as arrays (models are built only for listed ones)."""

    metric: str
    change: str
    index: IntArray  # items that moved, in item order
    k_base: IntArray
    k_cand: IntArray
    means: tuple[FloatArray, FloatArray]
    p_raw: FloatArray
    p_adj: FloatArray
    significant: BoolArray

    def model(self, items: _Items, must: BoolArray, i: int) -> ItemChange:
        return ItemChange(
            item_id=items.ids[i],
            metric=self.metric,
            change=self.change,  # type: ignore[arg-type]
            must_pass=bool(must[i]),
            trials=int(items.trials[i]),
            baseline_passes=int(self.k_base[i]),
            candidate_passes=int(self.k_cand[i]),
            baseline=_value(self.means[0][i]),
            candidate=_value(self.means[1][i]),
            p_value=_value(self.p_raw[i]),
            p_adjusted=_value(self.p_adj[i]),
            significant=bool(self.significant[i]),
        )


def _moved(
    items: _Items,
    metric: str,
    change: str,
    k_base: IntArray,
    k_cand: IntArray,
    means: tuple[FloatArray, FloatArray],
    must: BoolArray,
    alpha: float,
    repeated: bool,
) -> _Moved:
    high, low = (k_base, k_cand) if change == "broken" else (k_cand, k_base)
    moved = low < high
    if not repeated:
        p_raw = p_adj = np.full(moved.shape, np.nan)
        significant = moved
    else:
        p_raw, floor = _fisher(high, low, items.trials)
        p_adj = np.where(must, _adjust(p_raw, floor, must, alpha), _adjust(p_raw, floor, ~must, alpha))
        significant = moved & (p_adj < alpha)
    return _Moved(metric, change, np.flatnonzero(moved), k_base, k_cand, means, p_raw, p_adj, significant)


def _listed(items: _Items, must: BoolArray, moved: list[_Moved]) -> list[ItemChange]:
    """At most ``MAX_LISTED_CHANGES``: must-pass items first, then in metric order, then item order."""
    out: list[ItemChange] = []
    for must_pass in (True, False):
        for m in moved:
            for i in m.index[must[m.index] == must_pass][: MAX_LISTED_CHANGES - len(out)]:
                out.append(m.model(items, must, int(i)))
    return out


def item_changes(
    paired: PairedColumns,
    values: Mapping[str, tuple[FloatArray, FloatArray]],
    specs: Mapping[str, MetricSpec],
    must_pass: BoolArray,
    alpha: float,
) -> ItemChanges:
    """Broken and fixed items on each metric of ``values`` (the gating ones) whose spec has a gating
    pass criterion; must-pass items first, then in metric order, then in item order."""
    items = _Items.of(paired.item_ids)
    repeated = bool(items.trials.size) and int(items.trials.max()) > 1
    must = np.zeros(len(items.ids), dtype=np.bool_)
    np.logical_or.at(must, items.index, must_pass)
    broken: list[_Moved] = []
    fixed: list[_Moved] = []
    for metric, (base, cand) in values.items():
        spec = specs[metric]
        if not spec.criterion.gates:
            continue
        k_base = items.count(passes(spec, base, paired.baseline_ok))
        k_cand = items.count(passes(spec, cand, paired.candidate_ok))
        means = (
            items.mean(np.where(paired.baseline_ok, base, np.nan)),
            items.mean(np.where(paired.candidate_ok, cand, np.nan)),
        )
        args = (k_base, k_cand, means, must, alpha, repeated)
        broken.append(_moved(items, metric, "broken", *args))
        fixed.append(_moved(items, metric, "fixed", *args))
    gating = [items.ids[i] for m in broken for i in m.index if must[i] and m.significant[i]]
    return ItemChanges(
        broken=_listed(items, must, broken),
        fixed=_listed(items, must, fixed),
        broken_total=sum(m.index.size for m in broken),
        fixed_total=sum(m.index.size for m in fixed),
        must_pass_broken=list(dict.fromkeys(gating)),
        must_pass_items=int(must.sum()),
        trials=repeated,
    )


def first_reason(
    item_errors: Mapping[int, str | None], score_reasons: Mapping[int, str | None]
) -> str | None:
    """Why an item failed a metric in one run: over its trials in order, the first that has a reason:
    the item's error when that trial did not run, else the evaluator's error or comment."""
    for trial in sorted(item_errors.keys() | score_reasons.keys()):
        if trial in item_errors:
            return f"the item did not run: {item_errors[trial] or 'no reason recorded'}"
        if score_reasons.get(trial):
            return score_reasons[trial]
    return None


def with_reasons(
    changes: list[ItemChange], reasons: Mapping[tuple[str, str], str | None]
) -> list[ItemChange]:
    """``changes`` with their reasons from ``reasons[(item_id, metric)]`` where one is known."""
    return [
        c
        if reasons.get((c.item_id, c.metric)) is None
        else c.model_copy(update={"reason": reasons[c.item_id, c.metric]})
        for c in changes
    ]


__all__ = [
    "ITEM_KEYS",
    "MUST_PASS_KEY",
    "ItemChanges",
    "first_reason",
    "item_changes",
    "must_pass_mask",
    "passes",
    "with_reasons",
]
