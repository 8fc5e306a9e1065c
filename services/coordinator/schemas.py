"""HTTP request/response bodies of the coordinator API."""

from __future__ import annotations

from collections import Counter
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field, field_validator, model_validator

from shared.analysis.planning import PlanRequest
from shared.contracts.comparison_config import Multiplicity, threshold_forms
from shared.contracts.comparison_report import ComparisonReport
from shared.contracts.eval_messages import TargetSpec
from shared.contracts.evaluation import EvaluatorSpec
from shared.contracts.experiment_config import ExperimentSettings
from shared.contracts.experiment_status import ExperimentStatus
from shared.contracts.gates import Gate
from shared.contracts.item_failure import FailureSource
from shared.contracts.item_outcome import ItemOutcome
from shared.contracts.pairwise import PairwiseJudgeSpec, PairwiseJudging
from shared.contracts.projects import PROJECT_ID_PATTERN
from shared.contracts.roles import Role
from shared.contracts.run_aggregates import ExperimentAggregates
from shared.contracts.spend import Spend
from shared.datasets.files import DatasetItemIn
from shared.online.durations import parse_duration

# ---- datasets -------------------------------------------------------------------------------


INT4_MAX = 2**31 - 1
"""The largest value a Postgres ``integer`` column holds: ids and versions above it are refused."""


class DatasetCreate(BaseModel):
    name: str = Field(min_length=1, max_length=200)
    description: str = Field(default="", max_length=10_000)
    kind: str = Field(default="generic", min_length=1, max_length=50)


class DatasetSettings(BaseModel):
    """What a dataset is, besides its name and items."""

    description: str = Field(default="", max_length=10_000)
    kind: str = Field(default="generic", min_length=1, max_length=50)


class ItemsUpsert(BaseModel):
    items: list[DatasetItemIn] = Field(min_length=1, max_length=200_000)
    replace: bool = Field(
        default=False, description="True: the new version is exactly these items; False: merge by id"
    )
    source: str = Field(default="api", max_length=200)
    create: DatasetSettings | None = Field(
        default=None,
        description="Create the dataset with these settings if it does not exist yet (in the same "
        "transaction as its first version: a refused push leaves nothing behind); an existing "
        "dataset's description is updated",
    )

    @model_validator(mode="after")
    def _unique_ids(self) -> ItemsUpsert:
        duplicates = sorted(item_id for item_id, n in Counter(i.id for i in self.items).items() if n > 1)
        if duplicates:
            shown = ", ".join(duplicates[:5]) + (" …" if len(duplicates) > 5 else "")
            raise ValueError(f"item ids must be unique in one request; repeated: {shown}")
        return self


class DatasetVersionOut(BaseModel):
    version: int
    content_hash: str
    item_count: int
    source: str
    status: Literal["accepted", "needs_review"] = Field(
        default="accepted", description="needs_review: promoted turns; not used by default until accepted"
    )
    created_at: datetime


class DatasetOut(BaseModel):
    id: str
    name: str
    description: str
    kind: str
    created_at: datetime
    latest_version: DatasetVersionOut | None = None


class UpsertResult(BaseModel):
    dataset: str
    version: int
    created_new_version: bool
    item_count: int
    added: int
    changed: int
    unchanged: int
    removed: int


# ---- experiments ----------------------------------------------------------------------------


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


# ---- comparisons ----------------------------------------------------------------------------


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


class ComparisonCreate(BaseModel):
    baseline_id: str
    candidate_id: str
    metrics: list[str] | None = None
    thresholds: dict[str, float | str] = Field(
        default_factory=dict,
        description="metric -> a signed delta in the bad direction (-0.05, +100) or a margin relative to "
        "the baseline's mean ('+20%')",
    )
    primary: list[str] | None = Field(
        default=None, description="The metrics that gate; None: those their evaluators declare primary"
    )
    multiplicity: Multiplicity = Field(
        default="westfall_young", description="westfall_young (default) or holm, over the primary metrics"
    )
    must_pass_categories: list[str] = Field(
        default_factory=list, description="Categories whose items are must-pass in this comparison"
    )
    alpha: float = Field(default=0.05, gt=0, lt=1)
    gates: list[Gate] = Field(default_factory=list, description="Absolute gates on the candidate's means")
    gate: Literal["point", "ci"] = Field(
        default="point", description="point: the delta passes the threshold; ci: the whole interval does"
    )

    @field_validator("thresholds")
    @classmethod
    def _threshold_forms(cls, value: dict[str, float | str]) -> dict[str, float | str]:
        return threshold_forms(value)

    judge: PairwiseJudgeSpec | None = Field(
        default=None,
        description="Also judge every matched pair with llm_pairwise (both orders; disagreement is a "
        "tie), in the background: the answer is 202 with judging.status 'judging'; GET the comparison "
        "until it is 'done' (report.pairwise) or 'failed' (judging.error)",
    )


class ComparisonOut(BaseModel):
    id: str
    baseline_id: str
    candidate_id: str
    regression: bool
    report: ComparisonReport
    judging: PairwiseJudging | None = Field(
        default=None, description="The pairwise judging and its progress; None: no judge asked"
    )
    created_at: datetime


# ---- plans ------------------------------------------------------------------------------------


class PlanCreate(PlanRequest):
    """``POST /plans``: the shared ``PlanRequest`` (the CLI builds it without the coordinator)."""


# ---- prompts, online traffic, API keys, web UI links ------------------------------------------


class LabelMove(BaseModel):
    version: int = Field(ge=1, le=INT4_MAX, description="The version the label points at from now on")


class DriftAlertOut(BaseModel):
    id: str
    evaluator: str
    model: str
    prompt_version: str
    application: str | None = Field(
        default=None,
        description="The traces' application (None: an alert on the agent's turns from before traces)",
    )
    reference: str = Field(description="'offline' or 'previous_window'")
    detail: dict[str, Any] = Field(description="Means, delta, p-value, window, test")
    created_at: datetime


class KeyOut(BaseModel):
    id: str
    name: str
    prefix: str = Field(description="The key's first characters, to recognise it")
    created_at: datetime
    last_used_at: datetime | None
    expires_at: datetime | None
    revoked_at: datetime | None
    active: bool
    role: Role = Field(description="What the key may do: owner, admin, runner, viewer or ingest")
    project: str = Field(description="The project the key acts in (an owner key: any project)")


class KeyCreate(BaseModel):
    """``POST /keys``: a new key, of a role no higher than the caller's."""

    name: str = Field(min_length=1, max_length=100, description="A label to recognise the key by")
    role: Role = Field(description="owner, admin, runner (CI), viewer (read only) or ingest (traffic only)")
    project: str | None = Field(
        default=None,
        max_length=64,
        description="The project the key acts in (default: the project of the request). Only an owner "
        "key may create keys for another project.",
    )
    expires_in: str | None = Field(
        default=None, max_length=20, description="Refuse the key after this long: 30d, 12h, 90m (None: never)"
    )

    @field_validator("expires_in")
    @classmethod
    def _duration(cls, value: str | None) -> str | None:
        if value is not None:
            parse_duration(value)  # InvalidDuration is a ValueError: a 422 naming the field
        return value


class KeyCreated(KeyOut):
    key: str = Field(description="The key itself: shown now and never again (it is stored as a keyed hash)")


class SignInLinkCreate(BaseModel):
    path: str = Field(
        default="/ui/experiments",
        max_length=2000,
        description="Where the link lands after signing in: a path inside the UI (/ui/...)",
    )

    @field_validator("path")
    @classmethod
    def _inside_ui(cls, value: str) -> str:
        if not (value == "/ui" or value.startswith("/ui/")) or "//" in value or "\\" in value:
            raise ValueError("must be a path inside the web UI, such as /ui/experiments")
        return value


class SignInLinkOut(BaseModel):
    url: str = Field(description="Path of the one-time link; prefix it with the coordinator's address")
    expires_at: datetime


class ProjectCreate(BaseModel):
    """``POST /projects``: a new project (owner keys only)."""

    name: str = Field(
        pattern=PROJECT_ID_PATTERN,
        description="The project's name, also its id: lower-case letters, digits, '-' and '_', at most 64",
    )
    description: str = Field(default="", max_length=2000)


class ProjectOut(BaseModel):
    name: str
    description: str
    created_at: datetime
