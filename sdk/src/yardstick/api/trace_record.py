"""The typed record one assembled trace becomes, whatever instrumentation produced it."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, Field, JsonValue

SCHEMA_VERSION = 1


class Convention(StrEnum):
    """Which attribute vocabularies the trace's spans used."""

    GEN_AI = "gen_ai"  # OpenTelemetry GenAI semantic conventions, attribute form (v1.37+)
    GEN_AI_EVENTS = "gen_ai_events"  # the older form: content in span events
    OPENLLMETRY = "openllmetry"  # gen_ai.prompt.N.* / gen_ai.completion.N.* (Traceloop)
    OPENINFERENCE = "openinference"  # llm.*, input.value, tool.* (Arize Phoenix)
    LANGFUSE = "langfuse"  # langfuse.observation.*, langfuse.trace.* (the Langfuse SDKs)


class Completeness(StrEnum):
    """Why the assembler handed the trace on."""

    ROOT_ENDED = "root_ended"  # the root span arrived, then nothing more for the settle period
    QUIET = "quiet"  # no root span, but nothing more for the quiet period: partial
    EVICTED = "evicted"  # too many open traces: the oldest was handed on early, partial
    TOO_MANY_SPANS = "too_many_spans"  # the per-trace span bound was reached: later spans form another part
    FLUSHED = "flushed"  # handed on at shutdown, partial


class ToolCallRequest(BaseModel, frozen=True):
    """A tool call a model asked for, inside a message."""

    id: str | None = Field(default=None, description="The call id that its result names")
    name: str = Field(description="Tool name")
    arguments: JsonValue = Field(default=None, description="Arguments, parsed when they were JSON text")


class Message(BaseModel, frozen=True):
    role: str = Field(description="system, user, assistant, tool …")
    content: str = Field(default="", description="The text parts, joined")
    tool_calls: list[ToolCallRequest] = Field(default_factory=list, description="On assistant messages")
    tool_call_id: str | None = Field(default=None, description="On tool messages: the call answered")
    finish_reason: str | None = Field(default=None, description="On output messages, when reported")


class TokenUsage(BaseModel, frozen=True):
    input_tokens: int | None = None
    output_tokens: int | None = None
    total_tokens: int | None = None


class LlmCall(BaseModel, frozen=True):
    """One model call (a chat / completion span)."""

    span_id: str
    operation: str = Field(default="chat", description="gen_ai.operation.name or the OpenInference kind")
    model: str | None = Field(default=None, description="Response model, else request model")
    provider: str | None = Field(
        default=None, description="gen_ai.provider.name / gen_ai.system / llm.provider"
    )
    input_messages: list[Message] = Field(default_factory=list)
    output_messages: list[Message] = Field(default_factory=list)
    usage: TokenUsage = Field(default_factory=TokenUsage)
    latency_ms: float = Field(ge=0)
    error: str | None = None


class ToolCall(BaseModel, frozen=True):
    """One step of the trajectory: a tool that ran (or was asked for), its arguments and result."""

    name: str
    call_id: str | None = None
    arguments: JsonValue = None
    result: JsonValue = Field(default=None, description="Parsed when it was JSON text")
    span_id: str | None = Field(default=None, description="The tool's own span; None when only requested")
    error: str | None = None


class TraceError(BaseModel, frozen=True):
    span_id: str
    span_name: str
    type: str | None = Field(default=None, description="exception.type or error.type")
    message: str = Field(default="", description="Status message or exception.message")


class SpanNode(BaseModel, frozen=True):
    """A span in the trace's tree, with what kind of work it did."""

    span_id: str
    name: str
    kind: str = Field(description="llm, tool, agent, chain, retriever, embedding or other")
    start_unix_nano: int
    duration_ms: float
    error: bool = False
    children: list[SpanNode] = Field(default_factory=list)


class TraceRecord(BaseModel):
    """One trace as Yardstick reads it: what went in, what came out, what ran, what it cost."""

    schema_version: int = SCHEMA_VERSION
    trace_id: str
    project_id: str
    application: str = Field(description="Resource service.name ('unknown_service' when unset)")
    conversation_id: str | None = Field(
        default=None, description="gen_ai.conversation.id / session.id: turns of one conversation share it"
    )
    user_id: str | None = Field(default=None, description="user.id / enduser.id when reported")
    tags: list[str] = Field(default_factory=list, description="langfuse.trace.tags, when reported")
    metadata: dict[str, JsonValue] = Field(
        default_factory=dict, description="langfuse.trace.metadata.*, when reported (values decoded)"
    )
    model: str | None = Field(default=None, description="Model of the last LLM call")
    provider: str | None = None
    models: list[str] = Field(default_factory=list, description="Every model called, in order, once each")
    input_messages: list[Message] = Field(default_factory=list, description="What went in (first LLM call)")
    output_messages: list[Message] = Field(default_factory=list, description="What came out (last call)")
    tool_calls: list[ToolCall] = Field(default_factory=list, description="The trajectory, in order")
    llm_calls: list[LlmCall] = Field(default_factory=list)
    usage: TokenUsage = Field(default_factory=TokenUsage, description="Summed over the LLM calls")
    started_at: datetime
    latency_ms: float = Field(ge=0, description="First span start to last span end")
    errors: list[TraceError] = Field(default_factory=list)
    conventions: list[Convention] = Field(default_factory=list)
    completeness: Completeness
    span_count: int
    roots: list[SpanNode] = Field(description="The span tree; several roots when parents are missing")
    notes: list[str] = Field(default_factory=list, description="What could not be read, and why")
