"""An experiment's configuration: what a user chose, with every default written once.

``ExperimentSettings`` is what both the request (``POST /experiments``) and the stored record share;
``ExperimentConfig`` is what the coordinator stores in ``experiments.config`` and reads back, typed
and versioned (older rows without ``schema_version`` are version 1, their extra keys ignored).
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, field_validator

from yardstick.api.eval_messages import TargetSpec
from yardstick.api.evaluation import EvaluatorSpec
from yardstick.api.gates import Gate
from yardstick.api.metric_spec import MetricSpec
from yardstick.api.pass_criteria import PassCriterion

DEFAULT_CONCURRENCY = 10
MAX_CONCURRENCY = 10_000  # tasks in flight for one experiment; size the fleet's EVAL_CONCURRENCY to match
DEFAULT_TIMEOUT_S = 30.0
DEFAULT_PASS_THRESHOLD = 0.5
DEFAULT_MAX_ERROR_RATE = 0.0
MAX_METADATA_BYTES = 64 * 1024


class CacheSettings(BaseModel, frozen=True):
    """Reuse the target's outputs of earlier runs (opt-in): keyed by the target configuration, the
    item's input and the trial; an output stored less than ``ttl_s`` ago is scored without calling
    the target."""

    ttl_s: float = Field(
        default=86_400.0, gt=0, le=365 * 86_400, description="How long a stored output may be reused"
    )


class ExperimentSettings(BaseModel):
    """How to run a dataset through a target."""

    target: TargetSpec
    concurrency: int = Field(
        default=DEFAULT_CONCURRENCY,
        ge=1,
        le=MAX_CONCURRENCY,
        description=f"Tasks in flight for this experiment (1 to {MAX_CONCURRENCY:,}; the eval workers' "
        "EVAL_CONCURRENCY together bound what actually runs at once)",
    )
    repetitions: int = Field(default=1, ge=1, le=100, description="Trials per item")
    timeout_s: float = Field(
        default=DEFAULT_TIMEOUT_S, gt=0, le=3600, description="Per-item budget per attempt"
    )
    item_filter: dict[str, Any] = Field(
        default_factory=dict, description="metadata key -> value or list of values; items must match all"
    )
    item_ids: list[str] = Field(
        default_factory=list, max_length=10_000, description="Only these items (by id); empty: all"
    )
    pass_threshold: float = Field(
        default=DEFAULT_PASS_THRESHOLD,
        ge=0,
        le=1,
        description="A score passes at >= this (higher-is-better) or <= 1 - this (lower-is-better rates), "
        "unless its evaluator declares its own criterion",
    )
    pass_criteria: dict[str, PassCriterion] = Field(
        default_factory=dict,
        description="metric -> criterion overriding its evaluator's ('>=0.8', '<=0.1', 'informational'); "
        "a '<=' criterion makes the metric lower-is-better in every report and comparison",
    )
    regression_thresholds: dict[str, float] = Field(
        default_factory=dict,
        description="metric -> signed delta in the bad direction overriding its evaluator's (-0.1: a drop "
        "of more than 0.1 regresses; +50 for a lower-is-better metric), used by this run's comparisons",
    )
    gates: list[Gate] = Field(
        default_factory=list, description="Absolute gates on the run's means: 'order_correctness>=0.9'"
    )
    interleave: bool = Field(
        default=False,
        description="With a baseline: run the baseline's configuration again beside this run, both "
        "dispatched together in one time window, and compare with that run instead, so latency "
        "compares fairly (the same machine, the same minutes)",
    )
    primary_metrics: list[str] | None = Field(
        default=None,
        max_length=100,
        description="The metrics that gate this run's comparison with its baseline; None: those their "
        "evaluators declare primary (every metric with a regression threshold when none does)",
    )
    must_pass_categories: list[str] = Field(
        default_factory=list,
        max_length=1000,
        description="Item categories whose items are must-pass in this run's comparison, besides the "
        "items the dataset marks must_pass",
    )
    max_error_rate: float = Field(
        default=DEFAULT_MAX_ERROR_RATE,
        ge=0,
        le=1,
        description="Share of items allowed to error before the run is flagged (warning; CLI exit 3)",
    )
    metadata: dict[str, Any] = Field(
        default_factory=dict, description="Free-form labels kept with the run (at most 64 KiB as JSON)"
    )
    cache: CacheSettings | None = Field(
        default=None, description="Reuse outputs of earlier runs of the same target and items; None: off"
    )
    judge_cache: bool = Field(
        default=True,
        description="Reuse LLM judges' verdicts from the project's judge cache and store new ones "
        "(verdicts expire after JUDGE_CACHE_TTL_DAYS); false: every judge asks its model",
    )
    max_cost: float | None = Field(
        default=None,
        gt=0,
        le=1_000_000,
        allow_inf_nan=False,
        validation_alias=AliasChoices("max_cost", "budget"),
        description="Budget in the price table's currency (LLM_PRICES): once the recorded spend of "
        "target and judge calls reaches it, nothing more is dispatched and the run ends "
        "'budget_exhausted' with what it finished. Only priced models count. None: no budget",
    )

    @field_validator("metadata")
    @classmethod
    def _small_metadata(cls, value: dict[str, Any]) -> dict[str, Any]:
        size = len(json.dumps(value, default=str))
        if size > MAX_METADATA_BYTES:
            raise ValueError(
                f"metadata is {size} bytes as JSON, more than {MAX_METADATA_BYTES}: keep labels small "
                "(put large data in the dataset)"
            )
        return value


class ExperimentConfig(ExperimentSettings):
    """The stored configuration of one experiment (``experiments.config``)."""

    model_config = ConfigDict(extra="ignore")

    schema_version: Literal[1] = 1
    evaluators: list[EvaluatorSpec] = Field(description="Item-level evaluators, defaults resolved")
    run_evaluators: list[EvaluatorSpec] = Field(
        default_factory=list, description="Run-level evaluators, defaults resolved"
    )
    metric_specs: dict[str, MetricSpec] = Field(
        default_factory=dict,
        description="What its evaluators declared each metric means, recorded at submission "
        "(overrides are applied on top when read; see shared.analysis.metric_specs)",
    )
    rescored_from: str | None = Field(
        default=None, description="The experiment whose stored outputs this one re-scored (no target calls)"
    )
