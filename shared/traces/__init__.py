"""OpenTelemetry spans into traces, and traces into one typed record (pure: no I/O).

- :class:`TraceAssembler` with its :class:`AssemblyPolicy`: when a trace is complete;
- :func:`trace_record`: the GenAI semantic conventions (attributes, the events on spans or sent as
  OTLP logs, OpenLLMetry's flattened form), OpenInference and the Langfuse SDKs' attributes into one
  :class:`TraceRecord`: application,
  conversation, model and provider, messages, the tool trajectory, tokens, latency, errors, the
  span tree, Langfuse's tags and metadata, notes on what could not be read.
"""

from shared.traces._assembly import AssembledTrace, AssemblyPolicy, TraceAssembler
from shared.traces._mapping import read_span, trace_record

__all__ = [
    "AssembledTrace",
    "AssemblyPolicy",
    "TraceAssembler",
    "read_span",
    "trace_record",
]
