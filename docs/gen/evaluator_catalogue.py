"""The evaluator catalogue, read from the evaluator registry.

Everything the registry offers is read in ONE function, :func:`evaluator_entries`; the rest only
renders :class:`EvaluatorEntry` rows. When the registry's API changes (a metric spec per metric,
the registry an object), that function is the one to adapt.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from docs.gen.json_schema import cell, type_text
from shared.evaluators.loading import build_registry
from shared.evaluators.registry import RegisteredEvaluator
from yardstick.api.experiment_config import DEFAULT_PASS_THRESHOLD


@dataclass(frozen=True)
class Argument:
    name: str
    type: str
    default: str
    description: str


@dataclass(frozen=True)
class MetricRow:
    metric: str
    meaning: str
    """The metric's spec in words: direction, pass criterion, regression threshold."""
    range: str


@dataclass(frozen=True)
class EvaluatorEntry:
    name: str
    level: str
    description: str
    reference_free: bool
    arguments: list[Argument]
    metrics: list[MetricRow]
    """What each metric it reports means under its default arguments (empty: not declared)."""

    @property
    def passes(self) -> str:
        """The summary shown in the catalogue's table."""
        if self.level == "run":
            return "run-level: reported beside the aggregates, never gates an item"
        if not self.metrics:
            return "not declared: higher is better, passes at >= the experiment's pass_threshold"
        return "; ".join(f"{m.metric}: {m.meaning}" for m in self.metrics)


def _arguments(schema: dict[str, Any]) -> list[Argument]:
    required = set(schema.get("required", []))
    return [
        Argument(
            name=name,
            type=type_text(spec),
            default="required" if name in required else json.dumps(spec.get("default")),
            description=spec.get("description", ""),
        )
        for name, spec in schema.get("properties", {}).items()
    ]


def _bound(value: float | None) -> str:
    return "∞" if value is None else f"{value:g}"


def _metric_rows(entry: RegisteredEvaluator) -> list[MetricRow]:
    try:
        declared = entry.metric_specs({})
    except Exception:  # a declaration that needs arguments: shown as undeclared
        return []
    return [
        MetricRow(
            metric,
            spec.resolved(DEFAULT_PASS_THRESHOLD).describe(),
            f"[{_bound(spec.range[0])}, {_bound(spec.range[1])}]{' ' + spec.unit if spec.unit else ''}",
        )
        for metric, spec in sorted(declared.items())
    ]


def evaluator_entries() -> list[EvaluatorEntry]:
    """Every evaluator of a freshly built registry (built-ins and configured plugins), by level then name."""
    entries = []
    for e in build_registry().entries():
        schema = e.arguments.model_json_schema(by_alias=True)
        entries.append(
            EvaluatorEntry(
                e.name, e.level, e.description, e.reference_free, _arguments(schema), _metric_rows(e)
            )
        )
    return entries


def _entry(entry: EvaluatorEntry) -> list[str]:
    lines = [f"### `{entry.name}`", "", entry.description, ""]
    if entry.metrics:
        lines += ["| metric | meaning (default arguments) | range |", "|---|---|---|"]
        lines += [f"| `{m.metric}` | {cell(m.meaning)} | {m.range} |" for m in entry.metrics]
        lines.append("")
    else:
        lines.append(f"- **Metrics:** {entry.passes}")
    if entry.reference_free:
        lines.append("- **Reference-free:** needs no expected output, so it can score live traffic")
    lines.append("")
    if entry.arguments:
        lines += ["| argument | type | default | description |", "|---|---|---|---|"]
        lines += [
            f"| `{a.name}` | {a.type} | `{cell(a.default)}` | {cell(a.description)} |"
            for a in entry.arguments
        ]
    else:
        lines.append("No arguments.")
    return [*lines, ""]


def evaluators_page() -> str:
    """The catalogue page: a summary table, then one section per evaluator."""
    entries = evaluator_entries()
    lines = [
        "# Evaluators",
        "",
        "Every evaluator in the registry, generated from it when the docs are built. An experiment",
        'names them as `NAME` or `NAME:{"arg": value}`; arguments are checked against the types below',
        "when the experiment is submitted. Each metric's meaning is its spec as the evaluator declares",
        "it: which way is better, when an item passes (an experiment may override it with",
        "`--pass 'METRIC>=X'`; the default `pass_threshold` is 0.5) and the change a comparison calls a",
        "regression.",
        "See [Evaluators and metric specs](../concepts/evaluators.md).",
        "",
        "| evaluator | level | metrics |",
        "|---|---|---|",
    ]
    lines += [
        f"| [`{e.name}`](#{e.name}) | {e.level} | {cell(', '.join(m.metric for m in e.metrics) or '-')} |"
        for e in entries
    ]
    lines.append("")
    for level, title in (("item", "Item-level"), ("run", "Run-level")):
        lines += [f"## {title}", ""]
        for entry in entries:
            if entry.level == level:
                lines += _entry(entry)
    return "\n".join(lines)
