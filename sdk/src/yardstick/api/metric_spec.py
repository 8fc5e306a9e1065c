"""What one metric means: which way is good, when an item passes, what change is a regression.

A :class:`MetricSpec` is declared where an evaluator registers (``register(..., metrics=…)``) and
read by every consumer: the pass rule, aggregates and their intervals, gates, the finalizer's and
``POST /comparisons``' comparisons, failure and item-diff ordering, the web UI's arrows and
colours, markdown, JSON and JUnit. Generic code never guesses a metric's meaning from its name.

- ``direction``: ``higher_is_better``, ``lower_is_better`` or ``informational`` (compared and shown,
  never called a regression or an improvement).
- ``passes``: the item-level pass criterion; None means "the experiment's ``pass_threshold`` in the
  metric's direction" (``>= t``, or ``<= 1 - t`` for lower-is-better rates), resolved per experiment.
- ``regression_threshold``: how much worse (a non-negative amount, in the metric's unit) the
  candidate's mean may be before a significant change counts as a regression; the mirror image is
  the improvement threshold.
- ``range``: the values the metric can take; intervals are clipped to it. None on a side: unbounded.
- ``unit``: shown beside values (``ms``, ``tokens``; empty for scores).
- ``primary``: the evaluator's own answer to "is this the number that decides?". A comparison gates
  on its primary metrics only (``ComparisonConfig.primary`` may choose others); when no compared
  metric is primary, every metric with a regression threshold gates.

An experiment may override ``passes`` (``pass_criteria``) and ``regression_threshold``
(``regression_thresholds``); the resolved spec of every metric a run scored is stored with its
aggregates, so a run keeps its meaning when an evaluator changes later.
"""

from __future__ import annotations

import math
from typing import Literal

from pydantic import BaseModel, Field, model_validator

from yardstick.api.pass_criteria import INFORMATIONAL, PassCriterion, higher_is_better, lower_is_better

MetricDirection = Literal["higher_is_better", "lower_is_better", "informational"]

DEFAULT_REGRESSION_THRESHOLD = 0.05
Bounds = tuple[float | None, float | None]
UNIT_RANGE: Bounds = (0.0, 1.0)
UNBOUNDED: Bounds = (None, None)


class MetricSpec(BaseModel, frozen=True):
    """The meaning of one metric (see the module docstring)."""

    direction: MetricDirection = Field(description="Which way is good; informational: neither")
    passes: PassCriterion | None = Field(
        default=None,
        description="Item-level pass criterion; None: the experiment's pass_threshold in this direction",
    )
    regression_threshold: float | None = Field(
        default=DEFAULT_REGRESSION_THRESHOLD,
        ge=0,
        description="How much worse the mean may get before a significant change is a regression "
        "(in the metric's unit); None for informational metrics",
    )
    range: tuple[float | None, float | None] = Field(
        default=UNIT_RANGE,
        description="Lowest and highest possible value (None: unbounded); intervals stay inside",
    )
    unit: str = Field(default="", description="Unit shown beside values: 'ms', 'tokens'; '' for scores")
    primary: bool = Field(
        default=False,
        description="A primary metric gates comparisons; the others are secondary (reported, exploratory)",
    )
    evaluator: str | None = Field(default=None, description="The evaluator that reports it (None: built in)")
    evaluator_version: str | None = Field(default=None, description="That evaluator's declared version")

    @model_validator(mode="after")
    def _consistent(self) -> MetricSpec:
        if self.passes is not None and self.passes.gates and self.direction != self.passes.direction:
            raise ValueError(
                f"a {self.direction} metric cannot pass at '{self.passes.describe()}': "
                "the criterion must point the same way"
            )
        low, high = self.range
        if low is not None and high is not None and not low < high:
            raise ValueError(f"range {self.range} is empty: the lowest value must be below the highest")
        if self.regression_threshold is not None and not math.isfinite(self.regression_threshold):
            raise ValueError("regression_threshold must be finite")
        return self

    @classmethod
    def higher(
        cls,
        pass_at: float | None = None,
        *,
        regression: float = DEFAULT_REGRESSION_THRESHOLD,
        range: Bounds = UNIT_RANGE,
        unit: str = "",
        primary: bool = False,
    ) -> MetricSpec:
        """Higher is better; passes at ``>= pass_at`` (None: the experiment's pass_threshold)."""
        criterion = None if pass_at is None else higher_is_better(pass_at)
        return cls(
            direction="higher_is_better",
            passes=criterion,
            regression_threshold=regression,
            range=range,
            unit=unit,
            primary=primary,
        )

    @classmethod
    def lower(
        cls,
        pass_at: float | None = None,
        *,
        regression: float = DEFAULT_REGRESSION_THRESHOLD,
        range: Bounds = UNIT_RANGE,
        unit: str = "",
        primary: bool = False,
    ) -> MetricSpec:
        """Lower is better; passes at ``<= pass_at`` (None: ``<= 1 - pass_threshold``)."""
        criterion = None if pass_at is None else lower_is_better(pass_at)
        mirrored = cls.higher(regression=regression, range=range, unit=unit, primary=primary)
        return mirrored.model_copy(update={"direction": "lower_is_better", "passes": criterion})

    @classmethod
    def informational(
        cls,
        direction: MetricDirection = "informational",
        *,
        regression: float | None = None,
        range: tuple[float | None, float | None] = UNIT_RANGE,
        unit: str = "",
    ) -> MetricSpec:
        """Never fails an item. With a direction (latency: lower is better) it is still compared
        between runs, as a regression past ``regression``."""
        return cls(
            direction=direction, passes=INFORMATIONAL, regression_threshold=regression, range=range, unit=unit
        )

    @classmethod
    def from_criterion(cls, criterion: PassCriterion) -> MetricSpec:
        """The spec a bare pass criterion implies (``passes={"m": lower_is_better(0.5)}``)."""
        if not criterion.gates:
            return cls.informational()
        return cls(direction=criterion.direction, passes=criterion)

    @property
    def lower_is_better(self) -> bool:
        return self.direction == "lower_is_better"

    @property
    def compared(self) -> bool:
        """Whether a comparison can call a change of this metric a regression or an improvement."""
        return self.direction != "informational" and self.regression_threshold is not None

    def signed_threshold(self) -> float | None:
        """The regression threshold as a signed delta in the bad direction (-0.05, +100 ms)."""
        if not self.compared or self.regression_threshold is None:
            return None
        return self.regression_threshold if self.lower_is_better else -self.regression_threshold

    def with_signed_threshold(self, delta: float) -> MetricSpec:
        """This spec with a regression threshold given as a signed delta (the comparison API's form);
        raises ``ValueError`` when the sign points the wrong way."""
        if self.direction == "informational":
            raise ValueError("an informational metric has no regression threshold")
        if (self.lower_is_better and delta < 0) or (not self.lower_is_better and delta > 0):
            sign = "≥ 0 (an allowed increase)" if self.lower_is_better else "≤ 0 (an allowed drop)"
            raise ValueError(f"threshold {delta:g} points the wrong way: it must be {sign}")
        return self.model_copy(update={"regression_threshold": abs(delta)})

    def resolved(self, pass_threshold: float) -> MetricSpec:
        """This spec with ``passes`` filled in from an experiment's ``pass_threshold``."""
        if self.passes is not None:
            return self
        if self.direction == "informational":
            return self.model_copy(update={"passes": INFORMATIONAL})
        threshold = 1.0 - pass_threshold if self.lower_is_better else pass_threshold
        return self.model_copy(
            update={"passes": PassCriterion(direction=self.direction, threshold=threshold)}
        )

    @property
    def criterion(self) -> PassCriterion:
        """The pass criterion of a resolved spec (informational when none was resolved)."""
        return self.passes or INFORMATIONAL

    def describe(self) -> str:
        """'higher is better, passes at >= 0.5, regression beyond -0.05', as shown to people."""
        words = {"higher_is_better": "higher is better", "lower_is_better": "lower is better"}
        parts = [words.get(self.direction, "informational")]
        if self.passes is not None and self.passes.gates:
            parts.append(f"passes at {self.passes.describe()}")
        signed = self.signed_threshold()
        if signed is not None:
            parts.append(f"regression beyond {signed:+g}{' ' + self.unit if self.unit else ''}")
        return ", ".join(parts)

    def differences(self, other: MetricSpec) -> list[str]:
        """What differs between two runs' specs of the same metric, in words (empty: the same)."""
        out = []
        if self.direction != other.direction:
            out.append(f"direction {self.direction} vs {other.direction}")
        if self.passes != other.passes:
            out.append(f"pass criterion {self.criterion.describe()} vs {other.criterion.describe()}")
        if self.regression_threshold != other.regression_threshold:
            out.append(f"regression threshold {self.regression_threshold} vs {other.regression_threshold}")
        if self.evaluator_version != other.evaluator_version:
            out.append(f"evaluator version {self.evaluator_version} vs {other.evaluator_version}")
        return out
