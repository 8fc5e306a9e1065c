"""HTTP bodies of ``POST /plans``: how many items a change of one metric needs (``PlanRequest``,
which the CLI also builds without the coordinator) and the answer (``PowerPlan``)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class PlanRequest(BaseModel):
    """How many items to detect a change of one metric, from a finished run's spread or pass rate."""

    experiment_id: str = Field(description="A completed run whose metric summary is the baseline")
    metric: str = Field(min_length=1, description="The metric, e.g. 'order_correctness'")
    drop: float = Field(gt=0, allow_inf_nan=False, description="The change to detect, in the metric's units")
    alpha: float = Field(default=0.05, gt=0, lt=1, description="Family-wise significance level")
    power: float = Field(default=0.8, gt=0, lt=1, description="Probability of detecting the change")
    family_size: int | None = Field(
        default=None,
        ge=1,
        le=10_000,
        description="Metrics in the comparison's Holm family; None: the run's metrics plus error_rate "
        "(and latency_ms when measured), as a default comparison counts them before Tarone",
    )
    correlation: float = Field(
        default=0.5, ge=-1, lt=1, description="Assumed correlation between two runs' scores of an item"
    )


class PowerPlan(BaseModel):
    """Pairs needed to detect a change of a metric, and what the run's own size could detect."""

    metric: str
    test: Literal["mcnemar_exact", "sign_flip"] = Field(description="The paired test a comparison would use")
    drop: float = Field(description="The change to detect (absolute, in the metric's units)")
    baseline_mean: float = Field(description="The run's mean (the pass rate for 0/1 scores)")
    baseline_sd: float = Field(description="The run's sample SD of the metric")
    correlation: float = Field(description="Assumed correlation between two runs' scores of an item")
    noise: float = Field(description="SD of the paired differences, or for 0/1 scores the churn rate")
    alpha: float = Field(description="Family-wise significance level")
    family_size: int = Field(description="Metrics in the Holm family (the level is alpha / family_size)")
    level: float = Field(description="alpha / family_size")
    power: float = Field(description="Probability of detecting the change")
    pairs_needed: int = Field(description="Paired items needed to detect `drop` with `power` at `level`")
    items_now: int = Field(description="Items with a value in this run")
    mde_now: float | None = Field(description="The change detectable with items_now pairs; None: none")


class PlanCreate(PlanRequest):
    """``POST /plans``: the shared ``PlanRequest`` (the CLI builds it without the coordinator)."""
