"""The span tree of one trace (built without recursion: a deep chain of spans cannot overflow)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from shared.contracts.span_messages import Span, StatusCode
from shared.traces._reading import duration_ms
from yardstick.api.trace_record import SpanNode


def span_tree(spans: Sequence[Span], kinds: Mapping[str, str]) -> tuple[list[SpanNode], list[Span]]:
    """The roots (spans whose parent is not in the trace), and which of them had a parent id."""
    ids = {span.span_id for span in spans}
    children: dict[str, list[Span]] = {}
    roots: list[Span] = []
    for span in sorted(spans, key=lambda s: (s.start_unix_nano, s.span_id)):
        if (
            span.parent_span_id is not None
            and span.parent_span_id in ids
            and span.parent_span_id != span.span_id
        ):
            children.setdefault(span.parent_span_id, []).append(span)
        else:
            roots.append(span)
    built: dict[str, SpanNode] = {}
    for span in _post_order(roots, children):
        built[span.span_id] = SpanNode(
            span_id=span.span_id,
            name=span.name,
            kind=kinds.get(span.span_id, "other"),
            start_unix_nano=span.start_unix_nano,
            duration_ms=duration_ms(span),
            error=span.status.code is StatusCode.ERROR,
            children=[built[child.span_id] for child in children.get(span.span_id, [])],
        )
    for span in spans:  # unreachable from any root (a cycle of parent ids): a root of its own
        if span.span_id not in built:
            built[span.span_id] = SpanNode(
                span_id=span.span_id,
                name=span.name,
                kind=kinds.get(span.span_id, "other"),
                start_unix_nano=span.start_unix_nano,
                duration_ms=duration_ms(span),
                error=span.status.code is StatusCode.ERROR,
            )
            roots.append(span)
    orphans = [span for span in roots if span.parent_span_id is not None]
    return [built[root.span_id] for root in roots], orphans


def pre_order(roots: Sequence[Span], children: Mapping[str, Sequence[Span]]) -> list[Span]:
    out: list[Span] = []
    stack = list(reversed(roots))
    seen: set[str] = set()
    while stack:
        span = stack.pop()
        if span.span_id in seen:
            continue
        seen.add(span.span_id)
        out.append(span)
        stack.extend(reversed(children.get(span.span_id, [])))
    return out


def _post_order(roots: Sequence[Span], children: Mapping[str, Sequence[Span]]) -> list[Span]:
    """Children before their parent; a span is visited once (a cycle of ids cannot loop)."""
    return list(reversed(_reverse_pre_order(roots, children)))


def _reverse_pre_order(roots: Sequence[Span], children: Mapping[str, Sequence[Span]]) -> list[Span]:
    out: list[Span] = []
    stack = list(roots)
    seen: set[str] = set()
    while stack:
        span = stack.pop()
        if span.span_id in seen:
            continue
        seen.add(span.span_id)
        out.append(span)
        stack.extend(children.get(span.span_id, []))
    return out
