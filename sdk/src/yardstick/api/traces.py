"""HTTP models of ``/traces``: sampled traces of any application, their scores, "add to dataset"."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field

from yardstick.api.evaluation import EvaluatorSpec
from yardstick.api.item_failure import ItemFailure
from yardstick.api.trace_record import TraceRecord


def trace_page(trace_id: str) -> str:
    """The trace's page in the web UI."""
    return f"/ui/traces/{trace_id}"


class TraceScoreOut(BaseModel):
    name: str = Field(description="Evaluator (metric) name")
    value: float | None = Field(description="None: the evaluator measured nothing (see comment/error)")
    comment: str | None = None
    error: str | None = Field(default=None, description="Why the evaluator failed, when it did")
    failure: ItemFailure | None = Field(default=None, description="The evaluator's failure, typed")
    evaluator_version: str
    source: str = Field(
        default="evaluator", description="evaluator (online scoring) or human (a review label, see metadata)"
    )
    metadata: dict[str, Any] = Field(
        default_factory=dict,
        description="What the evaluator noted; a human score: its queue, each reviewer's answer",
    )


class TraceSummary(BaseModel):
    """One sampled trace in a list: what a row of the traces table shows."""

    trace_id: str = Field(description="32 hex digits, as the application's tracer reported it")
    application: str = Field(description="The resource's service.name")
    conversation_id: str | None = None
    preview: str = Field(default="", description="The last user message of the input, cut to 200 characters")
    model: str | None = Field(default=None, description="Model of the last LLM call")
    provider: str | None = None
    started_at: datetime
    latency_ms: float
    input_tokens: int | None = None
    output_tokens: int | None = None
    total_tokens: int | None = None
    error: bool = Field(description="Some span of the trace has an ERROR status")
    tool_names: list[str] = Field(description="Tools called, in first-call order, once each")
    span_count: int
    completeness: str = Field(description="How the trace was assembled: root_ended, quiet (partial) …")
    scores: dict[str, float | None] = Field(description="Online score per evaluator")


class TracePage(BaseModel):
    items: list[TraceSummary]
    total: int = Field(description="Traces matching the filters, all pages, counted up to 10,000")
    total_capped: bool = Field(
        default=False, description="More traces match than ``total`` says (counting stopped at 10,000)"
    )
    limit: int
    offset: int

    @property
    def counted(self) -> str:
        """``total`` as text: ``10000+`` when counting stopped there."""
        return f"{self.total}+" if self.total_capped else str(self.total)


class TraceDetail(TraceSummary):
    """``GET /traces/{trace_id}``: the summary, the whole record (messages, tool calls with arguments
    and results, LLM calls, span tree, errors, notes) and the scores with their comments."""

    record: TraceRecord
    score_details: list[TraceScoreOut]
    updated_at: datetime = Field(description="Last time a late part of the trace was merged in")


class ApplicationOut(BaseModel):
    """An application that sent sampled traces to this project."""

    application: str
    traces: int
    errors: int
    last_at: datetime


class AddTraceToDataset(BaseModel):
    dataset: str = Field(
        min_length=1,
        max_length=200,
        description="Dataset to add the trace to (a generic one; created if missing)",
    )


class BackfillCreate(BaseModel):
    """``POST /traces/backfill``: score the stored traces of a time window with these evaluators."""

    evaluators: list[EvaluatorSpec] = Field(
        min_length=1, max_length=50, description="NAME + args, as elsewhere"
    )
    application: str | None = Field(
        default=None, min_length=1, max_length=200, description="Only this application (service.name)"
    )
    since: str = Field(
        min_length=1,
        max_length=64,
        description="Start of the window: a duration back from now (7d, 12h) or ISO 8601",
    )
    until: str | None = Field(
        default=None, min_length=1, max_length=64, description="End of the window (same forms); default: now"
    )


class BackfillOut(BaseModel):
    """A backfill job and its progress (``done`` of ``total`` traces)."""

    id: str
    status: Literal["running", "done", "failed"]
    application: str | None
    since: datetime
    until: datetime
    evaluators: list[EvaluatorSpec]
    total: int = Field(description="Traces in the window when the job started")
    done: int = Field(description="Traces gone through")
    written: int = Field(description="Scores written (a trace had none of that name)")
    kept: int = Field(description="Scores already present, left as they were")
    not_measured: int = Field(description="Scores written without a value (see not_measured_reasons)")
    not_measured_reasons: dict[str, str] = Field(
        description="Per metric, the first reason it was not measured"
    )
    error: str | None = None
    created_at: datetime
    finished_at: datetime | None = None
