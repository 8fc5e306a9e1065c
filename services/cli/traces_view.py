"""Sampled traces as the terminal shows them: a list as a table, one trace as its span tree, its
messages, its tool calls, its tokens and its scores (renderers only: no API calls here)."""

from __future__ import annotations

import json

from rich import box
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from rich.tree import Tree

from yardstick.api.trace_record import SpanNode
from yardstick.api.traces import TraceDetail, TracePage

PREVIEW = 60


def _score(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def _tokens(n: int | None) -> str:
    return "—" if n is None else str(n)


def traces_table(page: TracePage) -> Table:
    table = Table(
        title=f"Traces ({len(page.items)} of {page.counted})",
        box=box.SIMPLE_HEAD,
    )
    for column in ("trace id", "started (UTC)", "application", "model", "ms", "tokens", "err", "tools"):
        table.add_column(column, no_wrap=column in ("trace id", "started (UTC)"))
    table.add_column("scores")
    table.add_column("input")
    for t in page.items:
        table.add_row(
            t.trace_id,
            t.started_at.strftime("%Y-%m-%d %H:%M:%S"),
            t.application,
            t.model or "—",
            f"{t.latency_ms:.0f}",
            _tokens(t.total_tokens),
            "[red]✗[/red]" if t.error else "",
            ", ".join(t.tool_names),
            " ".join(f"{name}={_score(value)}" for name, value in t.scores.items()),
            t.preview[:PREVIEW],
        )
    return table


def _branch(tree: Tree, node: SpanNode) -> None:
    label = Text(f"{node.name} ", style="red" if node.error else "")
    label.append(f"[{node.kind}] {node.duration_ms:.1f} ms", style="dim")
    child = tree.add(label)
    for c in node.children:
        _branch(child, c)


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)[:200]


def trace_view(trace: TraceDetail) -> RenderableType:
    record = trace.record
    head = Text.assemble(
        (f"trace {trace.trace_id}", "bold"),
        f"  {trace.application}  {trace.started_at:%Y-%m-%d %H:%M:%S} UTC  {trace.latency_ms:.0f} ms  ",
        f"model {trace.model or '—'}  tokens in {_tokens(trace.input_tokens)}"
        f" out {_tokens(trace.output_tokens)} total {_tokens(trace.total_tokens)}",
        f"  spans {trace.span_count} ({trace.completeness})",
    )
    tree = Tree("spans")
    for root in record.roots:
        _branch(tree, root)
    messages = Table(title="Messages", box=box.SIMPLE_HEAD, show_header=True)
    messages.add_column("", no_wrap=True)
    messages.add_column("role", no_wrap=True)
    messages.add_column("content")
    for direction, listed in (("in", record.input_messages), ("out", record.output_messages)):
        for m in listed:
            calls = "".join(f"\n→ {c.name}({_json(c.arguments)})" for c in m.tool_calls)
            messages.add_row(direction, m.role, m.content + calls)
    parts: list[RenderableType] = [head, tree, messages]
    if record.tool_calls:
        tools = Table(title="Tool calls", box=box.SIMPLE_HEAD)
        for column in ("tool", "arguments", "result", "error"):
            tools.add_column(column)
        for call in record.tool_calls:
            tools.add_row(call.name, _json(call.arguments), _json(call.result), call.error or "")
        parts.append(tools)
    scores = Table(title="Scores", box=box.SIMPLE_HEAD)
    for column in ("evaluator", "value", "comment"):
        scores.add_column(column)
    for s in trace.score_details:
        scores.add_row(s.name, _score(s.value), s.error or s.comment or "")
    parts.append(scores if trace.score_details else Text("no scores", style="dim"))
    parts.extend(
        Text(f"error in {e.span_name}: {e.type or ''} {e.message}", style="red") for e in record.errors
    )
    return Group(*parts)
