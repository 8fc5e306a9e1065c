"""SQLAlchemy 2 models: datasets, experiments, results, scores, comparisons, online evaluation,
search corpus and API keys. Rows leave the data layer as pydantic models (see each service)."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    Computed,
    Enum,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.dialects.postgresql import TSVECTOR
from sqlalchemy.orm import Mapped, mapped_column

from shared.db.base import Base, new_uuid, utcnow
from shared.db.pydantic_json import PydanticJSON
from yardstick.api.audit import AuditChange
from yardstick.api.comparison_config import ComparisonConfig
from yardstick.api.comparison_report import ComparisonReport
from yardstick.api.eval_messages import RecordedOutput
from yardstick.api.evaluation import Evaluation
from yardstick.api.experiment_config import ExperimentConfig
from yardstick.api.experiment_status import INITIAL, ExperimentStatus
from yardstick.api.item_failure import ItemFailure
from yardstick.api.pairwise import PairwiseJudging
from yardstick.api.projects import DEFAULT_PROJECT
from yardstick.api.roles import Role
from yardstick.api.run_aggregates import ExperimentAggregates


def checked_enum(values: type[StrEnum], name: str) -> Enum:
    """A string enum stored as VARCHAR(20) (not a PostgreSQL enum type: adding a value needs no type
    change), held to its values by a CHECK constraint that a migration creates."""
    return Enum(
        values,
        name=name,
        native_enum=False,
        create_constraint=True,
        length=20,
        validate_strings=True,
        values_callable=lambda members: [m.value for m in members],
    )


class Project(Base):
    """A team's or an application's space: its datasets, experiments, prompts, traffic and keys.
    The id is the project's name (a slug: lower-case letters, digits, ``-`` and ``_``)."""

    __tablename__ = "projects"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    description: Mapped[str] = mapped_column(Text, default="")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class ProjectOwned:
    """Rows that belong to a project. A session scoped to a project (``shared.db.project_scope``)
    sees and writes only its project's rows of every class with this mixin. A row added to an
    unscoped session without a project lands in ``default`` (the single-project case)."""

    project_id: Mapped[str] = mapped_column(
        ForeignKey("projects.id", ondelete="RESTRICT"), default=DEFAULT_PROJECT
    )


class ScoreColumns:
    """What every score row holds, whatever it scores (an experiment's item or a sampled trace): the
    metric's name, its value (None: not measured), a comment, the evaluator's metadata and, when the
    evaluator failed, its typed ``failure`` (``error`` is its ``'Type: message'``, kept filled for
    readers of the previous version). Written and read by ``shared.db.score_rows`` only."""

    name: Mapped[str] = mapped_column(String(100))
    value: Mapped[float | None] = mapped_column(Float)
    comment: Mapped[str | None] = mapped_column(Text)
    score_metadata: Mapped[dict[str, Any]] = mapped_column("metadata", default=dict)
    error: Mapped[str | None] = mapped_column(Text)
    failure: Mapped[ItemFailure | None] = mapped_column(
        PydanticJSON(ItemFailure, none_as_null=True),
        doc="Why the evaluator gave no value (source 'evaluator')",
    )


class OnlineScoreColumns(ScoreColumns):
    """A score of production traffic (a sampled trace) also names the evaluator's version."""

    evaluator_version: Mapped[str] = mapped_column(String(40), default="1")


class Dataset(ProjectOwned, Base):
    __tablename__ = "datasets"
    __table_args__ = (UniqueConstraint("project_id", "name"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_uuid)
    name: Mapped[str] = mapped_column(String(200))
    description: Mapped[str] = mapped_column(Text, default="")
    kind: Mapped[str] = mapped_column(String(40), default="generic", doc="drive_thru | retrieval | …")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class DatasetVersion(Base):
    __tablename__ = "dataset_versions"
    __table_args__ = (UniqueConstraint("dataset_id", "version"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_uuid)
    dataset_id: Mapped[str] = mapped_column(ForeignKey("datasets.id", ondelete="CASCADE"), index=True)
    version: Mapped[int] = mapped_column(Integer)
    content_hash: Mapped[str] = mapped_column(String(64))
    item_count: Mapped[int] = mapped_column(Integer, default=0)
    source: Mapped[str] = mapped_column(Text, default="", doc="file path or 'api'")
    status: Mapped[str] = mapped_column(
        String(20),
        default="accepted",
        server_default="accepted",
        doc="'accepted', or 'needs_review' (promoted production turns): experiments default to the "
        "latest accepted version",
    )
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class DatasetItem(Base):
    __tablename__ = "dataset_items"
    __table_args__ = (UniqueConstraint("version_id", "item_id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    version_id: Mapped[str] = mapped_column(ForeignKey("dataset_versions.id", ondelete="CASCADE"), index=True)
    item_id: Mapped[str] = mapped_column(String(200))
    position: Mapped[int] = mapped_column(Integer, default=0)
    input: Mapped[dict[str, Any]]
    expected_output: Mapped[dict[str, Any] | None]
    item_metadata: Mapped[dict[str, Any]] = mapped_column("metadata", default=dict)
    content_hash: Mapped[str] = mapped_column(String(64))
    review_status: Mapped[str | None] = mapped_column(String(20), doc="'needs_review' for promoted samples")


class Experiment(ProjectOwned, Base):
    __tablename__ = "experiments"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_uuid)
    name: Mapped[str] = mapped_column(String(200), index=True)
    dataset_id: Mapped[str] = mapped_column(ForeignKey("datasets.id"))
    version_id: Mapped[str] = mapped_column(ForeignKey("dataset_versions.id"))
    status: Mapped[ExperimentStatus] = mapped_column(
        checked_enum(ExperimentStatus, "experiment_status"),  # its CHECK: migrations 0007, 0013
        default=INITIAL,
        index=True,
    )
    config: Mapped[ExperimentConfig] = mapped_column(PydanticJSON(ExperimentConfig))
    baseline_id: Mapped[str | None] = mapped_column(ForeignKey("experiments.id"))
    total: Mapped[int] = mapped_column(Integer, default=0)
    done: Mapped[int] = mapped_column(Integer, default=0)
    errors: Mapped[int] = mapped_column(Integer, default=0)
    cache_hits: Mapped[int] = mapped_column(
        Integer, default=0, server_default="0", doc="Items scored from the output cache"
    )
    judge_cache_hits: Mapped[int] = mapped_column(
        Integer, default=0, server_default="0", doc="Judge verdicts served from the judge cache"
    )
    budget_exhausted_at: Mapped[datetime | None] = mapped_column(
        doc="When its max_cost stopped the dispatching (it then ends budget_exhausted)"
    )
    throttled: Mapped[int] = mapped_column(
        Integer, default=0, server_default="0", doc="Times the target answered 429/503 (rate limited)"
    )
    target_concurrency: Mapped[int | None] = mapped_column(
        Integer, doc="The workers' adaptive concurrency for the target, as last reported"
    )
    aggregates: Mapped[ExperimentAggregates | None] = mapped_column(PydanticJSON(ExperimentAggregates))
    error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    started_at: Mapped[datetime | None]
    completed_at: Mapped[datetime | None]


class ExperimentItem(Base):
    """One (item, trial) of an experiment: the snapshot of its input and, once done, its result."""

    __tablename__ = "experiment_items"
    __table_args__ = (
        UniqueConstraint("experiment_id", "item_id", "trial"),
        Index("ix_experiment_items_exp_status", "experiment_id", "status"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    experiment_id: Mapped[str] = mapped_column(ForeignKey("experiments.id", ondelete="CASCADE"))
    item_id: Mapped[str] = mapped_column(String(200))
    trial: Mapped[int] = mapped_column(Integer, default=0)
    position: Mapped[int] = mapped_column(Integer, default=0)
    status: Mapped[str] = mapped_column(String(20), default="pending", doc="pending|dispatched|ok|error")
    input: Mapped[dict[str, Any]]
    expected_output: Mapped[dict[str, Any] | None]
    item_metadata: Mapped[dict[str, Any]] = mapped_column("metadata", default=dict)
    output: Mapped[dict[str, Any] | None]
    error: Mapped[str | None] = mapped_column(Text, doc="The failure's 'Type: message', for older readers")
    failure: Mapped[ItemFailure | None] = mapped_column(
        PydanticJSON(ItemFailure, none_as_null=True),
        doc="Why the item has no output (source 'target' or 'platform')",
    )
    latency_ms: Mapped[float | None] = mapped_column(Float)
    total_ms: Mapped[float | None] = mapped_column(Float)
    usage: Mapped[dict[str, Any] | None]
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    throttled: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    worker_id: Mapped[str | None] = mapped_column(String(100))
    code_fingerprint: Mapped[str | None] = mapped_column(
        String(64), doc="Of a python target: the task worker's code that produced the output (0022)"
    )
    dispatched_at: Mapped[datetime | None]
    finished_at: Mapped[datetime | None]
    cache_key: Mapped[str | None] = mapped_column(
        String(64), doc="Its key in output_cache, when the experiment uses the cache"
    )
    recorded: Mapped[RecordedOutput | None] = mapped_column(
        PydanticJSON(RecordedOutput), doc="An earlier output to score instead of calling the target"
    )


class OutputCacheEntry(Base):
    """A target's output for one (target configuration, item input, trial), reusable until it expires."""

    __tablename__ = "output_cache"

    key: Mapped[str] = mapped_column(String(64), primary_key=True, doc="sha256 of target, input, trial")
    output: Mapped[dict[str, Any] | None]
    latency_ms: Mapped[float | None] = mapped_column(Float)
    usage: Mapped[dict[str, Any] | None]
    experiment_id: Mapped[str] = mapped_column(String(36), doc="The experiment that produced it")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(index=True)


class JudgeVerdictRow(Base):
    """One measured judge verdict of one project, keyed by ``shared.evaluators.judge_cache.verdict_key``.
    Read and written with the project named explicitly (workers and the sampler use unscoped
    sessions): one project never reads another's verdicts."""

    __tablename__ = "judge_cache"

    project_id: Mapped[str] = mapped_column(
        ForeignKey("projects.id", ondelete="CASCADE"), primary_key=True, doc="The verdict's project"
    )
    key: Mapped[str] = mapped_column(
        String(64), primary_key=True, doc="sha256 of judge, model, args, content"
    )
    judge: Mapped[str] = mapped_column(
        String(200), doc="The judge's metric name (for people reading the table)"
    )
    verdict: Mapped[Evaluation] = mapped_column(PydanticJSON(Evaluation))
    created_at: Mapped[datetime] = mapped_column(
        default=utcnow,
        index=True,
        doc="When judged: older than JUDGE_CACHE_TTL_DAYS, not reused",
    )


class Score(ScoreColumns, Base):
    """One row per (experiment, item, trial, evaluator) so aggregation is plain SQL."""

    __tablename__ = "scores"
    __table_args__ = (
        UniqueConstraint("experiment_id", "item_id", "trial", "name"),
        Index("ix_scores_exp_name", "experiment_id", "name"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    experiment_id: Mapped[str] = mapped_column(ForeignKey("experiments.id", ondelete="CASCADE"))
    item_id: Mapped[str] = mapped_column(String(200))
    trial: Mapped[int] = mapped_column(Integer, default=0)


class Comparison(ProjectOwned, Base):
    __tablename__ = "comparisons"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_uuid)
    baseline_id: Mapped[str] = mapped_column(ForeignKey("experiments.id", ondelete="CASCADE"), index=True)
    candidate_id: Mapped[str] = mapped_column(ForeignKey("experiments.id", ondelete="CASCADE"), index=True)
    config: Mapped[ComparisonConfig] = mapped_column(PydanticJSON(ComparisonConfig))
    report: Mapped[ComparisonReport] = mapped_column(PydanticJSON(ComparisonReport))
    regression: Mapped[bool] = mapped_column(Boolean, default=False)
    judging: Mapped[PairwiseJudging | None] = mapped_column(
        PydanticJSON(PairwiseJudging), doc="The background pairwise judging; None: no judge asked"
    )
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class SamplingConfig(ProjectOwned, Base):
    """A project's online sampling configuration; one row per project, re-read by the sampler."""

    __tablename__ = "sampling_config"

    project_id: Mapped[str] = mapped_column(
        ForeignKey("projects.id", ondelete="RESTRICT"), primary_key=True, default=DEFAULT_PROJECT
    )
    rate: Mapped[float] = mapped_column(Float, default=0.1)
    filters: Mapped[dict[str, Any]] = mapped_column(default=dict)
    cap_per_minute: Mapped[int | None] = mapped_column(Integer)
    evaluators: Mapped[list[Any]] = mapped_column(default=list)
    applications: Mapped[dict[str, Any]] = mapped_column(default=dict)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class DriftAlertRow(ProjectOwned, Base):
    __tablename__ = "drift_alerts"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_uuid)
    evaluator: Mapped[str] = mapped_column(String(100))
    model: Mapped[str] = mapped_column(String(100))
    prompt_version: Mapped[str] = mapped_column(String(100))
    reference: Mapped[str] = mapped_column(String(30))
    application: Mapped[str | None] = mapped_column(String(200))
    detail: Mapped[dict[str, Any]]
    created_at: Mapped[datetime] = mapped_column(default=utcnow, index=True)


class SearchDocument(Base):
    """The retrieval corpus, indexed with Postgres full-text search."""

    __tablename__ = "search_documents"
    __table_args__ = (Index("ix_search_documents_tsv", "tsv", postgresql_using="gin"),)

    id: Mapped[str] = mapped_column(String(200), primary_key=True)
    corpus_version: Mapped[str] = mapped_column(String(64), index=True)
    source_type: Mapped[str] = mapped_column(String(40))
    title: Mapped[str] = mapped_column(Text)
    body: Mapped[str] = mapped_column(Text)
    actor: Mapped[str] = mapped_column(String(200), default="")
    occurred_at: Mapped[datetime | None]
    doc_metadata: Mapped[dict[str, Any]] = mapped_column("metadata", default=dict)
    tsv: Mapped[str] = mapped_column(
        TSVECTOR,
        Computed(
            "setweight(to_tsvector('english', coalesce(title, '')), 'A') || "
            "setweight(to_tsvector('english', coalesce(body, '')), 'B') || "
            "setweight(to_tsvector('simple', coalesce(actor, '')), 'C')",
            persisted=True,
        ),
    )


class ApiKey(ProjectOwned, Base):
    """API keys are stored as keyed hashes (HMAC-SHA256); the key itself is shown once."""

    __tablename__ = "api_keys"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_uuid)
    name: Mapped[str] = mapped_column(String(100))
    prefix: Mapped[str] = mapped_column(String(16), doc="First characters, to recognise a key in lists")
    key_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    revoked_at: Mapped[datetime | None]
    last_used_at: Mapped[datetime | None]
    expires_at: Mapped[datetime | None] = mapped_column(doc="None: never")
    role: Mapped[Role] = mapped_column(
        checked_enum(Role, "api_key_role"),  # its CHECK: migration 0008
        doc="What the key may do (yardstick.api.roles)",
    )


class PromptVersion(ProjectOwned, Base):
    """One version of a named prompt (``drive-thru/orchestrator`` v3); versions never change."""

    __tablename__ = "prompt_versions"
    __table_args__ = (UniqueConstraint("project_id", "name", "version"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(200), index=True)
    version: Mapped[int] = mapped_column(Integer)
    template: Mapped[str] = mapped_column(Text)
    content_hash: Mapped[str] = mapped_column(String(64))
    source: Mapped[str] = mapped_column(Text, default="", doc="file path or 'api'")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class PromptLabel(ProjectOwned, Base):
    """A movable label (``production``, ``staging``) pointing at one version of a prompt."""

    __tablename__ = "prompt_labels"

    project_id: Mapped[str] = mapped_column(
        ForeignKey("projects.id", ondelete="RESTRICT"), primary_key=True, default=DEFAULT_PROJECT
    )
    name: Mapped[str] = mapped_column(String(200), primary_key=True)
    label: Mapped[str] = mapped_column(String(50), primary_key=True)
    version: Mapped[int] = mapped_column(Integer)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)


class SpanOutbox(Base):
    """An OTLP trace export (a serialized ``ExportTraceServiceRequest``) the agent could not deliver
    yet: the ingest service refused or was unreachable. Re-sent oldest first, deleted once accepted."""

    __tablename__ = "span_outbox"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=True)
    body: Mapped[bytes] = mapped_column(LargeBinary)
    spans: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(default=utcnow, index=True)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    last_error: Mapped[str | None] = mapped_column(Text)


class UiSignInLink(Base):
    """A one-time link into the web UI (`yardstick ui`): stored as a hash, valid until ``expires_at``,
    spent on first use (``used_at``), opening a session for the API key that asked for it."""

    __tablename__ = "ui_sign_in_links"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    key_id: Mapped[str] = mapped_column(ForeignKey("api_keys.id", ondelete="CASCADE"))
    path: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    expires_at: Mapped[datetime]
    used_at: Mapped[datetime | None]


class AuditEvent(Base):
    """One recorded state change (``yardstick.api.audit``); append-only (migration 0009)."""

    __tablename__ = "audit_events"
    __table_args__ = (Index("ix_audit_events_project_at", "project_id", "at"),)

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=True)
    at: Mapped[datetime] = mapped_column(default=utcnow, index=True)
    key_id: Mapped[str | None] = mapped_column(String(36))
    key_name: Mapped[str] = mapped_column(String(100))
    key_prefix: Mapped[str] = mapped_column(String(16))
    project_id: Mapped[str | None] = mapped_column(
        String(64), doc="The project the change was made in; None: instance-wide (a project created)"
    )
    action: Mapped[str] = mapped_column(String(40))
    object_kind: Mapped[str] = mapped_column(String(40))
    object_id: Mapped[str] = mapped_column(String(300))
    change: Mapped[AuditChange] = mapped_column(PydanticJSON(AuditChange))
