"""``yardstick score``: score a JSONL file offline with named evaluators (no servers needed).

Each input line is ``{"id"?, "input", "output", "expected_output", "metadata"}``. Each output
line (stdout, input order) is ``{"id", "line", "scores": {name: value}, "comments": {…},
"errors": {name: "Type: message"}}``. Run-level evaluators named with ``-e`` run over all items
afterwards. A summary table (mean / count / errors per score) goes to stderr.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import typer
from pydantic import BaseModel, Field, ValidationError
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from services.cli.consoles import stderr_console
from shared.evaluators import (
    EvaluatorRegistry,
    PluginLoadError,
    UnknownEvaluator,
    run_item_evaluators,
    run_run_evaluators,
)
from shared.evaluators.item_results import ItemResult
from yardstick.api.evaluation import Evaluation, EvaluatorSpec

USAGE_ERROR = 2


class ScoreInputError(ValueError):
    """The JSONL file or an ``--evaluator`` option cannot be used; the message says where."""


class ScoreRecord(BaseModel):
    id: str | int | None = None
    input: Any = None
    output: Any = None
    expected_output: Any = None
    metadata: dict[str, Any] = Field(default_factory=dict)


class ScoredLine(BaseModel):
    id: str | int | None
    line: int
    scores: dict[str, float | bool | None]
    comments: dict[str, str | None]
    errors: dict[str, str]


def parse_evaluator_option(registry: EvaluatorRegistry, option: str) -> tuple[EvaluatorSpec, str]:
    """``NAME[:JSON_ARGS]`` → (spec, level). Raises :class:`ScoreInputError`."""
    try:
        spec = EvaluatorSpec.parse(option)
    except ValueError as exc:
        raise ScoreInputError(f"--evaluator: {exc}") from exc
    entry = registry.find(spec.name)
    if entry is None:
        known = (e.name for e in registry.entries())
        raise ScoreInputError(str(UnknownEvaluator(spec.name, "item", known)) + " (or a run-level evaluator)")
    return spec, entry.level


def read_records(path: Path) -> list[tuple[int, ScoreRecord]]:
    """Non-blank lines of ``path`` as records with their 1-based line numbers."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ScoreInputError(f"cannot read {path}: {exc.strerror or exc}") from exc
    records: list[tuple[int, ScoreRecord]] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            records.append((number, ScoreRecord.model_validate_json(line)))
        except ValidationError as exc:
            problem = exc.errors()[0]
            if problem["type"] == "json_invalid":
                raise ScoreInputError(f"{path}: line {number}: invalid JSON: {problem['msg']}") from exc
            where = ".".join(str(p) for p in problem["loc"]) or "(record)"
            raise ScoreInputError(f"{path}: line {number}: {where}: {problem['msg']}") from exc
    return records


def _scored(number: int, record: ScoreRecord, evaluations: list[Evaluation]) -> ScoredLine:
    return ScoredLine(
        id=record.id,
        line=number,
        scores={e.name: e.value for e in evaluations},
        comments={e.name: e.comment for e in evaluations},
        errors={e.name: e.error for e in evaluations if e.error},
    )


async def score_records(
    registry: EvaluatorRegistry,
    records: list[tuple[int, ScoreRecord]],
    item_specs: list[EvaluatorSpec],
    run_specs: list[EvaluatorSpec],
) -> tuple[list[ScoredLine], list[Evaluation], list[list[Evaluation]]]:
    """Score every record (in order), then run the run-level evaluators over the results."""
    lines: list[ScoredLine] = []
    per_item: list[list[Evaluation]] = []
    results: list[ItemResult] = []
    for number, record in records:
        evaluations = await run_item_evaluators(
            registry,
            item_specs,
            input=record.input,
            output=record.output,
            expected_output=record.expected_output,
            metadata=record.metadata,
        )
        per_item.append(evaluations)
        lines.append(_scored(number, record, evaluations))
        results.append(
            ItemResult(
                item_id=None if record.id is None else str(record.id),
                input=record.input,
                output=record.output,
                expected_output=record.expected_output,
                metadata=record.metadata,
                evaluations=evaluations,
            )
        )
    run_scores = await run_run_evaluators(registry, run_specs, item_results=results) if run_specs else []
    return lines, run_scores, per_item


def summary_table(per_item: list[list[Evaluation]], run_scores: list[Evaluation]) -> Table:
    """Mean / count / errors per score name (first-seen order), then run-level scores."""
    values: dict[str, list[float]] = {}
    errors: dict[str, int] = {}
    for evaluations in per_item:
        for e in evaluations:
            values.setdefault(e.name, [])
            errors.setdefault(e.name, 0)
            if e.error:
                errors[e.name] += 1
            elif e.numeric is not None:
                values[e.name].append(e.numeric)
    table = Table(title="Scores")
    for column in ("evaluator", "mean", "count", "errors"):
        table.add_column(column, justify="left" if column == "evaluator" else "right")
    for name, found in values.items():
        mean = f"{sum(found) / len(found):.3f}" if found else "-"
        table.add_row(Text(name), mean, str(len(found)), str(errors[name]))
    for e in run_scores:
        value = "-" if e.numeric is None else f"{e.numeric:.3f}"
        table.add_row(
            Text(f"{e.name} (run)"), value, "1" if e.numeric is not None else "0", "1" if e.error else "0"
        )
    return table


def score_command(
    file: Path = typer.Argument(..., help="JSONL file of {id?, input, output, expected_output, metadata}"),
    evaluator: list[str] = typer.Option(
        ..., "--evaluator", "-e", help="NAME or NAME:JSON_ARGS, e.g. -e 'retrieval:{\"ks\":[5]}' (repeatable)"
    ),
) -> None:
    """Score a JSONL file of outputs with named evaluators; one JSON line per record on stdout."""
    err = stderr_console()
    # Evaluator failures are reported per line ("errors") and in the table; no tracebacks.
    logging.getLogger("shared.evaluators").setLevel(logging.ERROR)
    from shared.evaluators.loading import build_registry  # every evaluator module: not at CLI start-up

    try:
        registry = build_registry()
        parsed = [parse_evaluator_option(registry, option) for option in evaluator]
        records = read_records(file)
    except (ScoreInputError, PluginLoadError) as exc:
        err.print(f"[bold red]error:[/] {escape(str(exc))}", highlight=False, soft_wrap=True)
        raise typer.Exit(USAGE_ERROR) from exc
    item_specs = [spec for spec, level in parsed if level == "item"]
    run_specs = [spec for spec, level in parsed if level == "run"]
    lines, run_scores, per_item = asyncio.run(score_records(registry, records, item_specs, run_specs))
    for line in lines:
        typer.echo(line.model_dump_json())
    err.print(summary_table(per_item, run_scores))
