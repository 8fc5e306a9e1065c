"""Report renderers: markdown, JUnit XML and JSON, for a comparison or one experiment.

- ``comparison_markdown(report)``, ``comparison_junit(report)``, ``comparison_json(report)``
- ``experiment_markdown(run, aggregates)``, ``experiment_junit(run, aggregates)``,
  ``experiment_json(run, aggregates)`` (seed 003's summary / category_breakdown / test_results)
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, Field

from shared.analysis.aggregates import ExperimentAggregates, item_passed
from shared.analysis.comparison_models import ComparisonReport
from shared.analysis.run_data import RunData, ScoredItem
from shared.reports.junit import comparison_junit, experiment_junit
from shared.reports.markdown import comparison_markdown, experiment_markdown

UNCATEGORIZED = "uncategorized"


class EvaluationEntry(BaseModel):
    key: str
    score: float | None
    comment: str | None = None
    details: dict[str, Any] = Field(default_factory=dict)


class ItemResult(BaseModel):
    name: str = Field(description="Item id")
    trial: int
    category: str
    description: str
    success: bool
    status: str = Field(description="'ok' or 'error'")
    error: str | None
    execution_time: float | None = Field(description="Target latency in seconds")
    evaluations: list[EvaluationEntry]
    agent_response: str | None = Field(description="Target output as a JSON string")


class RunSummary(BaseModel):
    total_tests: int
    passed_tests: int
    failed_tests: int
    pass_rate: float
    avg_execution_time: float | None = Field(description="Mean latency in seconds of ok items")


class CategoryStats(BaseModel):
    count: int
    passed: int
    pass_rate: float


class ExperimentDocument(BaseModel):
    experiment_id: str
    name: str
    summary: RunSummary
    category_breakdown: dict[str, CategoryStats]
    test_results: list[ItemResult]
    aggregates: ExperimentAggregates


def comparison_json(report: ComparisonReport) -> dict[str, Any]:
    return report.model_dump(mode="json")


def _evaluations(item: ScoredItem) -> list[EvaluationEntry]:
    out: list[EvaluationEntry] = []
    seen: set[str] = set()
    for e in item.evaluations:
        seen.add(e.name)
        score = item.scores.get(e.name, e.numeric)
        details = dict(e.metadata) | ({"error": e.error} if e.error else {})
        out.append(EvaluationEntry(key=e.name, score=score, comment=e.comment, details=details))
    out += [EvaluationEntry(key=k, score=v) for k, v in item.scores.items() if k not in seen]
    return out


def _test_result(item: ScoredItem, pass_threshold: float) -> ItemResult:
    return ItemResult(
        name=item.item_id,
        trial=item.trial,
        category=str(item.metadata.get("category", UNCATEGORIZED)),
        description=str(item.metadata.get("description", "")),
        success=item_passed(item, pass_threshold),
        status=item.status,
        error=item.error,
        execution_time=None if item.latency_ms is None else item.latency_ms / 1000.0,
        evaluations=_evaluations(item),
        agent_response=None if item.output is None else json.dumps(item.output, default=str),
    )


def experiment_json(run: RunData, aggregates: ExperimentAggregates) -> dict[str, Any]:
    """Seed 003's result shape plus the full aggregates, as JSON-ready data."""
    results = [_test_result(i, aggregates.pass_threshold) for i in run.items]
    passed = sum(r.success for r in results)
    times = [r.execution_time for r in results if r.status == "ok" and r.execution_time is not None]
    categories: dict[str, list[ItemResult]] = {}
    for r in results:
        categories.setdefault(r.category, []).append(r)
    breakdown = {
        cat: CategoryStats(
            count=len(rs), passed=sum(r.success for r in rs), pass_rate=sum(r.success for r in rs) / len(rs)
        )
        for cat, rs in sorted(categories.items())
    }
    doc = ExperimentDocument(
        experiment_id=run.experiment_id,
        name=run.name,
        summary=RunSummary(
            total_tests=len(results),
            passed_tests=passed,
            failed_tests=len(results) - passed,
            pass_rate=passed / len(results) if results else 0.0,
            avg_execution_time=sum(times) / len(times) if times else None,
        ),
        category_breakdown=breakdown,
        test_results=results,
        aggregates=aggregates,
    )
    return doc.model_dump(mode="json")


__all__ = [
    "comparison_json",
    "comparison_junit",
    "comparison_markdown",
    "experiment_json",
    "experiment_junit",
    "experiment_markdown",
]
