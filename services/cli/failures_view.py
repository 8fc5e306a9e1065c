"""What went wrong in a run, for people: warnings, failures grouped by source (target, evaluator,
platform) and type with their most frequent message (an evaluator's as ``name@version``), the worst
failing scores (from ``GET /experiments/{id}/failures``)."""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text


def gates_view(gates: list[dict[str, Any]]) -> RenderableType | None:
    """One line per absolute gate: met (green) or missed (red), with the value."""
    if not gates:
        return None
    return Group(
        *(
            Text(
                f"{'✓' if g['passed'] else '✗'} gate {g['reason']}",
                style="green" if g["passed"] else "bold red",
            )
            for g in gates
        )
    )


def warnings_view(aggregates: dict[str, Any] | None) -> RenderableType | None:
    warnings = (aggregates or {}).get("warnings") or []
    if not warnings:
        return None
    lines = [Text(f"⚠ {w['message']}", style="bold yellow") for w in warnings]
    return Group(*lines)


def _evaluator(group: dict[str, Any]) -> str:
    """The evaluator that failed as ``name@version`` (``name`` without a version); "" for the others."""
    name, version = group.get("evaluator"), group.get("evaluator_version")
    if not name:
        return ""
    return f"{name}@{version}" if version else str(name)


def _errors_table(groups: list[dict[str, Any]]) -> Table:
    table = Table(title="Failures by source and type", title_justify="left", show_edge=False)
    table.add_column("count", justify="right")
    table.add_column("source")
    table.add_column("type", overflow="fold")
    table.add_column("evaluator", overflow="fold")
    table.add_column("message", overflow="fold")
    table.add_column("e.g.", overflow="fold")
    for g in groups:
        table.add_row(
            str(g["count"]),
            str(g.get("source") or "target"),
            str(g.get("type") or "Error"),
            _evaluator(g),
            g["message"],
            ", ".join(g["example_item_ids"]),
        )
    return table


def _failing_table(rows: list[dict[str, Any]]) -> Table:
    table = Table(title="Worst failing scores", title_justify="left", show_edge=False)
    table.add_column("item", overflow="fold")
    table.add_column("metric")
    table.add_column("value", justify="right")
    table.add_column("needs")
    table.add_column("comment", overflow="fold")
    for r in rows:
        item = r["item_id"] + (f"#{r['trial']}" if r["trial"] else "")
        value = "-" if r["value"] is None else f"{r['value']:.3f}"
        table.add_row(item, r["metric"], value, r["criterion"], r.get("comment") or "")
    return table


def failures_view(failures: dict[str, Any]) -> RenderableType | None:
    """The errors table and the failing-scores table; None when nothing failed."""
    parts: list[RenderableType] = []
    if failures.get("errors"):
        parts.append(_errors_table(failures["errors"]))
    if failures.get("failing"):
        parts.append(_failing_table(failures["failing"]))
    return Group(*parts) if parts else None
