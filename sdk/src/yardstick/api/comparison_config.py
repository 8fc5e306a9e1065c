"""How to compare two runs: the request's knobs, stored with each comparison.

What each metric means (direction, regression threshold) is its resolved spec
(``shared.analysis.metric_specs``); ``thresholds`` and ``lower_is_better`` here override it for
one comparison.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, Field, field_validator

from yardstick.api.gates import Gate

Multiplicity = Literal["westfall_young", "holm"]
_RELATIVE = re.compile(r"^\s*(?P<value>[-+]?(?:\d+\.?\d*|\.\d+))\s*%\s*$")


def relative_threshold(value: float | str) -> float | None:
    """The percentage of a relative threshold (``"+20%"`` -> 20.0), None for an absolute one."""
    if isinstance(value, str) and (match := _RELATIVE.match(value)) is not None:
        return float(match.group("value"))
    return None


def threshold_forms(value: dict[str, float | str]) -> dict[str, float | str]:
    """Thresholds as numbers, or as percentages ('+20%'); anything else is refused with a reason."""
    out: dict[str, float | str] = {}
    for metric, threshold in value.items():
        if isinstance(threshold, str) and relative_threshold(threshold) is None:
            try:
                out[metric] = float(threshold)
            except ValueError:
                raise ValueError(
                    f"threshold {threshold!r} of {metric!r} is neither a number (-0.05, +100) "
                    "nor a percentage ('+20%')"
                ) from None
        else:
            out[metric] = threshold
    return out


class ComparisonConfig(BaseModel):
    """How to compare two runs."""

    metrics: list[str] | None = Field(
        default=None, description="Metrics to compare; None = every metric scored in both runs"
    )
    thresholds: dict[str, float | str] = Field(
        default_factory=dict,
        description="Thresholds overriding the metrics' specs for this comparison: a signed delta in the "
        "bad direction (-0.05, +100) or a margin relative to the baseline's mean ('+20%' for "
        "lower-is-better metrics such as latency_ms, '-10%' for higher-is-better ones)",
    )
    primary: list[str] | None = Field(
        default=None,
        description="The metrics that gate (the primary family); None: those their evaluators declare "
        "primary, or every compared metric with a regression threshold when none declares one. "
        "error_rate always gates. The others are secondary: reported, their p-values exploratory",
    )
    multiplicity: Multiplicity = Field(
        default="westfall_young",
        description="How the primary family is adjusted: westfall_young (step-down min-P over joint "
        "sign-flip resamples: correlated metrics cost little power) or holm (Holm with Tarone's "
        "refinement, as if the metrics were unrelated)",
    )
    must_pass_categories: list[str] = Field(
        default_factory=list,
        description="Item categories (metadata 'category') whose items are must-pass in this "
        "comparison, besides items marked must_pass in the dataset",
    )
    lower_is_better: list[str] = Field(
        default_factory=list,
        description="Metrics to treat as lower-is-better in this comparison, whatever their spec says",
    )
    alpha: float = Field(default=0.05, gt=0.0, lt=1.0, description="Family-wise significance level")
    confidence: float = Field(default=0.95, gt=0.0, lt=1.0, description="Level of the reported CIs")
    resamples: int = Field(default=10_000, ge=100, description="Bootstrap resamples B")
    seed: int = Field(default=0, description="numpy.random.default_rng seed")
    breakdown_keys: list[str] = Field(default_factory=lambda: ["category", "difficulty", "query_type"])
    include_latency: bool = Field(default=True, description="Compare per-item latency_ms")
    include_error_rate: bool = Field(default=True, description="Compare the per-pair error indicator")
    fail_on_breakdown: bool = Field(default=False, description="A breakdown regression sets regression")
    gates: list[Gate] = Field(
        default_factory=list, description="Absolute gates on the candidate's means, e.g. 'mrr>=0.8'"
    )
    gate: Literal["point", "ci"] = Field(
        default="point",
        description="point: a significant change whose delta passes the threshold counts; ci: only when "
        "the whole interval of the delta lies beyond it (fewer false alarms at the threshold, less power)",
    )

    @field_validator("thresholds")
    @classmethod
    def _threshold_forms(cls, value: dict[str, float | str]) -> dict[str, float | str]:
        return threshold_forms(value)
