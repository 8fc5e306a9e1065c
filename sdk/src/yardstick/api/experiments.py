"""HTTP bodies of ``/experiments``: start a run, follow it, read its items and what went wrong."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field, model_validator

from yardstick.api.eval_messages import TargetSpec
from yardstick.api.evaluation import EvaluatorSpec
from yardstick.api.experiment_config import ExperimentSettings
from yardstick.api.experiment_status import ExperimentStatus
from yardstick.api.item_failure import FailureSource
from yardstick.api.item_outcome import ItemOutcome
from yardstick.api.limits import INT4_MAX
from yardstick.api.run_aggregates import ExperimentAggregates
from yardstick.api.spend import Spend


class ExperimentCreate(ExperimentSettings):
    """``POST /experiments``: the dataset to run, how, and what to score (defaults per dataset kind)."""

    name: str = Field(min_length=1, max_length=200)
    dataset: str = Field(description="Dataset name")
    dataset_version: int | None = Field(default=None, ge=1, le=INT4_MAX, description="None = latest version")
    evaluators: list[EvaluatorSpec] | None = Field(default=None, description="None = defaults for the target")
    run_evaluators: list[EvaluatorSpec] | None = None
    baseline_id: str | None = Field(default=None, description="Compare against this experiment at completion")
    baseline_name: str | None = Field(
        default=None, description="…or against the latest completed experiment with this name"
    )

    @model_validator(mode="after")
    def _one_baseline(self) -> ExperimentCreate:
        if self.baseline_id and self.baseline_name:
            raise ValueError("give baseline_id or baseline_name, not both")
        if self.interleave and not (self.baseline_id or self.baseline_name):
            raise ValueError("interleave runs the baseline again beside this run: give a baseline too")
        return self


class Progress(BaseModel):
    total: int
    done: int
    errors: int
    in_flight: int
    pending: int
    cache_hits: int = Field(default=0, description="Items scored from the output cache (target not called)")
    judge_cache_hits: int = Field(
        default=0, description="Judge verdicts served from the judge cache (no LLM call)"
    )
    throttled: int = Field(
        default=0, description="Times the target answered 429/503 (rate limited); waited for, never errors"
    )
    target_concurrency: int | None = Field(
        default=None, description="The workers' adaptive concurrency for the target, as last reported"
    )


class ExperimentOut(BaseModel):
    id: str
    name: str
    status: ExperimentStatus
    dataset: str
    dataset_version: int
    target: TargetSpec
    concurrency: int
    max_cost: float | None = Field(default=None, description="Budget (LLM_PRICES currency); None: none")
    progress: Progress
    aggregates: ExperimentAggregates | None = None
    comparison_id: str | None = None
    regression: bool | None = None
    baseline_id: str | None = None
    error: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    rescored_from: str | None = Field(
        default=None, description="The experiment whose stored outputs this one re-scored"
    )
    code_fingerprints: list[str] = Field(
        default_factory=list,
        description="Python targets: the task workers' code fingerprints its outputs came from (more "
        "than one: mixed code)",
    )
    created_at: datetime
    started_at: datetime | None = None
    completed_at: datetime | None = None


class RescoreCreate(BaseModel):
    """``POST /experiments/{id}/rescore``: score the source experiment's stored outputs again."""

    evaluators: list[EvaluatorSpec] | None = Field(
        default=None, max_length=100, description="Item-level evaluators; None: the source's"
    )
    run_evaluators: list[EvaluatorSpec] | None = Field(
        default=None, max_length=100, description="Run-level evaluators; None: the source's"
    )
    name: str | None = Field(
        default=None, min_length=1, max_length=200, description="None: '<source name>-rescored'"
    )
    judge_cache: bool = Field(
        default=True, description="Reuse judge verdicts from the judge cache; false: every judge asks again"
    )


class ExperimentAccepted(BaseModel):
    id: str
    status: ExperimentStatus
    total: int
    links: dict[str, str]
    warnings: list[str] = Field(
        default_factory=list, description="e.g. more concurrency than the running eval workers hold"
    )


class ExperimentItemOut(ItemOutcome):
    """One (item, trial): its snapshot and its outcome (output, scores, usage, latency or failure)."""

    item_id: str
    trial: int
    status: str = Field(description="pending, dispatched, ok or error")
    input: dict[str, Any]
    expected_output: dict[str, Any] | None
    metadata: dict[str, Any]
    attempts: int
    spend: Spend | None = Field(
        default=None, description="Tokens and cost of this item's LLM calls (target and judges)"
    )


class ItemsPage(BaseModel):
    items: list[ExperimentItemOut]
    total: int
    offset: int
    limit: int


class ErrorGroup(BaseModel):
    """Failures of one source and type (an evaluator's: of one evaluator and version too)."""

    source: FailureSource = Field(default="target", description="target, evaluator or platform")
    type: str = Field(default="Error", description="The exception's class name (or the failure's kind)")
    evaluator: str | None = Field(default=None, description="The evaluator that failed (source evaluator)")
    evaluator_version: str | None = Field(default=None, description="Its declared version")
    message: str = Field(description="The group's most frequent message")
    count: int = Field(description="Items (scores, for an evaluator) that failed so")
    example_item_ids: list[str] = Field(description="A few of the items, by id")


class FailingScore(BaseModel):
    """One score of an ok item that fails its metric's pass criterion."""

    item_id: str
    trial: int
    metric: str
    value: float | None
    criterion: str = Field(description="What passing needs, e.g. '>= 0.5'")
    comment: str | None


class ExperimentFailures(BaseModel):
    """What went wrong: failures grouped by source and type, then failing scores (worst first)."""

    errors: list[ErrorGroup]
    failing: list[FailingScore]
