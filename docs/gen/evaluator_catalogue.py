"""The evaluator catalogue, read from the evaluator registry.

Everything the registry offers is read in ONE function, :func:`evaluator_entries`; the rest only
renders :class:`EvaluatorEntry` rows. When the registry's API changes (a metric spec per metric,
the registry an object), that function is the one to adapt.
"""

from __future__ import annotations

import inspect
import json
from dataclasses import dataclass
from typing import Any

from docs.gen.json_schema import cell, type_text
from shared.analysis.pass_rule import PassPolicy
from shared.contracts.evaluation import EvaluatorSpec
from shared.evaluators.registry import REGISTRY, load_builtin_evaluators


@dataclass(frozen=True)
class Argument:
    name: str
    type: str
    default: str
    description: str


@dataclass(frozen=True)
class EvaluatorEntry:
    name: str
    level: str
    description: str
    reference_free: bool
    arguments: list[Argument]
    passes: str
    """How the metric named after the evaluator passes under default arguments, and from where."""


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


def evaluator_entries() -> list[EvaluatorEntry]:
    """Every registered evaluator (built-in and plugins loaded here), by level then name."""
    load_builtin_evaluators()
    entries = []
    for e in sorted(REGISTRY.values(), key=lambda e: (e.level, e.name)):
        declared = e.criterion(e.name, {})
        if e.level == "run":
            passes = "run-level: reported beside the aggregates, never gates an item"
        elif declared is not None:
            passes = f"{declared.describe()} (declared by the evaluator)"
        elif e.passes is not None and inspect.getdoc(e.passes):
            passes = f"declared per metric: {inspect.getdoc(e.passes)}"
        else:
            default = PassPolicy(evaluators=[EvaluatorSpec(name=e.name)]).criterion(e.name)
            passes = f"{default.describe()} (default rule)"
        schema = e.arguments.model_json_schema(by_alias=True)
        entries.append(
            EvaluatorEntry(e.name, e.level, e.description, e.reference_free, _arguments(schema), passes)
        )
    return entries


def _entry(entry: EvaluatorEntry) -> list[str]:
    lines = [f"### `{entry.name}`", "", entry.description, ""]
    lines.append(f"- **Passes:** {entry.passes}")
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
        "when the experiment is submitted. The pass criterion shown is the one an experiment uses",
        "unless it overrides it (`--pass 'METRIC>=X'`); the default `pass_threshold` is 0.5.",
        "See [Evaluators and metric specs](../concepts/evaluators.md).",
        "",
        "| evaluator | level | passes |",
        "|---|---|---|",
    ]
    lines += [
        f"| [`{e.name}`](#{e.name}) | {e.level} | {cell(e.passes.split(' (', 1)[0])} |" for e in entries
    ]
    lines.append("")
    for level, title in (("item", "Item-level"), ("run", "Run-level")):
        lines += [f"## {title}", ""]
        for entry in entries:
            if entry.level == level:
                lines += _entry(entry)
    return "\n".join(lines)
