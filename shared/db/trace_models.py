"""Sampled OpenTelemetry traces of any application: the trace, its spans, its online scores.

A trace is one row per (project, trace id), its :class:`~shared.traces.TraceRecord` typed in
``record`` and its filterable facts (application, model, tokens, error, tools) in columns. Its spans
are kept one row each, unique per (trace, span id): a late part of the trace (the same trace id in a
later message) adds the spans not yet stored and the record is rebuilt from all of them, so merging
is idempotent. Spans and scores are reached through their trace (they go when it goes).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, Boolean, Float, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.orm import Mapped, mapped_column

from shared.contracts.span_messages import ResourceSpans
from shared.db.base import Base, new_uuid, utcnow
from shared.db.models import OnlineScoreColumns, ProjectOwned
from shared.db.pydantic_json import PydanticJSON
from shared.online.backfill_spec import BackfillSpec
from yardstick.api.trace_record import TraceRecord


class Trace(ProjectOwned, Base):
    __tablename__ = "traces"
    __table_args__ = (
        UniqueConstraint("project_id", "trace_id"),
        Index("ix_traces_project_app_started", "project_id", "application", "started_at"),
        Index("ix_traces_started_at", "started_at"),
    )

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=True)
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
    __table_args__ = (UniqueConstraint("trace_pk", "span_id"),)

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=True)
    trace_pk: Mapped[int] = mapped_column(ForeignKey("traces.id", ondelete="CASCADE"))
    span_id: Mapped[str] = mapped_column(String(16))
    span: Mapped[ResourceSpans] = mapped_column(PydanticJSON(ResourceSpans))


UNKNOWN_MODEL = "unknown"
"""The model a trace's scores carry when the trace names none (``trace_scores.model`` is required)."""


class TraceScore(OnlineScoreColumns, ProjectOwned, Base):
    """A score of a sampled trace: online (a reference-free evaluator) or ``human.<field>`` (review
    labels, ``metadata.source == "human"``)."""

    __tablename__ = "trace_scores"
    __table_args__ = (
        UniqueConstraint("trace_pk", "name"),
        Index("ix_trace_scores_project_app_name_at", "project_id", "application", "name", "trace_at"),
    )

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=True)
    trace_pk: Mapped[int] = mapped_column(ForeignKey("traces.id", ondelete="CASCADE"))
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
