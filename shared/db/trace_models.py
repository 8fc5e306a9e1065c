"""Sampled OpenTelemetry traces of any application: the trace, its spans, its online scores.

A trace is one row per (project, trace id), its :class:`~shared.traces.TraceRecord` typed in
``record`` and its filterable facts (application, model, tokens, error, tools) in columns. Its spans
are kept one row each, unique per (trace, span id): a late part of the trace (the same trace id in a
later message) adds the spans not yet stored and the record is rebuilt from all of them, so merging
is idempotent. Spans and scores are reached through their trace (they go when it goes).

The three tables are partitioned by day (PostgreSQL range partitions on ``day``, see
:mod:`shared.db.trace_partitions`): ``day`` is the UTC day of the trace's start when its first part was
stored, copied into its spans and scores, and never changed afterwards (a merge that moves
``started_at`` leaves the row where it is). Every primary key and unique constraint therefore includes
``day``: a trace is unique per (project, trace id, day), and the sampler's writes are serialised per
(project, trace id) by an advisory lock so that one trace is never stored under two days.
"""

from __future__ import annotations

from datetime import UTC, date, datetime

from sqlalchemy import (
    BigInteger,
    Boolean,
    Date,
    Float,
    ForeignKeyConstraint,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.orm import Mapped, mapped_column

from shared.contracts.span_messages import ResourceSpans
from shared.db.base import Base, new_uuid, utcnow
from shared.db.models import OnlineScoreColumns, ProjectOwned
from shared.db.pydantic_json import PydanticJSON
from shared.online.backfill_spec import BackfillSpec
from yardstick.api.trace_record import TraceRecord


def trace_day(started_at: datetime) -> date:
    """The partition day of a trace first stored with this start (its UTC date)."""
    return started_at.astimezone(UTC).date()


class Trace(ProjectOwned, Base):
    __tablename__ = "traces"
    __table_args__ = (
        UniqueConstraint("project_id", "trace_id", "day"),
        Index("ix_traces_project_started", "project_id", "started_at", "id"),
        Index("ix_traces_project_app_started", "project_id", "application", "started_at"),
        Index("ix_traces_project_model_started", "project_id", "model", "started_at"),
        Index("ix_traces_started_at", "started_at"),
        {"postgresql_partition_by": "RANGE (day)"},
    )

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=True)
    day: Mapped[date] = mapped_column(Date, primary_key=True, doc="Partition key: see the module")
    trace_id: Mapped[str] = mapped_column(String(32))
    application: Mapped[str] = mapped_column(String(200))
    conversation_id: Mapped[str | None] = mapped_column(String(200))
    model: Mapped[str | None] = mapped_column(String(200))
    provider: Mapped[str | None] = mapped_column(String(100))
    started_at: Mapped[datetime]
    ended_at: Mapped[datetime]
    latency_ms: Mapped[float] = mapped_column(Float)
    input_tokens: Mapped[int | None] = mapped_column(Integer)
    output_tokens: Mapped[int | None] = mapped_column(Integer)
    total_tokens: Mapped[int | None] = mapped_column(Integer)
    error: Mapped[bool] = mapped_column(Boolean)
    tool_names: Mapped[list[str]] = mapped_column(ARRAY(String(200)))
    span_count: Mapped[int] = mapped_column(Integer)
    completeness: Mapped[str] = mapped_column(String(30))
    record: Mapped[TraceRecord] = mapped_column(PydanticJSON(TraceRecord))
    stored_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)


class TraceSpan(Base):
    """One span of a stored trace, with its resource and scope (``spans`` holds just this span)."""

    __tablename__ = "trace_spans"
    __table_args__ = (
        UniqueConstraint("trace_pk", "span_id", "day"),
        ForeignKeyConstraint(["trace_pk", "day"], ["traces.id", "traces.day"], ondelete="CASCADE"),
        {"postgresql_partition_by": "RANGE (day)"},
    )

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=True)
    day: Mapped[date] = mapped_column(Date, primary_key=True, doc="Its trace's day")
    trace_pk: Mapped[int] = mapped_column(BigInteger)
    span_id: Mapped[str] = mapped_column(String(16))
    span: Mapped[ResourceSpans] = mapped_column(PydanticJSON(ResourceSpans))


UNKNOWN_MODEL = "unknown"
"""The model a trace's scores carry when the trace names none (``trace_scores.model`` is required)."""


class TraceScore(OnlineScoreColumns, ProjectOwned, Base):
    """A score of a sampled trace: online (a reference-free evaluator) or ``human.<field>`` (review
    labels, ``metadata.source == "human"``)."""

    __tablename__ = "trace_scores"
    __table_args__ = (
        UniqueConstraint("trace_pk", "name", "day"),
        ForeignKeyConstraint(["trace_pk", "day"], ["traces.id", "traces.day"], ondelete="CASCADE"),
        Index("ix_trace_scores_project_app_name_at", "project_id", "application", "name", "trace_at"),
        Index("ix_trace_scores_project_name_value", "project_id", "name", "value"),
        {"postgresql_partition_by": "RANGE (day)"},
    )

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=True)
    day: Mapped[date] = mapped_column(Date, primary_key=True, doc="Its trace's day")
    trace_pk: Mapped[int] = mapped_column(BigInteger)
    application: Mapped[str] = mapped_column(String(200))
    model: Mapped[str] = mapped_column(String(200))
    trace_at: Mapped[datetime]


class TraceBackfill(ProjectOwned, Base):
    """A job scoring the stored traces of a time window with evaluators (``POST /traces/backfill``):
    what it was asked (``spec``), how far it got, what it wrote and what it kept."""

    __tablename__ = "trace_backfills"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_uuid)
    spec: Mapped[BackfillSpec] = mapped_column(PydanticJSON(BackfillSpec))
    status: Mapped[str] = mapped_column(String(20), default="running", doc="running | done | failed")
    total: Mapped[int] = mapped_column(Integer, default=0, doc="Traces in the window when it started")
    done: Mapped[int] = mapped_column(Integer, default=0, doc="Traces gone through")
    written: Mapped[int] = mapped_column(Integer, default=0, doc="Scores inserted")
    kept: Mapped[int] = mapped_column(Integer, default=0, doc="Scores already present, left as they were")
    not_measured: Mapped[int] = mapped_column(Integer, default=0, doc="Scores written without a value")
    cursor: Mapped[int] = mapped_column(BigInteger, default=0, doc="Last trace row gone through")
    error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow)
    finished_at: Mapped[datetime | None]
