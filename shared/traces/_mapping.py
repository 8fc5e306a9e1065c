"""One assembled trace into one :class:`TraceRecord` (pure: no I/O).

GenAI events that came as OTLP log records are first folded into their spans (``_log_records``).
Each span is read by the convention it follows (OpenInference first, then Langfuse, then GenAI in any
of its forms); a span that follows none is still in the tree. Then, for the trace:

- input: the first LLM call's input messages; output: the last LLM call's output messages (without
  LLM calls, those of the top-most span that has any: an agent span, an OpenInference chain);
- trajectory: the tool spans in start order, with the arguments of the model's request of the
  same call id when the span has none or only a bare value (a one-argument tool's input); without
  tool spans, the tool calls the models asked for, each with the result a later call was given
  (matched by call id; a result without one answers the oldest unanswered call);
- tokens summed over the LLM calls; latency from the first start to the last end; every span with
  an ERROR status listed; conversation and user ids from the top-most span that has them; Langfuse's
  trace tags and metadata from any span.

Nothing is dropped: what could not be read is a note on the record, and so is a trace whose input or
output could not be read at all (no span in a known convention, or no message content reported).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from shared.contracts.span_messages import ResourceSpans, Span, StatusCode
from shared.traces._attributes import text
from shared.traces._genai import read_genai
from shared.traces._langfuse import read_langfuse, trace_metadata, trace_tags
from shared.traces._log_records import fold_log_records
from shared.traces._openinference import read_openinference
from shared.traces._reading import SpanReading, span_error
from shared.traces._tree import pre_order, span_tree
from yardstick.api.trace_record import (
    Completeness,
    Convention,
    LlmCall,
    Message,
    TokenUsage,
    ToolCall,
    TraceRecord,
)

UNKNOWN_SERVICE = "unknown_service"


def read_span(span: Span) -> SpanReading:
    return read_openinference(span) or read_langfuse(span) or read_genai(span) or SpanReading()


def trace_record(
    project_id: str, spans: Sequence[tuple[ResourceSpans, Span]], completeness: Completeness
) -> TraceRecord:
    """The record of one trace's spans (at least one)."""
    spans, folded_notes = fold_log_records(spans)
    only_spans = [span for _, span in spans]
    readings = {span.span_id: read_span(span) for span in only_spans}
    roots, orphans = span_tree(only_spans, {sid: r.kind for sid, r in readings.items()})
    children: dict[str, list[Span]] = {}
    for span in sorted(only_spans, key=lambda s: (s.start_unix_nano, s.span_id)):
        if span.parent_span_id is not None:
            children.setdefault(span.parent_span_id, []).append(span)
    by_id = {span.span_id: span for span in only_spans}
    root_spans = [by_id[node.span_id] for node in roots]
    ordered = [readings[span.span_id] for span in pre_order(root_spans, children)]
    by_start = sorted(only_spans, key=lambda s: (s.start_unix_nano, s.span_id))
    calls = [r.llm for r in (readings[s.span_id] for s in by_start) if r.llm is not None]
    tools = [r.tool for r in (readings[s.span_id] for s in by_start) if r.tool is not None]
    start = min(span.start_unix_nano for span in only_spans)
    end = max(span.end_unix_nano for span in only_spans)
    notes = folded_notes + [note for reading in ordered for note in reading.notes]
    notes += [
        f"span {s.span_id} ({s.name}): its parent {s.parent_span_id} is not in the trace" for s in orphans
    ]
    resource = next((group.resource for group, span in spans if span.span_id == roots[0].span_id), {})
    input_messages, output_messages = _input(calls, ordered), _output(calls, ordered)
    notes += _unread(only_spans, ordered, input_messages, output_messages)
    return TraceRecord(
        trace_id=only_spans[0].trace_id,
        project_id=project_id,
        application=text(resource, "service.name") or UNKNOWN_SERVICE,
        conversation_id=next((r.conversation_id for r in ordered if r.conversation_id), None),
        user_id=next((r.user_id for r in ordered if r.user_id), None),
        model=next((c.model for c in reversed(calls) if c.model), None),
        provider=next((c.provider for c in reversed(calls) if c.provider), None),
        models=list(dict.fromkeys(c.model for c in calls if c.model)),
        tags=trace_tags(only_spans),
        metadata=trace_metadata(only_spans),
        input_messages=input_messages,
        output_messages=output_messages,
        tool_calls=_trajectory(tools, calls),
        llm_calls=calls,
        usage=_usage(calls),
        started_at=datetime.fromtimestamp(start / 1e9, UTC),
        latency_ms=max(end - start, 0) / 1e6,
        errors=[error for span in by_start if (error := span_error(span)) is not None],
        conventions=sorted({c for r in ordered for c in r.conventions}, key=list(Convention).index),
        completeness=completeness,
        span_count=len(only_spans),
        roots=roots,
        notes=notes,
    )


KNOWN = "OpenTelemetry GenAI (attributes or events), OpenLLMetry, OpenInference or Langfuse"
MAX_KEYS_NAMED = 12


def _unread(
    spans: Sequence[Span], ordered: list[SpanReading], inputs: list[Message], outputs: list[Message]
) -> list[str]:
    """Notes on what the record lacks because it could not be read."""
    if not any(reading.conventions for reading in ordered):
        keys = sorted({key for span in spans for key in span.attributes})
        shown = ", ".join(keys[:MAX_KEYS_NAMED]) + (
            f" and {len(keys) - MAX_KEYS_NAMED} more" if len(keys) > MAX_KEYS_NAMED else ""
        )
        return [
            f"not understood: none of the {len(spans)} spans follows a convention Yardstick reads ({KNOWN}), "
            f"so input, output and model are unknown; attributes seen: {shown or 'none'}"
        ]
    failed = any(span.status.code is StatusCode.ERROR for span in spans)  # explains a missing output
    missing = [
        side
        for side, found, expected in (("input", inputs, True), ("output", outputs, not failed))
        if expected and not _readable(found)
    ]
    if not missing:
        return []
    return [
        f"no {' and no '.join(missing)} could be read: none of the {len(spans)} spans carries message "
        "content (a partial trace, or an instrumentation that leaves content out unless asked, e.g. "
        "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT, or sends it as OTLP logs: POST /v1/logs)"
    ]


def _readable(messages: list[Message]) -> bool:
    return any(message.content or message.tool_calls for message in messages)


def _input(calls: list[LlmCall], ordered: list[SpanReading]) -> list[Message]:
    if calls and calls[0].input_messages:
        return calls[0].input_messages
    return next((r.input_messages for r in ordered if r.input_messages), [])


def _output(calls: list[LlmCall], ordered: list[SpanReading]) -> list[Message]:
    if calls and calls[-1].output_messages:
        return calls[-1].output_messages
    return next((r.output_messages for r in ordered if r.output_messages), [])


def _trajectory(tools: list[ToolCall], calls: list[LlmCall]) -> list[ToolCall]:
    requested = [req for call in calls for message in call.output_messages for req in message.tool_calls]
    if tools:
        asked = {req.id: req.arguments for req in requested if req.id}
        return [
            tool.model_copy(update={"arguments": asked[tool.call_id]})
            if tool.call_id in asked
            and not isinstance(tool.arguments, dict | list)
            and asked[tool.call_id] is not None
            else tool
            for tool in tools
        ]
    results = _tool_results(calls)
    seen: set[str] = set()
    out: list[ToolCall] = []
    for req in requested:
        if req.id is not None and req.id in seen:  # one call id is one step
            continue
        if req.id is not None:
            seen.add(req.id)
        result = results.get(req.id) if req.id is not None else None
        out.append(ToolCall(name=req.name, call_id=req.id, arguments=req.arguments, result=result))
    return out


def _tool_results(calls: list[LlmCall]) -> dict[str, str]:
    """Tool results by the call id they answer, from the models' input messages. A tool message
    without an id (OpenLLMetry's events leave it out) answers the oldest call still unanswered in
    the same input."""
    results: dict[str, str] = {}
    for call in calls:
        pending: list[str] = []
        for message in call.input_messages:
            if message.role == "assistant":
                pending.extend(req.id for req in message.tool_calls if req.id)
            elif message.role == "tool":
                answered = message.tool_call_id or (pending[0] if pending else None)
                if answered is not None:
                    results.setdefault(answered, message.content)
                    if answered in pending:
                        pending.remove(answered)
    return results


def _usage(calls: list[LlmCall]) -> TokenUsage:
    def total(values: list[int | None]) -> int | None:
        known = [v for v in values if v is not None]
        return sum(known) if known else None

    return TokenUsage(
        input_tokens=total([c.usage.input_tokens for c in calls]),
        output_tokens=total([c.usage.output_tokens for c in calls]),
        total_tokens=total([c.usage.total_tokens for c in calls]),
    )
