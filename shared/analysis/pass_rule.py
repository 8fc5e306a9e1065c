"""The one pass rule: whether a score passes, whether an item passes.

Every place that says "passed" uses this module: the aggregates (pass rate, per-group pass
rates), the items filter of the API (``failing=METRIC``), the reports and the UI.

- A metric's :class:`PassCriterion` says which way is good and where the line is: higher-is-better
  scores pass at ``value >= threshold``; lower-is-better rates (``hallucination_rate``,
  ``error_rate``) at ``value <= 1 - threshold``; millisecond metrics (``*_ms``) are informational,
  never a pass criterion.
- A missing value (None or NaN) does not fail the item: it is not measured and is counted apart
  (``MetricAggregate.none_count``).
- An item passes when its status is ``ok`` and none of its scores fails its criterion.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from pydantic import BaseModel, Field

from shared.analysis.columns import BoolArray
from shared.analysis.comparison_rules import is_lower_better
from shared.analysis.run_data import ScoredItem
from shared.contracts.experiment_config import DEFAULT_PASS_THRESHOLD
from shared.stats import FloatArray

Direction = Literal["higher_is_better", "lower_is_better", "informational"]


class PassCriterion(BaseModel, frozen=True):
    """How one metric's values pass."""

    direction: Direction
    threshold: float | None = Field(
        description="Pass at value >= threshold (higher is better) or <= threshold (lower is better); "
        "None when informational"
    )

    def passes(self, value: float | None) -> bool | None:
        """True/False for a measured value; None when not measured or informational."""
        if value is None or np.isnan(value) or self.threshold is None:
            return None
        if self.direction == "lower_is_better":
            return value <= self.threshold
        return value >= self.threshold

    def clears(self, values: FloatArray) -> BoolArray:
        """Per value: does it let its item pass? (missing values and informational metrics do)."""
        if self.threshold is None:
            return np.ones(values.size, dtype=np.bool_)
        with np.errstate(invalid="ignore"):
            good = (
                values <= self.threshold if self.direction == "lower_is_better" else values >= self.threshold
            )
        clears: BoolArray = np.isnan(values) | good
        return clears


def criterion_for(metric: str, pass_threshold: float) -> PassCriterion:
    """The criterion of ``metric`` under an experiment's ``pass_threshold``."""
    if metric.endswith("_ms"):
        return PassCriterion(direction="informational", threshold=None)
    if is_lower_better(metric):
        return PassCriterion(direction="lower_is_better", threshold=1.0 - pass_threshold)
    return PassCriterion(direction="higher_is_better", threshold=pass_threshold)


def item_passed(item: ScoredItem, pass_threshold: float = DEFAULT_PASS_THRESHOLD) -> bool:
    """An ``ok`` item none of whose scores fails its criterion."""
    if item.status != "ok":
        return False
    return all(criterion_for(name, pass_threshold).passes(v) is not False for name, v in item.scores.items())
